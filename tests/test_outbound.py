"""Calls to contest bots go only where the operator allows, and come back small and on time.

An "internal" app on a loopback port stands for what a server must never
reach: it answers like a bot at ``/ok/...`` but also holds a secret at
``/admin/secret/...``, redirects at ``/redir/...``, answers without end at
``/endless/...`` and drips at ``/drip/...``; it counts every request it
gets. Host names under ``.test`` are resolved by a fake resolver (patched
``socket.getaddrinfo``), which is how a name that points at loopback, or
one that changes its answer between two lookups, is tried. Each refusal is
shown to happen before anything reaches the app; the allowed path plays.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from test_bhoos_live import run_server
from test_url_seats import Person, close_all, forfeited, make_client, play, shown_only

from twentynine.game.match import Match
from twentynine.game.observation import Observation, observe
from twentynine.game.rules import PROFILES, RulesError
from twentynine.server.forfeit import FIELDS, REASON_CHARS, bot_address, stored_forfeit
from twentynine.services.protocols.bhoos.adapter import ProtocolBot, parse_spec
from twentynine.services.protocols.bhoos.server import BotService
from twentynine.services.protocols.fault import BotFault
from twentynine.services.protocols.outbound import (
    MAX_ANSWER_BYTES,
    NOWHERE,
    OPERATOR,
    AllowList,
    OutboundRefused,
    guarded_client,
    kind_of,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "internal-secret-7f3a"
ROOMY = "#clock=30000&timeout=10000"
PUBLIC_ONLY = AllowList.parse("*")


# ------------------------------------------------------------------ the internal app


def internal_app(seen: Counter[str], sent: Counter[str]) -> Starlette:
    service = BotService("casual")

    async def hi(request: Request) -> Response:
        seen[f"{request.path_params['mode']} hi {request.headers.get('host')}"] += 1
        return JSONResponse({"value": "hello"})

    async def decide(request: Request) -> Response:
        mode, name = request.path_params["mode"], request.path_params["name"]
        seen[f"{mode} {name}"] += 1
        body = json.loads(await request.body())
        if mode == "redir":
            return RedirectResponse(f"/admin/secret/{name}", status_code=302)
        if mode == "endless":

            async def forever() -> AsyncIterator[bytes]:
                while True:
                    sent["endless"] += 1
                    yield b" " * 1024
                    await asyncio.sleep(0)

            return StreamingResponse(forever(), media_type="application/json")
        if mode == "drip":

            async def slowly() -> AsyncIterator[bytes]:
                for _ in range(100):
                    sent["drip"] += 1
                    yield b" "
                    await asyncio.sleep(0.1)

            return StreamingResponse(slowly(), media_type="application/json")
        return JSONResponse(await run_in_threadpool(service.answer, name, body))

    async def admin(request: Request) -> Response:
        seen[f"admin {request.path_params['name']}"] += 1
        return JSONResponse({"bid": SECRET, "card": SECRET, "secret": SECRET})

    return Starlette(
        routes=[
            Route("/admin/secret/{name}", admin, methods=["GET", "POST"]),
            Route("/{mode}/hi", hi, methods=["GET"]),
            Route("/{mode}/{name}", decide, methods=["POST"]),
        ]
    )


@pytest.fixture(scope="module")
def internal() -> Iterator[tuple[str, Counter[str], Counter[str]]]:
    seen: Counter[str] = Counter()
    sent: Counter[str] = Counter()
    for url in run_server(internal_app(seen, sent)):
        yield url, seen, sent


@pytest.fixture
def app(
    internal: tuple[str, Counter[str], Counter[str]],
) -> tuple[str, int, Counter[str], Counter[str]]:
    url, seen, sent = internal
    seen.clear()
    sent.clear()
    return url, int(url.rsplit(":", 1)[1]), seen, sent


class Resolver:
    """``socket.getaddrinfo`` with fake answers for ``*.test`` names, counted."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.real = socket.getaddrinfo
        self.answers: dict[str, list[list[str]]] = {}  # name -> the answer of each lookup
        self.asked: Counter[str] = Counter()
        monkeypatch.setattr(socket, "getaddrinfo", self)

    def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if not name.endswith(".test"):
            return self.real(host, port, *args, **kwargs)
        self.asked[name] += 1
        turns = self.answers[name]
        addresses = turns[min(self.asked[name], len(turns)) - 1]
        out = []
        for a in addresses:
            family = socket.AF_INET6 if ":" in a else socket.AF_INET
            where = (a, int(port), 0, 0) if family == socket.AF_INET6 else (a, int(port))
            out.append((family, socket.SOCK_STREAM, 6, "", where))
        return out


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    return Resolver(monkeypatch)


