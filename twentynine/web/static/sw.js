// The service worker: keeps the app's shell (page, styles, scripts, catalog,
// icons) so the installed app opens without a connection. Game traffic goes
// over the websocket and is never cached. The cache is named after the build,
// so a new version of the files replaces the old cache.
const BUILD = "{{BUILD}}";
const CACHE = `twentynine-shell-${BUILD}`;
const SHELL = {{FILES}};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("twentynine-shell-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function cacheable(url) {
  return url.origin === self.location.origin && (url.pathname.startsWith("/static/") || url.pathname === "/" || url.pathname === "/api/meta" || url.pathname === "/manifest.webmanifest");
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
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
