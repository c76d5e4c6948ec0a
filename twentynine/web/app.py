"""The web app: the browser table's static files plus the game server.

The front end is plain files (HTML, CSS, ES modules, a message catalog)
served as they are: no build step. The page shell, the web app manifest and
the service worker are served from the site root so the app installs and
its shell opens offline; the service worker's cache is named after a hash
of the static files, so a new version replaces the old cache by itself.

For offline play the app also serves Pyodide's runtime (``/pyodide/VERSION/``,
copied from the npm package by ``scripts/ensure-pyodide``; kept by the
service worker in a cache of its own, named after Pyodide's version, so a new
build of the app does not download it again) and the package itself as one
zip (``/offline/twentynine-HASH.zip``, see ``offline.bundle``), with
``/offline/config.json`` telling the page where both are.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from ..offline.bundle import Bundle
from ..offline.bundle import build as build_bundle
from ..server.config import ServerConfig
from ..server.limits import GUARD_STATE
from ..server.lobby import Lobby
from ..server.routes import routes as server_routes
from ..server.store import GameStore, StoreError, default_path

STATIC = Path(__file__).parent / "static"
PYODIDE = Path(__file__).parent / "pyodide"
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
NO_CACHE = {"Cache-Control": "no-cache"}
IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable"}
MEDIA_TYPES = {
    ".mjs": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".json": "application/json",
}


def pyodide_version(root: Path = PYODIDE) -> str | None:
    """The version of the Pyodide copied into ``root``, or None if it is not there."""
    try:
        version = (root / "version.txt").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not version or not all((root / f).is_file() for f in PYODIDE_FILES):
        return None
    return version


def app_build(static_build: str, bundle: Bundle, pyodide: str | None) -> str:
    """The version of everything the service worker keeps: static files, bundle, runtime."""
    text = f"{static_build}:{bundle.digest}:{pyodide or '-'}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def build_id(root: Path = STATIC) -> str:
    """A short hash of every static file: the version of the front end."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def preload_links(root: Path = STATIC) -> str:
    """Links that fetch every module of the page (and the English catalog) at once,
    with main.js, instead of one level of imports after another."""
    links = [
        f'<link rel="modulepreload" href="/static/js/{path.name}">'
        for path in sorted((root / "js").glob("*.js"))
        if path.name not in ("main.js", "engine-worker.js")  # the page's script; a worker's
    ]
    links.append('<link rel="preload" href="/static/i18n/en.json" as="fetch" crossorigin>')
    return "\n".join(links)


def shell_files(build: str, bundle: Bundle | None = None) -> list[str]:
    """What the service worker keeps for offline use: the page and every static file
    (and the package's zip and its config, for offline play)."""
    files = ["/", "/manifest.webmanifest", "/api/meta"]
    if bundle is not None:
        files += ["/offline/config.json", f"/offline/{bundle.name}"]
    for path in sorted(STATIC.rglob("*")):
        rel = path.relative_to(STATIC).as_posix()
        if not path.is_file() or rel in ("index.html", "sw.js", "manifest.webmanifest"):
            continue
        files.append(f"/static/{rel}")
    files += [f"/static/css/{name}?v={build}" for name in STYLESHEETS]
    files += [f"/static/js/main.js?v={build}"]
    return files


# The page's stylesheets, linked in this order: each builds on those before it
# (one file per part of the page, where there was one of 3,000 lines).
STYLESHEETS = (
    "base.css",
    "table.css",
    "hand.css",
    "pages.css",
    "sizes.css",
    "score.css",
    "history.css",
    "rooms.css",
    "plates.css",
    "guide.css",
    "motion.css",
)


def style_links(build: str) -> str:
    """The ``<link>`` of every stylesheet, in order, each named with the build (a new build
    is fetched anew)."""
    return "\n".join(
        f'<link rel="stylesheet" href="/static/css/{name}?v={build}">' for name in STYLESHEETS
    )


