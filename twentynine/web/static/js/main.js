// The browser table of 29: start-up, the connection to the server, and the
// glue between what the server says and what the page shows.

import { cardName, installSprites } from "./cards.js";
import { renderControls } from "./controls.js";
import { $, h, replace } from "./dom.js";
import { installGuide, offerGuide } from "./guide.js";
import { hintControls, installHintKeys } from "./hint.js";
import { buildHistory, isHistoryRoute, rememberGame } from "./history.js";
import { has, language, locale, t, translatePage } from "./i18n.js";
import { applyLanguage, languageBar } from "./language.js";
import { installDrag } from "./drag.js";
import { installKeys } from "./keys.js";
import * as motion from "./motion.js";
import * as sound from "./sound.js";
import * as stats from "./stats.js";
import { describe, game, groupLegal, hotSeat, myTurn, playerName, seatName, whyNot } from "./model.js";
import { Net } from "./net.js";
import { codeFromHash, decorateSeats, formatCode, decorateTrick, keepName, keepToken, playerName as savedName, renderLobby, roomLine, roomTokens, tickCountdowns } from "./room.js";
import * as offline from "./offline.js";
import { openHowTo, openRules, openSettings, openStats } from "./pages.js";
import { buildScorer } from "./scorepage.js";
import { loadSettings, reducedMotion, settings, update as updateSettings } from "./settings.js";
import { buildSetup } from "./setup.js";
import { fitHand, layOutTable, renderHand, renderResult, renderSeats, renderStatus, renderStrip, renderTrick, sortHand } from "./table.js";

const SAVED_GAME = "twentynine.game";

const ui = {
  screen: "loading",
  viewer: null, // the seat whose hand is shown (null: nobody's, between turns in hot-seat)
  anchor: 0, // the seat drawn at the bottom
  handover: null, // the seat the device must be passed to
  selected: null,
  bidValue: null,
  busy: false, // an act is on its way (sent at version busyAt, the sends-th one)
  busyAt: -1,
  sends: 0,
  connection: "connecting",
  shownCards: [],
  peek: false, // the result is set aside to look at the last trick
};
let meta = null;
let net = null;
let engineWhere = "server"; // where the engine of this table runs: "server" or "browser"
let installEvent = null;
let autoNextTimer = null;
let serverProbe = "connecting"; // whether the server answers, while the engine runs in this browser
let formEngine = null; // the engine the new-game form on show was built for
let formTouched = false; // the player changed something on that form
const settling = []; // what waits for the first answer of the connection

// The server's own state. While the engine runs in this browser the table's
// connection is always up (it is the engine's), so the server is asked apart.
function serverState() {
  return engineWhere === "server" ? ui.connection : serverProbe;
}

// ------------------------------------------------------------------ helpers

function displaySeat() {
  if (game.spectator) return "public";
  if (ui.viewer !== null) return ui.viewer;
  return game.seats.includes(ui.anchor) ? ui.anchor : game.seats[0];
}

function currentObs() {
  if (!game.setup) return null;
  return game.views[displaySeat()] || null;
}

function viewerObs() {
  return ui.viewer === null ? null : game.views[ui.viewer] || null;
}

function currentEvents() {
  const evs = game.events[displaySeat()] || [];
  return ui.viewer === null ? evs.filter((e) => !(e.type === "pass" && e.stage === "pair")) : evs;
}

let toastTimer = null;
function toast(text, kind = "info") {
  const el = $("#toast");
  replace(el, text);
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 3600);
}

function announce(lines) {
  const live = $("#live");
  for (const line of lines) live.append(h("p", {}, line));
  while (live.childElementCount > 6) live.firstElementChild.remove();
  const log = $("#log-list");
  if (log) {
    for (const line of lines) log.append(h("li", {}, line));
    while (log.childElementCount > 80) log.firstElementChild.remove();
    // the newest line in view, when the frame is laid out anyway (not in the middle of drawing it)
    requestAnimationFrame(() => {
      log.scrollTop = log.scrollHeight;
    });
  }
}

