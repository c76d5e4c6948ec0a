"""The web app. For now a holding page: the rules of every profile, drawn
from the engine itself, until the playable table lands."""

from __future__ import annotations

import html

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..rules import OPTION_HELP, PROFILE_SUMMARIES, PROFILES, format_value

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>twentynine</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }}
table {{ border-collapse: collapse; width: 100%; margin-bottom: 2rem; }}
th, td {{ border-bottom: 1px solid #ccc; padding: .3rem .5rem; text-align: left; }}
.note {{ background: #fff6d5; padding: .8rem 1rem; border-radius: .4rem; }}
</style></head><body>
<h1>twentynine</h1>
<p class="note">The playable table is not in this version yet. The rules engine is:
below are the five rule profiles it implements, read from the engine itself.
From the command line, <code>twentynine rules</code> and
<code>twentynine replay</code> work today.</p>
{tables}
</body></html>"""


def _profile_table(name: str) -> str:
    rules = PROFILES[name]
    rows = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(format_value(v))}</td>"
        f"<td>{html.escape(OPTION_HELP[k])}</td></tr>"
        for k, v in rules.options().items()
    )
    return (
        f"<h2 id='{name}'>{name}</h2><p>{html.escape(PROFILE_SUMMARIES[name])}</p>"
        f"<table>{rows}</table>"
    )


async def index(request: Request) -> Response:
    return HTMLResponse(PAGE.format(tables="".join(_profile_table(n) for n in PROFILES)))


async def profiles(request: Request) -> Response:
    return JSONResponse({n: r.options() for n, r in PROFILES.items()})


def create_app() -> Starlette:
    return Starlette(routes=[Route("/", index), Route("/api/profiles", profiles)])


def serve(host: str, port: int, open_browser: bool = False) -> int:
    import threading
    import webbrowser

    import uvicorn

    url = f"http://{host}:{port}/"
    print(f"twentynine: serving on {url} (Ctrl-C to stop)")
    if open_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
    return 0