class RevalidatedFiles(StaticFiles):
    """Static files that the browser revalidates (ETag) instead of trusting stale copies."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.setdefault("Cache-Control", "no-cache")
        return response


def create_app(config: ServerConfig | None = None, store: GameStore | None = None) -> Starlette:
    """The app; games are kept in ``store``, else in ``config.db`` (``$TWENTYNINE_DB``), else
    in memory only."""
    lobby = Lobby(config, store)
    bundle = build_bundle()
    runtime = pyodide_version()
    build = app_build(build_id(), bundle, runtime)
    runtime_base = f"/pyodide/{runtime}/" if runtime else None
    offline_config = {
        "available": runtime is not None,
        "pyodide": runtime_base,
        "pyodide_version": runtime,
        "bundle": f"/offline/{bundle.name}",
        "build": build,
        "bot_delay_ms": round(lobby.config.bot_delay * 1000),
        "sizes": {f: (PYODIDE / f).stat().st_size for f in PYODIDE_FILES} if runtime else {},
    }
    runtime_files = [f"{runtime_base}{f}" for f in PYODIDE_FILES] if runtime_base else []
    index_html = (
        (STATIC / "index.html")
        .read_text(encoding="utf-8")
        .replace("{{STYLES}}", style_links(build))
        .replace("{{BUILD}}", build)
        .replace("{{PRELOAD}}", preload_links())
    )
    worker_js = (
        (STATIC / "sw.js")
        .read_text(encoding="utf-8")
        .replace("{{BUILD}}", build)
        .replace("{{FILES}}", json.dumps(shell_files(build, bundle)))
        .replace("{{RUNTIME}}", runtime or "")
        .replace("{{RUNTIME_FILES}}", json.dumps(runtime_files))
    )

    async def index(request: Request) -> Response:
        return Response(index_html, media_type="text/html; charset=utf-8", headers=NO_CACHE)

    async def service_worker(request: Request) -> Response:
        return Response(
            worker_js,
            media_type="text/javascript; charset=utf-8",
            headers={**NO_CACHE, "Service-Worker-Allowed": "/"},
        )

    async def manifest(request: Request) -> Response:
        return FileResponse(
            STATIC / "manifest.webmanifest",
            media_type="application/manifest+json",
            headers=NO_CACHE,
        )

    async def offline_config_json(request: Request) -> Response:
        return JSONResponse(offline_config, headers=NO_CACHE)

    async def offline_bundle(request: Request) -> Response:
        if request.path_params["name"] != bundle.name:
            return Response("no such bundle", status_code=404)
        return Response(bundle.data, media_type="application/zip", headers=IMMUTABLE)

    async def pyodide_file(request: Request) -> Response:
        name = request.path_params["name"]
        if runtime is None or request.path_params["version"] != runtime:
            return Response("no such Pyodide", status_code=404)
        if name not in PYODIDE_FILES:
            return Response("no such file", status_code=404)
        media_type = MEDIA_TYPES.get(Path(name).suffix, "application/octet-stream")
        packed = PYODIDE / f"{name}.gz"
        accepts = "gzip" in request.headers.get("accept-encoding", "")
        if accepts and packed.is_file():
            headers = {**IMMUTABLE, "Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
            return FileResponse(packed, media_type=media_type, headers=headers)
        return FileResponse(PYODIDE / name, media_type=media_type, headers=IMMUTABLE)

    async def favicon(request: Request) -> Response:
        return RedirectResponse("/static/icons/icon.svg", status_code=301)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        if lobby.config.redis:
            from ..server.cluster import Cluster

            lobby.cluster = Cluster(lobby.config.redis, lobby, lobby.config.lease_seconds)
            lobby.leases = lobby.cluster.leases
            await lobby.cluster.start()
        lobby.start()
        try:
            # the websocket protocol of `serve` drops a refused client early (web.sockets)
            yield {GUARD_STATE: lobby.guard}
        finally:
            if lobby.cluster is not None:
                await lobby.cluster.close()
            lobby.close()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/index.html", index),
            Route("/sw.js", service_worker),
            Route("/manifest.webmanifest", manifest),
            Route("/favicon.ico", favicon),
            Route("/offline/config.json", offline_config_json),
            Route("/offline/{name}", offline_bundle),
            Route("/pyodide/{version}/{name}", pyodide_file),
            *server_routes(),
            Mount("/static", RevalidatedFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.lobby = lobby
    app.state.build = build
    app.state.offline = offline_config
    return app


def cluster_problem(config: ServerConfig) -> str | None:
    """Why this server cannot be one of many processes, or None."""
    import importlib.util

    if importlib.util.find_spec("redis") is None:
        return "--redis needs the redis client: pip install 'twentynine[cluster]'"
    if not (config.redis or "").startswith(("redis://", "rediss://", "unix://")):
        return f"--redis {config.redis!r}: a URL such as redis://127.0.0.1:6379/0"
    if not (config.db or "").startswith(("postgresql://", "postgres://")):
        return (
            "--redis shares the games of many processes: they must be kept in PostgreSQL"
            " (--db postgresql://USER@HOST:PORT/DB)"
        )
    import redis

    try:
        client = redis.Redis.from_url(
            config.redis or "", socket_connect_timeout=5, socket_timeout=5
        )
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, ValueError, OSError) as e:
        return f"--redis {shown_db(config.redis or '')}: cannot be reached ({e})"
    return None


def shown_db(where: str) -> str:
    """A database path or URL as it may be printed: a password in a URL is masked."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(where)
    if parts.password is None:
        return where
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def open_page(url: str) -> bool:
    """Open ``url`` in a browser; where none can be opened (a server without a desktop,
    a container), say so and where to go instead of failing in silence."""
    import sys
    import webbrowser

    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print(f"twentynine: no browser could be opened here; open {url} in one", file=sys.stderr)
    return opened


