// What the page tells the player beside the table: a passing note (toast),
// the lines read out to a screen reader and kept in the game's log, and what
// the server refused, in the page's language.

import { $, h, replace, whenIdle } from "./dom.js";
import { has, language, locale, t } from "./i18n.js";
import { seatName } from "./model.js";

let toastTimer = null;
export function toast(text, kind = "info") {
  const el = $("#toast");
  replace(el, text);
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 3600);
}

// Read out and kept in the log in idle time: neither is seen on the table, and
// adding to them at an update restyles the page in the frames its motion wants.
const idle = (fn) => whenIdle(fn, 400);
let waiting = [];

export function announce(lines) {
  if (!waiting.length) idle(() => say(waiting.splice(0)));
  waiting.push(...lines);
}

// A new game: its log starts empty, and the last game's lines not yet added are dropped.
export function clearLog() {
  waiting = [];
  replace($("#log-list"));
}

function say(lines) {
  const live = $("#live");
  for (const line of lines) live.append(h("p", {}, line));
  while (live.childElementCount > 6) live.firstElementChild.remove();
  const log = $("#log-list");
  if (log) {
    for (const line of lines) log.append(h("li", {}, line));
    while (log.childElementCount > 80) log.firstElementChild.remove();
    // the newest line in view, when the log is open (shut, it is scrolled when it opens: main.js)
    if (log.closest("details")?.open) log.scrollTop = log.scrollHeight;
  }
}

// What the server refused, in the page's language: the reason when the server
// names one (error.reason.*), else the code's sentence. The server's own detail
// is English, so it is added only to the English page.
export function errorText(err) {
  if (!err) return t("error.unknown");
  const english = language() === "en";
  if (err.reason && has(`error.reason.${err.reason}`)) return t(`error.reason.${err.reason}`, reasonParams(err.params));
  const key = `error.${err.code}`;
  if (!has(key)) return english && err.message ? err.message : t("error.unknown");
  const text = t(key);
  if (!text) return ""; // a request dropped on leaving a game says nothing
  if (err.message && !english) console.info("server:", err.message);
  return english && err.message ? t("error.detail", { text, detail: err.message }) : text;
}

function reasonParams(params) {
  const out = { ...(params || {}) };
  if (typeof out.seat === "number") out.seat = seatName(out.seat);
  if (Array.isArray(out.seats)) out.seats = new Intl.ListFormat(locale(), { type: "unit" }).format(out.seats.map(seatName));
  return out;
}
