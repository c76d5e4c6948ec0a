// The guided first game: one prepared deal, walked step by step.
//
// The steps come from /static/guide.json, which twentynine/web/guide.py writes by
// playing a fixed script through the real engine: each step holds what the
// table looks like, the catalog key of its one sentence and, on the
// newcomer's turn, the move the guide asks for and every legal move. The page
// needs no server and no Pyodide for it (it works offline from the service
// worker's cache), and a refused move is explained from the same data: a card
// the rules forbid (you must follow suit), or a legal move that is not the
// one this step is about.
//
// It is offered once, on the first visit (a dismissible line above the new
// game form, never a dialog in the way), and always from How to play.

import { cardFace, cardName, cardShort, pointsOf, RANKS, suitIcon, suitName } from "./cards.js";
import { $, h, replace } from "./dom.js";
import { num, t } from "./i18n.js";
import { seatName } from "./model.js";

const OFFERED = "twentynine.guide";
const SEAT_PLACE = ["south", "west", "north", "east"];

let script = null;
let at = 0;
let finish = () => {};

// Where the guide goes when it is over: main.js passes the start screen.
export function installGuide({ onFinish }) {
  finish = onFinish;
}

function remembered() {
  try {
    return localStorage.getItem(OFFERED) !== null;
  } catch {
    return true; // no storage: do not offer on every page
  }
}

function remember(how) {
  try {
    localStorage.setItem(OFFERED, how);
  } catch {
    /* ignore */
  }
}

// The offer to a newcomer: a line above `before`, shown on the first visit only.
export function offerGuide(before) {
  if (remembered() || !before || $("#guide-offer")) return;
  remember("offered");
  const offer = h(
    "aside",
    { id: "guide-offer", class: "guide-offer", role: "note", dataset: { testid: "guide-offer" } },
    h("p", {}, h("strong", { dataset: { i18n: "guide.offer_title" } }, t("guide.offer_title")), " ", h("span", { dataset: { i18n: "guide.offer_body" } }, t("guide.offer_body"))),
    h(
      "div",
      { class: "guide-offer-buttons" },
      h("button", { type: "button", class: "primary", dataset: { testid: "guide-offer-start", i18n: "guide.offer_start" }, onclick: () => { offer.remove(); remember("started"); openGuide(); } }, t("guide.offer_start")),
      h("button", { type: "button", class: "quiet", dataset: { testid: "guide-offer-dismiss", i18n: "guide.offer_dismiss" }, onclick: () => { offer.remove(); remember("dismissed"); } }, t("guide.offer_dismiss")),
    ),
  );
  before.before(offer);
}

async function loadScript() {
  if (script) return script;
  const res = await fetch("/static/guide.json", { cache: "no-cache" });
  if (!res.ok) throw new Error(t("guide.missing"));
  script = await res.json();
  return script;
}

function dialogEl() {
  let dlg = document.getElementById("dlg-guide");
  if (!dlg) {
    dlg = h("dialog", { id: "dlg-guide", class: "page guide", "aria-labelledby": "dlg-guide-title", dataset: { testid: "guide" } });
    document.body.append(dlg);
  }
  return dlg;
}