def first_decision() -> Observation:
    match = Match(PROFILES["bhoos"], seed=5)
    return observe(match, match.to_act)


def fault_of(bot: ProtocolBot) -> BotFault:
    with pytest.raises(BotFault) as caught:
        bot.act(first_decision())
    return caught.value


# ------------------------------------------------------------------ the list


def test_the_allow_list_reads_names_wildcards_addresses_and_networks() -> None:
    hosts = AllowList.parse(" bots.example.org, *.arena.example.net 10.1.0.0/16 ::1,127.0.0.1 ")
    assert hosts.names == ("bots.example.org", "*.arena.example.net")
    assert [str(n) for n in hosts.networks] == ["10.1.0.0/16", "::1/128", "127.0.0.1/32"]
    assert not hosts.any_name and bool(hosts)
    assert AllowList.parse("*").any_name
    assert not AllowList.parse("") and not AllowList.parse(None) and not NOWHERE
    for bad in ("http://bots.example.org", "bots.example.org:8001", "under_score.org", "a..b"):
        with pytest.raises(ValueError, match="TWENTYNINE_BOT_HOSTS"):
            AllowList.parse(f"ok.example.org,{bad}")


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("10.0.0.5", "private"),
        ("172.16.3.4", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("100.64.0.1", "non-public"),
        ("64:ff9b::7f00:1", "reserved"),  # NAT64: refused unless named
        ("2002:a00:1::1", "private, through 10.0.0.1"),
        ("8.8.8.8", None),
        ("2001:4860:4860::8888", None),
    ],
)
def test_addresses_that_are_not_public_are_named_as_such(address: str, kind: str | None) -> None:
    assert kind_of(ipaddress.ip_address(address)) == kind


def test_a_public_address_needs_its_name_and_any_other_needs_its_network() -> None:
    public = ipaddress.ip_address("93.184.216.34")
    loop = ipaddress.ip_address("127.0.0.1")
    named = AllowList.parse("bots.example.org,*.example.net")
    assert named.refusal("bots.example.org", public) is None
    assert named.refusal("a.b.example.net", public) is None
    assert "not among the hosts" in str(named.refusal("example.net", public))
    assert "not among the hosts" in str(named.refusal("evil.example.com", public))
    assert "loopback" in str(named.refusal("bots.example.org", loop))  # a name is no pass
    assert PUBLIC_ONLY.refusal("anything.example", public) is None
    assert "loopback" in str(PUBLIC_ONLY.refusal("localhost", loop))
    local = AllowList.parse("127.0.0.1")
    assert local.refusal("localhost", loop) is None and local.refusal("bot.test", loop) is None
    assert "not among" in str(local.refusal("93.184.216.34", public))
    assert local.refusal("::ffff:127.0.0.1", ipaddress.ip_address("::ffff:127.0.0.1")) is None
    assert OPERATOR.refusal("localhost", loop) is None


def test_a_url_that_can_never_pass_is_refused_before_any_call() -> None:
    for url in ("http://127.0.0.1:9/", "http://[::1]:9", "http://169.254.169.254/latest"):
        with pytest.raises(OutboundRefused, match="not a public address"):
            PUBLIC_ONLY.check_url(url)
    with pytest.raises(OutboundRefused, match="does not seat bots by URL"):
        NOWHERE.check_url("http://bots.example.org")
    with pytest.raises(OutboundRefused, match="not among the hosts"):
        AllowList.parse("bots.example.org").check_url("http://other.example.org:8001")
    AllowList.parse("bots.example.org").check_url("http://bots.example.org:8001#clock=9")
    AllowList.parse("10.0.0.0/8").check_url("http://name.lan:8001")  # its addresses decide
    OPERATOR.check_url("http://127.0.0.1:9")


def test_credentials_in_a_bot_url_are_refused_and_the_fragment_is_never_sent() -> None:
    for url in ("http://user:pw@127.0.0.1:9", "http://user@127.0.0.1:9", "http://:pw@h:9"):
        with pytest.raises(RulesError, match="user name or a password"):
            parse_spec(url)
    base, clock, timeout = parse_spec("http://127.0.0.1:9/admin/secret#")
    assert base == "http://127.0.0.1:9/admin/secret" and (clock, timeout) == (1500.0, 1000.0)
    with pytest.raises(RulesError, match="not a bot URL"):
        parse_spec("http://127.0.0.1:port/")


