"""What a solved margin in the play is worth at the table (``soft_play``).

A world solved with every card known says by how many card points the
bidders make or miss their target from here with perfect play on both
sides. Bots do not play perfectly, and the fewer tricks are left the less
that matters: at the third trick a contract the solution makes by no card
point was made 62% of the time, at the sixth 86%. ``PLAY_ODDS`` holds, for
each trick and solved margin, how often the bidders made the contract from
such a position. It was counted over the 4,000 games of two arena runs of
``expert`` against ``strong`` (pagat, seed 2041, and bhoos, seed 2061, 1,000
duplicate deals each): every position at the start of a trick solved for
its exact margin and set beside the deal's end (cancelled deals left out),
each trick's rates smoothed by one half a game towards even and made
monotone in the margin (pool-adjacent violators). ``bench contracts --run
DIR --odds`` counts the same table from any run.

With ``soft_play`` the expert values a move in a world by the chance this
table gives the position after it, in game points (2 × chance − 1 for the
bidders), instead of by made or failed alone, so a card that keeps the
contract by several points in most worlds is preferred to one that keeps it
by none in a few more.
"""

from __future__ import annotations

# the margins the table holds; beyond them the end values
MARGIN_LIMIT = 8

# PLAY_ODDS[trick - 1][margin + MARGIN_LIMIT]: the bidders' chance in percent of making
# the contract from the start of that trick (1 to 7), by their solved margin, -8 to +8.
PLAY_ODDS: tuple[tuple[int, ...], ...] = (
    (1, 6, 7, 9, 12, 15, 28, 37, 51, 61, 66, 78, 86, 91, 93, 96, 98),
    (0, 4, 10, 10, 12, 12, 26, 34, 55, 70, 70, 80, 91, 94, 95, 98, 98),
    (1, 1, 3, 7, 13, 13, 18, 28, 62, 68, 79, 84, 94, 94, 96, 98, 99),
    (0, 1, 3, 5, 5, 11, 12, 22, 67, 74, 85, 92, 95, 97, 98, 99, 99),
    (0, 0, 2, 3, 3, 7, 7, 15, 75, 85, 92, 94, 98, 98, 99, 99, 99),
    (0, 0, 1, 2, 2, 2, 3, 6, 86, 93, 97, 97, 99, 99, 100, 100, 100),
    (0, 0, 0, 0, 0, 1, 1, 1, 97, 98, 99, 99, 100, 100, 100, 100, 100),
)


def table_margin(margin: int) -> int:
    """``margin`` as the table holds it: beyond +-MARGIN_LIMIT, the end column."""
    return max(-MARGIN_LIMIT, min(MARGIN_LIMIT, margin))


def made_chance(margin: int, trick: int) -> float:
    """The bidders' chance of making the contract from the start of ``trick`` (1-based;
    9 is the deal's end) with this solved ``margin`` (points over their target)."""
    if trick > len(PLAY_ODDS):
        return 1.0 if margin >= 0 else 0.0
    row = PLAY_ODDS[max(trick, 1) - 1]
    return row[table_margin(margin) + MARGIN_LIMIT] / 100


def played_value(margin: int | None, trick: int) -> float:
    """A position's worth to the bidders in game points at the table: +1 made, -1 failed,
    0 for a deal that ends cancelled (``margin`` None)."""
    if margin is None:
        return 0.0
    return 2.0 * made_chance(margin, trick) - 1.0


__all__ = ["MARGIN_LIMIT", "PLAY_ODDS", "made_chance", "played_value", "table_margin"]
