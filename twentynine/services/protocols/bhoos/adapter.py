"""Seat an external protocol bot (by URL) at one of our tables.

``ProtocolBot`` is a ``Bot``: the table hands it the seat's ``Observation``,
it sends the matching request (built from that observation only), and turns
the answer into an ``Action``. Like the contest, it gives the bot a clock
for the whole game (``timeRemaining`` in every request, decreasing by the
time each answer took) and a limit per decision. A bot that is late, over
its clock, unreachable, answers something unreadable or an illegal move
raises ``BotFault`` with the seat, the request and the answer: the game is
then forfeited by that team. Nothing is ever played in the bot's place.

A bot spec is its URL, optionally with limits in the fragment (milliseconds):
``http://127.0.0.1:8001#clock=1500&timeout=1000``. A URL with a user or a
password is refused; the fragment is never sent.

Every call goes through ``outbound``: the addresses the ``hosts`` allow-list
admits (``OPERATOR``, any address, unless the caller says otherwise: a
server gives its operator's list), checked after resolution and connected to
as checked; one deadline for each exchange; at most ``MAX_ANSWER_BYTES`` of
answer; no redirect followed. Each fault has a kind (``fault``).

The reveal: ``{"revealTrump": true}`` is our reveal action; the engine then
asks the same seat again, and so does the adapter, now with ``trumpSuit``
and ``trumpRevealed`` filled in. ``{"revealTrump": true, "card": X}`` (the
bidder's one-step form; accepted from anyone) is the reveal action followed,
at the next decision, by X without a second request; X must then be legal
under the obligation to trump.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx

from ....bots.base import Bot, Style
from ....game.actions import BID, PLAY, REVEAL, TRUMP, Action
from ....game.cards import SUIT_NAMES
from ....game.observation import Observation
from ....game.rules import Rules, RulesError
from ..fault import BotFault
from ..outbound import (
    MAX_ANSWER_BYTES,
    OPERATOR,
    AllowList,
    AnswerTooLarge,
    OutboundRefused,
    deadline,
    guarded_client,
    read_capped,
)
from .notation import PASS_BID, ProtocolError, card_in, card_out, check_rules, is_int, suit_in
from .requests import request_for

DEFAULT_CLOCK_MS = 1500.0  # per game, like the contest's samples (1200-1500 ms)
DEFAULT_TIMEOUT_MS = 1000.0  # per decision
GRACE_SECONDS = 0.05  # the transport waits this much longer before giving up
HELLO_TIMEOUT_SECONDS = 5.0

_clients: dict[tuple[int, str, AllowList], httpx.Client] = {}


def parse_spec(spec: str) -> tuple[str, float, float]:
    """``URL[#clock=MS&timeout=MS]`` -> (base URL, clock ms, timeout ms)."""
    parts = urlsplit(spec)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RulesError(f"{spec!r} is not a bot URL (http://host:port)")
    if "@" in parts.netloc:
        raise RulesError("a bot URL may not carry a user name or a password")
    try:
        if not parts.hostname:
            raise ValueError
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise RulesError(f"{spec!r} is not a bot URL (http://host:port)") from None
    clock, timeout = DEFAULT_CLOCK_MS, DEFAULT_TIMEOUT_MS
    for key, value in parse_qsl(parts.fragment, keep_blank_values=True):
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if key not in ("clock", "timeout"):
            raise RulesError(f"{spec}: unknown setting {key!r} (settings: clock, timeout)")
        if not number > 0:
            raise RulesError(f"{spec}: {key} must be a positive number of milliseconds")
        if key == "clock":
            clock = number
        else:
            timeout = number
    base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), parts.query, ""))
    return base, clock, timeout


def client_for(base: str, hosts: AllowList = OPERATOR) -> httpx.Client:
    """One keep-alive client per process, bot and allow-list (never one inherited
    through a fork)."""
    key = (os.getpid(), base, hosts)
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = guarded_client(base, hosts)
    return client


