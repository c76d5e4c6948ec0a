// The table on show, drawn again from the game and the page's state after
// every change: status, events, seats, trick, hand, controls and result
// (table.js and controls.js draw each), the hand-over of a hot-seat device,
// and where the focus goes once it is drawn.

import { renderControls } from "./controls.js";
import { $, h, replace } from "./dom.js";
import { hintControls } from "./hint.js";
import { t } from "./i18n.js";
import * as motion from "./motion.js";
import { game, hotSeat, myTurn, playerName, seatName } from "./model.js";
import { currentEvents, currentObs, page, ui, viewerObs } from "./page.js";
import { decorateSeats, decorateTrick, roomLine } from "./room.js";
import { layOutTable, renderHand, renderResult, renderSeats, renderStatus, renderStrip, renderTrick } from "./table.js";

let actions = {};

// What the table's buttons do: actions.js, which draws through this module,
// is passed in by main.js at start-up.
export function installBoard(given) {
  actions = given;
}

function renderHandover() {
  const el = $("#handover");
  if (ui.handover === null || ui.screen !== "table") {
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
  btn.focus();
}

export function render() {
  if (ui.screen !== "table" || !game.setup) return;
  const focusKey = document.activeElement?.dataset?.key;
  const obs = currentObs();
  const viewer = ui.viewer;
  const vobs = viewerObs();
  document.body.classList.toggle("hot-seat", hotSeat());
  document.body.dataset.hold = game.hold || "";
  document.body.dataset.phase = obs?.phase || "";
  document.body.dataset.myTurn = String(myTurn(vobs));
  document.body.dataset.v = String(game.v);
  document.body.dataset.busy = String(ui.busy);
  renderStatus($("#status"), obs, viewer);
  renderStrip($("#strip"), currentEvents(), viewer);
  renderSeats($("#seats"), obs, viewer, ui.anchor, (box) => decorateSeats(box, game.table, game.tableAt));
  renderTrick($("#trick"), obs, viewer, ui.anchor, (box) => decorateTrick(box, obs));
  const line = roomLine(game.table, game.spectator);
  const shownLine = $(".room-line");
  if (!line) shownLine?.remove();
  else if (!shownLine) $("#status").after(line);
  else if (shownLine.textContent !== line.textContent) shownLine.replaceWith(line);
  ui.shownCards = renderHand($("#hand"), vobs, ui);
  const hint = hintControls({ id: game.id, token: page.net.game?.token || (game.spectator ? null : page.net.room?.token), setup: game.setup, obs: vobs, v: game.v, rerender: render });
  renderControls($("#controls"), $("#prompt"), vobs, ui, actions, hint);
  if (game.hold !== "deal") ui.peek = false;
  renderResult($("#result"), obs, viewer, actions, ui.peek);
  renderHandover();
  layOutTable();
  motion.settle();
  // keep the focus where it was, or put it where the next decision is
  // an element hidden with its screen still holds the focus until the browser moves it
  const gone = (el) => !el || el === document.body || !el.isConnected || !el.getClientRects().length;
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

// Where the focus goes when it is the player's turn and it is nowhere: the first
// legal card to play, else the main button of the decision (never the bid field,
// which would open a phone's keyboard).
function firstDecision(obs) {
  if (obs.phase === "play") return $("#hand button.card.legal") || $("#controls button:not(:disabled)");
  return $("#controls button.primary:not(:disabled)") || $("#controls button:not(:disabled)");
}