def serve(
    host: str,
    port: int,
    open_browser: bool = False,
    db: str | None = None,
    redis: str | None = None,
) -> int:
    """Serve the app; games are kept in ``db`` (a path, ``sqlite:///path`` or ``:memory:``),
    else ``$TWENTYNINE_DB``, else a file under the user's data directory."""
    import gc
    import sys
    import threading

    import uvicorn

    from .sockets import AbortableSockets

    try:
        config = ServerConfig.from_env()
    except ValueError as e:  # a setting that does not read, such as TWENTYNINE_BOT_HOSTS
        print(f"twentynine serve: {e}", file=sys.stderr)
        return 2
    config.db = db or config.db or str(default_path())
    config.redis = redis or config.redis
    if config.redis:
        why = cluster_problem(config)
        if why is not None:
            print(f"twentynine serve: {why}", file=sys.stderr)
            return 2
    try:
        config.limits.networks()
    except ValueError as e:
        print(f"twentynine serve: TWENTYNINE_TRUSTED_PROXIES: {e}", file=sys.stderr)
        return 2
    if "TWENTYNINE_URL_BOTS" in os.environ:
        print(
            "twentynine serve: TWENTYNINE_URL_BOTS is no longer read; contest bots are called"
            " only at the hosts TWENTYNINE_BOT_HOSTS names",
            file=sys.stderr,
        )
    try:
        app = create_app(config)
    except StoreError as e:
        print(f"twentynine serve: {e}", file=sys.stderr)
        return 2
    url = f"http://{host}:{port}/"
    print(f"twentynine: serving on {url} (Ctrl-C to stop); games kept in {shown_db(config.db)}")
    if config.redis:
        print(f"twentynine: one of many server processes, sharing {shown_db(config.redis)}")
    if config.url_bots:
        print(f"twentynine: contest bots by URL may be called at {config.bot_hosts.describe()}")
    else:
        print("twentynine: contest bots by URL are off (TWENTYNINE_BOT_HOSTS names where they run)")
    if open_browser:
        threading.Timer(1.0, open_page, args=(url,)).start()
    # Everything imported so far lives as long as the server: keep it out of the garbage
    # collector's full passes, which otherwise stall every game for ~0.15 s now and then.
    gc.collect()
    gc.freeze()
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws=AbortableSockets,  # websockets-sansio, with an abort for clients that never read
        # a client's address is the socket's, or X-Forwarded-For from a proxy the operator
        # trusts (TWENTYNINE_TRUSTED_PROXIES, read by the server itself): never uvicorn's
        proxy_headers=False,
        ws_max_size=64 * 1024,
    )
    return 0