# ------------------------------------------------------------------ calls, refused and allowed


def test_a_loopback_bot_is_never_called_by_a_server_that_does_not_name_it(
    app: tuple[str, int, Counter[str], Counter[str]],
) -> None:
    url, port, seen, _sent = app
    for hosts in (NOWHERE, PUBLIC_ONLY, AllowList.parse("bots.example.org,10.0.0.0/8")):
        for where in (
            f"{url}/admin/secret#",
            f"http://localhost:{port}/ok",
            f"http://[::1]:{port}",
        ):
            fault = fault_of(ProtocolBot(where, hosts=hosts))
            assert fault.kind == "refused", fault
            assert fault.endpoint == "hi" and fault.answer is None
            assert "may not call the bot" in fault.message and SECRET not in fault.message
    assert not seen, seen


def test_a_name_that_resolves_to_loopback_is_refused_after_its_lookup(
    app: tuple[str, int, Counter[str], Counter[str]], resolver: Resolver
) -> None:
    _url, port, seen, _sent = app
    resolver.answers["sneaky.test"] = [["127.0.0.1"]]
    resolver.answers["mixed.test"] = [["93.184.216.34", "127.0.0.1"]]
    for name in ("sneaky.test", "mixed.test"):
        fault = fault_of(ProtocolBot(f"http://{name}:{port}/admin/secret#", hosts=PUBLIC_ONLY))
        assert fault.kind == "refused" and "127.0.0.1 is not a public address" in fault.message
        assert resolver.asked[name] == 1
    assert not seen, seen


def test_the_connection_goes_to_the_address_checked_and_the_name_is_looked_up_once(
    app: tuple[str, int, Counter[str], Counter[str]], resolver: Resolver
) -> None:
    """A name whose second answer would be elsewhere (DNS rebinding): only the first counts."""
    _url, port, seen, _sent = app
    resolver.answers["bot.test"] = [["127.0.0.1"], ["10.99.99.99"]]
    bot = ProtocolBot(f"http://bot.test:{port}/ok{ROOMY}", hosts=AllowList.parse("127.0.0.1"))
    action = bot.act(first_decision())
    assert action in first_decision().legal
    assert resolver.asked["bot.test"] == 1  # the check's lookup is the connection's
    assert seen[f"ok hi bot.test:{port}"] == 1  # the bot saw its own name as the host


def test_a_name_that_turns_to_loopback_on_a_new_connection_is_refused_then(
    app: tuple[str, int, Counter[str], Counter[str]], resolver: Resolver
) -> None:
    _url, port, seen, _sent = app
    resolver.answers["flip.test"] = [["127.0.0.1"], ["127.0.0.2"]]
    hosts = AllowList.parse("127.0.0.1")  # 127.0.0.2 is loopback too, but not named
    base = f"http://flip.test:{port}/ok"
    first = ProtocolBot(base + ROOMY, client=guarded_client(base, hosts))
    first.act(first_decision())
    second = ProtocolBot(base + ROOMY, client=guarded_client(base, hosts))  # a new connection
    fault = fault_of(second)
    assert fault.kind == "refused" and "127.0.0.2" in fault.message
    assert resolver.asked["flip.test"] == 2 and seen[f"ok hi flip.test:{port}"] == 1


def test_a_redirect_is_a_fault_and_is_never_followed(
    app: tuple[str, int, Counter[str], Counter[str]],
) -> None:
    url, _port, seen, _sent = app
    fault = fault_of(ProtocolBot(f"{url}/redir{ROOMY}", hosts=AllowList.parse("127.0.0.1")))
    assert fault.kind == "status" and "HTTP 302 (redirects are not followed)" in fault.message
    assert not [k for k in seen if k.startswith("admin")], seen


def test_an_endless_answer_is_cut_at_the_size_cap(
    app: tuple[str, int, Counter[str], Counter[str]],
) -> None:
    url, _port, _seen, sent = app
    fault = fault_of(ProtocolBot(f"{url}/endless{ROOMY}", hosts=AllowList.parse("127.0.0.1")))
    assert fault.kind == "too_large" and f"over {MAX_ANSWER_BYTES} bytes" in fault.message
    time.sleep(0.2)
    # the server produced a few more chunks into the socket's buffers, not an endless stream
    assert sent["endless"] < 2000, sent