class ProtocolBot(Bot):
    """An external bot speaking the contest protocol, seen as one of ours."""

    level = "protocol"

    def __init__(
        self,
        url: str,
        seed: int = 0,
        budget: float | None = None,
        style: Style | None = None,
        *,
        clock_ms: float | None = None,
        timeout_ms: float | None = None,
        client: httpx.Client | None = None,
        on_exchange: Callable[[str, dict[str, Any], str], None] | None = None,
        hosts: AllowList = OPERATOR,
    ) -> None:
        super().__init__(seed, budget, style)
        base, spec_clock, spec_timeout = parse_spec(url)
        self.url = base
        self.clock = (clock_ms if clock_ms is not None else spec_clock) / 1000.0
        self.timeout = (timeout_ms if timeout_ms is not None else spec_timeout) / 1000.0
        self.client = client if client is not None else client_for(base, hosts)
        self.on_exchange = on_exchange  # sees each (endpoint, request, answer text)
        self.clock_left = self.clock
        self._game: tuple[int, int] | None = None
        self._pending: tuple[int, str, dict[str, Any], str] | None = None
        self._alive = False

    @classmethod
    def from_spec(cls, spec: str, seed: int = 0) -> ProtocolBot:
        return cls(spec, seed=seed)

    # ------------------------------------------------------------------ acting
    def act(self, obs: Observation, budget: float | None = None) -> Action:
        if obs.seat is None or not obs.legal:
            raise ValueError(f"seat {obs.seat} has nothing to decide now")
        check_rules(obs.rules)
        seat = obs.seat
        game = (obs.deal_index, obs.dealer)
        if game != self._game:  # a new deal: a new clock
            self._game, self.clock_left, self._pending = game, self.clock, None
        if self._pending is not None:
            return self._pending_card(obs)
        if not self._alive:
            self._hello(seat)
        endpoint, body = request_for(obs, self.clock_left * 1000.0)
        text = self._post(seat, endpoint, body)
        return self._read(obs, endpoint, body, text)

    def _fault(
        self,
        message: str,
        seat: int,
        endpoint: str,
        request: Any,
        answer: str | None,
        kind: str = "bad_answer",
    ) -> BotFault:
        return BotFault(
            message,
            seat=seat,
            bot=self.url,
            endpoint=endpoint,
            request=request,
            answer=answer,
            kind=kind,
        )

    def _exchange(
        self, method: str, endpoint: str, body: dict[str, Any] | None, seconds: float
    ) -> tuple[int, str]:
        """One request and its whole answer within ``seconds``: (status, text).

        Raises ``httpx.TimeoutException`` when the time is up (connecting,
        sending or reading), ``OutboundRefused``, ``AnswerTooLarge``, or
        another ``httpx.HTTPError``.
        """
        with deadline(seconds):
            request = self.client.build_request(
                method, f"/{endpoint}", json=body, timeout=seconds + GRACE_SECONDS
            )
            response = self.client.send(request, stream=True)
            try:
                raw = read_capped(response, MAX_ANSWER_BYTES)
            finally:
                response.close()
        return response.status_code, raw.decode("utf-8", errors="replace")

    def _unreachable(
        self, e: Exception, seat: int, endpoint: str, body: dict[str, Any] | None
    ) -> BotFault:
        if isinstance(e, OutboundRefused):
            return self._fault(
                f"this server may not call the bot: {e}", seat, endpoint, body, None, "refused"
            )
        if isinstance(e, AnswerTooLarge):
            return self._fault(
                f"the answer to /{endpoint} is too long: {e}",
                seat,
                endpoint,
                body,
                None,
                "too_large",
            )
        return self._fault(
            f"cannot reach the bot: {_why(e)}", seat, endpoint, body, None, "unreachable"
        )

    def _hello(self, seat: int) -> None:
        try:
            status, text = self._exchange("GET", "hi", None, HELLO_TIMEOUT_SECONDS)
        except httpx.TimeoutException:
            raise self._fault(
                f"/hi did not answer within {HELLO_TIMEOUT_SECONDS:.0f} s",
                seat,
                "hi",
                None,
                None,
                "unreachable",
            ) from None
        except (httpx.HTTPError, OutboundRefused, AnswerTooLarge) as e:
            raise self._unreachable(e, seat, "hi", None) from None
        if status != 200:
            raise self._fault(f"/hi answered HTTP {status}", seat, "hi", None, text, "status")
        self._alive = True

    def _post(self, seat: int, endpoint: str, body: dict[str, Any]) -> str:
        limit = min(self.timeout, self.clock_left)
        start = time.perf_counter()
        try:
            status, text = self._exchange("POST", endpoint, body, limit + GRACE_SECONDS)
        except httpx.TimeoutException:
            self.clock_left -= time.perf_counter() - start
            if limit < self.timeout:
                message = (
                    f"over its clock: no answer within the {1000 * limit:.0f} ms left "
                    f"of its {1000 * self.clock:.0f} ms for the game"
                )
                kind = "clock"
            else:
                message = f"no answer within {1000 * limit:.0f} ms ({self._limits_words()})"
                kind = "late"
            raise self._fault(message, seat, endpoint, body, None, kind) from None
        except (httpx.HTTPError, OutboundRefused, AnswerTooLarge) as e:
            raise self._unreachable(e, seat, endpoint, body) from None
        elapsed = time.perf_counter() - start
        self.clock_left -= elapsed
        if self.on_exchange is not None:
            self.on_exchange(endpoint, body, text)
        if elapsed > self.timeout:
            raise self._fault(
                f"answered after {1000 * elapsed:.0f} ms, over the limit of "
                f"{1000 * self.timeout:.0f} ms per decision",
                seat,
                endpoint,
                body,
                text,
                "late",
            )
        if self.clock_left < 0:
            raise self._fault(
                f"over its clock: answered after {1000 * elapsed:.0f} ms with "
                f"{1000 * (self.clock_left + elapsed):.0f} ms left of {1000 * self.clock:.0f} "
                "ms for the game",
                seat,
                endpoint,
                body,
                text,
                "clock",
            )
        if status != 200:
            moved = " (redirects are not followed)" if 300 <= status < 400 else ""
            raise self._fault(
                f"answered HTTP {status}{moved}", seat, endpoint, body, text, "status"
            )
        return text

    def _limits_words(self) -> str:
        return (
            f"limit {1000 * self.timeout:.0f} ms per decision, "
            f"clock {1000 * self.clock:.0f} ms per game"
        )

    # ------------------------------------------------------------------ answers
    def _read(self, obs: Observation, endpoint: str, body: dict[str, Any], text: str) -> Action:
        seat = obs.seat
        assert seat is not None

        def fault(message: str, kind: str = "bad_answer") -> BotFault:
            return self._fault(message, seat, endpoint, body, text, kind)

        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise fault(f"the answer to /{endpoint} is not JSON", "not_json") from None
        if not isinstance(data, dict):
            raise fault(f"the answer to /{endpoint} must be a JSON object")
        try:
            if endpoint == "bid":
                return self._bid(obs, data, fault)
            if endpoint == "chooseTrump":
                if "suit" not in data:
                    raise fault('the answer to /chooseTrump must be {"suit": S|H|D|C}')
                action = Action.trump(seat, suit_in(data["suit"], "suit"))
                if action not in obs.legal:
                    raise fault(f"chose trumps {data['suit']} when it may not", "illegal")
                return action
            return self._play(obs, data, fault, endpoint, body, text)
        except ProtocolError as e:
            raise fault(str(e)) from None

    def _bid(
        self, obs: Observation, data: dict[str, Any], fault: Callable[..., BotFault]
    ) -> Action:
        seat = obs.seat
        assert seat is not None
        value = data.get("bid")
        if not is_int(value):
            raise fault('the answer to /bid must be {"bid": N} with N a whole number (0: pass)')
        action = Action.pass_(seat) if value == PASS_BID else Action.bid(seat, value)
        if action not in obs.legal:
            allowed = sorted(a.value or 0 for a in obs.legal if a.kind == BID)
            shown = str(value) if abs(value) < 1000 else "out of range"
            raise fault(
                f"bid {shown} is not allowed now (allowed: 0 (pass), {_ranges(allowed)})",
                "illegal",
            )
        return action

    def _play(
        self,
        obs: Observation,
        data: dict[str, Any],
        fault: Callable[..., BotFault],
        endpoint: str,
        body: dict[str, Any],
        text: str,
    ) -> Action:
        seat = obs.seat
        assert seat is not None
        reveal = data.get("revealTrump", False)
        card = data.get("card")
        if reveal not in (True, False):
            raise fault("revealTrump must be true or false")
        if reveal:
            ask = Action.flag(seat, REVEAL)
            if ask not in obs.legal:
                raise fault(
                    "asked for the reveal, which it may not do now (only a player who cannot "
                    "follow suit may ask, once, while trumps are hidden)",
                    "illegal",
                )
            if card is not None:
                self._pending = (card_in(card, "card"), endpoint, body, text)
            return ask
        if card is None:
            raise fault('the answer to /play must be {"card": C} or {"revealTrump": true}')
        action = Action.play(seat, card_in(card, "card"))
        if action not in obs.legal:
            raise fault(
                f"played {card}, which is not legal: {why_illegal(obs, action.value)}", "illegal"
            )
        return action

    def _pending_card(self, obs: Observation) -> Action:
        assert self._pending is not None and obs.seat is not None
        card, endpoint, body, text = self._pending
        self._pending = None
        action = Action.play(obs.seat, card)
        if action not in obs.legal:
            raise self._fault(
                f"revealed trumps and played {card_out(card)}, which is not legal: "
                f"{why_illegal(obs, card)}",
                obs.seat,
                endpoint,
                body,
                text,
                "illegal",
            )
        return action


