"""A match of 29: deals chained one after another, the score kept, the deal passed on.

``Match`` exposes the same small API as ``Deal`` (``legal_actions()``,
``apply(action)``, ``clone()``, ``to_act``, ``is_over()``) and writes the game
record (``RECORD_FORMAT``). With a seed it deals its own cards; without one the
caller supplies each deal's hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import Action
from .dealing import deal_hands, derive_seed, first_dealer
from .engine import OVER, Deal, IllegalAction
from .rules import PROFILES, Rules

RECORD_FORMAT = "29-record/1"


class Match:
    """A match (or a run of single deals): deals, score, dealer rotation.

    With a ``seed`` the match deals its own cards (deal ``i`` from
    ``derive_seed(seed, i)``) and starts each next deal by itself; without
    one, the caller supplies each deal's hands with ``start_deal``.
    """

    __slots__ = ("deals", "first_dealer", "rules", "score", "seed", "winner")

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | None = None,
        dealer: int | None = None,
        hands: Sequence[Sequence[int]] | None = None,
    ) -> None:
        self.rules = rules if rules is not None else PROFILES["pagat"]
        self.seed = seed
        self.deals: list[Deal] = []
        self.score = [0, 0]
        self.winner: int | None = None
        if dealer is None:
            dealer = first_dealer(seed) if seed is not None else 0
        self.first_dealer = dealer
        if hands is not None or seed is not None:
            self.start_deal(hands)

    # ---- deals ----------------------------------------------------------------
    @property
    def deal(self) -> Deal:
        return self.deals[-1]

    @property
    def next_dealer(self) -> int:
        if not self.deals:
            return self.first_dealer
        return self.rules.next_seat(self.deals[-1].dealer)

    @property
    def needs_deal(self) -> bool:
        """True when the next deal must be supplied with ``start_deal``."""
        if self.winner is not None:
            return False
        return not self.deals or self.deals[-1].phase == OVER

    def start_deal(
        self, hands: Sequence[Sequence[int]] | None = None, dealer: int | None = None
    ) -> Deal:
        if self.winner is not None:
            raise IllegalAction("the match is over")
        if self.deals and self.deals[-1].phase != OVER:
            raise IllegalAction("the current deal is not finished")
        expected = self.next_dealer
        if dealer is not None and dealer != expected:
            raise IllegalAction(f"the dealer must be seat {expected}, not seat {dealer}")
        if hands is None:
            if self.seed is None:
                raise IllegalAction("hands are needed: this match has no seed")
            hands = deal_hands(
                derive_seed(self.seed, len(self.deals)), expected, self.rules.clockwise
            )
        deal = Deal(self.rules, expected, hands)
        self.deals.append(deal)
        return deal

    def clone(self) -> Match:
        new = Match.__new__(Match)
        new.rules = self.rules
        new.seed = self.seed
        new.first_dealer = self.first_dealer
        new.deals = [*self.deals[:-1], self.deals[-1].clone()] if self.deals else []
        new.score = self.score[:]
        new.winner = self.winner
        return new

    # ---- the game API ---------------------------------------------------------------
    @property
    def to_act(self) -> int:
        if not self.deals or self.winner is not None:
            return -1
        return self.deals[-1].to_act

    def legal_actions(self) -> list[Action]:
        if not self.deals or self.winner is not None:
            return []
        return self.deals[-1].legal_actions()

    def is_over(self) -> bool:
        if self.winner is not None:
            return True
        if self.rules.match_target is None:
            return bool(self.deals) and self.deals[-1].phase == OVER
        return False

    def apply(self, action: Action) -> list[dict[str, Any]]:
        if self.winner is not None:
            raise IllegalAction("the match is over")
        if not self.deals or self.deals[-1].phase == OVER:
            raise IllegalAction("no deal is in progress")
        deal = self.deals[-1]
        events = deal.apply(action)
        if deal.phase == OVER:
            events.extend(self._deal_over(deal))
        return events

    def _deal_over(self, deal: Deal) -> list[dict[str, Any]]:
        self.score[0] += deal.delta[0]
        self.score[1] += deal.delta[1]
        events: list[dict[str, Any]] = []
        target = self.rules.match_target
        if target is not None:
            for team in (0, 1):
                if self.score[team] >= target:
                    self.winner = team
                elif self.score[team] <= -target:
                    self.winner = 1 - team
            if self.winner is not None:
                events.append({"type": "match_end", "winner": self.winner, "score": self.score[:]})
                return events
        if self.seed is not None and target is not None:
            nxt = self.start_deal()
            events.append({"type": "deal_start", "dealer": nxt.dealer, "deal": len(self.deals) - 1})
        return events

    # ---- records ---------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_json(),
            "deals": [d.to_record() for d in self.deals],
        }


__all__ = ["RECORD_FORMAT", "Match"]
