// Taking a seat at a table: where the table's engine runs (the server, or
// this browser), a new game started from the form, and a room on the server
// made or joined.

import { onMessage, onStatus } from "./messages.js";
import { Net } from "./net.js";
import { errorText } from "./notice.js";
import * as offline from "./offline.js";
import { page, serverState } from "./page.js";
import { keepName, playerName as savedName, roomTokens } from "./room.js";
import { needServer } from "./screens.js";
import { update as updateSettings } from "./settings.js";

// The same table talks to the server (websocket) or to the engine in this
// browser (offline.js): only the connection differs.
export function useEngine(where, game = null) {
  if (page.net && page.engineWhere === where) return;
  if (page.net) page.net.stop();
  page.engineWhere = where;
  page.net = new Net({ onMessage, onStatus, connect: where === "browser" ? offline.connect : null });
  if (game) page.net.game = game;
  offline.showBadge(where);
  page.net.start();
}

// A game starts where the form says it does (never elsewhere behind its back).
export async function startGame(setup) {
  const where = offline.shownEngine() ?? offline.engineFor(serverState());
  if (where === "server") await needServer();
  useEngine(where);
  updateSettings({ autoPair: !!setup.auto_pair });
  page.net.leave();
  await page.net.request("create", { setup }).catch((err) => {
    throw new Error(errorText(err));
  });
  // the server has the new game: the one kept in this browser is no longer resumed
  if (where === "server") offline.forgetGame();
}

// Rooms are the server's: a page playing in this browser switches back to it
// (the game kept in this browser stays kept) once the server answers.
async function serverForRooms() {
  await needServer();
  if (page.engineWhere !== "server") useEngine("server");
}

export async function createRoom(setup, name) {
  await serverForRooms();
  keepName(name);
  page.net.leave();
  await page.net.request("room_create", { setup, ...(name ? { name } : {}) }).catch((err) => {
    throw new Error(errorText(err));
  });
}

export async function joinRoom(code, { quiet = false } = {}) {
  const clean = code.replace(/[\s-]/g, "").toUpperCase();
  await serverForRooms();
  page.net.leave();
  const token = roomTokens()[clean];
  const name = savedName();
  page.net.room = { code: clean, token: token || null };
  // a connection still opening joins the room by itself as soon as it is open
  if (!page.net.ws || page.net.ws.readyState !== WebSocket.OPEN) return;
  const body = { code: clean, ...(token ? { token } : {}), ...(name ? { name } : {}) };
  await page.net.request("room_join", body).catch((err) => {
    page.net.room = null;
    if (quiet) return;
    throw new Error(errorText(err));
  });
}
