"""Offline play's Python, under CPython: the browser's store, the in-browser host,
the inline bot pool, the bundle, and imports free of the server's dependencies."""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import json
import subprocess
import sys
import warnings
import zipfile
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from twentynine.bots import make_bot, search
from twentynine.bots.solving import solver, use_solver
from twentynine.game.actions import DOUBLE, PLAY, Action
from twentynine.game.dealing import deal_hands, derive_seed
from twentynine.game.engine import Deal
from twentynine.game.observation import Observation, observe_deal
from twentynine.game.rules import PROFILES
from twentynine.offline.bundle import build
from twentynine.offline.checks import paired_times, probe, selfplay, unlimited_bots
from twentynine.offline.host import LocalHost, local_config
from twentynine.offline.store import BrowserStore
from twentynine.server.botpool import INLINE, BotPool
from twentynine.server.config import ServerConfig
from twentynine.server.game import Game
from twentynine.server.pair import could_open, masked
from twentynine.server.setup import parse_setup
from twentynine.server.store import Change, StoredReply, StoreError, UnknownGame, hash_token
from twentynine.solver import Solver, numba_available
from twentynine.web.app import create_app, pyodide_version

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: a browser test of the same worker may
    have left Playwright's event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


T = TypeVar("T")
QUICK_BOTS = [{"bot": "tara"}, {"bot": "bablu"}, {"bot": "pip"}]


class Disk:
    """What IndexedDB would hold: the texts the store hands out."""

    def __init__(self) -> None:
        self.games: dict[str, str] = {}
        self.fail = False

    def persist(self, ident: str, text: str | None) -> None:
        if self.fail:
            raise RuntimeError("quota exceeded")
        if text is None:
            self.games.pop(ident, None)
        else:
            self.games[ident] = text


# ---------------------------------------------------------------------- the store


def test_the_browser_store_mirrors_every_change_and_reads_it_back() -> None:
    disk = Disk()
    store = BrowserStore(disk.persist)
    store.create("g1", {"profile": "pagat"}, 7, [hash_token("t")], {"pace": 1.0})
    store.append("g1", 0, {"seat": 0, "pass": True})
    store.append("g1", 1, {"seat": 1, "bid": 16})
    with pytest.raises(StoreError):
        store.append("g1", 5, {"seat": 2, "pass": True})
    store.truncate("g1", 1)
    store.settings("g1", {"pace": 0.4})
    again = BrowserStore(disk.persist, disk.games.values())
    loaded = again.load("g1")
    assert loaded.log == [{"seat": 0, "pass": True}]
    assert loaded.settings == {"pace": 0.4} and loaded.seed == 7 and loaded.admits("t")
    assert again.unfinished() == ["g1"]
    again.finish("g1", {"format": "29-record/1"})
    assert again.unfinished() == []
    with pytest.raises(StoreError):
        again.append("g1", 1, {"seat": 1, "pass": True})
    with pytest.raises(UnknownGame):
        again.load("nope")
    assert json.loads(disk.games["g1"])["finished"] is True


def test_a_write_the_browser_refuses_changes_nothing() -> None:
    disk = Disk()
    store = BrowserStore(disk.persist)
    store.create("g1", {}, 1, ["h"])
    store.append("g1", 0, {"seat": 0, "pass": True})
    disk.fail = True
    with pytest.raises(StoreError):
        store.append("g1", 1, {"seat": 1, "pass": True})
    disk.fail = False
    assert store.load("g1").log == [{"seat": 0, "pass": True}]
    store.append("g1", 1, {"seat": 1, "pass": True})


def test_the_browser_store_writes_a_change_whole_with_its_replies_and_version() -> None:
    disk = Disk()
    store = BrowserStore(disk.persist)
    store.create("g1", {}, 1, ["h"])
    reply = StoredReply((0,), "m1", {"type": "ack", "v": 2, "id": "m1"})
    store.save(
        "g1", Change(entries=((0, {"seat": 0, "pass": True}),), version=66, replies=(reply,))
    )
    with pytest.raises(StoreError):  # a gap: nothing of the change is kept
        store.save("g1", Change(entries=((3, {"seat": 1, "pass": True}),), version=99))
    again = BrowserStore(disk.persist, disk.games.values()).load("g1")
    assert again.log == [{"seat": 0, "pass": True}] and again.version == 66
    assert again.replies == (reply,)


