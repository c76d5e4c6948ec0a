// The service worker: keeps the app's shell (page, styles, scripts, catalog,
// icons) so the installed app opens without a connection. Game traffic goes
// over the websocket and is never cached. The cache is named after the build,
// so a new version of the files replaces the old cache.
//
// For offline play it also keeps the Python package's zip (in the shell) and
// Pyodide's runtime, in a cache named after Pyodide's version: those files
// never change under their address, so they are served from the cache first,
// and a new build of the app does not download them again.
const BUILD = "{{BUILD}}";
const CACHE = `twentynine-shell-${BUILD}`;
const SHELL = {{FILES}};
const RUNTIME = "{{RUNTIME}}";
const RUNTIME_CACHE = `twentynine-pyodide-${RUNTIME}`;
const RUNTIME_FILES = {{RUNTIME_FILES}};

// Fetch what the runtime cache lacks; a failure leaves the shell installed.
async function keepRuntime() {
  if (!RUNTIME_FILES.length) return;
  const cache = await caches.open(RUNTIME_CACHE);
  for (const url of RUNTIME_FILES) {
    if (await cache.match(url)) continue;
    const response = await fetch(url);
    if (response.ok) await cache.put(url, response);
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => keepRuntime().catch(() => {}))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  const stale = (k) =>
    (k.startsWith("twentynine-shell-") && k !== CACHE) || (RUNTIME && k.startsWith("twentynine-pyodide-") && k !== RUNTIME_CACHE);
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter(stale).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function cacheable(url) {
  return url.origin === self.location.origin && (url.pathname.startsWith("/static/") || url.pathname.startsWith("/offline/") || url.pathname === "/" || url.pathname === "/api/meta" || url.pathname === "/manifest.webmanifest");
}

// Pyodide's files: the cache first, else the network (and keep what comes).
async function runtimeFile(request) {
  const cache = await caches.open(RUNTIME_CACHE);
  const hit = await cache.match(request, { ignoreSearch: true });
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin === self.location.origin && RUNTIME && url.pathname.startsWith(`/pyodide/${RUNTIME}/`)) {
    event.respondWith(runtimeFile(request));
    return;
  }
  if (!cacheable(url)) return;
  // Network first (so a running server always serves the newest files), the cache when offline.
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(async () => {
        const cache = await caches.open(CACHE);
        const hit = (await cache.match(request, { ignoreSearch: url.pathname.startsWith("/static/") })) ||
          (request.mode === "navigate" ? await cache.match("/") : undefined);
        return hit || Response.error();
      }),
  );
});
