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

export class Net {
  constructor({ onMessage, onStatus, connect = null }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.connect = connect;
    this.prefix = Math.random().toString(36).slice(2, 10);
    this.counter = 0;
    this.pending = new Map(); // id -> {msg, resolve, reject}
    this.game = null; // {id, token}
    this.v = 0;
    this.ws = null;
    this.status = "connecting";
    this.attempt = 0;
    this.timer = null;
    this.joined = false;
  }

  get url() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    return `${scheme}${location.host}/ws`;
  }

  start() {
    this._open();
    window.addEventListener("online", () => this.retryNow());
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
      if (this.game) this._send({ type: "join", id: this._id(), game: this.game.id, token: this.game.token });
      else this._flush();
    };
    ws.onmessage = (ev) => this._receive(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this._scheduleRetry();
    };
    ws.onerror = () => {};
  }

  _scheduleRetry() {
    const delay = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
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
      if (msg.type === "join") continue;
      this._send(msg);
    }
  }

  // Send a message and wait for its answer; rejects with {code, message}.
  request(type, body = {}) {
    const msg = { type, id: this._id(), ...body };
    return new Promise((resolve, reject) => {
      this.pending.set(msg.id, { msg, resolve, reject });
      if (type === "create" || type === "join" || this.joined) this._send(msg);
    });
  }

  // Forget a game (a new game replaces it).
  leave() {
    this.game = null;
    this.v = 0;
    for (const [id, p] of this.pending) {
      if (p.msg.type !== "create") {
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
        return;
      case "state":
        if (msg.token) this.game = { id: msg.game, token: msg.token };
        else if (this.game) this.game = { ...this.game, id: msg.game };
        this.v = msg.v;
        this.joined = true;
        this._settle(msg, true);
        this.onMessage(msg);
        this._flush();
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
        if (msg.id) this._settle(msg, false);
        if (msg.code === "not_found" || msg.code === "forbidden") this.game = null;
        this.onMessage(msg);
        return;
      default:
        this.onMessage(msg);
    }
  }

  sync() {
    if (this.syncing) return;
    this.syncing = true;
    this.request("sync").finally(() => {
      this.syncing = false;
    });
  }
}
