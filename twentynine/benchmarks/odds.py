"""``bench contracts --run DIR --odds``: how often a solved margin in the play is made.

Every game of an arena run is replayed; at the start of each trick the
position is solved with every card known for the bidders' exact margin
(card points over their target with perfect play from there), and set
beside how the deal ended. Counted by trick and margin, that is how much a
solved margin is worth at the table, with bots playing the rest: the table
``bots/odds.py`` holds (``PLAY_ODDS``) and ``expert[soft_play=1]`` plays by.
Deals that end cancelled (trumps never revealed under ``unrevealed:
cancel``) and single hands are left out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..bots.odds import MARGIN_LIMIT, table_margin
from ..game.engine import FAILED, MADE, PLAYING, TRICKS, Deal
from ..services.analysis.allhands import contract_goal, play_position
from ..solver import exact

# a half game towards even in each cell, so a cell of few positions stays near it
PRIOR = 0.5


@dataclass
class OddsCount:
    """Positions at the start of each trick, by (trick, margin clipped to the table)."""

    seen: Counter[tuple[int, int]] = field(default_factory=Counter)
    made: Counter[tuple[int, int]] = field(default_factory=Counter)

    def add(self, deal: Deal) -> None:
        """Count the trick starts of a finished ``deal`` (replayed from its cards as dealt)."""
        if deal.result not in (MADE, FAILED) or deal.single >= 0:
            return
        made = deal.result == MADE
        replay = Deal(deal.rules, deal.dealer, deal.hands)
        counted: set[int] = set()
        for action in deal.log:
            trick = len(replay.tricks) + 1
            if replay.phase == PLAYING and not replay.trick_cards and trick not in counted:
                counted.add(trick)
                value = exact(play_position(replay, False), contract_goal(replay))
                if value.margin is not None:
                    key = (trick, table_margin(value.margin))
                    self.seen[key] += 1
                    self.made[key] += made
            replay.apply(action)

    def rates(self, trick: int) -> list[float]:
        """The made rate of each margin at ``trick`` (-MARGIN_LIMIT .. +MARGIN_LIMIT), a
        half game towards even, then made monotone in the margin."""
        margins = range(-MARGIN_LIMIT, MARGIN_LIMIT + 1)
        rates = [
            (self.made[(trick, m)] + PRIOR) / (self.seen[(trick, m)] + 2 * PRIOR) for m in margins
        ]
        return monotone(rates, [self.seen[(trick, m)] + 2 * PRIOR for m in margins])


def monotone(values: list[float], weights: list[float]) -> list[float]:
    """The non-decreasing sequence nearest ``values`` in weighted squares: neighbours
    out of order are pooled into their weighted mean (pool-adjacent violators)."""
    blocks: list[list[float]] = []  # [mean, weight, how many values]
    for v, w in zip(values, weights, strict=True):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks[-1]
            blocks[-1] = [(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2]
    out: list[float] = []
    for v, _w, n in blocks:
        out += [v] * int(n)
    return out


def report_odds(count: OddsCount) -> str:
    """The made rate by trick and solved margin, and the same as ``PLAY_ODDS`` rows."""
    margins = range(-MARGIN_LIMIT, MARGIN_LIMIT + 1)
    lines = [
        "  made at the table, by the trick's start and the bidders' solved margin "
        "(positions; cancelled deals left out)",
        "    trick " + "".join(f"{m:>+5d}" for m in margins) + "   positions",
    ]
    for trick in range(1, TRICKS + 1):
        seen = sum(n for (t, _m), n in count.seen.items() if t == trick)
        if not seen:
            continue
        cells = []
        for m in margins:
            n = count.seen[(trick, m)]
            cells.append(f"{100 * count.made[(trick, m)] / n:>5.0f}" if n else f"{'-':>5}")
        lines.append(f"    {trick:>5} " + "".join(cells) + f"   {seen:>9}")
    lines.append("  smoothed and monotone, in percent (bots/odds.py, PLAY_ODDS):")
    for trick in range(1, TRICKS):
        if any(count.seen[(trick, m)] for m in margins):
            row = ", ".join(str(round(100 * r)) for r in count.rates(trick))
            lines.append(f"    ({row}),  # trick {trick}")
    return "\n".join(lines)


__all__ = ["OddsCount", "monotone", "report_odds"]
