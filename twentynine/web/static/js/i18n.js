// The message catalog: every word of the interface comes from i18n/<lang>.json.
// Keys missing from a language fall back to English. Placeholders are {name};
// plurals use "key.one" / "key.other" (Intl.PluralRules picks the form).

let catalog = {};
let fallback = {};
let lang = "en";
let plurals = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

export const LANGUAGES = ["en"];

async function fetchCatalog(code) {
  const res = await fetch(`/static/i18n/${code}.json`);
  if (!res.ok) throw new Error(`catalog ${code}: ${res.status}`);
  return res.json();
}

export async function loadCatalog(code = "en") {
  fallback = await fetchCatalog("en");
  catalog = fallback;
  lang = "en";
  if (code !== "en") {
    try {
      catalog = await fetchCatalog(code);
      lang = code;
    } catch {
      catalog = fallback;
    }
  }
  plurals = new Intl.PluralRules(lang);
  numbers = new Intl.NumberFormat(lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = catalog["meta.dir"] || "ltr";
}

export function has(key) {
  return key in catalog || key in fallback;
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, name) => {
    if (!(name in params)) return m;
    const v = params[name];
    return typeof v === "number" ? numbers.format(v) : String(v);
  });
}

export function t(key, params = {}) {
  let text = catalog[key] ?? fallback[key];
  if (text === undefined && "count" in params) {
    const form = plurals.select(params.count);
    text = catalog[`${key}.${form}`] ?? fallback[`${key}.${form}`] ?? fallback[`${key}.other`];
  }
  if (text === undefined) {
    console.warn("missing message", key);
    return key;
  }
  return fill(text, params);
}

export function num(n) {
  return numbers.format(n);
}

// Apply the catalog to static markup: data-i18n (text), data-i18n-aria, data-i18n-title.
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]"))
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-title]"))
    el.setAttribute("title", t(el.dataset.i18nTitle));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]"))
    el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder));
}
