// The table on show, drawn again from the game and the page's state after
// every change: status, events, seats, trick, hand, controls and result
// (table.js and controls.js draw each), the hand-over of a hot-seat device,
// and where the focus goes once it is drawn.
//
// Each section is drawn only when what it draws from changed: its key (the
// parts of the observation, the page's state and the language it reads, as
// its `...Key` function beside its drawing lists them) is kept, and a section
// whose key is the same is left as it is on the page. A new selection in the
// hand moves the selected card's mark and draws the controls, nothing else.
// The sections that may take away the focused control (the hand-over, the
// result, the controls, the hand) are drawn first, while the page's layout
// is still clean: taking the focus away lays the page out.

import { renderControls, controlsKey, renderPrompt, promptKey } from "./controls.js";
import { $, h, replace } from "./dom.js";
import { hintControls, hintKey } from "./hint.js";
import { locale, t } from "./i18n.js";
import * as motion from "./motion.js";
import { game, hotSeat, myTurn, playerName, seatName } from "./model.js";
import { currentEvents, currentObs, page, ui, viewerObs } from "./page.js";
import { renderResult, resultKey } from "./result.js";
import { decorateSeats, decorateTrick, roomLine, seatDecorationKey } from "./room.js";
import {
  handKey,
  layOutTable,
  renderHand,
  renderSeats,
  renderStatus,
  renderStrip,
  renderTrick,
  seatKey,
  selectInHand,
  statusKey,
  stripChips,
  trickKey,
} from "./table.js";

let actions = {};

// What the table's buttons do: actions.js, which draws through this module,
// is passed in by main.js at start-up.
export function installBoard(given) {
  actions = given;
}

// ------------------------------------------------------------------ keys

const drawn = new Map(); // section -> the key it was last drawn with
const counts = { renders: 0, drawn: {}, skipped: {}, ms: {} }; // for the tests and the bench

// An object's identity as a number (the setup is a new object with every whole state).
const ids = new WeakMap();
let nextId = 1;
function idOf(obj) {
  if (obj === null || typeof obj !== "object") return obj ?? null;
  if (!ids.has(obj)) ids.set(obj, nextId++);
  return ids.get(obj);
}

// What every section draws from besides its own inputs: the language and its
// digits, the setup (names, bots, options) and whether the device is shared.
function commonKey() {
  return [locale(), idOf(game.setup), game.seats, hotSeat(), !!game.spectator];
}

function note(kind, name, ms = 0) {
  counts[kind][name] = (counts[kind][name] || 0) + 1;
  if (ms) counts.ms[name] = (counts.ms[name] || 0) + ms;
}

// Draw the section `name` when `key` (a list) differs from the one it was drawn with.
function section(name, common, key, draw) {
  const k = JSON.stringify([common, key]);
  if (drawn.get(name) === k) {
    note("skipped", name);
    return false;
  }
  drawn.delete(name); // a drawing that fails is drawn again next time
  const t0 = performance.now();
  draw();
  drawn.set(name, k);
  note("drawn", name, performance.now() - t0);
  return true;
}

// Every section drawn again, whatever its key says (a new language or new settings).
export function redraw() {
  drawn.clear();
  render();
}

// For the tests and the bench: how many renders, which sections each drew or left, and the time each took.
export function record() {
  return JSON.parse(JSON.stringify(counts));
}

// ------------------------------------------------------------------ sections

