"""Browser tests: a real server (uvicorn, in a subprocess) and Debian's chromium.

Each pytest-xdist worker starts its own server on a free loopback port and
its own headless chromium, so the workers never share state. Bots answer
quickly here (``TWENTYNINE_BOT_DELAY_MS``). Screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from twentynine.benchmarks.localhost import CHROMIUM_ARGS, free_port, stop

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
BOT_DELAY_MS = os.environ.get("TWENTYNINE_TEST_BOT_DELAY_MS", "15")

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None  # type: ignore[assignment]


def _missing(what: str) -> None:
    message = f"{what}; run `make test` (it installs what the browser tests need)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


class ServerProcess:
    """The app served by uvicorn in a subprocess, on a free loopback port."""

    def __init__(
        self, name: str, env: dict[str, str] | None = None, ws: str = "websockets-sansio"
    ) -> None:
        port = free_port()
        full_env = {
            **os.environ,
            "TWENTYNINE_BOT_DELAY_MS": BOT_DELAY_MS,
            "TWENTYNINE_BOT_WORKERS": "1",
            "TWENTYNINE_PAIR_PAUSE_MS": "1500",  # after a trick that could open a pair window
            # a room's finished trick stays on the table this long (1.5 s by default): the
            # browser tests do not time the pause, and a room's deal has eight of them
            "TWENTYNINE_TRICK_PAUSE_MS": "150",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        log = (ARTIFACTS / "logs").resolve()
        log.mkdir(parents=True, exist_ok=True)
        self.out = open(log / f"server-{name}.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "twentynine.web.app:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--ws",
                ws,
                "--log-level",
                "warning",
            ],
            env=full_env,
            stdout=self.out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the test server did not start; see {log}")
            time.sleep(0.1)

    def stop(self) -> None:
        stop(self.proc)
        self.out.close()


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The app served by uvicorn in a subprocess; yields its base URL."""
    proc = ServerProcess(os.environ.get("PYTEST_XDIST_WORKER", "main"))
    try:
        yield proc.url
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if sync_playwright is None:
        _missing("playwright is not installed")
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        _missing(f"chromium is not installed at {CHROMIUM}")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# The last pointer events of a page and what they hit, for a test that says where a
# page stood when a click seemed to do nothing (``driver.WHERE``).
POINTER_LOG = """(() => {
  const log = (window.__pointer = []);
  for (const type of ["pointerdown", "pointerup", "click"])
    document.addEventListener(type, (e) => {
      const el = e.target instanceof Element ? e.target : null;
      const btn = el && el.closest("button");
      log.push(`${type} ${btn ? btn.dataset.testid || btn.id || "button" : el ? el.tagName : "?"}`
        + `${btn && !btn.isConnected ? " (gone)" : ""} v${window.twentynine?.game?.v}`);
      if (log.length > 12) log.shift();
    }, true);
})();"""


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """A fresh browser context (own storage) at a phone-or-desktop size set by the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    pg = context.new_page()
    pg.add_init_script(POINTER_LOG)
    # long enough for a bot's move while the whole suite loads both cores; a hang still fails
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.base_url = server  # type: ignore[attr-defined]
    pg.js_errors = errors  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
