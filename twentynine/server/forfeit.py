"""A contest bot's fault as a table shows it: who failed, the kind of fault, a short reason.

A forfeit is shown to every player and spectator, and kept with the game
(its settings and its record, which the history and the export show). So it
never carries the request the bot was sent, which holds the bot's hand, nor
what came back from the bot's address, which may be anything at all (an
internal page, when a URL points where it should not), nor the path or query
of the bot's URL. The adapter's messages name only checked values (a card, a
bid, a status), never the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..services.protocols.fault import KINDS, BotFault

REASON_CHARS = 200  # the longest reason a table shows
FIELDS = ("seat", "team", "bot", "kind", "endpoint", "message")


def _short(message: str) -> str:
    text = " ".join(message.split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 3] + "..."


def bot_address(url: str | None) -> str | None:
    """A contest bot's address as a table shows it: host and port, never a path or a
    query the host typed (which may hold a key)."""
    if not url:
        return None
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}" if port is not None else host


def public_fault(fault: BotFault, seat: int) -> dict[str, Any]:
    """The forfeit every client sees for ``fault`` of the bot at ``seat``."""
    return {
        "seat": seat,
        "team": seat & 1,
        "bot": bot_address(fault.bot),
        "kind": fault.kind,
        "endpoint": fault.endpoint,
        "message": _short(fault.message),
    }


def stored_forfeit(raw: Any) -> dict[str, Any] | None:
    """A forfeit read back from the store, with only the fields a table shows (a game
    forfeited by an older version kept the request and the answer too)."""
    if not isinstance(raw, Mapping):
        return None
    out = {key: raw.get(key) for key in FIELDS}
    out["bot"] = bot_address(raw.get("bot")) if isinstance(raw.get("bot"), str) else None
    seat = raw.get("seat")
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= 3:
        out["seat"], out["team"] = seat, seat & 1
    else:
        out["seat"] = out["team"] = None
    out["message"] = _short(str(raw.get("message") or ""))
    if out["kind"] not in KINDS:
        out["kind"] = "bad_answer"
    return out


__all__ = ["FIELDS", "REASON_CHARS", "bot_address", "public_fault", "stored_forfeit"]
