// What the player does at the table: the actions that the controls, the keys
// and a drag call (each sent as a request on the table's connection), and
// choosing a card of the hand before it is played.

import { render } from "./board.js";
import { cardName } from "./cards.js";
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { game, groupLegal, hotSeat, myTurn, whyNot } from "./model.js";
import { announce, errorText, toast } from "./notice.js";
import * as offline from "./offline.js";
import * as motion from "./motion.js";
import { currentObs, page, ui, viewerObs } from "./page.js";
import { showSetup } from "./screens.js";
import { settings } from "./settings.js";

export const actions = {
  send(action, signal = null, refused = null) {
    // a second click on the same state is the same decision again: ignored; but once a
    // newer state is shown (the move went through, its ack still on its way) a click is
    // a new decision and goes out
    if (ui.busy && ui.busyAt === game.v) return;
    const sent = (ui.sends += 1);
    ui.busy = true;
    ui.busyAt = game.v;
    if (hotSeat()) ui.viewer = null; // hide this hand at once; the next player claims the device
    ui.selected = null;
    page.net
      .request("act", signal && game.setup?.signals ? { action, signal } : { action })
      .catch((err) => {
        refused?.();
        toast(errorText(err), "error");
      })
      .finally(() => {
        if (ui.sends === sent) ui.busy = false;
        render();
      });
    render();
  },
  play(card) {
    const obs = viewerObs();
    if (!obs) return;
    if (!groupLegal(obs.legal).plays.has(card)) {
      toast(whyNot(obs, card, game.hold), "warn");
      return;
    }
    const signal = ui.signal;
    ui.signal = null;
    // the card is on its way at once, not when the server answers (motion.js)
    if (!(ui.busy && ui.busyAt === game.v)) motion.playAhead(card);
    actions.send({ seat: obs.seat, play: card }, signal, () => motion.unplay());
  },
  toggleSignal(kind) {
    ui.signal = ui.signal === kind ? null : kind;
    render();
  },
  nextTrick() {
    if (game.hold !== "trick") return;
    // the trick on show is swept to its winner at once, not when the server answers
    const obs = currentObs();
    if (obs && !obs.trick.length) motion.sweepAhead(obs.tricks[obs.tricks.length - 1]);
    page.net.request("continue", { at: game.holdAt }).catch((err) => {
      motion.unsweep();
      toast(errorText(err), "error");
    });
  },
  nextDeal() {
    if (game.over) {
      showSetup();
      return;
    }
    page.net.request("next_deal").catch((err) => toast(errorText(err), "error"));
  },
  undo() {
    const seat = game.seats[0];
    page.net
      .request("undo", { seat })
      .then(() => announce([t("ev.undone")]))
      .catch((err) => toast(errorText(err), "error"));
  },
  newGame() {
    showSetup();
  },
  // Look at the table behind the result (the last trick), then come back to it.
  peek(on) {
    ui.peek = on;
    render();
    $(on ? "[data-testid=result-back]" : "[data-testid=next-deal], [data-testid=result-new-game]")?.focus({ preventScroll: true });
  },
  recordUrl() {
    if (page.engineWhere === "browser") return offline.recordHref();
    const token = page.net.game?.token || (game.spectator ? null : page.net.room?.token);
    if (!token || !game.id) return "#";
    return `/api/games/${encodeURIComponent(game.id)}/record?token=${encodeURIComponent(token)}`;
  },
};

export function selectIndex(i) {
  const obs = viewerObs();
  if (!obs) return;
  const card = ui.shownCards[i];
  if (!card) return;
  if (!groupLegal(obs.legal).plays.has(card) || !myTurn(obs)) {
    const reason = whyNot(obs, card, game.hold);
    toast(`${cardName(card)}: ${reason}`, "warn");
    announce([`${cardName(card)}: ${reason}`]);
    return;
  }
  ui.selected = card;
  render();
  $("#play-button")?.focus();
}

export function moveSelection(dir) {
  const obs = viewerObs();
  if (!obs || !myTurn(obs)) return;
  const legal = ui.shownCards.filter((c) => groupLegal(obs.legal).plays.has(c));
  if (!legal.length) return;
  const i = legal.indexOf(ui.selected);
  const next = i < 0 ? (dir > 0 ? 0 : legal.length - 1) : (i + dir + legal.length) % legal.length;
  ui.selected = legal[next];
  render();
  $("#play-button")?.focus();
}

export function onHandClick(e) {
  const btn = e.target.closest("button.card");
  if (!btn) return;
  const card = btn.dataset.card;
  const obs = viewerObs();
  if (!obs) return;
  if (btn.classList.contains("illegal")) {
    toast(whyNot(obs, card, game.hold), "warn");
    return;
  }
  if (settings().oneTap || ui.selected === card) {
    actions.play(card);
    return;
  }
  ui.selected = card;
  render();
  $("#play-button")?.focus({ preventScroll: true });
}
