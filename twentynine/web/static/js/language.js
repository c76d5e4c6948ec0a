// The language picker (in Settings and on the first screen) and what a
// change of language or digits does: load the catalog, remember the choice,
// and let the page redraw what it shows without a reload.

import { h, s } from "./dom.js";
import { LANGUAGES, language, loadCatalog, nativeDigits, preferredLanguage, setDigits, t } from "./i18n.js";
import { settings, update } from "./settings.js";

// The language to show: the player's choice, else the browser's.
export function chosenLanguage() {
  const lang = settings().lang;
  return LANGUAGES.includes(lang) ? lang : preferredLanguage();
}

export async function applyLanguage() {
  await loadCatalog(chosenLanguage(), settings().digits);
}

// A <select> of the languages, each named in its own words ("বাংলা").
export function languageSelect(id, onChanged) {
  return h(
    "select",
    {
      id,
      dataset: { testid: id },
      onchange: async (e) => {
        update({ lang: e.target.value });
        await applyLanguage();
        onChanged?.();
      },
    },
    LANGUAGES.map((code) => h("option", { value: code, lang: code, selected: code === language() }, t(`lang.${code}`))),
  );
}

// Digits: as the language usually writes them, its own, or 0-9 (only for a
// language that has digits of its own).
export function digitsSelect(id, onChanged) {
  if (nativeDigits() === "latn") return null;
  const sample = (nu) => new Intl.NumberFormat(`en-u-nu-${nu}`, { useGrouping: false }).format(29);
  const usual = t("meta.digits");
  const other = usual === "latn" ? ["native", t("settings.digits_native", { sample: sample(nativeDigits()) })] : ["latn", t("settings.digits_latin", { sample: sample("latn") })];
  const choices = [["auto", t("settings.digits_auto", { sample: sample(usual) })], other];
  return h(
    "select",
    {
      id,
      dataset: { testid: id },
      onchange: (e) => {
        update({ digits: e.target.value });
        setDigits(e.target.value);
        onChanged?.();
      },
    },
    choices.map(([v, label]) => h("option", { value: v, selected: (settings().digits || "auto") === v }, label)),
  );
}

// A globe drawn as the top bar's icons are (an emoji may have no font here).
function globe() {
  return s(
    "svg",
    { class: "icon lang-globe", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" },
    s("circle", { cx: 12, cy: 12, r: 9, fill: "none", stroke: "currentColor", "stroke-width": 1.8 }),
    s("path", { d: "M3 12h18M12 3c2.6 2.6 3.8 5.6 3.8 9s-1.2 6.4-3.8 9c-2.6-2.6-3.8-5.6-3.8-9S9.4 5.6 12 3z", fill: "none", stroke: "currentColor", "stroke-width": 1.8 }),
  );
}

// The small picker shown above the new-game form, so a player who cannot read
// the first screen can change it at once.
export function languageBar(onChanged) {
  const id = "first-lang";
  return h(
    "div",
    { class: "lang-bar", lang: language() },
    h("label", { for: id }, globe(), t("settings.language")),
    languageSelect(id, onChanged),
  );
}
