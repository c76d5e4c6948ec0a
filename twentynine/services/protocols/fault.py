"""A seat that broke the rules of the table: the game is forfeited, never patched up.

A bot that answers late, illegally or not at all raises ``BotFault``. The
arena scores the game as lost by that seat's team and reports the fault
(seat, request, answer); nobody plays a substitute move in its place.
"""

from __future__ import annotations

from typing import Any


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
    ) -> None:
        super().__init__(message)
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
        }


def _rebuild(message: str, fields: dict[str, Any]) -> BotFault:
    return BotFault(
        message,
        seat=fields["seat"],
        bot=fields["bot"],
        endpoint=fields["endpoint"],
        request=fields["request"],
        answer=fields["answer"],
    )