// What the server refused, in the page's language: the reason when the server
// names one (error.reason.*), else the code's sentence. The server's own detail
// is English, so it is added only to the English page.
function errorText(err) {
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

// ------------------------------------------------------------------ screens

function show(screen) {
  ui.screen = screen;
  $("#screen-setup").hidden = screen !== "setup";
  $("#screen-table").hidden = screen !== "table";
  $("#screen-score").hidden = screen !== "score";
  $("#screen-history").hidden = screen !== "history";
  $("#screen-room").hidden = screen !== "room";
  document.body.dataset.screen = screen;
}

function showSetup({ keepDraft = false } = {}) {
  if (!meta) return;
  const where = offline.engineFor(serverState());
  const bots = offline.defaultBots(meta, where);
  $("#lang-bar")?.remove();
  const bar = languageBar(relocalize);
  bar.id = "lang-bar";
  $("#setup").before(bar);
  buildSetup($("#setup"), { ...meta, default_bots: bots }, {
    keepDraft,
    extra: offline.engineChoice(serverState()),
    onStart: startGame,
    onCreateRoom: createRoom,
    onJoinRoom: (code) => joinRoom(code),
    onRules: ({ profile, options }) => openRules(profile, options),
    onCancel: () => {
      show("table");
      render();
    },
    canCancel: () => !!game.setup,
  });
  formEngine = where;
  formTouched = false;
  show("setup");
  offerGuide($("#setup"));
  $("#setup h1")?.focus?.();
  if (engineWhere === "browser") checkServer();
}

// Ask whether the server answers (the engine runs here); the form follows the answer.
async function checkServer() {
  serverProbe = (await offline.serverAnswers()) ? "online" : "offline";
  refreshSetup();
}

// A form built before the server's state was known is built again for the
// engine that is right now, unless the player has already changed it.
function refreshSetup() {
  if (ui.screen !== "setup" || formEngine === null || formTouched || !meta) return;
  if (offline.engineFor(serverState()) !== formEngine) showSetup();
}

// Resolves once the connection has answered (up or down), or after `ms`.
function connectionSettled(ms) {
  if (ui.connection !== "connecting") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    settling.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// A game or a room on the server needs the server. While the engine runs here it
// is asked first: when it does not answer, the game kept in this browser stays.
async function needServer() {
  if (engineWhere === "browser") {
    formTouched = true; // the form stays as it is while the answer comes
    const answers = await offline.serverAnswers();
    serverProbe = answers ? "online" : "offline";
    if (!answers) throw new Error(t("offline.cannot_start_kept"));
    return;
  }
  if (ui.connection !== "online") throw new Error(t("offline.cannot_start"));
}

// The score sheet for a table with real cards (#score, or #score/sheet/... for a
// shared sheet): it needs no server.
const isScoreRoute = (hash) => hash === "#score" || hash.startsWith("#score/");

function showScorer() {
  if (!meta) return;
  const view = buildScorer($("#screen-score"), meta, {
    hash: location.hash,
    onBack: () => {
      if (location.hash === "#score") history.pushState(null, "", location.pathname + location.search);
      leaveScorer();
    },
  });
  show("score");
  view.focus();
}

// The history of this browser's games (#history) and the replay of one (#replay/<id>).
function showHistory() {
  const view = buildHistory($("#screen-history"), location.hash, {
    onBack: () => {
      history.pushState(null, "", location.pathname + location.search);
      leaveScorer();
    },
    onResume: openGame,
  });
  show("history");
  view.focus();
}

// Back to the table of a game this browser holds (from the history).
function openGame(id, token) {
  history.pushState(null, "", location.pathname + location.search);
  if (net.game && net.game.id === id && game.setup) {
    show("table");
    render();
    return;
  }
  net.leave();
  net.game = { id, token };
  show("loading");
  if (net.ws && net.ws.readyState === WebSocket.OPEN) net.request("join", { game: id, token }).catch((err) => toast(errorText(err), "error"));
  else net.retryNow();
}

// Leave the score sheet or the history for the table (or the new-game form).
function leaveScorer() {
  if (ui.screen !== "score" && ui.screen !== "history") return;
  if (game.setup) {
    show("table");
    render();
  } else if (game.room && net.room) showRoom(game.room);
  else showSetup();
}

// ------------------------------------------------------------------ rooms

// Rooms are the server's: a page playing in this browser switches back to it
// (the game kept in this browser stays kept) once the server answers.
async function serverForRooms() {
  await needServer();
  if (engineWhere !== "server") useEngine("server");
}

async function createRoom(setup, name) {
  await serverForRooms();
  keepName(name);
  net.leave();
  await net.request("room_create", { setup, ...(name ? { name } : {}) }).catch((err) => {
    throw new Error(errorText(err));
  });
}

async function joinRoom(code, { quiet = false } = {}) {
  const clean = code.replace(/[\s-]/g, "").toUpperCase();
  await serverForRooms();
  net.leave();
  const token = roomTokens()[clean];
  const name = savedName();
  net.room = { code: clean, token: token || null };
  // a connection still opening joins the room by itself as soon as it is open
  if (!net.ws || net.ws.readyState !== WebSocket.OPEN) return;
  const body = { code: clean, ...(token ? { token } : {}), ...(name ? { name } : {}) };
  await net.request("room_join", body).catch((err) => {
    net.room = null;
    if (quiet) return;
    throw new Error(errorText(err));
  });
}

function leaveRoom() {
  net.leave();
  game.setup = null;
  game.room = null;
  if (codeFromHash(location.hash)) history.pushState(null, "", location.pathname + location.search);
  showSetup();
  net.retryNow();
  if (net.ws) net.ws.close();
}

function showRoom(room) {
  game.room = room;
  if (room.token) keepToken(room.code, room.token);
  renderLobby($("#screen-room"), room, meta, {
    send: (type, body) => net.request(type, body),
    onLeave: leaveRoom,
    onError: (err) => toast(errorText(err), "error"),
  });
  const first = ui.screen !== "room";
  // the address is the invite link: a reload (or a bookmark) comes back to this room
  if (codeFromHash(location.hash) !== room.code) history.replaceState(null, "", `#room/${formatCode(room.code)}`);
  show("room");
  if (first) $("#screen-room h1")?.focus?.();
}

// The same table talks to the server (websocket) or to the engine in this
// browser (offline.js): only the connection differs.
function useEngine(where, game = null) {
  if (net && engineWhere === where) return;
  if (net) net.stop();
  engineWhere = where;
  net = new Net({ onMessage, onStatus, connect: where === "browser" ? offline.connect : null });
  if (game) net.game = game;
  offline.showBadge(where);
  net.start();
}

// A game starts where the form says it does (never elsewhere behind its back).
async function startGame(setup) {
  const where = offline.shownEngine() ?? offline.engineFor(serverState());
  if (where === "server") await needServer();
  useEngine(where);
  updateSettings({ autoPair: !!setup.auto_pair });
  net.leave();
  await net.request("create", { setup }).catch((err) => {
    throw new Error(errorText(err));
  });
  // the server has the new game: the one kept in this browser is no longer resumed
  if (where === "server") offline.forgetGame();
}

// ------------------------------------------------------------------ server messages

function onStatus(status) {
  ui.connection = status;
  document.body.dataset.connection = status;
  if (status !== "connecting") for (const done of settling.splice(0)) done();
  refreshSetup();
  const banner = $("#banner");
  if (status === "offline") {
    replace(
      banner,
      h("strong", {}, t("offline.title")),
      " ",
      t(net?.game || game.setup ? "offline.body" : "offline.body_no_game"),
      " ",
      h("button", { type: "button", onclick: () => net.retryNow(), dataset: { testid: "retry" } }, t("offline.retry")),
      offline.available() && engineWhere === "server"
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
function showConnection() {
  const status = ui.connection;
  const dot = $("#conn");
  dot.dataset.state = status;
  const words = status === "online" && net?.lag !== null && net?.lag !== undefined ? t("conn.online_lag", { ms: net.lag }) : t(`conn.${status}`);
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

function onMessage(msg) {
  if (msg.type === "room") {
    if (meta) showRoom(msg);
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
        replace($("#log-list"));
      }
      game.id = msg.game;
      game.setup = msg.setup;
      game.seats = msg.seats;
      game.spectator = !!msg.table && msg.seats.length === 0;
      game.table = msg.table || null;
      game.events = {};
      if (msg.table && net.room?.token) keepToken(msg.table.code, net.room.token);
      if (typeof msg.auto_pair === "boolean" && msg.auto_pair !== settings().autoPair && !hotSeat()) {
        // the table keeps the player's setting
        net.request("configure", { auto_pair: settings().autoPair }).catch(() => {});
      }
      try {
        sessionStorage.setItem(SAVED_GAME, JSON.stringify(net.game));
      } catch {
        /* ignore */
      }
      rememberGame(net.game || (net.room?.token && !game.spectator ? { id: msg.game, token: net.room.token } : {}));
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
    render();
    const story = msg.events[displaySeat()] || [];
    motion.play(scene, story, { obs, viewer: ui.viewer, fresh });
    sound.hear(story, { fresh });
    stats.note(story, { id: game.id, obs, setup: game.setup, seats: game.seats, spectator: game.spectator, fresh });
    if (lines.length) announce(lines);
    scheduleAutoNext();
    return;
  }
  if (msg.type === "error") {
    if ((msg.code === "not_found" || msg.code === "forbidden") && !net.joined) {
      try {
        sessionStorage.removeItem(SAVED_GAME);
      } catch {
        /* ignore */
      }
      game.setup = null;
      const inRoom = !!net.room;
      net.room = null;
      if (ui.screen !== "history") showSetup();
      toast(inRoom ? errorText(msg) : t("error.game_gone"), "error");
      return;
    }
    if (msg.id) return; // answered through the request's promise
    toast(errorText(msg), "error");
  }
}

function scheduleAutoNext() {
  clearTimeout(autoNextTimer);
  if (game.hold !== "trick" || !settings().autoNext) return;
  const at = game.holdAt;
  autoNextTimer = setTimeout(() => {
    if (game.hold === "trick" && game.holdAt === at) actions.nextTrick();
  }, reducedMotion() ? 900 : 1500);
}

// ------------------------------------------------------------------ actions

const actions = {
  send(action, signal = null) {
    // a second click on the same state is the same decision again: ignored; but once a
    // newer state is shown (the move went through, its ack still on its way) a click is
    // a new decision and goes out
    if (ui.busy && ui.busyAt === game.v) return;
    const sent = (ui.sends += 1);
    ui.busy = true;
    ui.busyAt = game.v;
    if (hotSeat()) ui.viewer = null; // hide this hand at once; the next player claims the device
    ui.selected = null;
    net
      .request("act", signal && game.setup?.signals ? { action, signal } : { action })
      .catch((err) => toast(errorText(err), "error"))
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
    actions.send({ seat: obs.seat, play: card }, signal);
  },
  toggleSignal(kind) {
    ui.signal = ui.signal === kind ? null : kind;
    render();
  },
  nextTrick() {
    if (game.hold !== "trick") return;
    net.request("continue", { at: game.holdAt }).catch((err) => toast(errorText(err), "error"));
  },
  nextDeal() {
    if (game.over) {
      showSetup();
      return;
    }
    net.request("next_deal").catch((err) => toast(errorText(err), "error"));
  },
  undo() {
    const seat = game.seats[0];
    net
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
    if (engineWhere === "browser") return offline.recordHref();
    const token = net.game?.token || (game.spectator ? null : net.room?.token);
    if (!token || !game.id) return "#";
    return `/api/games/${encodeURIComponent(game.id)}/record?token=${encodeURIComponent(token)}`;
  },
};

function selectIndex(i) {
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

function moveSelection(dir) {
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

function onHandClick(e) {
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

// ------------------------------------------------------------------ rendering

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

function render() {
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
  const hint = hintControls({ id: game.id, token: net.game?.token || (game.spectator ? null : net.room?.token), setup: game.setup, obs: vobs, v: game.v, rerender: render });
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

// ------------------------------------------------------------------ install & offline

function installSection() {
  if (installEvent) {
    return h(
      "p",
      {},
      h(
        "button",
        {
          type: "button",
          class: "primary",
          onclick: async () => {
            installEvent.prompt();
            await installEvent.userChoice.catch(() => null);
            installEvent = null;
            $("#btn-install").hidden = true;
          },
        },
        t("install.button"),
      ),
    );
  }
  const standalone = window.matchMedia("(display-mode: standalone)").matches;
  if (standalone) return h("p", { class: "muted" }, t("install.installed"));
  // with Pyodide served, games against the bots need no server once the app is kept
  return h("p", { class: "muted", dataset: { testid: "install-manual" } }, t(offline.available() ? "install.manual_offline" : "install.manual"));
}

function registerWorker() {
  if (!("serviceWorker" in navigator) || window.top !== window.self) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

async function loadMeta() {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch("/api/meta", { cache: "no-cache" });
      if (res.ok) return res.json();
    } catch {
      /* offline: the service worker may answer from its cache */
    }
    if (net) onStatus("offline"); // before the connection starts, it will say so itself
    await new Promise((r) => setTimeout(r, Math.min(8000, 500 * 2 ** attempt)));
  }
}

// ------------------------------------------------------------------ language

function openSettingsPage() {
  return openSettings({
    onChange: (key) => {
      if (key === "lang" || key === "digits") {
        relocalize();
        openSettingsPage(); // the page itself in the new words
        $(`#set-${key}`)?.focus();
        return;
      }
      if (key === "autoPair" && game.setup && !hotSeat()) net.request("configure", { auto_pair: settings().autoPair }).catch(() => {});
      render();
    },
    install: installSection,
  });
}

// The catalog (or the digits) changed: redraw every word on show, in place.
function relocalize() {
  document.title = t("app.title");
  translatePage();
  onStatus(ui.connection);
  offline.showBadge(engineWhere);
  if (ui.screen === "setup") {
    showSetup({ keepDraft: true });
    $("#first-lang")?.focus();
  } else if (ui.screen === "score") showScorer();
  else if (ui.screen === "history") showHistory();
  else if (ui.screen === "room" && game.room) showRoom(game.room);
  else if (ui.screen === "loading") replace($("#setup"), h("p", { class: "muted" }, t("app.rejoining")));
  render();
}

// ------------------------------------------------------------------ start

function wireShell() {
  $("#btn-new").addEventListener("click", () => showSetup());
  $("#btn-score").addEventListener("click", () => {
    if (location.hash !== "#score") location.hash = "#score";
    else showScorer();
  });
  $("#btn-history").addEventListener("click", () => {
    if (location.hash !== "#history") location.hash = "#history";
    else showHistory();
  });
  window.addEventListener("hashchange", () => {
    if (isScoreRoute(location.hash)) showScorer();
    else if (isHistoryRoute(location.hash)) showHistory();
    else if (codeFromHash(location.hash)) {
      const code = codeFromHash(location.hash);
      if (net.room?.code !== code) joinRoom(code).catch((err) => toast(err.message, "error"));
    } else leaveScorer();
  });
  $("#btn-rules").addEventListener("click", () => {
    if (game.setup) openRules(game.setup.profile, game.setup.options);
    else if (meta) openRules("pagat", meta.profiles.pagat);
  });
  $("#btn-howto").addEventListener("click", () => openHowTo());
  $("#btn-stats").addEventListener("click", () => openStats());
  $("#btn-settings").addEventListener("click", () => openSettingsPage());
  $("#btn-install").addEventListener("click", async () => {
    if (!installEvent) return;
    installEvent.prompt();
    await installEvent.userChoice.catch(() => null);
    installEvent = null;
    $("#btn-install").hidden = true;
  });
  for (const kind of ["input", "change"]) $("#setup").addEventListener(kind, () => (formTouched = true));
  $("#hand").addEventListener("click", onHandClick);
  installDrag($("#hand"), {
    canPlay: (card) => {
      const obs = viewerObs();
      return !!obs && myTurn(obs) && groupLegal(obs.legal).plays.has(card);
    },
    play: (card) => actions.play(card),
    refuse: (card) => {
      const obs = viewerObs();
      if (obs) toast(whyNot(obs, card, game.hold), "warn");
    },
  });
  $("#hand").addEventListener("dblclick", (e) => {
    const btn = e.target.closest("button.card.legal");
    if (btn) actions.play(btn.dataset.card);
  });
  window.addEventListener("beforeinstallprompt", (e) => {
    e.preventDefault();
    installEvent = e;
    $("#btn-install").hidden = false;
  });
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener?.("change", () => render());
  // the hand is fitted again whenever its width changes (the window, the side column, the screen)
  new ResizeObserver(() => fitHand($("#hand"))).observe($("#hand"));
  // the felt's inner height sizes the trick's cards (app.css, .trick)
  new ResizeObserver(([entry]) => {
    const felt = entry.target;
    const px = `${Math.round(entry.contentRect.height)}px`;
    if (felt.style.getPropertyValue("--felt-h") !== px) felt.style.setProperty("--felt-h", px);
  }).observe($("#felt"));
}

async function boot() {
  loadSettings();
  // what the page needs from the server, asked for at once rather than in turn
  const configLoaded = offline.loadConfig();
  const metaLoaded = loadMeta();
  await applyLanguage();
  document.title = t("app.title");
  installSprites();
  motion.install();
  translatePage();
  wireShell();
  installKeys({
    obs: viewerObs,
    ui,
    act: actions,
    handoverShown: () => ui.handover !== null,
    setupShown: () => ui.screen !== "table",
    result: () => !$("#result").hidden,
    holdTrick: () => game.hold === "trick",
    canUndo: () => game.canUndo,
    nextDeal: () => actions.nextDeal(),
    selectIndex,
    moveSelection,
    deselect: () => {
      ui.selected = null;
      render();
    },
    openHowTo,
  });
  installHintKeys();
  installGuide({ onFinish: () => showSetup() });
  registerWorker();
  setInterval(() => {
    tickCountdowns();
    showConnection();
  }, 1000);
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(SAVED_GAME) || "null");
  } catch {
    saved = null;
  }
  if (!(saved && saved.id && saved.token)) saved = null;
  // a game kept in this browser (unfinished) resumes there, unless the address is a room's
  await configLoaded;
  const linked = codeFromHash(location.hash);
  const kept = offline.available() && !linked ? offline.keptGame() : null;
  if (kept && (!saved || saved.id === kept.id)) useEngine("browser", kept);
  else {
    useEngine("server", saved);
    if (linked) net.room = { code: linked, token: roomTokens()[linked] || null };
  }
  meta = await metaLoaded;
  if (ui.connection === "offline" && net.ws) onStatus(net.status);
  if (isScoreRoute(location.hash)) showScorer();
  else if (isHistoryRoute(location.hash)) showHistory();
  else if (!net.game && !net.room) {
    if (ui.connection === "connecting") {
      // the form says where a game runs and who plays: it waits for the server's first answer
      replace($("#setup"), h("p", { class: "muted", dataset: { testid: "setup-connecting" } }, t("app.connecting")));
      show("setup");
      document.body.classList.remove("booting");
      await connectionSettled(3000);
    }
    showSetup();
  } else if (ui.screen === "loading") replace($("#setup"), h("p", { class: "muted" }, t("app.rejoining")));
  document.body.classList.remove("booting");
  window.twentynine = {
    game,
    ui,
    obs: () => viewerObs(),
    view: () => currentObs(),
    idle: () => !ui.busy && net.pending.size === 0,
    version: () => net.v,
    connection: () => ({ status: net.status, closes: [...net.closes] }),
    net: () => net,
    engine: () => engineWhere,
    offline,
    settings: () => settings(),
    setSettings: async (c) => {
      updateSettings(c);
      if ("lang" in c || "digits" in c) {
        await applyLanguage();
        relocalize();
      }
      render();
    },
    sortHand,
    motion: () => motion.record(),
    sound: sound.player,
    stats: () => stats.summary(),
  };
}

boot();
