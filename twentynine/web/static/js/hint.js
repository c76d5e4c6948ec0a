// The hint and the bidding advisor at the table, on request: a Hint button (key I)
// that shows in one line what the expert would do and why, and during the auction
// a Bid chances button (key T) with the chance to make each bid with each trump
// for your four cards. Both are asked of the server (GET /api/games/<id>/hint and
// /advice), which works them out from this seat's own view in the bots' pool and
// refuses them where the game's setup has the hint off (a match that counts, a
// table of several people). Nothing here is computed in the page.

import { SYMBOL } from "./cards.js";
import { h } from "./dom.js";
import { label } from "./analysis.js";
import { t } from "./i18n.js";
import { myTurn } from "./model.js";

// What is shown: {key, kind: "hint"|"advice", state: "busy"|"done"|"error", data, error}.
// `key` names the decision (game, seat, state version): a new decision clears it.
let shown = null;
let shownAt = 0; // counts the changes of `shown` (the table's key for the hint's part)
let redraw = () => {};

function show(what) {
  shown = what;
  shownAt += 1;
}

function decisionKey(ctx) {
  return `${ctx.id}:${ctx.obs.seat}:${ctx.v}`;
}

export function hintOffered(ctx) {
  return !!(ctx.setup?.hint && ctx.id && ctx.token && myTurn(ctx.obs));
}

async function ask(ctx, kind) {
  const key = decisionKey(ctx);
  show({ key, kind, state: "busy" });
  redraw();
  const url = `/api/games/${encodeURIComponent(ctx.id)}/${kind}?token=${encodeURIComponent(ctx.token)}&seat=${ctx.obs.seat}`;
  let got;
  try {
    const res = await fetch(url, { cache: "no-store" });
    const body = await res.json().catch(() => ({}));
    got = res.ok ? { state: "done", data: body[kind] } : { state: "error", error: body?.error || String(res.status) };
  } catch {
    got = { state: "error", error: t("hint.offline") };
  }
  if (shown?.key !== key || shown.kind !== kind) return; // the table moved on meanwhile
  show({ key, kind, ...got });
  redraw();
}

function pct(p) {
  return p === null || p === undefined ? "" : t("hint.percent", { p: Math.round(100 * p) });
}

// The one line of a hint, in the catalog's words (see services/analysis/hint.py).
export function hintText(hint) {
  const beats = hint.reason === "beats";
  const chance = (c) => (c.p_make === null || c.p_make === undefined ? null : beats ? 1 - c.p_make : c.p_make);
  const choice = label(hint.best);
  const points = (c) => (c.points === null || c.points === undefined ? "" : c.points.toFixed(1));
  const score = (c) => (c.score >= 0 ? "+" : "") + c.score.toFixed(2);
  let head;
  let cell = (c) => pct(chance(c));
  let others = hint.others;
  switch (hint.reason) {
    case "makes":
    case "beats":
    case "model":
      head = t(`hint.${hint.reason}`, { choice, p: pct(chance(hint.best)) });
      break;
    case "model-pass":
      others = others.filter((c) => c.p_make !== null && c.p_make !== undefined);
      head = t("hint.model_pass", { choice, p: pct(chance(others[0])) });
      break;
    case "points":
      head = t("hint.points", { choice, p: pct(chance(hint.best)), points: points(hint.best) });
      cell = points;
      break;
    default:
      head = t("hint.score", { choice, score: score(hint.best) });
      cell = score;
  }
  if (!others.length) return head;
  const rest = others.map((c) => `${label(c)} ${cell(c)}`.trim()).join(t("hint.list_sep"));
  return t("hint.with_others", { head, others: rest });
}

function adviceTable(advice) {
  const bids = Object.keys(advice.suits[0].p_make).filter((b) => !advice.legal_bids.length || advice.legal_bids.includes(Number(b)));
  return h(
    "table",
    { class: "advice-table", dataset: { testid: "advice-table" } },
    h("caption", {}, t("hint.advice_caption")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("hint.advice_trump")), h("th", { scope: "col" }, t("hint.advice_expected")), bids.map((b) => h("th", { scope: "col" }, b)))),
    h(
      "tbody",
      {},
      advice.suits.map((s) =>
        h(
          "tr",
          { class: s.trump === advice.best_trump ? "best" : "", dataset: { trump: s.trump } },
          h("th", { scope: "row" }, SYMBOL[s.trump]),
          h("td", {}, s.expected.toFixed(1)),
          bids.map((b) => h("td", { class: s.p_make[b] >= 0.5 ? "even" : "" }, pct(s.p_make[b]))),
        ),
      ),
    ),
  );
}

// A new decision clears the answer shown for the last one.
function expire(ctx) {
  if (shown && shown.key !== decisionKey(ctx)) show(null);
}

// What the hint's part of the controls draws from: whether it is offered, for
// which decision, what it shows (the table draws its controls again when this changes).
export function hintKey(ctx) {
  redraw = ctx.rerender || redraw;
  if (!hintOffered(ctx)) return null;
  expire(ctx);
  return [decisionKey(ctx), ctx.obs.phase, shownAt];
}

// The hint's buttons and answer, for the table's controls (none where it is not offered). `ctx`: {id, token,
// setup, obs (the seat's view), v (the state's version), rerender}.
export function hintControls(ctx) {
  redraw = ctx.rerender || redraw;
  if (!hintOffered(ctx)) return [];
  expire(ctx);
  const buttons = [h("button", { type: "button", class: "quiet", dataset: { testid: "hint", key: "I" }, "aria-keyshortcuts": "I", onclick: () => ask(ctx, "hint") }, t("hint.button"))];
  if (ctx.obs.phase === "auction") {
    buttons.push(h("button", { type: "button", class: "quiet", dataset: { testid: "advice", key: "T" }, "aria-keyshortcuts": "T", onclick: () => ask(ctx, "advice") }, t("hint.advice_button")));
  }
  const parts = [h("div", { class: "choice-row hint-row", dataset: { key: "row:hint" } }, buttons)];
  if (shown) {
    let body;
    if (shown.state === "busy") body = t("hint.thinking");
    else if (shown.state === "error") body = t("hint.failed", { text: shown.error });
    else if (shown.kind === "hint") body = hintText(shown.data);
    else body = adviceTable(shown.data);
    parts.push(h("div", { class: "hint-line", role: "status", dataset: { testid: `${shown.kind}-answer`, state: shown.state, key: "row:answer" } }, body));
  }
  return parts;
}

function typing(el) {
  return el && (el.matches("input, textarea, select") || el.isContentEditable);
}

// I asks for the hint, T for the bid chances, when their buttons are on the table.
export function installHintKeys() {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(document.activeElement)) return;
    if (document.querySelector("dialog[open]")) return;
    const k = e.key.length === 1 ? e.key.toLowerCase() : "";
    const testid = { i: "hint", t: "advice" }[k];
    const btn = testid && document.querySelector(`#controls [data-testid="${testid}"]`);
    if (!btn) return;
    e.preventDefault();
    btn.click();
  });
}
