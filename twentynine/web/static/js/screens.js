// The page's screens: which one is on show, the new-game form (built again
// when the server's state changes under it), the score sheet, the history,
// a room's lobby, and what a game on the server needs of it before it starts.

import { render } from "./board.js";
import { $ } from "./dom.js";
import { offerGuide } from "./guide.js";
import { buildHistory } from "./history.js";
import { t } from "./i18n.js";
import { languageBar } from "./language.js";
import { game } from "./model.js";
import { errorText, toast } from "./notice.js";
import * as offline from "./offline.js";
import { page, serverState, ui } from "./page.js";
import { openRules } from "./pages.js";
import { codeFromHash, formatCode, keepToken, renderLobby } from "./room.js";
import { buildScorer } from "./scorepage.js";
import { buildSetup } from "./setup.js";

// The form starts games and rooms (seating.js) and redraws the page in a new
// language (preferences.js); both build on these screens, so main.js passes
// them in at start-up.
let startGame, createRoom, joinRoom, relocalize;

export function installScreens(given) {
  ({ startGame, createRoom, joinRoom, relocalize } = given);
}

export function show(screen) {
  ui.screen = screen;
  $("#screen-setup").hidden = screen !== "setup";
  $("#screen-table").hidden = screen !== "table";
  $("#screen-score").hidden = screen !== "score";
  $("#screen-history").hidden = screen !== "history";
  $("#screen-room").hidden = screen !== "room";
  document.body.dataset.screen = screen;
}

export function showSetup({ keepDraft = false } = {}) {
  if (!page.meta) return;
  const where = offline.engineFor(serverState());
  const bots = offline.defaultBots(page.meta, where);
  $("#lang-bar")?.remove();
  const bar = languageBar(relocalize);
  bar.id = "lang-bar";
  $("#setup").before(bar);
  buildSetup($("#setup"), { ...page.meta, default_bots: bots }, {
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
  page.formEngine = where;
  page.formTouched = false;
  show("setup");
  offerGuide($("#setup"));
  $("#setup h1")?.focus?.();
  if (page.engineWhere === "browser") checkServer();
}

// Ask whether the server answers (the engine runs here); the form follows the answer.
async function checkServer() {
  page.serverProbe = (await offline.serverAnswers()) ? "online" : "offline";
  refreshSetup();
}

// A form built before the server's state was known is built again for the
// engine that is right now, unless the player has already changed it.
export function refreshSetup() {
  if (ui.screen !== "setup" || page.formEngine === null || page.formTouched || !page.meta) return;
  if (offline.engineFor(serverState()) !== page.formEngine) showSetup();
}

// Resolves once the connection has answered (up or down), or after `ms`.
export function connectionSettled(ms) {
  if (ui.connection !== "connecting") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    page.settling.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// A game or a room on the server needs the server. While the engine runs here it
// is asked first: when it does not answer, the game kept in this browser stays.
export async function needServer() {
  if (page.engineWhere === "browser") {
    page.formTouched = true; // the form stays as it is while the answer comes
    const answers = await offline.serverAnswers();
    page.serverProbe = answers ? "online" : "offline";
    if (!answers) throw new Error(t("offline.cannot_start_kept"));
    return;
  }
  if (ui.connection !== "online") throw new Error(t("offline.cannot_start"));
}

// The score sheet for a table with real cards (#score, or #score/sheet/... for a
// shared sheet): it needs no server.
export const isScoreRoute = (hash) => hash === "#score" || hash.startsWith("#score/");

export function showScorer() {
  if (!page.meta) return;
  const view = buildScorer($("#screen-score"), page.meta, {
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
export function showHistory() {
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
  if (page.net.game && page.net.game.id === id && game.setup) {
    show("table");
    render();
    return;
  }
  page.net.leave();
  page.net.game = { id, token };
  show("loading");
  if (page.net.ws && page.net.ws.readyState === WebSocket.OPEN) page.net.request("join", { game: id, token }).catch((err) => toast(errorText(err), "error"));
  else page.net.retryNow();
}

// Leave the score sheet or the history for the table (or the new-game form).
export function leaveScorer() {
  if (ui.screen !== "score" && ui.screen !== "history") return;
  if (game.setup) {
    show("table");
    render();
  } else if (game.room && page.net.room) showRoom(game.room);
  else showSetup();
}

function leaveRoom() {
  page.net.leave();
  game.setup = null;
  game.room = null;
  if (codeFromHash(location.hash)) history.pushState(null, "", location.pathname + location.search);
  showSetup();
  page.net.retryNow();
  if (page.net.ws) page.net.ws.close();
}

export function showRoom(room) {
  game.room = room;
  if (room.token) keepToken(room.code, room.token);
  renderLobby($("#screen-room"), room, page.meta, {
    send: (type, body) => page.net.request(type, body),
    onLeave: leaveRoom,
    onError: (err) => toast(errorText(err), "error"),
  });
  const first = ui.screen !== "room";
  // the address is the invite link: a reload (or a bookmark) comes back to this room
  if (codeFromHash(location.hash) !== room.code) history.replaceState(null, "", `#room/${formatCode(room.code)}`);
  show("room");
  if (first) $("#screen-room h1")?.focus?.();
}
