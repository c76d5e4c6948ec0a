// The message catalog: every word of the interface comes from i18n/<lang>.json.
// Keys missing from a language fall back to English. Placeholders are {name};
// plurals use "key.one" / "key.other" (Intl.PluralRules picks the form).
// Numbers go through Intl.NumberFormat with the catalog's own digits
// ("meta.digits": latn, beng or deva), which a player may override.

let catalog = {};
let fallback = {};
let lang = "en";
let digits = "latn";
let toLatin = null; // the language's own digits written in its messages, when 0-9 are chosen
let plurals = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

// The catalogs shipped in i18n/, in the order the picker lists them.
export const LANGUAGES = ["en", "bn", "hi", "ne"];

async function fetchCatalog(code) {
  const res = await fetch(`/static/i18n/${code}.json`);
  if (!res.ok) throw new Error(`catalog ${code}: ${res.status}`);
  return res.json();
}

// The first of the browser's languages that has a catalog (bn-BD and bn-IN
// both mean bn), else English.
export function preferredLanguage(list = navigator.languages || [navigator.language]) {
  for (const tag of list || []) {
    const base = String(tag || "").toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

// The digits a language writes by default (its catalog says), or the player's choice.
function digitsFor(choice) {
  if (choice === "latn") return "latn";
  const own = catalog["meta.native_digits"] || "latn";
  if (choice === "native") return own;
  return catalog["meta.digits"] || "latn";
}

// The locale tag for Intl: the language with its digits ("bn-u-nu-latn").
export function locale() {
  return `${lang}-u-nu-${digits}`;
}

export function language() {
  return lang;
}

// The language's own digits, and whether they differ from 0-9 (English has none of its own).
export function nativeDigits() {
  return catalog["meta.native_digits"] || "latn";
}

export async function loadCatalog(code = "en", digitChoice = "auto") {
  if (!LANGUAGES.includes(code)) code = "en";
  if (!fallback["meta.dir"]) fallback = await fetchCatalog("en");
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
  setDigits(digitChoice);
  plurals = new Intl.PluralRules(lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = catalog["meta.dir"] || "ltr";
}

// Change the digits without reloading the catalog ("auto", "native" or "latn").
export function setDigits(choice = "auto") {
  digits = digitsFor(choice);
  // a browser without the language's number data (Chromium and Nepali) would
  // drop the digits asked for: English data with the same digits writes them
  const base = Intl.NumberFormat.supportedLocalesOf([lang]).length ? lang : "en";
  numbers = new Intl.NumberFormat(`${base}-u-nu-${digits}`, { useGrouping: false });
  const zero = { beng: 0x09e6, deva: 0x0966 }[nativeDigits()];
  toLatin = digits === "latn" && zero ? new RegExp(`[${String.fromCharCode(zero)}-${String.fromCharCode(zero + 9)}]`, "g") : null;
}

// Digits written in a message ("ডাবল ×২") follow the player's choice of 0-9.
function digitsOf(text) {
  if (!toLatin) return text;
  return text.replace(toLatin, (d) => String(d.charCodeAt(0) - (d.charCodeAt(0) >= 0x09e6 ? 0x09e6 : 0x0966)));
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
    text = catalog[`${key}.${form}`] ?? catalog[`${key}.other`] ?? fallback[`${key}.${form}`] ?? fallback[`${key}.other`];
  }
  if (text === undefined) {
    console.warn("missing message", key);
    return key;
  }
  return fill(digitsOf(text), params);
}

export function num(n) {
  return numbers.format(n);
}

// A date and time in the language. A browser may lack the language's names of
// months (Chromium has none for Nepali): then the date is written in figures,
// year first, in the language's digits (२०२६-१२-०१ २३:१९), never in English.
export function formatDate(date) {
  const d = date instanceof Date ? date : new Date(date);
  if (Number.isNaN(d.getTime())) return "";
  if (Intl.DateTimeFormat.supportedLocalesOf([lang]).length)
    return new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "short" }).format(d);
  const parts = new Intl.DateTimeFormat(`en-CA-u-nu-${digits}`, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(d);
  const part = (type) => parts.find((p) => p.type === type)?.value || "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}`;
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