function renderHandover(common) {
  const el = $("#handover");
  const shown = ui.handover !== null && ui.screen === "table";
  const fresh = section("handover", common, shown ? [ui.handover] : null, () => {
    if (!shown) {
      el.hidden = true;
      replace(el);
      return;
    }
    const seat = ui.handover;
    const name = playerName(seat, null);
    const btn = h(
      "button",
      {
        type: "button",
        class: "primary big",
        dataset: { testid: "claim-seat" },
        onclick: () => {
          ui.viewer = seat;
          ui.anchor = seat;
          ui.handover = null;
          render();
        },
      },
      t("handover.claim", { name }),
    );
    replace(
      el,
      h(
        "div",
        { class: "handover-card", role: "dialog", "aria-modal": "true", "aria-labelledby": "handover-title", dataset: { testid: "handover" } },
        h("p", { class: "handover-kicker" }, t("handover.kicker")),
        h("h2", { id: "handover-title" }, name === seatName(seat) ? t("handover.title_seat", { seat: name }) : t("handover.title", { name, seat: seatName(seat) })),
        h("p", {}, t("handover.body")),
        btn,
      ),
    );
    el.hidden = false;
  });
  // the device waits for its next player: the claim button keeps the focus
  if (shown) {
    const btn = el.querySelector("[data-testid=claim-seat]");
    if (btn && (fresh || document.activeElement !== btn)) btn.focus();
  }
}

function renderSeatPlates(common, obs, viewer) {
  const el = $("#seats");
  if (!obs) {
    section("seats", common, null, () => renderSeats(el, null));
    return;
  }
  // plate by plate: a move draws the plates it changed
  const keys = [0, 1, 2, 3].map((seat) => JSON.stringify([common, seatKey(seat, obs, viewer, ui.anchor), seatDecorationKey(game.table, game.tableAt, seat)]));
  const was = drawn.get("seats");
  const whole = !Array.isArray(was) || el.children.length !== 4;
  const changed = [0, 1, 2, 3].filter((seat) => whole || was[seat] !== keys[seat]);
  if (!changed.length) {
    note("skipped", "seats");
    return;
  }
  drawn.delete("seats");
  const t0 = performance.now();
  renderSeats(el, obs, viewer, ui.anchor, (box) => decorateSeats(box, game.table, game.tableAt), whole ? null : changed);
  drawn.set("seats", keys);
  note("drawn", "seats", performance.now() - t0);
  counts.plates = (counts.plates || 0) + changed.length;
}

function renderHandPart(common, vobs) {
  const el = $("#hand");
  const key = handKey(vobs, ui);
  const fresh = section("hand", common, key, () => {
    ui.shownCards = renderHand(el, vobs, ui);
  });
  if (fresh) drawn.set("hand-selected", ui.selected);
  else if (drawn.get("hand-selected") !== ui.selected) {
    // the same hand, another card chosen: only its mark moves
    const t0 = performance.now();
    if (key !== null) selectInHand(el, ui.selected);
    drawn.set("hand-selected", ui.selected);
    note("drawn", "hand-selected", performance.now() - t0);
  }
}

// `then`, when given, runs once the table is drawn and laid out, before the
// focus moves (messages.js starts the motions there: their reading of the
// layout comes before the focus changes what is to be restyled).
export function render(then = null) {
  if (typeof then !== "function") then = null; // (called as a handler, it is given an event)
  if (ui.screen !== "table" || !game.setup) {
    then?.();
    return;
  }
  const t0 = performance.now();
  const before = counts.ms.then || 0;
  counts.renders += 1;
  try {
    draw(then);
  } finally {
    // the table's own time: what `then` took is counted apart (ms.then)
    counts.ms.render = (counts.ms.render || 0) + performance.now() - t0 - ((counts.ms.then || 0) - before);
  }
}

