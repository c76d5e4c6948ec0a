"""A rating ladder: a round robin of duplicate matches, and one rating per player.

Every pair of players plays the same duplicate deals as ``twentynine arena``
(the same seed deals the same cards to every pair), so the results are
comparable across pairs. A player is a bot level (``casual``), a character
(``raju``: a level with a temperament) or the URL of a contest-protocol bot.

The ratings are one Bradley–Terry fit over every board of every pair: a board
scores 1 for the player who won it on game points, ½ for a tie, 0 for a loss
(the board score the arena's Elo estimate counts), and the fit finds the
ratings that make those results most likely, on the Elo scale (400·log10 of
the odds). The anchor, ``random`` when it plays (else the first random-level
player, else the first player), is rated 0. Each player other than the anchor
also gets one virtual tied board against the anchor, a weak prior that keeps
the fit finite when a player wins or loses every board and rates a player
that no board links to the anchor near it (such a player is reported as not
connected, without an interval). The 95% intervals are percentiles of the fit
over boards resampled with replacement within each pair (seeded, so a run's
figures repeat).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..bots import LEVELS
from ..bots.base import Bot
from ..bots.characters import BY_ID, character
from ..game.rules import Rules
from .arena import (
    ELO_SCALE,
    BoardResult,
    Summary,
    decision_ms,
    default_factory,
    is_url,
    play_board,
    run_jobs,
    summarise,
)

RESAMPLES = 200
FEW_DEALS = 20  # below this many deals a pair, the table says its intervals say little
EXTERNAL = "external"  # the level shown for a contest bot
# Ratings are fitted on the natural-log odds scale and shown on the Elo scale.
TO_ELO = ELO_SCALE / math.log(10)


def player_level(spec: str) -> str:
    """The bot level a player spec plays at (``external`` for a contest bot's URL)."""
    if is_url(spec):
        return EXTERNAL
    if spec in BY_ID:
        return BY_ID[spec].level
    if spec in LEVELS:
        return spec
    raise ValueError(unknown_player(spec))


def unknown_player(spec: str) -> str:
    return (
        f"unknown player {spec!r}; levels: {', '.join(LEVELS)}; "
        f"characters: {', '.join(BY_ID)}; or a bot's http:// URL"
    )


def is_player(spec: str) -> bool:
    return spec in LEVELS or spec in BY_ID or is_url(spec)


def default_players() -> list[str]:
    """Every character and the frozen baselines that no character plays."""
    from ..bots import BASELINES

    return [*BY_ID, *BASELINES]


def ladder_factory(spec: str, seed: int) -> Bot:
    """A bot for a player spec: a character with its temperament, a level, or a contest bot."""
    if spec in BY_ID:
        return character(spec).make(seed=seed)
    return default_factory(spec, seed)


def anchor_of(players: Sequence[str]) -> str:
    """The player rated 0: ``random``, else the first random-level player, else the first."""
    if "random" in players:
        return "random"
    for p in players:
        if is_player(p) and player_level(p) == "random":
            return p
    return players[0]


def pairs_of(players: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair once, in the order of the list (the first named is A)."""
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]


# ------------------------------------------------------------------ playing


def _job(args: tuple[Rules, int, str, str, int, int]) -> tuple[int, BoardResult]:
    rules, pair, a, b, deal_no, seed = args
    board = play_board(rules, a, b, deal_no, seed, ladder_factory)
    # the game records stay behind: a ladder keeps the scores, not every card of every pair
    return pair, replace(board, games=[replace(g, record={}) for g in board.games])


def run_ladder(
    rules: Rules, players: Sequence[str], deals: int, seed: int, jobs: int = 1
) -> Iterator[tuple[int, BoardResult]]:
    """Yield (pair index into ``pairs_of(players)``, board) as the boards finish.

    Every pair plays deals 0 .. ``deals`` - 1 of ``seed``; with ``jobs`` > 1
    the (pair, deal) items run in a pool of worker processes, in any order."""
    work = [
        (rules, k, a, b, deal_no, seed)
        for k, (a, b) in enumerate(pairs_of(players))
        for deal_no in range(deals)
    ]
    yield from run_jobs(_job, work, jobs)


# ------------------------------------------------------------------ the fit


def board_score(diff: float) -> float:
    """A board's score for A from its game points A minus B: 1 won, ½ tied, 0 lost."""
    return 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _solve(m: list[list[float]], v: list[float]) -> list[float]:
    """x with m x = v (Gaussian elimination with partial pivoting; m is small)."""
    n = len(v)
    a = [[*row, v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        pivot = a[c][c]
        for r in range(c + 1, n):
            f = a[r][c] / pivot
            if f:
                for k in range(c, n + 1):
                    a[r][k] -= f * a[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][k] * x[k] for k in range(r + 1, n))) / a[r][r]
    return x


def fit(
    n_players: int, results: dict[tuple[int, int], tuple[float, int]], anchor: int = 0
) -> list[float]:
    """Bradley–Terry ratings on the Elo scale, ``anchor`` at 0.

    ``results[(i, j)]`` is (score of i over the boards, boards) for the boards
    between players i and j; pairs with no boards are left out. Each player but
    the anchor gets one virtual tied board against the anchor (see the module's
    notes), so the maximum is unique and finite. Newton's method with a
    backtracking line search: the log-likelihood is concave."""
    games: dict[tuple[int, int], tuple[float, float]] = {}

    def add(i: int, j: int, w: float, n: float) -> None:
        if i > j:
            i, j, w = j, i, n - w
        old_w, old_n = games.get((i, j), (0.0, 0.0))
        games[(i, j)] = (old_w + w, old_n + n)

    for (i, j), (score, boards) in results.items():
        if boards > 0 and i != j:
            add(i, j, score, boards)
    for i in range(n_players):
        if i != anchor:
            add(i, anchor, 0.5, 1)
    free = [i for i in range(n_players) if i != anchor]
    index = {p: k for k, p in enumerate(free)}
    theta = [0.0] * n_players

    def loglik(t: list[float]) -> float:
        return sum(
            w * _log_sigmoid(t[i] - t[j]) + (n - w) * _log_sigmoid(t[j] - t[i])
            for (i, j), (w, n) in games.items()
        )

    current = loglik(theta)
    for _ in range(100):
        grad = [0.0] * len(free)
        info = [[0.0] * len(free) for _ in free]  # minus the Hessian
        for (i, j), (w, n) in games.items():
            p = _sigmoid(theta[i] - theta[j])
            g, h = w - n * p, n * p * (1 - p)
            for x, sign in ((i, 1.0), (j, -1.0)):
                if x in index:
                    grad[index[x]] += sign * g
                    info[index[x]][index[x]] += h
            if i in index and j in index:
                info[index[i]][index[j]] -= h
                info[index[j]][index[i]] -= h
        if not free or max(abs(g) for g in grad) < 1e-10:
            break
        step = _solve(info, grad)
        scale = 1.0
        while True:
            trial = theta[:]
            for player, k in index.items():
                trial[player] += scale * step[k]
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        if value < current - 1e-12:
            break  # no step along Newton's direction gains: as close as rounding allows
        theta, gain, current = trial, value - current, value
        if abs(gain) < 1e-13 and scale * max(abs(s) for s in step) < 1e-9:
            break
    return [t * TO_ELO for t in theta]


def _percentile(sorted_xs: list[float], q: float) -> float:
    pos = q * (len(sorted_xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def connected_to(anchor: int, n_players: int, pairs: Sequence[tuple[int, int]]) -> set[int]:
    """The players that a chain of boards links to the anchor (the anchor too)."""
    links: dict[int, set[int]] = {i: set() for i in range(n_players)}
    for i, j in pairs:
        links[i].add(j)
        links[j].add(i)
    seen, todo = {anchor}, [anchor]
    while todo:
        for j in links[todo.pop()] - seen:
            seen.add(j)
            todo.append(j)
    return seen


@dataclass
class Fit:
    ratings: list[float]
    ci95: list[tuple[float | None, float | None]]
    connected: set[int]


def fit_boards(
    n_players: int,
    scores: dict[tuple[int, int], list[float]],
    anchor: int = 0,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Fit:
    """Ratings from board scores (``scores[(i, j)]``: i's score on each board against j)
    with 95% intervals by resampling the boards of each pair (``resamples`` refits).

    A player no chain of boards links to the anchor has no interval: its rating
    says only where the prior put it. An interval always holds its rating (with
    a handful of boards the percentiles of a lopsided resampling can miss it)."""
    played = {k: v for k, v in scores.items() if v}
    ratings = fit(n_players, {k: (sum(v), len(v)) for k, v in played.items()}, anchor)
    rng = random.Random(seed)
    samples: list[list[float]] = [[] for _ in range(n_players)]
    for _ in range(resamples):
        drawn = {k: (sum(rng.choices(v, k=len(v))), len(v)) for k, v in played.items()}
        for i, r in enumerate(fit(n_players, drawn, anchor)):
            samples[i].append(r)
    linked = connected_to(anchor, n_players, list(played))
    ci95: list[tuple[float | None, float | None]] = []
    for i in range(n_players):
        if i not in linked:
            ci95.append((None, None))
        elif i == anchor or not samples[i]:
            ci95.append((ratings[i], ratings[i]))
        else:
            s = sorted(samples[i])
            lo, hi = _percentile(s, 0.025), _percentile(s, 0.975)
            ci95.append((min(lo, ratings[i]), max(hi, ratings[i])))
    return Fit(ratings, ci95, linked)


# ------------------------------------------------------------------ the ladder


@dataclass
class PlayerRating:
    player: str
    level: str
    rating: float
    ci95: tuple[float | None, float | None]
    boards: int
    score: float  # boards won, ties counted as half
    points: float | None  # mean game points per deal against the field
    decision_ms: dict[str, float]
    connected: bool = True

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Ladder:
    players: list[str]
    anchor: str
    deals: int  # per pair
    seed: int
    resamples: int
    ratings: list[PlayerRating]  # best first
    pairs: list[Summary] = field(default_factory=list)

    def rating_of(self, player: str) -> PlayerRating:
        return next(r for r in self.ratings if r.player == player)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "anchor": self.anchor,
            "deals_per_pair": self.deals,
            "seed": self.seed,
            "resamples": self.resamples,
            "ratings": [r.to_json() for r in self.ratings],
            "pairs": [finite(s.to_json()) for s in self.pairs],
        }


def finite(value: Any) -> Any:
    """``value`` with every infinite or NaN float as None (JSON has no infinity: the interval
    of a pair with one deal is unbounded)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def rate(
    players: Sequence[str],
    boards: dict[int, list[BoardResult]],
    deals: int,
    seed: int,
    resamples: int = RESAMPLES,
) -> Ladder:
    """The ladder from the boards of each pair (``boards[k]`` for pair k of ``pairs_of``)."""
    players = list(players)
    pairs = pairs_of(players)
    at = {p: i for i, p in enumerate(players)}
    anchor = anchor_of(players)
    scores: dict[tuple[int, int], list[float]] = {}
    diffs: dict[str, list[float]] = {p: [] for p in players}
    times: dict[str, list[float]] = {p: [] for p in players}
    summaries = []
    for k, (a, b) in enumerate(pairs):
        mine = sorted(boards.get(k, []), key=lambda x: x.deal)
        scores[(at[a], at[b])] = [board_score(x.a_minus_b()) for x in mine]
        for x in mine:
            diffs[a].append(x.a_minus_b())
            diffs[b].append(-x.a_minus_b())
            for g in x.games:
                times[a].extend(g.times.get("A", []))
                times[b].extend(g.times.get("B", []))
        summaries.append(summarise(a, b, mine))
    result = fit_boards(len(players), scores, at[anchor], resamples, seed)
    ratings = [
        PlayerRating(
            player=p,
            level=player_level(p),
            rating=result.ratings[i],
            ci95=result.ci95[i],
            boards=len(diffs[p]),
            score=sum(board_score(d) for d in diffs[p]),
            points=statistics.fmean(diffs[p]) if diffs[p] else None,
            decision_ms=decision_ms(times[p]),
            connected=i in result.connected,
        )
        for i, p in enumerate(players)
    ]
    ratings.sort(key=lambda r: (-r.rating, r.player))
    return Ladder(players, anchor, deals, seed, resamples, ratings, summaries)


def play_ladder(
    rules: Rules,
    players: Sequence[str],
    deals: int,
    seed: int,
    jobs: int = 1,
    resamples: int = RESAMPLES,
    on_board: Callable[[], None] | None = None,
) -> Ladder:
    """Play the round robin and rate it (``on_board`` is called as each board finishes)."""
    boards: dict[int, list[BoardResult]] = {}
    for k, board in run_ladder(rules, players, deals, seed, jobs):
        boards.setdefault(k, []).append(board)
        if on_board is not None:
            on_board()
    return rate(players, boards, deals, seed, resamples)


def ratings_file(ladder: Ladder, rules: Rules, command: str, date: str) -> dict[str, Any]:
    """What ``--write-ratings`` keeps (``twentynine/data/ladder.json``), read by the characters."""

    def r1(x: float | None) -> float | None:
        return None if x is None else round(x, 1)

    return {
        "format": "twentynine-ladder/1",
        "date": date,
        "command": command,
        "profile": rules.profile,
        "options": rules.overrides(),
        "deals_per_pair": ladder.deals,
        "seed": ladder.seed,
        "anchor": ladder.anchor,
        "resamples": ladder.resamples,
        "ratings": {
            r.player: {
                "level": r.level,
                "rating": r1(r.rating),
                "ci95": [r1(r.ci95[0]), r1(r.ci95[1])],
                "points": None if r.points is None else round(r.points, 4),
                "boards": r.boards,
            }
            for r in ladder.ratings
        },
        "pairs": [
            finite({"a": s.a, "b": s.b, "deals": s.deals, "mean": s.mean, "ci95": s.ci95})
            for s in ladder.pairs
        ],
    }


def format_ladder(ladder: Ladder) -> str:
    def signed(x: float | None, digits: int = 0) -> str:
        return "-" if x is None or not math.isfinite(x) else f"{x + 0.0:+.{digits}f}"

    swept = {
        r.player: "won" if r.score == r.boards else "lost"
        for r in ladder.ratings
        if r.boards and r.score in (0, r.boards)
    }
    width = max(len("player"), *(len(r.player) for r in ladder.ratings))
    lines = [
        f"ladder of {len(ladder.players)} players, {ladder.deals} duplicate deals per pair "
        f"(seed {ladder.seed}); ratings on the Elo scale, {ladder.anchor} = 0",
        f"  {'player':<{width}}  {'level':<9} {'rating':>7}  {'95% interval':<13} "
        f"{'pts/deal':>8}  {'median ms':>9} {'p95 ms':>8}",
    ]
    for r in ladder.ratings:
        lo, hi = r.ci95
        if r.player == ladder.anchor:
            ci = "(anchor)"
        elif lo is None or hi is None:
            ci = "(not linked)"
        else:
            ci = f"{lo:+.0f}..{hi:+.0f}"
        t = r.decision_ms
        lines.append(
            f"  {r.player:<{width}}  {r.level:<9} {r.rating:>+7.0f}  {ci:<13} "
            f"{signed(r.points, 3):>8}  {t['median']:>9.2f} {t['p95']:>8.2f}"
        )
    for r in ladder.ratings:
        if r.player in swept:
            lines.append(
                f"  note: {r.player} {swept[r.player]} every board it played: its distance "
                "from the others is set by the prior (more deals move it)"
            )
        elif not r.connected:
            lines.append(
                f"  note: no chain of boards links {r.player} to {ladder.anchor}: its rating "
                "is the prior's"
            )
    if 0 < ladder.deals < FEW_DEALS:
        lines.append(f"  note: with fewer than {FEW_DEALS} deals a pair the intervals say little")
    lines.append("pairs: game points per deal, A minus B (95% interval), Elo of A over B")
    pw = max(len("pair"), *(len(f"{s.a} - {s.b}") for s in ladder.pairs))
    for s in ladder.pairs:
        lo, hi = s.ci95
        name = f"{s.a} - {s.b}"
        if not s.deals:
            lines.append(f"  {name:<{pw}}  no deals")
            continue
        lines.append(
            f"  {name:<{pw}}  {s.deals:>5} deals  {signed(s.mean, 3):>7} "
            f"({signed(lo, 3)} .. {signed(hi, 3)})  Elo {signed(s.elo)}"
        )
    return "\n".join(lines)
