// What the table's connection says, and what the page does with it: its
// state (the banner and the dot), and each message of the server or of the
// engine in this browser: a room's lobby, a game's state and its updates,
// and what went wrong.

import { actions } from "./actions.js";
import { render } from "./board.js";
import { $, h, replace } from "./dom.js";
import { rememberGame } from "./history.js";
import { t } from "./i18n.js";
import { describe, game, groupLegal, hotSeat, myTurn, playerName, seatName } from "./model.js";
import * as motion from "./motion.js";
import { announce, clearLog, errorText, toast } from "./notice.js";
import * as offline from "./offline.js";
import { currentObs, displaySeat, page, SAVED_GAME, ui } from "./page.js";
import { codeFromHash, keepToken } from "./room.js";
import { refreshSetup, show, showRoom, showSetup } from "./screens.js";
import { reducedMotion, settings } from "./settings.js";
import * as sound from "./sound.js";
import * as stats from "./stats.js";

export function onStatus(status) {
  ui.connection = status;
  document.body.dataset.connection = status;
  if (status !== "connecting") for (const done of page.settling.splice(0)) done();
  refreshSetup();
  const banner = $("#banner");
  if (status === "offline") {
    replace(
      banner,
      h("strong", {}, t("offline.title")),
      " ",
      t(page.net?.game || game.setup ? "offline.body" : "offline.body_no_game"),
      " ",
      h("button", { type: "button", onclick: () => page.net.retryNow(), dataset: { testid: "retry" } }, t("offline.retry")),
      offline.available() && page.engineWhere === "server"
        ? h("button", { type: "button", onclick: () => { offline.choose("browser"); showSetup(); }, dataset: { testid: "play-in-browser" } }, t("engine.play_here"))
        : null,
    );
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
  showConnection();
}

// The connection dot: online or not, and the last measured round trip.
export function showConnection() {
  const status = ui.connection;
  const dot = $("#conn");
  dot.dataset.state = status;
  const words = status === "online" && page.net?.lag !== null && page.net?.lag !== undefined ? t("conn.online_lag", { ms: page.net.lag }) : t(`conn.${status}`);
  dot.title = words;
  dot.setAttribute("aria-label", words);
}

function settleViewer() {
  const seats = game.seats;
  if (game.spectator) {
    ui.viewer = null;
    ui.anchor = 0;
    ui.handover = null;
    return;
  }
  if (!seats.length) return;
  if (!hotSeat()) {
    ui.viewer = seats[0];
    ui.anchor = seats[0];
    ui.handover = null;
    return;
  }
  const anyObs = game.views[seats[0]];
  if (game.hold === "deal" || anyObs?.phase === "over") {
    ui.viewer = null;
    ui.handover = null;
    return;
  }
  const active = seats.find((s) => myTurn(game.views[s]));
  if (active === undefined) {
    if (ui.viewer !== null && !myTurn(game.views[ui.viewer])) ui.viewer = null;
    ui.handover = null;
    return;
  }
  if (active !== ui.viewer) {
    ui.viewer = null;
    ui.handover = active;
  }
}

export function onMessage(msg) {
  if (msg.type === "room") {
    if (page.meta) showRoom(msg);
    else setTimeout(() => onMessage(msg), 200);
    return;
  }
  if (msg.type === "state" || msg.type === "update") {
    if (msg.table) {
      game.table = msg.table;
      game.tableAt = performance.now();
    }
    game.forfeit = msg.forfeit || null;
    const fresh = msg.type === "state";
    if (fresh) {
      if (game.id !== msg.game) {
        ui.focusTable = true; // a new table: the focus goes to it (not left on <body>)
        game.views = {};
        ui.viewer = null;
        ui.handover = null;
        ui.selected = null;
        clearLog();
      }
      game.id = msg.game;
      game.setup = msg.setup;
      game.seats = msg.seats;
      game.spectator = !!msg.table && msg.seats.length === 0;
      game.table = msg.table || null;
      game.events = {};
      if (msg.table && page.net.room?.token) keepToken(msg.table.code, page.net.room.token);
      if (typeof msg.auto_pair === "boolean" && msg.auto_pair !== settings().autoPair && !hotSeat()) {
        // the table keeps the player's setting
        page.net.request("configure", { auto_pair: settings().autoPair }).catch(() => {});
      }
      try {
        sessionStorage.setItem(SAVED_GAME, JSON.stringify(page.net.game));
      } catch {
        /* ignore */
      }
      rememberGame(page.net.game || (page.net.room?.token && !game.spectator ? { id: msg.game, token: page.net.room.token } : {}));
    }
    const before = game.views[displaySeat()];
    const scene = motion.capture();
    const key = (seat) => (seat === "public" ? "public" : Number(seat));
    for (const [seat, view] of Object.entries(msg.views)) game.views[key(seat)] = view;
    const lines = [];
    for (const [seat, evs] of Object.entries(msg.events)) {
      const s = key(seat);
      if (fresh || msg.reset) game.events[s] = [...evs];
      else game.events[s] = [...(game.events[s] || []), ...evs];
    }
    game.hold = msg.hold;
    game.holdAt = msg.hold_at;
    game.canUndo = msg.can_undo;
    game.over = msg.over;
    game.v = msg.v;
    // A contest bot's fault ended the game: a banner over the table says whose, and why.
    let forfeit = $("#forfeit");
    if (msg.forfeit && !forfeit) {
      forfeit = h("div", { id: "forfeit", class: "banner", role: "alert", dataset: { testid: "forfeit" } });
      $("#status").before(forfeit);
    }
    if (forfeit) {
      const f = msg.forfeit;
      const text = f ? t("forfeit.body", { who: playerName(f.seat, ui.viewer), seat: seatName(f.seat), message: f.message }) : "";
      forfeit.hidden = !f;
      if (f && forfeit.dataset.text !== text) replace(forfeit, h("strong", {}, t("forfeit.title")), " ", text);
      forfeit.dataset.text = text;
    }
    settleViewer();
    if (!fresh) {
      let evs = (msg.events[displaySeat()] || []).filter((e) => !(ui.viewer === null && e.type === "pass" && e.stage === "pair"));
      if (msg.reset) evs = evs.filter((e) => e.type === "deal_start"); // an undo rewrites the deal: say nothing
      for (const ev of evs) {
        const line = describe(ev, ui.viewer);
        if (line && ev.type !== "second_batch") lines.push(line);
      }
    }
    const obs = currentObs();
    if (ui.selected && !(obs && groupLegal(obs.legal).plays.has(ui.selected))) ui.selected = null;
    // a new turn in the auction starts the bid field at the lowest legal bid
    const turnKey = obs && myTurn(obs) ? `${obs.deal_index}:${obs.auction.length}` : null;
    if (turnKey !== ui.turnKey) {
      ui.turnKey = turnKey;
      ui.bidValue = null;
    }
    void before;
    if (fresh && ui.screen !== "score" && ui.screen !== "history") {
      show("table");
      if (msg.table && !codeFromHash(location.hash)) history.replaceState(null, "", `#room/${msg.table.code}`);
    }
    const story = msg.events[displaySeat()] || [];
    // the motions start once the table is drawn (before the focus moves: see render)
    render(() => motion.play(scene, story, { obs, viewer: ui.viewer, fresh }));
    sound.hear(story, { fresh });
    stats.note(story, { id: game.id, obs, setup: game.setup, seats: game.seats, spectator: game.spectator, fresh });
    if (lines.length) announce(lines);
    scheduleAutoNext();
    return;
  }
  if (msg.type === "error") {
    if ((msg.code === "not_found" || msg.code === "forbidden") && !page.net.joined) {
      try {
        sessionStorage.removeItem(SAVED_GAME);
      } catch {
        /* ignore */
      }
      game.setup = null;
      const inRoom = !!page.net.room;
      page.net.room = null;
      if (ui.screen !== "history") showSetup();
      toast(inRoom ? errorText(msg) : t("error.game_gone"), "error");
      return;
    }
    if (msg.id) return; // answered through the request's promise
    toast(errorText(msg), "error");
  }
}

function scheduleAutoNext() {
  clearTimeout(page.autoNextTimer);
  if (game.hold !== "trick" || !settings().autoNext) return;
  const at = game.holdAt;
  page.autoNextTimer = setTimeout(() => {
    if (game.hold === "trick" && game.holdAt === at) actions.nextTrick();
  }, reducedMotion() ? 900 : 1500);
}