def test_unreadable_games_are_skipped_and_old_ones_pruned() -> None:
    disk = Disk()
    store = BrowserStore(disk.persist)
    for i in range(14):
        store.create(f"g{i}", {}, i, ["h"])
        store.finish(f"g{i}", {})
    assert len(disk.games) == 10  # the most recent finished games are kept
    again = BrowserStore(disk.persist, [*disk.games.values(), "{not json", '{"id": 1}'])
    assert again.unreadable == 2
    assert "g13" in disk.games and "g0" not in disk.games


# ---------------------------------------------------------------------- the host


class Page:
    """A page talking to a ``LocalHost``: the messages it got, by connection."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    def post(self, conn: str, text: str) -> None:
        self.got.append(json.loads(text))

    async def wait(self, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for msg in self.got:
                if pred(msg):
                    return msg
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no such message; got {self.got[-3:]}")
            await asyncio.sleep(0.005)


def latest(page: Page) -> dict[str, Any]:
    return next(m for m in reversed(page.got) if m["type"] in ("state", "update"))


async def play_some(page: Page, host: LocalHost, moves: int) -> None:
    """Make ``moves`` of the human's decisions (the first legal one), bots in between."""
    n = 0
    while n < moves:
        msg = await page.wait(
            lambda m: m is latest(page) and (m["hold"] or m["views"]["0"]["legal"])
        )
        ident = f"m{len(page.got)}"
        if msg["hold"] == "trick":
            body: dict[str, Any] = {"type": "continue", "id": ident, "at": msg["hold_at"]}
        else:
            body = {"type": "act", "id": ident, "action": msg["views"]["0"]["legal"][0]}
            n += 1
        host.receive("c", json.dumps(body))
        await page.wait(lambda m, i=ident: m.get("type") == "ack" and m.get("id") == i)


def test_the_host_plays_a_game_keeps_it_and_resumes_it_after_a_reload() -> None:
    disk = Disk()

    async def first() -> tuple[str, str, int]:
        page = Page()
        host = LocalHost(page.post, BrowserStore(disk.persist), local_config(0))
        host.start()
        host.connect("c")
        await page.wait(lambda m: m["type"] == "welcome")
        setup = {"profile": "pagat", "length": "single", "seats": [{"human": True}, *QUICK_BOTS]}
        host.receive("c", json.dumps({"type": "create", "id": "c1", "setup": setup}))
        state = await page.wait(lambda m: m["type"] == "state")
        await play_some(page, host, 3)
        host.receive("c", json.dumps({"type": "sync", "id": "s1"}))
        synced = await page.wait(lambda m: m["type"] == "state" and m.get("id") == "s1")
        host.close()
        return state["game"], state["token"], synced["v"]

    ident, token, _ = run(first())
    assert ident in disk.games

    async def second() -> dict[str, Any]:
        page = Page()
        host = LocalHost(
            page.post, BrowserStore(disk.persist, disk.games.values()), local_config(0)
        )
        assert host.start() == 1
        host.connect("c")
        host.receive("c", json.dumps({"type": "join", "id": "j1", "game": ident, "token": token}))
        state = await page.wait(lambda m: m["type"] == "state")
        host.receive("c", json.dumps({"type": "join", "id": "j2", "game": ident, "token": "x"}))
        refused = await page.wait(lambda m: m["type"] == "error")
        assert refused["code"] == "forbidden"
        host.close()
        return state

    state = run(second())
    stored = json.loads(disk.games[ident])
    replayed = Game(parse_setup(stored["setup"]), stored["log"])
    expected = replayed.view(0)
    if state["hold"] == "trick" and could_open(replayed):
        expected = masked(expected)  # the reload fell in a pair pause, which outlives it
    assert state["views"]["0"] == expected
    assert len(stored["log"]) >= 3


