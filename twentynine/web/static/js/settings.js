// Player preferences, kept in this browser (localStorage).

const KEY = "twentynine.settings";

export const DEFAULTS = {
  lang: "auto", // auto: the first of the browser's languages with a catalog; or en, bn, hi, ne
  digits: "auto", // auto: the language's usual digits; native; latn
  theme: "auto", // auto | light | dark
  fourColour: false,
  motion: "auto", // auto | reduced
  oneTap: false, // a tap on a legal card plays it at once
  autoNext: false, // go on to the next trick by itself
  keyHints: true,
  autoPair: false,
  sound: false, // sounds of the game (sound.js), off until asked for
  volume: 50, // 0-100
};

let current = { ...DEFAULTS };

export function loadSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "{}");
    current = { ...DEFAULTS, ...saved };
  } catch {
    current = { ...DEFAULTS };
  }
  apply();
  return current;
}

export function settings() {
  return current;
}

export function update(changes) {
  current = { ...current, ...changes };
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    /* private mode: settings last for this page only */
  }
  apply();
  return current;
}

// The system's wish for less motion, asked once and kept up to date: it is
// read at every motion, and each matchMedia() call makes a new query list
// that the browser evaluates again at every change of the page's media.
const systemQuery = window.matchMedia?.("(prefers-reduced-motion: reduce)") ?? null;
let systemReduced = !!systemQuery?.matches;
systemQuery?.addEventListener?.("change", (e) => {
  systemReduced = e.matches;
});

export function reducedMotion() {
  return current.motion === "reduced" || systemReduced;
}

function apply() {
  const root = document.documentElement;
  root.dataset.theme = current.theme;
  root.classList.toggle("four-colour", !!current.fourColour);
  root.classList.toggle("reduce-motion", current.motion === "reduced");
  root.classList.toggle("no-key-hints", !current.keyHints);
}
