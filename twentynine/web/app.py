"""The web app: the browser table's static files plus the game server.

The front end is plain files (HTML, CSS, ES modules, a message catalog)
served as they are: no build step. The page shell, the web app manifest and
the service worker are served from the site root so the app installs and
its shell opens offline; the service worker's cache is named after a hash
of the static files, so a new version replaces the old cache by itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from ..server.routes import routes as server_routes
from ..server.session import Lobby, ServerConfig
from ..server.store import GameStore, StoreError, default_path

STATIC = Path(__file__).parent / "static"
NO_CACHE = {"Cache-Control": "no-cache"}


def build_id(root: Path = STATIC) -> str:
    """A short hash of every static file: the version of the front end."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def shell_files(build: str) -> list[str]:
    """What the service worker keeps for offline use: the page and every static file."""
    files = ["/", "/manifest.webmanifest", "/api/meta"]
    for path in sorted(STATIC.rglob("*")):
        rel = path.relative_to(STATIC).as_posix()
        if not path.is_file() or rel in ("index.html", "sw.js", "manifest.webmanifest"):
            continue
        files.append(f"/static/{rel}")
    files += [f"/static/css/app.css?v={build}", f"/static/js/main.js?v={build}"]
    return files


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
    build = build_id()
    index_html = (STATIC / "index.html").read_text(encoding="utf-8").replace("{{BUILD}}", build)
    worker_js = (
        (STATIC / "sw.js")
        .read_text(encoding="utf-8")
        .replace("{{BUILD}}", build)
        .replace("{{FILES}}", json.dumps(shell_files(build)))
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

    async def favicon(request: Request) -> Response:
        return RedirectResponse("/static/icons/icon.svg", status_code=301)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lobby.start()
        try:
            yield
        finally:
            lobby.close()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/index.html", index),
            Route("/sw.js", service_worker),
            Route("/manifest.webmanifest", manifest),
            Route("/favicon.ico", favicon),
            *server_routes(),
            Mount("/static", RevalidatedFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.lobby = lobby
    app.state.build = build
    return app


def shown_db(where: str) -> str:
    """A database path or URL as it may be printed: a password in a URL is masked."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(where)
    if parts.password is None:
        return where
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def serve(host: str, port: int, open_browser: bool = False, db: str | None = None) -> int:
    """Serve the app; games are kept in ``db`` (a path, ``sqlite:///path`` or ``:memory:``),
    else ``$TWENTYNINE_DB``, else a file under the user's data directory."""
    import sys
    import threading
    import webbrowser

    import uvicorn

    config = ServerConfig.from_env()
    config.db = db or config.db or str(default_path())
    if "TWENTYNINE_URL_BOTS" not in os.environ and host not in ("127.0.0.1", "localhost", "::1"):
        # a contest bot seat makes the server call the URL a player gives: fine on one's own
        # machine, an open door on a public address unless its owner says otherwise
        config.url_bots = False
    try:
        app = create_app(config)
    except StoreError as e:
        print(f"twentynine serve: {e}", file=sys.stderr)
        return 2
    url = f"http://{host}:{port}/"
    print(f"twentynine: serving on {url} (Ctrl-C to stop); games kept in {shown_db(config.db)}")
    if not config.url_bots:
        print("twentynine: contest bots by URL are off here (TWENTYNINE_URL_BOTS=1 allows them)")
    if open_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws="websockets-sansio",
        ws_max_size=64 * 1024,
    )
    return 0
