// The engine in this browser: a web worker that loads Pyodide and the
// twentynine package, and runs the server's own Python (offline/host.py:
// the Lobby and GameSession of `twentynine serve`). The page talks to it with
// the websocket protocol, one "connection" at a time, over postMessage; the
// page never waits for Python, which thinks here.
//
// Page -> worker: {kind: "boot", config}, {kind: "open"|"close", conn},
//   (config.role "probe": only the runtime and the package, for the speed probe)
//   {kind: "send", conn, text}, {kind: "eval", id, code} (tests and benchmarks).
// Worker -> page: {kind: "progress", loaded, total}, {kind: "ready", timings},
//   {kind: "failed", message}, {kind: "opened", conn}, {kind: "message", conn, text},
//   {kind: "result", id, value | error}.
//
// Games are kept in IndexedDB (database "twentynine-offline", one record per
// game, written whole after each change; see offline/store.py).

const DB_NAME = "twentynine-offline";
const STORE = "games";
const APP_DIR = "/twentynine-app";

let booting = null;
let host = null;
let pyodide = null;
let db = null;
let lastWrite = Promise.resolve();

function post(msg) {
  self.postMessage(msg);
}

function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function readGames() {
  return new Promise((resolve, reject) => {
    const req = db.transaction(STORE, "readonly").objectStore(STORE).getAll();
    req.onsuccess = () => resolve(req.result.filter((v) => typeof v === "string"));
    req.onerror = () => reject(req.error);
  });
}

// Called by Python after each change of a game (text null: forget the game).
function persist(ident, text) {
  if (!db) return;
  const tx = db.transaction(STORE, "readwrite");
  const store = tx.objectStore(STORE);
  if (text == null) store.delete(ident);
  else store.put(text, ident);
  const done = new Promise((resolve) => {
    tx.oncomplete = () => resolve(true);
    tx.onerror = tx.onabort = () => resolve(false);
  });
  lastWrite = lastWrite.then(() => done);
}

// Awaited by Python before a message leaves: what the page sees is stored.
function flush() {
  return lastWrite;
}

// Download a file with progress (the runtime reads it again from the cache).
async function fetchCounted(url, onBytes) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onBytes(value.byteLength);
  }
}

async function boot(config) {
  const t0 = performance.now();
  const base = config.pyodide;
  const sizes = config.sizes || {};
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  let loaded = 0;
  let lastReport = 0;
  const report = (force) => {
    const now = performance.now();
    if (force || now - lastReport > 100) {
      lastReport = now;
      post({ kind: "progress", loaded: Math.min(loaded, total), total });
    }
  };
  report(true);
  await Promise.all(
    Object.keys(sizes).map((name) =>
      fetchCounted(base + name, (n) => {
        loaded += n;
        report(false);
      }),
    ),
  );
  loaded = total;
  report(true);
  const t1 = performance.now();
  const { loadPyodide } = await import(`${base}pyodide.mjs`);
  pyodide = await loadPyodide({ indexURL: base });
  const t2 = performance.now();
  const bundle = await (await fetch(config.bundle)).arrayBuffer();
  pyodide.unpackArchive(bundle, "zip", { extractDir: APP_DIR });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(APP_DIR)})`);
  if (config.role === "probe") return { total_ms: Math.round(performance.now() - t0) };
  // without IndexedDB (some private modes) games still play, but are not kept
  db = await openDb().catch(() => null);
  const games = db ? await readGames().catch(() => []) : [];
  pyodide.registerJsModule("twentynine_page", { post: (conn, text) => post({ kind: "message", conn, text }), persist, flush, games });
  pyodide.runPython(`
import twentynine_page
from twentynine.offline.host import LocalHost, local_config
from twentynine.offline.store import BrowserStore

store = BrowserStore(twentynine_page.persist, list(twentynine_page.games))
host = LocalHost(
    twentynine_page.post,
    store,
    local_config(${Number(config.bot_delay_ms ?? 600)} / 1000),
    flush=twentynine_page.flush,
)
host.start()
`);
  host = pyodide.globals.get("host");
  const t3 = performance.now();
  return {
    download_ms: Math.round(t1 - t0),
    runtime_ms: Math.round(t2 - t1),
    package_ms: Math.round(t3 - t2),
    total_ms: Math.round(t3 - t0),
    games: games.length,
  };
}

async function evaluate(id, code) {
  try {
    const value = await pyodide.runPythonAsync(code);
    post({ kind: "result", id, value: value?.toJs ? value.toJs() : value });
  } catch (err) {
    post({ kind: "result", id, error: String(err?.message || err) });
  }
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  switch (msg.kind) {
    case "boot":
      if (!booting) {
        booting = boot(msg.config).then(
          (timings) => post({ kind: "ready", timings }),
          (err) => post({ kind: "failed", message: String(err?.message || err) }),
        );
      }
      return;
    case "open":
      await booting;
      if (!host) return;
      post({ kind: "opened", conn: msg.conn });
      host.connect(msg.conn);
      return;
    case "send":
      await booting;
      host?.receive(msg.conn, msg.text);
      return;
    case "close":
      await booting;
      host?.disconnect(msg.conn);
      return;
    case "eval":
      await booting;
      if (!pyodide) post({ kind: "result", id: msg.id, error: "the engine did not start" });
      else await evaluate(msg.id, msg.code);
      return;
    default:
  }
};