def test_bad_messages_get_the_servers_errors() -> None:
    async def talk() -> list[dict[str, Any]]:
        page = Page()
        host = LocalHost(page.post, None, local_config(0))
        host.start()
        host.connect("c")
        host.receive("c", "not json")
        host.receive("c", json.dumps({"type": "act", "id": "a1", "action": {}}))
        await page.wait(lambda m: m.get("code") == "no_game")
        host.close()
        return page.got

    got = run(talk())
    assert [m["type"] for m in got] == ["welcome", "error", "error"]
    assert got[1]["code"] == "bad_json"


def test_the_inline_pool_decides_on_the_event_loop() -> None:
    pool = BotPool(INLINE)
    game = Game(parse_setup({"seats": [{"human": True}, *QUICK_BOTS], "seed": 3}))
    game.apply(game.legal_for(0)[0]) if game.to_act == 0 else None
    seat = game.to_act
    character = game.setup.seats[seat].character
    assert character is not None
    action = run(pool.act(character, game.bot_seed(seat), game.observation(seat)))
    assert action in game.observation(seat).legal
    assert pool._executor is None  # no thread, no process
    pool.close()


# ---------------------------------------------------------------------- what the browser gets


def test_the_bundle_has_the_package_and_its_data_but_not_the_web_files() -> None:
    bundle = build()
    names = zipfile.ZipFile(io.BytesIO(bundle.data)).namelist()
    assert "twentynine/offline/host.py" in names
    assert "twentynine/data/bidding.json" in names
    assert "twentynine/server/session.py" in names
    assert not any(n.startswith(("twentynine/web/static", "twentynine/tui")) for n in names)
    assert not any(n.startswith("twentynine/rl/") for n in names)  # no research libraries there
    assert build().data == bundle.data  # the same bytes every time: the hash names it


BLOCKED = ("starlette", "uvicorn", "websockets", "numba", "numpy", "textual", "httpx", "rich")
NO_EXTRAS = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {BLOCKED!r}:
            raise ImportError('blocked: ' + name)
        return None
sys.meta_path.insert(0, Block())
from twentynine.offline.host import LocalHost
from twentynine.offline.checks import selfplay
from twentynine.solver import numba_available
assert not numba_available()
r = selfplay(5, characters=("meera", "anil", "raju", "tara"))
assert r["exit"] == 0, r["verdict"]
print("ok")
"""


def test_the_engine_bots_and_host_need_no_server_numba_or_native_extension() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_EXTRAS], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_selfplay_gives_a_valid_record_and_the_probe_times_decisions() -> None:
    r = selfplay(11, profile="modern", length="match", max_deals=2)
    assert r["exit"] == 0 and r["verdict"]["ok"]
    assert len(r["record"]["deals"]) == 2
    assert r == selfplay(11, profile="modern", length="match", max_deals=2)
    times = probe("casual", deals=2)  # the first bid and the first card of each deal
    assert len(times) == 4 and all(t >= 0 for t in times)


def first_card(seed: int, i: int) -> Observation:
    """The first card of a deal, the probe's way: dealt from ``seed``, bid by casual bots."""
    rules = PROFILES["pagat"]
    dealer = i % 4
    deal = Deal(rules, dealer, deal_hands(derive_seed(seed, i), dealer, rules.clockwise))
    helper = make_bot("casual")
    while not any(a.kind == PLAY for a in deal.legal_actions()):
        deal.apply(helper.act(observe_deal(deal, deal.to_act)))
    return observe_deal(deal, deal.to_act)


def test_with_the_plain_kernel_a_search_bot_stops_at_its_node_limit() -> None:
    """The browser's kernel: strong's first card of a deal (6 worlds took 7 s in Pyodide)
    searches at most its node limit and is the same decision again; the compiled kernel
    has no limit."""
    obs = first_card(29, 2)

    def decide() -> tuple[Action, int]:
        bot = make_bot("strong", seed=1)
        bot.wall_guard = None  # type: ignore[attr-defined]
        start = solver().nodes
        action = bot.act(obs)
        return action, solver().nodes - start

    saved = use_solver(Solver("pure"))
    try:
        action, nodes = decide()
        assert nodes <= search.PURE_NODE_LIMIT + 1
        assert decide() == (action, nodes)
        with unlimited_bots():
            assert decide()[1] > 4 * search.PURE_NODE_LIMIT  # the baseline's six worlds
    finally:
        use_solver(saved)
    if solver().compiled:
        assert decide()[1] > search.PURE_NODE_LIMIT