def why_illegal(obs: Observation, card: int | None) -> str:
    """Why a card may not be played now (for the fault report)."""
    assert card is not None
    legal = [a.value for a in obs.legal if a.kind == PLAY and a.value is not None]
    allowed = " ".join(card_out(c) for c in legal) or "no card (it must ask or not play)"
    if card not in obs.hand:
        return f"{card_out(card)} is not in its hand (legal: {allowed})"
    led = obs.led_suit
    if led is not None and card >> 3 != led and any(h >> 3 == led for h in obs.hand):
        return f"it must follow {SUIT_NAMES[led]} (legal: {allowed})"
    if obs.asked == obs.seat:
        return f"it asked for the reveal and must trump, winning if it can (legal: {allowed})"
    if TRUMP in {a.kind for a in obs.legal} or BID in {a.kind for a in obs.legal}:
        return "no card may be played now"
    return f"legal: {allowed}"


def _ranges(values: list[int]) -> str:
    if not values:
        return "no bid"
    if len(values) == 1 or values[-1] - values[0] + 1 != len(values):
        return ", ".join(str(v) for v in values)
    return f"{values[0]}..{values[-1]}"


def _why(e: Exception) -> str:
    text = str(e) or type(e).__name__
    if isinstance(e, httpx.ConnectError) and "refused" in text.lower():
        return "connection refused"
    return text


def check_seat(spec: str, rules: Rules) -> None:
    """Before a run: the spec reads, the rules fit the protocol, and the bot says hello.

    Raises ``RulesError`` with a one-line message (the command line shows it)."""
    base, _clock, _timeout = parse_spec(spec)
    check_rules(rules)
    try:
        with guarded_client(base, OPERATOR) as client, deadline(HELLO_TIMEOUT_SECONDS):
            r = client.get("/hi", timeout=HELLO_TIMEOUT_SECONDS)
    except httpx.HTTPError as e:
        raise RulesError(f"bot {base} does not answer /hi: {_why(e)}") from None
    if r.status_code != 200:
        raise RulesError(f"bot {base} answered /hi with HTTP {r.status_code}")