function draw(then) {
  const focusKey = document.activeElement?.dataset?.key;
  const obs = currentObs();
  const viewer = ui.viewer;
  const vobs = viewerObs();
  const common = commonKey();
  const body = document.body;
  body.classList.toggle("hot-seat", hotSeat());
  const marks = { hold: game.hold || "", phase: obs?.phase || "", myTurn: String(myTurn(vobs)), v: String(game.v), busy: String(ui.busy) };
  for (const [name, value] of Object.entries(marks)) if (body.dataset[name] !== value) body.dataset[name] = value;
  // first the sections that may take the focused control away (the layout is clean yet)
  renderHandover(common);
  if (game.hold !== "deal") ui.peek = false;
  const record = obs && obs.phase === "over" && game.hold === "deal" ? actions.recordUrl() : null;
  section("result", common, resultKey(obs, viewer, ui.peek, record), () => renderResult($("#result"), obs, viewer, actions, ui.peek));
  const hintCtx = { id: game.id, token: page.net.game?.token || (game.spectator ? null : page.net.room?.token), setup: game.setup, obs: vobs, v: game.v, rerender: render };
  section("controls", common, [controlsKey(vobs, ui), hintKey(hintCtx)], () => renderControls($("#controls"), null, vobs, ui, actions, hintControls(hintCtx)));
  section("prompt", common, promptKey(vobs, ui), () => renderPrompt($("#prompt"), vobs, ui));
  renderHandPart(common, vobs);
  // then the rest of the table
  section("status", common, statusKey(obs, viewer), () => renderStatus($("#status"), obs, viewer));
  const events = currentEvents();
  const chips = stripChips(events, viewer);
  section("strip", common, chips, () => renderStrip($("#strip"), events, viewer, chips));
  renderSeatPlates(common, obs, viewer);
  section("trick", common, [trickKey(obs, viewer, ui.anchor), obs?.signals ?? null], () => renderTrick($("#trick"), obs, viewer, ui.anchor, (box) => decorateTrick(box, obs)));
  const line = roomLine(game.table, game.spectator);
  const shownLine = $(".room-line");
  if (!line) shownLine?.remove();
  else if (!shownLine) $("#status").after(line);
  else if (shownLine.textContent !== line.textContent) shownLine.replaceWith(line);
  layOutTable($("#hand"));
  motion.settle();
  if (then) {
    const t1 = performance.now();
    then();
    counts.ms.then = (counts.ms.then || 0) + performance.now() - t1;
  }
  // keep the focus where it was, or put it where the next decision is
  const active = document.activeElement;
  if (focusKey && gone(active)) {
    const again = document.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  const now = document.activeElement;
  const idle = gone(now) || now.id === "table-title";
  if (ui.handover === null && idle) {
    const decision = myTurn(vobs) && game.hold === null ? firstDecision(vobs) : null;
    if (game.hold === "trick") $("#next-trick")?.focus({ preventScroll: true });
    else if (game.hold === "deal") $(ui.peek ? "[data-testid=result-back]" : "[data-testid=next-deal], [data-testid=result-new-game]")?.focus({ preventScroll: true });
    else if (ui.selected) $("#play-button")?.focus({ preventScroll: true });
    else if (decision) decision.focus({ preventScroll: true });
    else if (ui.focusTable) $("#table-title").focus({ preventScroll: true });
  }
  ui.focusTable = false;
}

// Whether the focus is nowhere: on nothing, the page, an element taken away or
// one not on show. The table hides what it hides with the hidden attribute (its
// screen, the result) or a closed <details> (the log), which need no layout to
// see; elsewhere (the top bar, a dialog, the hand-over) the element's boxes say.
function gone(el) {
  if (!el || el === document.body || !el.isConnected) return true;
  if (el.closest("[hidden]")) return true;
  for (let shut = el.closest("details:not([open])"); shut; shut = shut.parentElement?.closest("details:not([open])") || null)
    if (!shut.querySelector(":scope > summary")?.contains(el)) return true;
  if (el.closest("#screen-table")) return false;
  return !el.getClientRects().length;
}

// Where the focus goes when it is the player's turn and it is nowhere: the first
// legal card to play, else the main button of the decision (never the bid field,
// which would open a phone's keyboard).
function firstDecision(obs) {
  if (obs.phase === "play") return $("#hand button.card.legal") || $("#controls button:not(:disabled)");
  return $("#controls button.primary:not(:disabled)") || $("#controls button:not(:disabled)");
}