def test_with_the_plain_kernel_a_doubling_decision_too_short_of_deals_is_the_casual_one() -> None:
    """Doubling solves 24 sampled deals from the first lead (0.3 M to 1.7 M nodes with
    the modern rules): with the plain kernel the limit stops it after about three, and
    the casual player's decision is taken instead (the solved deals would double
    here)."""
    rules = PROFILES["modern"]
    deal = Deal(rules, 3, deal_hands(derive_seed(29, 11), 3, rules.clockwise))
    helper = make_bot("casual")
    while not any(a.kind == DOUBLE for a in deal.legal_actions()):
        deal.apply(helper.act(observe_deal(deal, deal.to_act)))
    obs = observe_deal(deal, deal.to_act)
    saved = use_solver(Solver("pure"))
    try:
        start = solver().nodes
        action = make_bot("strong", seed=3).act(obs)
        assert solver().nodes - start <= search.PURE_NODE_LIMIT + 1
    finally:
        use_solver(saved)
    assert action == make_bot("casual", seed=3).act(obs) == Action.pass_(obs.seat or 0)
    if solver().compiled:
        assert make_bot("strong", seed=3).act(obs).kind == DOUBLE


def test_the_pyodide_benchmark_runs_on_a_tiny_input_in_cpython(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from twentynine.benchmarks import pyodide

    tiny = ["--where", "cpython", "--levels", "strong", "--deals", "1", "--max-decisions", "3"]
    assert pyodide.main(tiny) == 0
    out = capsys.readouterr().out
    assert "cpython" in out and "baseline" in out and "now" in out and "p95" in out
    raw = paired_times(["casual"], deals=1, max_decisions=5)
    rows = raw["levels"]["casual"]
    assert len(rows["baseline"]) == len(rows["now"]) == 5
    assert pyodide.summarise(raw)["levels"]["casual"]["now"]["all"]["n"] == 5
    if numba_available():  # the compiled kernel stands in for the plain one
        assert pyodide.main(["--where", "", "--levels", "strong", "--strength", "1"]) == 0
        out = capsys.readouterr().out
        assert "strong vs strong:baseline" in out and "strong vs strong:server" in out
        assert "strong vs casual" in out


# ---------------------------------------------------------------------- what the app serves


def test_the_app_serves_the_bundle_the_runtime_and_their_config() -> None:
    app = create_app(ServerConfig(bot_delay=0.25, bot_workers=0, warm_up=False))
    with TestClient(app) as client:
        config = client.get("/offline/config.json").json()
        assert config["bot_delay_ms"] == 250
        bundle = client.get(config["bundle"])
        assert bundle.status_code == 200 and bundle.content == build().data
        assert "immutable" in bundle.headers["cache-control"]
        assert client.get("/offline/twentynine-000000000000.zip").status_code == 404
        sw = client.get("/sw.js").text
        assert config["bundle"] in sw and "{{" not in sw
        version = pyodide_version()
        assert config["available"] is (version is not None)
        if version is None:
            return
        base = config["pyodide"]
        assert base == f"/pyodide/{version}/" and f"{base}pyodide.asm.wasm" in sw
        wasm = client.get(base + "pyodide.asm.wasm", headers={"accept-encoding": "gzip"})
        assert wasm.status_code == 200 and wasm.headers["content-type"] == "application/wasm"
        assert wasm.headers["content-encoding"] == "gzip"
        assert len(wasm.content) == config["sizes"]["pyodide.asm.wasm"]
        plain = client.get(base + "pyodide.mjs", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers
        assert plain.headers["content-type"].startswith("text/javascript")
        assert client.get(base + "version.txt").status_code == 404
        assert client.get("/pyodide/0.0.1/pyodide.mjs").status_code == 404
