"""A seat that broke the rules of the table: the game is forfeited, never patched up.

A bot that answers late, illegally or not at all raises ``BotFault``. The
arena scores the game as lost by that seat's team and reports the fault
(seat, request, answer); nobody plays a substitute move in its place.

Each fault has a *kind*, one word a table can show without quoting the bot:
``refused`` (the allow-list forbids the address), ``unreachable``, ``late``
(over the limit of a decision), ``clock`` (over the clock of the game),
``status`` (an HTTP status other than 200, a redirect included),
``too_large``, ``not_json``, ``bad_answer`` (the wrong shape), ``illegal``.
"""

from __future__ import annotations

from typing import Any

KINDS = (
    "refused",
    "unreachable",
    "late",
    "clock",
    "status",
    "too_large",
    "not_json",
    "bad_answer",
    "illegal",
)


class BotFault(Exception):
    """A seat's bot failed a decision: late, illegal, unreadable or unreachable."""

    def __init__(
        self,
        message: str,
        *,
        seat: int | None = None,
        bot: str | None = None,
        endpoint: str | None = None,
        request: Any = None,
        answer: str | None = None,
        kind: str = "bad_answer",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.seat = seat
        self.bot = bot
        self.endpoint = endpoint
        self.request = request
        self.answer = answer

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across worker processes
        return (_rebuild, (self.message, self.to_json()))

    def __str__(self) -> str:
        who = f"seat {self.seat}" if self.seat is not None else "a seat"
        if self.bot:
            who += f" ({self.bot})"
        return f"{who}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "message": self.message,
            "endpoint": self.endpoint,
            "request": self.request,
            "answer": self.answer,
            "kind": self.kind,
        }


def _rebuild(message: str, fields: dict[str, Any]) -> BotFault:
    return BotFault(
        message,
        seat=fields["seat"],
        bot=fields["bot"],
        endpoint=fields["endpoint"],
        request=fields["request"],
        answer=fields["answer"],
        kind=fields.get("kind", "bad_answer"),
    )