def test_an_answer_dripped_byte_by_byte_is_cut_at_the_decision_limit(
    app: tuple[str, int, Counter[str], Counter[str]],
) -> None:
    """Each byte comes well within the read timeout: only a deadline for the whole
    exchange stops it."""
    url, _port, _seen, sent = app
    bot = ProtocolBot(f"{url}/drip#clock=30000&timeout=500", hosts=AllowList.parse("127.0.0.1"))
    started = time.perf_counter()
    fault = fault_of(bot)
    took = time.perf_counter() - started
    assert fault.kind == "late" and "no answer within 500 ms" in fault.message, fault
    assert took < 1.5 and sent["drip"] < 20, (took, sent)


def test_the_operator_on_their_own_machine_may_call_loopback(
    app: tuple[str, int, Counter[str], Counter[str]],
) -> None:
    url, _port, seen, _sent = app
    bot = ProtocolBot(f"{url}/ok{ROOMY}")  # the arena's default: the caller is the operator
    assert bot.act(first_decision()) in first_decision().legal
    assert sum(seen.values()) == 2  # /hi and the decision


# ------------------------------------------------------------------ the server


def test_the_forgery_of_the_issue_is_refused_by_the_server_and_leaks_nothing(
    app: tuple[str, int, Counter[str], Counter[str]], resolver: Resolver
) -> None:
    """A room's host seats the server's own loopback, directly or by a name: refused at
    the seat, or at the connection, before any request; players see a kind and a reason."""
    url, port, seen, _sent = app
    resolver.answers["internal.test"] = [["127.0.0.1"]]
    sockets: list[Any] = []
    with make_client(bot_hosts=PUBLIC_ONLY) as client:
        try:
            host = Person(client, sockets)
            room = host.request("room_create", setup={"profile": "bhoos"}, name="Asha")
            refused = host.request("seat_bot", seat=1, bot=f"{url}/admin/secret#")
            assert refused["type"] == "error" and refused["code"] == "forbidden", refused
            assert "127.0.0.1 is not a public address" in refused["message"]
            south = Person(client, sockets)
            seats = [{"human": True}, {"url": f"{url}/admin/secret#"}, {"bot": "tara"}]
            seats.append({"bot": "pip"})
            refused = south.request("create", setup={"profile": "bhoos", "seats": seats})
            assert refused["code"] == "bad_setup" and "not a public address" in refused["message"]

            # a name passes the seat (its addresses are unknown yet), and fails its call
            named = f"http://internal.test:{port}/admin/secret{ROOMY}"
            assert host.request("seat_bot", seat=1, bot=named)["type"] == "room"
            host.request("seat_bot", seat=2, bot="tara")
            host.request("seat_bot", seat=3, bot="pip")
            watcher = Person(client, sockets)
            watcher.request("room_join", code=room["code"])
            assert host.request("start")["type"] == "state"
            end = play({0: host}, forfeited)
            fault = end["forfeit"]
            assert fault["kind"] == "refused" and fault["seat"] == 1, fault
            shown_only(fault)
            watcher.until(forfeited)
            for person in (host, south, watcher):
                assert SECRET not in json.dumps(person.seen)
        finally:
            close_all(sockets)
    assert not seen, seen


def test_a_server_without_a_list_seats_no_bot_by_url(
    app: tuple[str, int, Counter[str], Counter[str]],
) -> None:
    url, _port, seen, _sent = app
    sockets: list[Any] = []
    with make_client(bot_hosts=NOWHERE) as client:
        try:
            host = Person(client, sockets)
            host.request("room_create", setup={"profile": "bhoos"}, name="Asha")
            refused = host.request("seat_bot", seat=1, bot=f"{url}/ok")
            assert refused["code"] == "forbidden" and "by URL" in refused["message"]
        finally:
            close_all(sockets)
    assert not seen


def test_a_forfeit_kept_by_an_older_version_is_shown_without_request_or_answer() -> None:
    old = {
        "seat": 3,
        "team": 1,
        "bot": "http://127.0.0.1:9/admin/secret?key=abc",
        "message": "played " + "x" * 500,
        "endpoint": "play",
        "request": {"cards": ["JS"]},
        "answer": SECRET,
    }
    shown = stored_forfeit(old)
    assert shown is not None and set(shown) == set(FIELDS)
    assert shown["bot"] == "127.0.0.1:9" and shown["kind"] == "bad_answer"
    assert len(shown["message"]) <= REASON_CHARS and SECRET not in json.dumps(shown)
    assert stored_forfeit("nonsense") is None
    assert stored_forfeit({"seat": True})["seat"] is None  # type: ignore[index]
    assert bot_address("http://[::1]:8001/x") == "[::1]:8001"
    assert bot_address("https://bots.example.org/path?q=1") == "bots.example.org"