export async function openGuide() {
  const dlg = dialogEl();
  if (!dlg.open) dlg.showModal();
  try {
    await loadScript();
  } catch (err) {
    replace(dlg, h("div", { class: "page-inner" }, h("p", { role: "alert" }, err.message), h("button", { type: "button", onclick: () => dlg.close() }, t("ctl.close"))));
    return;
  }
  at = 0;
  draw();
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function refuse(text) {
  const el = $("#guide-refusal");
  replace(el, text);
  el.hidden = false;
}

// Why the newcomer's move is not this step's: the rules, or the lesson.
function why(step, move) {
  if (!step.do) return t("guide.refuse_wait");
  if (move.play && step.do.play) {
    const legal = step.legal.some((m) => m.play === move.play);
    if (!legal) {
      const led = step.view.trick[0]?.[1]?.slice(-1);
      return t("guide.refuse_follow", { card: cardName(move.play), suit: led ? suitName(led) : "" });
    }
    return t("guide.refuse_other", { card: cardName(move.play), wanted: cardName(step.do.play) });
  }
  if (step.do.bid) return t("guide.refuse_bid", { bid: num(step.do.bid) });
  if (step.do.trump) return t("guide.refuse_trump", { suit: suitName(step.do.trump) });
  if (step.do.pair) return t("guide.refuse_pair");
  return t("guide.refuse_wait");
}

function attempt(move) {
  const step = script.steps[at];
  if (step.do && same(move, step.do)) {
    at += 1;
    draw();
    return;
  }
  refuse(why(step, move));
}

function next() {
  const step = script.steps[at];
  if (step.end) {
    dialogEl().close();
    finish();
    return;
  }
  at += 1;
  draw();
}

function seatBox(view, seat) {
  const played = view.trick.find(([s]) => s === seat);
  return h(
    "div",
    { class: `guide-seat guide-${SEAT_PLACE[seat]}`, dataset: { seat: String(seat), winner: String(view.winner === seat) } },
    h("span", { class: "guide-seat-name" }, seat === script.you ? t("player.you") : seatName(seat)),
    played ? h("span", { class: "mini-card", role: "img", "aria-label": cardName(played[1]), dataset: { card: played[1] } }, cardFace(played[1])) : h("span", { class: "mini-card empty" }),
  );
}

function facts(view) {
  const trump = view.trump ? h("span", {}, suitIcon(view.trump), " ", view.revealed ? t("guide.trump_shown") : t("guide.trump_secret")) : t("value.none");
  return h(
    "dl",
    { class: "guide-facts", dataset: { testid: "guide-facts" } },
    h("dt", {}, t("guide.fact_bid")),
    h("dd", { dataset: { testid: "guide-bid" } }, view.bid ? `${num(view.bid)} · ${seatName(view.bidder)}` : t("value.none")),
    h("dt", {}, t("guide.fact_target")),
    h("dd", { dataset: { testid: "guide-target" } }, view.target ? num(view.target) : t("value.none")),
    h("dt", {}, t("guide.fact_trump")),
    h("dd", { dataset: { testid: "guide-trump" } }, trump),
    h("dt", {}, t("guide.fact_points")),
    h("dd", { dataset: { testid: "guide-points" } }, t("guide.points", { us: num(view.points[0]), them: num(view.points[1]) })),
  );
}

function auctionLine(view) {
  if (!view.auction.length || view.target) return null;
  return h(
    "p",
    { class: "guide-auction muted" },
    view.auction.map((a) => `${seatName(a.seat)}: ${a.bid ? num(a.bid) : t("guide.passed")}`).join(" · "),
  );
}

function ranksRow() {
  return h(
    "div",
    { class: "rank-row", role: "list", "aria-label": t("rules.rank_aria") },
    RANKS.map((r) => h("span", { class: "mini-card", role: "listitem", "aria-label": cardName(`${r}S`) }, cardFace(`${r}S`), h("small", {}, num(pointsOf(`${r}S`))))),
  );
}

function choiceLabel(move) {
  if (move.pass) return t("guide.choice_pass");
  if (move.bid) return t("guide.choice_bid", { bid: num(move.bid) });
  if (move.trump) return suitName(move.trump);
  if (move.pair) return t("guide.choice_pair");
  return "";
}

function choices(step) {
  if (!step.do || step.do.play) return null;
  return h(
    "div",
    { class: "guide-choices", role: "group", "aria-label": t("guide.choose") },
    step.legal.map((m) =>
      h("button", { type: "button", class: same(m, step.do) ? "primary" : "", dataset: { testid: "guide-choice", move: JSON.stringify(m) }, onclick: () => attempt(m) }, m.trump ? [suitIcon(m.trump), " "] : null, choiceLabel(m)),
    ),
  );
}

function hand(step) {
  return h(
    "div",
    { class: "guide-hand", role: "group", "aria-label": t("guide.your_hand") },
    step.view.hand.map((c) =>
      h(
        "button",
        { type: "button", class: "guide-card", "aria-label": cardName(c), title: cardShort(c), dataset: { card: c, testid: "guide-card" }, onclick: () => attempt({ play: c }) },
        cardFace(c),
      ),
    ),
  );
}

function sentence(step) {
  const params = {};
  if (step.do?.play) params.card = cardShort(step.do.play);
  return t(step.say, params);
}

function draw() {
  const dlg = dialogEl();
  const step = script.steps[at];
  const view = step.view;
  const total = script.steps.length;
  const button = step.do
    ? null
    : h("button", { type: "button", class: "primary", dataset: { testid: step.end ? "guide-finish" : "guide-next" }, onclick: next }, step.end ? t("guide.finish") : t("guide.next"));
  replace(
    dlg,
    h(
      "div",
      { class: "page-inner" },
      h(
        "header",
        { class: "page-head" },
        h("h1", { id: "dlg-guide-title" }, t("guide.title")),
        h("button", { type: "button", class: "close quiet", "aria-label": t("ctl.close"), dataset: { testid: "guide-close" }, onclick: () => dlg.close() }, "✕"),
      ),
      h(
        "div",
        { class: "page-body", dataset: { step: String(at), say: step.say } },
        h("p", { class: "muted guide-progress", dataset: { testid: "guide-progress" } }, t("guide.progress", { n: num(at + 1), total: num(total) })),
        h("p", { class: "lead guide-say", "aria-live": "polite", dataset: { testid: "guide-say" } }, sentence(step)),
        h("p", { id: "guide-refusal", class: "guide-refusal", role: "alert", hidden: true, dataset: { testid: "guide-refusal" } }),
        step.ranks ? ranksRow() : null,
        h("div", { class: "guide-table" }, [2, 1, 3, 0].map((s) => seatBox(view, s))),
        auctionLine(view),
        facts(view),
        choices(step),
        hand(step),
        button ? h("p", {}, button) : null,
      ),
    ),
  );
  (dlg.querySelector("[data-testid=guide-next], [data-testid=guide-finish], .guide-choices .primary") || dlg.querySelector(".guide-card"))?.focus({ preventScroll: true });
}
