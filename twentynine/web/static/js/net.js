// The game connection: one websocket to the server, which owns the game.
//
// Every message we send has an id, unique for this page; until the server
// answers it (ack, state or error) it stays pending and is sent again after a
// reconnect: the server applies a given id once, so a resend is harmless.
// Every server message has a version `v`; an update that skips a version
// means we missed something, so we ask for the whole state again (sync).
// `connect` (optional) opens something else that behaves like a WebSocket:
// the engine in this browser (offline.js) speaks the same protocol.

const BACKOFF = [500, 1000, 2000, 4000, 8000];
// Close codes of the server (server/outbox.py). SLOW: this page fell behind (it did not
// read what was sent in time) and the server dropped what waited for it; reconnect at once:
// the rejoin brings the whole state. LIMITED: this page went on past a limit of messages or
// connections; wait longer than the server's cooldown before trying again.
const SLOW = 4008;
const LIMITED = 4029;
const SLOW_RETRY = 100;
const LIMITED_WAIT = 12000;

export class Net {
  constructor({ onMessage, onStatus, connect = null }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.connect = connect;
    this.prefix = Math.random().toString(36).slice(2, 10);
    this.counter = 0;
    this.pending = new Map(); // id -> {msg, resolve, reject}
    this.game = null; // {id, token}
    this.room = null; // {code, token}: a room this page is in (its token may be null: watching)
    this.lag = null; // the last ping's round trip, in ms
    this.v = 0;
    this.ws = null;
    this.status = "connecting";
    this.attempt = 0;
    this.timer = null;
    this.joined = false;
    this.closes = []; // the close codes of the last connections, the newest last
    this.lastSlow = -Infinity;
  }

  get url() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    return `${scheme}${location.host}/ws`;
  }

  start() {
    this._open();
    window.addEventListener("online", () => this.retryNow());
    // the device lost its network: say so now rather than when the socket times out
    window.addEventListener("offline", () => this.ws?.close());
  }

  _setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.onStatus?.(status, this._nextRetry);
  }

  // Close for good (another connection takes over).
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      ws.close();
    }
  }

  _open() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.joined = false;
    clearTimeout(this.pingTimer);
    this.pingTimer = null; // the new connection pings once it has what it asked first
    let ws;
    try {
      ws = this.connect ? this.connect() : new WebSocket(this.url);
    } catch {
      this._scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this._setStatus("online");
    };
    ws.onmessage = (ev) => this._receive(ev.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      const code = ev?.code ?? 1006;
      this.closes = [...this.closes.slice(-9), code];
      if (code === SLOW && Date.now() - this.lastSlow > 10000) {
        // at once, once in a while: a page that is always slow backs off as usual
        this.lastSlow = Date.now();
        clearTimeout(this.timer);
        this._setStatus("connecting");
        this.timer = setTimeout(() => this._open(), SLOW_RETRY);
        return;
      }
      this._scheduleRetry(code === LIMITED ? LIMITED_WAIT : null);
    };
    ws.onerror = () => {};
  }

  // The server's first words on a connection. A page coming back asks for one thing at
  // a time until it has the state again (the join, then the ping after its answer): a
  // page that was closed for falling behind does not send the burst that closes it again.
  _greeted() {
    if (this.room) this._send(this._roomJoin());
    else if (this.game) this._send({ type: "join", id: this._id(), game: this.game.id, token: this.game.token });
    else {
      this._flush();
      this._ping();
    }
  }

  _roomJoin() {
    const msg = { type: "room_join", id: this._id(), code: this.room.code };
    if (this.room.token) msg.token = this.room.token;
    return msg;
  }

  // Every 15 s while connected: how long a message takes there and back.
  _ping() {
    clearTimeout(this.pingTimer);
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    this.pingAt = performance.now();
    this._send({ type: "ping" });
    this.pingTimer = setTimeout(() => this._ping(), 15000);
  }

  _scheduleRetry(wait = null) {
    const delay = wait ?? BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    this.attempt += 1;
    this._nextRetry = Date.now() + delay;
    this.status = "";
    this._setStatus("offline");
    this.timer = setTimeout(() => this._open(), delay);
  }

  retryNow() {
    if (this.stopped) return;
    if (this.ws && this.ws.readyState <= 1) return;
    this._setStatus("connecting");
    this._open();
  }

  _id() {
    this.counter += 1;
    return `${this.prefix}-${this.counter}`;
  }

  _send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  _flush() {
    for (const { msg } of this.pending.values()) {
      if (msg.type === "join" || msg.type === "room_join") continue;
      this._send(msg);
    }
  }

  // Send a message and wait for its answer; rejects with {code, message}.
  request(type, body = {}) {
    const msg = { type, id: this._id(), ...body };
    return new Promise((resolve, reject) => {
      this.pending.set(msg.id, { msg, resolve, reject });
      if (["create", "join", "room_create", "room_join"].includes(type) || this.joined) this._send(msg);
    });
  }

  // Forget a game or room (a new one replaces it).
  leave() {
    this.game = null;
    this.room = null;
    this.v = 0;
    for (const [id, p] of this.pending) {
      if (p.msg.type !== "create" && p.msg.type !== "room_create" && p.msg.type !== "room_join") {
        p.reject({ code: "left", message: "" });
        this.pending.delete(id);
      }
    }
  }

  _settle(msg, ok) {
    const p = msg.id ? this.pending.get(msg.id) : null;
    if (!p) return;
    this.pending.delete(msg.id);
    if (ok) p.resolve(msg);
    else p.reject(msg);
  }

  _receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    switch (msg.type) {
      case "welcome":
        this._greeted();
        return;
      case "pong":
        if (this.pingAt) this.lag = Math.round(performance.now() - this.pingAt);
        return;
      case "room":
        this.room = { code: msg.code, token: msg.token || this.room?.token || null };
        this.game = null;
        this._arrived(msg);
        return;
      case "state":
        if (msg.table) {
          if (!this.room || this.room.code !== msg.table.code) this.room = { code: msg.table.code, token: msg.token || null };
          else if (msg.token) this.room = { ...this.room, token: msg.token };
          this.game = null;
        } else if (msg.token) this.game = { id: msg.game, token: msg.token };
        else if (this.game) this.game = { ...this.game, id: msg.game };
        this._arrived(msg);
        return;
      case "update":
        if (msg.v <= this.v) return; // already seen
        if (msg.v !== this.v + 1) {
          this.sync();
          return;
        }
        this.v = msg.v;
        this.onMessage(msg);
        return;
      case "ack":
        this._settle(msg, true);
        return;
      case "error":
        if (msg.id && this.pending.has(msg.id)) {
          // a request's answer: its promise says what went wrong
          this._settle(msg, false);
          return;
        }
        if ((msg.code === "not_found" || msg.code === "forbidden") && !this.joined) {
          this.game = null;
          this.room = null;
          if (!this.pingTimer) this._ping(); // the join was what it asked: it goes on without
        }
        this.onMessage(msg);
        return;
      default:
        this.onMessage(msg);
    }
  }

  // A whole state (of a room or a game): everything known is replaced, and what
  // waited for it goes out.
  _arrived(msg) {
    this.v = msg.v;
    this.joined = true;
    this._settle(msg, true);
    this.onMessage(msg);
    this._flush();
    if (!this.pingTimer) this._ping();
  }

  sync() {
    if (this.syncing) return;
    this.syncing = true;
    this.request("sync").finally(() => {
      this.syncing = false;
    });
  }
}
