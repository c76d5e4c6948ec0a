// The page's shared state: what the table shows (ui), the rest of the page's
// state (page: the server's meta, the connection, where the engine runs, the
// new-game form on show...), and which seat's view is on show. Every module
// of the page reads and changes these objects; none of them holds a copy.

import { game } from "./model.js";

export const SAVED_GAME = "twentynine.game";

export const ui = {
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

// The rest of the page's state, in one object so that every module can change it.
export const page = {
  meta: null, // what the server says of itself (/api/meta): profiles, bots, options
  net: null, // the table's connection (net.js)
  engineWhere: "server", // where the engine of this table runs: "server" or "browser"
  installEvent: null, // the browser's offer to install the app, kept for the install button
  autoNextTimer: null, // the next trick's own start (Settings: go on by itself)
  serverProbe: "connecting", // whether the server answers, while the engine runs in this browser
  formEngine: null, // the engine the new-game form on show was built for
  formTouched: false, // the player changed something on that form
  settling: [], // what waits for the first answer of the connection
};

// The server's own state. While the engine runs in this browser the table's
// connection is always up (it is the engine's), so the server is asked apart.
export function serverState() {
  return page.engineWhere === "server" ? ui.connection : page.serverProbe;
}

// Whose view is on show (the viewer's, else the seat drawn at the bottom), and its observation and events.
export function displaySeat() {
  if (game.spectator) return "public";
  if (ui.viewer !== null) return ui.viewer;
  return game.seats.includes(ui.anchor) ? ui.anchor : game.seats[0];
}

export function currentObs() {
  if (!game.setup) return null;
  return game.views[displaySeat()] || null;
}

export function viewerObs() {
  return ui.viewer === null ? null : game.views[ui.viewer] || null;
}

export function currentEvents() {
  const evs = game.events[displaySeat()] || [];
  return ui.viewer === null ? evs.filter((e) => !(e.type === "pass" && e.stage === "pair")) : evs;
}
