// Where the engine runs: on the server (the websocket) or in this browser
// (engine-worker.js: Pyodide running the server's own Python in a worker).
// Both speak the same protocol through Net, so the table's code is the same;
// this module only opens the other kind of connection, shows the runtime's
// first download, says where the engine runs (the badge), and remembers the
// game played in this browser so that it resumes after a reload.

import { $, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { toast } from "./notice.js";

const GAME_KEY = "twentynine.offline.game"; // {id, token} of the game in this browser
const PROBE_KEY = "twentynine.offline.probe"; // the search bots' measured speed here
const FAST_ENOUGH_S = 1.5; // a level's slowest probed decision, for it to be a default
const LEVELS = { random: 0, novice: 1, casual: 2, strong: 3, expert: 4 };
// The levels the probe times, in this order while each is fast enough: the last
// that is becomes the strongest level offered by default (none: casual).
const PROBED = ["strong", "expert"];
// A level whose probe has not answered by then is too slow here (its worker is
// ended): a fast one answers within its 4 s cap plus one decision.
const PROBE_WAIT_MS = 8_000;

let config = null;
let worker = null;
let ready = null; // a promise of the runtime's timings
let counter = 0;
const sockets = new Map(); // conn -> EngineSocket
const results = new Map(); // eval id -> {resolve, reject}
let probing = null; // the speed probe, once started
let choice = null; // the player's pick on the new-game form: null (automatic), "server", "browser"

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* private mode: nothing is kept */
  }
}

function stored(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

export async function loadConfig() {
  if (config) return config;
  try {
    const res = await fetch("/offline/config.json", { cache: "no-cache" });
    if (res.ok) config = await res.json();
  } catch {
    /* no server and nothing cached */
  }
  return config;
}

export function available() {
  return !!config?.available;
}

// ------------------------------------------------------------------ the worker

function onWorkerMessage(ev) {
  const msg = ev.data;
  switch (msg.kind) {
    case "progress":
      showProgress(msg.loaded, msg.total);
      return;
    case "opened": {
      const sock = sockets.get(msg.conn);
      if (sock && sock.readyState === 0) {
        sock.readyState = 1;
        sock.onopen?.({});
      }
      return;
    }
    case "message":
      sockets.get(msg.conn)?.onmessage?.({ data: msg.text });
      return;
    case "result": {
      const p = results.get(msg.id);
      results.delete(msg.id);
      if (!p) return;
      if ("error" in msg) p.reject(new Error(msg.error));
      else p.resolve(msg.value);
      return;
    }
    default:
  }
}

// Start the runtime (once per page); resolves with its timings.
export function startEngine() {
  if (ready) return ready;
  ready = (async () => {
    const cfg = await loadConfig();
    if (!cfg?.available) throw new Error(t("engine.unavailable"));
    worker = new Worker("/static/js/engine-worker.js", { type: "module" });
    worker.addEventListener("message", onWorkerMessage);
    const timings = await new Promise((resolve, reject) => {
      const started = (ev) => {
        if (ev.data.kind === "ready") resolve(ev.data.timings);
        else if (ev.data.kind === "failed") reject(new Error(ev.data.message));
        else return;
        worker.removeEventListener("message", started);
      };
      worker.addEventListener("message", started);
      worker.addEventListener("error", (e) => reject(new Error(e.message || "worker error")));
      worker.postMessage({ kind: "boot", config: cfg });
    });
    hideProgress();
    document.body.dataset.engine = "ready";
    probing = probeOnce();
    return timings;
  })();
  ready.catch((err) => {
    hideProgress();
    showFailure(err);
  });
  return ready;
}

// Python code run in the worker (tests, benchmarks, the speed probe): its value.
export async function evaluate(code) {
  await startEngine();
  counter += 1;
  const id = `e${counter}`;
  return new Promise((resolve, reject) => {
    results.set(id, { resolve, reject });
    worker.postMessage({ kind: "eval", id, code });
  });
}

// A WebSocket look-alike over the worker: what Net opens for the browser engine.
class EngineSocket {
  constructor() {
    counter += 1;
    this.conn = `p${counter}`;
    this.readyState = 0;
    sockets.set(this.conn, this);
    startEngine().then(
      () => {
        if (this.readyState === 0) worker.postMessage({ kind: "open", conn: this.conn });
      },
      () => this._closed(),
    );
  }

  send(text) {
    if (this.readyState !== 1) return;
    remember(text);
    worker.postMessage({ kind: "send", conn: this.conn, text });
  }

  close() {
    if (this.readyState === 3) return;
    if (worker) worker.postMessage({ kind: "close", conn: this.conn });
    this._closed();
  }

  _closed() {
    this.readyState = 3;
    sockets.delete(this.conn);
    setTimeout(() => this.onclose?.({}), 0);
  }

  set onmessage(fn) {
    this._onmessage = fn
      ? (ev) => {
          seen(ev.data);
          fn(ev);
        }
      : null;
  }

  get onmessage() {
    return this._onmessage;
  }
}

export function connect() {
  return new EngineSocket();
}

// ------------------------------------------------------------------ the game kept here

function remember(text) {
  // a new game in this browser replaces the one kept
  if (text.startsWith('{"type":"create"')) store(GAME_KEY, null);
}

function seen(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return;
  }
  if (msg.type === "state" && msg.token) store(GAME_KEY, { id: msg.game, token: msg.token });
  if ((msg.type === "state" || msg.type === "update") && msg.over) store(GAME_KEY, null);
  if (msg.type === "error" && (msg.code === "not_found" || msg.code === "forbidden")) store(GAME_KEY, null);
}

// The unfinished game of this browser, {id, token}, or null.
export function keptGame() {
  const g = stored(GAME_KEY);
  return g && g.id && g.token ? g : null;
}

export function forgetGame() {
  store(GAME_KEY, null);
}

// ------------------------------------------------------------------ which engine

// Where a new game runs: the player's pick, else the server when it answers.
// `server` is the state of the server itself ("online", "offline", "connecting"),
// not of the connection the table uses now (the engine here is always "online").
export function engineFor(server) {
  if (choice) return choice;
  return server === "online" || !available() ? "server" : "browser";
}

let shown = null; // the engine the new-game form shows as chosen

// The engine a game started from the form runs on: the one the form shows.
export function shownEngine() {
  return available() ? shown : "server";
}

// The new-game form's choice of engine (null when offline play is not served).
export function engineChoice(server) {
  if (!available()) return null;
  const current = engineFor(server);
  shown = current;
  const option = (value) =>
    h(
      "label",
      { class: "radio" },
      h("input", {
        type: "radio",
        name: "engine",
        value,
        checked: current === value,
        dataset: { testid: `engine-${value}` },
        onchange: () => {
          choice = value;
          shown = value;
        },
      }),
      t(`engine.choice_${value}`),
    );
  return h(
    "section",
    { class: "engine-choice" },
    h("h2", {}, t("engine.where")),
    h("div", { role: "radiogroup", "aria-label": t("engine.where") }, option("server"), option("browser")),
    h("p", { class: "help muted" }, t("engine.choice_help")),
    slowNote(),
  );
}

// Which bots this device is too slow for, as the probe found (none said before it has run).
function slowNote() {
  const level = stored(PROBE_KEY)?.level;
  const key = level === "casual" ? "engine.slow_bots" : level === "strong" ? "engine.slow_expert" : null;
  return key ? h("p", { class: "help muted", dataset: { testid: "engine-slow" } }, t(key)) : null;
}

// The badge in the top bar: where the engine of this table runs.
export function showBadge(where) {
  const el = $("#engine-badge");
  if (!el) return;
  el.dataset.where = where;
  replace(el, h("span", { class: "long" }, t(`engine.badge_${where}`)), h("span", { class: "short" }, t(`engine.badge_${where}_short`)));
  el.title = t(`engine.badge_${where}_title`);
  document.body.dataset.engineWhere = where;
}

// ------------------------------------------------------------------ the default bots here

// What a kept probe was measured with: Pyodide's version and the package's zip
// (a new build of the bots may be faster or slower).
function probeVersion() {
  return `${config?.pyodide_version} ${config?.bundle}`;
}

// The search bots' speed in this browser, measured once and kept: the strong
// bot's heaviest decisions (its first bid and first card of a deal), then, if
// they are fast enough, the expert's. It runs in a second worker (a few
// seconds, once), so the game's worker never waits for it. Kept: the times of
// each level probed (`times`: the strong bot's) and `level`, the strongest
// level fast enough here ("casual" when the strong bot is not).
async function probeOnce() {
  const version = probeVersion();
  const kept = stored(PROBE_KEY);
  if (kept && kept.version === version) return kept;
  const probe = new Worker("/static/js/engine-worker.js", { type: "module" });
  try {
    const answer = (kind, id) =>
      new Promise((resolve, reject) => {
        probe.addEventListener("message", (ev) => {
          if (ev.data.kind === kind && (id === undefined || ev.data.id === id)) resolve(ev.data);
          else if (ev.data.kind === "failed") reject(new Error(ev.data.message));
        });
        probe.addEventListener("error", (e) => reject(new Error(e.message || "probe failed")));
      });
    const booted = answer("ready");
    probe.postMessage({ kind: "boot", config: { ...config, sizes: {}, role: "probe" } });
    await booted;
    // the probe's modules loaded first, untimed: a slow import is not a slow bot
    const loaded = answer("result", "import");
    probe.postMessage({ kind: "eval", id: "import", code: "import twentynine.offline.checks" });
    const imported = await loaded;
    if ("error" in imported) throw new Error(imported.error);
    const levels = {};
    let level = "casual";
    for (const probed of PROBED) {
      const result = answer("result", probed);
      const code = `import json\nfrom twentynine.offline.checks import probe\njson.dumps(probe(${JSON.stringify(probed)}, stop_above=${FAST_ENOUGH_S}))`;
      probe.postMessage({ kind: "eval", id: probed, code });
      const late = new Promise((resolve) => setTimeout(() => resolve(null), PROBE_WAIT_MS));
      const answered = await Promise.race([result, late]);
      if (!answered) break; // still thinking: too slow here
      if ("error" in answered) throw new Error(answered.error);
      const times = JSON.parse(answered.value);
      levels[probed] = times;
      if (!times.length || Math.max(...times) > FAST_ENOUGH_S) break;
      level = probed;
    }
    if (!levels.strong) return null;
    const measured = { version, times: levels.strong, levels, level };
    store(PROBE_KEY, measured);
    return measured;
  } catch {
    return null;
  } finally {
    probe.terminate();
  }
}

// Resolves when the speed of this browser is known (null if it cannot be measured).
export function probed() {
  return probing || Promise.resolve(stored(PROBE_KEY));
}

// The server's default bots, or for the browser engine the characters of the
// levels fast enough on this device (the probe's `level`; casual until it is
// known) instead of the stronger ones.
// A bot that is swapped takes the strongest quick character not already at the
// table, so no name sits at two seats.
export function defaultBots(meta, where) {
  if (where !== "browser") return meta.default_bots;
  const fastest = LEVELS[stored(PROBE_KEY)?.level] ?? LEVELS.casual;
  const level = (id) => LEVELS[meta.characters.find((c) => c.id === id)?.level] ?? 0;
  const quick = (id) => level(id) <= Math.max(fastest, LEVELS.casual);
  const taken = new Set(meta.default_bots.filter(quick));
  const spare = meta.characters
    .filter((c) => quick(c.id) && !taken.has(c.id))
    .sort((a, b) => level(b.id) - level(a.id))
    .map((c) => c.id);
  return meta.default_bots.map((id) => (quick(id) || !spare.length ? id : spare.shift()));
}

// Whether the server answers now (for a page whose engine runs here, the table's
// own connection says nothing about it). The answer never comes from a cache.
export async function serverAnswers(timeoutMs = 2500) {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  try {
    const res = await fetch("/healthz", { cache: "no-store", signal: stop.signal });
    return res.ok;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

// ------------------------------------------------------------------ progress

function progressBox() {
  let el = $("#engine-progress");
  if (!el) {
    el = h("div", { id: "engine-progress", class: "engine-progress", role: "status", dataset: { testid: "engine-progress" } });
    document.body.append(el);
  }
  return el;
}

function showProgress(loaded, total) {
  const el = progressBox();
  const mb = (n) => Math.round(n / 1e5) / 10; // MB with one decimal, in the language's digits
  const label = total && loaded < total ? t("engine.loading_bytes", { loaded: mb(loaded), total: mb(total) }) : t("engine.starting");
  replace(el, h("span", {}, label), h("progress", { max: total || 1, value: total ? loaded : 1 }));
  el.hidden = false;
}

function hideProgress() {
  const el = $("#engine-progress");
  if (el) el.hidden = true;
}

function showFailure(err) {
  const el = progressBox();
  replace(el, h("span", {}, t("engine.failed", { message: err?.message || String(err) })));
  el.dataset.kind = "error";
  el.hidden = false;
}

// The player's pick of engine for the next game (from the banner's button).
export function choose(where) {
  choice = where;
}

// The record of a game played here: the link on the result card downloads it.
export function recordHref() {
  return "#record";
}

document.addEventListener("click", async (e) => {
  const link = e.target.closest?.('a[href="#record"]');
  if (!link) return;
  e.preventDefault();
  const id = window.twentynine?.game?.id;
  if (!id) {
    toast(t("record.no_game"), "error");
    return;
  }
  let text;
  try {
    text = await evaluate(`import json\njson.dumps(host.lobby.sessions[${JSON.stringify(id)}].game.record(), indent=1)`);
  } catch (err) {
    toast(t("record.failed", { message: err?.message || String(err) }), "error");
    return;
  }
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = h("a", { href: url, download: `29-${id}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
});
