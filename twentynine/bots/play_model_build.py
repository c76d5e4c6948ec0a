"""Rebuild ``twentynine/data/play.json``, the experts' model of the cards others play.

    twentynine play-model-build --run runs/A --run runs/B

Reads the games arena runs kept (``arena ... --out DIR``), where every hand
is known, and takes each card played with a choice (more than one legal
card). For every legal card there it computes ``play_model.features`` as
the player saw the table, and fits a conditional logit to which card was
played (Newton's method, a small ridge). The games are split by file name:
every fifth is held out, and the fit is reported on both parts against the
uniform choice. Needs numpy.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

from ..game.cards import cards_of
from ..game.engine import Deal
from ..game.observation import observe_deal
from ..game.record import RecordError, played_contract
from .play_model import FEATURES, history, legal_cards
from .play_model import features as card_features

Choice = tuple[list[list[float]], int]  # the legal cards' features, the index played
RIDGE = 1e-3
HOLD_OUT = 5  # every fifth game is held out


class BuildError(Exception):
    """Input the build cannot use, with a one-line reason."""


def played_deal(path: Path) -> Deal | None:
    """The deal a kept game played to its end with a contract (None: forfeited,
    unfinished, redealt or a single hand)."""
    try:
        return played_contract(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, IndexError, TypeError, RecordError) as e:
        raise BuildError(f"{path}: not a game record ({e})") from None


def choices_of(deal: Deal) -> list[Choice]:
    """Every card of the deal played with a choice, described as its player saw it."""
    obs = observe_deal(deal, None)
    points = history(obs)
    hands = [sum(1 << c for c in h) for h in deal.hands]
    before = [0, 0, 0, 0]  # cards each seat played before this point
    out: list[Choice] = []
    for point in points:
        s = point.seat
        hand = hands[s] & ~before[s]
        before[s] |= 1 << point.card
        if point.forced:
            continue
        legal = legal_cards(hand, point.table)
        if legal & (legal - 1) == 0:
            continue
        trump = deal.trump if (point.bidder or point.active) else None
        cards = cards_of(legal)
        rows = [card_features(point, hand, trump, c) for c in cards]
        out.append((rows, cards.index(point.card)))
    return out


def game_files(runs: list[Path]) -> list[Path]:
    files: list[Path] = []
    for run in runs:
        if not (run / "run.json").exists():
            raise BuildError(f"{run} holds no arena run (no run.json)")
        files.extend(sorted((run / "games").glob("*.json")))
    if not files:
        raise BuildError("the runs hold no kept game")
    return files


def fit(choices: list[Choice], ridge: float = RIDGE, steps: int = 30) -> list[float]:
    """The conditional logit's coefficients by Newton's method."""
    import numpy as np

    k = len(FEATURES)
    beta = np.zeros(k)
    xs = [np.array(rows) for rows, _ in choices]
    ys = [y for _, y in choices]
    for _ in range(steps):
        grad = -ridge * beta
        hess = -ridge * np.eye(k)
        for x, y in zip(xs, ys, strict=True):
            s = x @ beta
            p = np.exp(s - s.max())
            p /= p.sum()
            mean = p @ x
            grad += x[y] - mean
            centred = x - mean
            hess -= (centred * p[:, None]).T @ centred
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-7:
            break
    return [float(b) for b in beta]


def report(choices: list[Choice], beta: list[float]) -> dict[str, float]:
    """Mean log-likelihood per card against the uniform choice, and how often the
    model's likeliest card was the one played."""
    ll = uniform = 0.0
    right = 0
    for rows, y in choices:
        scores = [sum(b * x for b, x in zip(beta, r, strict=True)) for r in rows]
        top = max(scores)
        ll += scores[y] - top - math.log(sum(math.exp(s - top) for s in scores))
        uniform -= math.log(len(rows))
        right += scores.index(top) == y
    n = max(1, len(choices))
    return {
        "cards": len(choices),
        "log_likelihood": round(ll / n, 4),
        "uniform": round(uniform / n, 4),
        "top_choice": round(right / n, 4),
    }


def build(runs: list[Path], games: int | None = None) -> dict[str, Any]:
    files = game_files(runs)[:games]
    train: list[Choice] = []
    held: list[Choice] = []
    used = 0
    for i, path in enumerate(files):
        deal = played_deal(path)
        if deal is None:
            continue
        used += 1
        (held if i % HOLD_OUT == HOLD_OUT - 1 else train).extend(choices_of(deal))
    if not train:
        raise BuildError("no contract was played to its end in those games")
    beta = fit(train)
    return {
        "features": list(FEATURES),
        "coefficients": [round(b, 5) for b in beta],
        "games": used,
        "runs": [str(r) for r in runs],
        "fitted": report(train, beta),
        "held_out": report(held, beta),
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--run", type=Path, action="append", required=True, help="an arena run folder (repeatable)"
    )
    p.add_argument("--games", type=int, default=None, help="the first N kept games only")
    here = Path(__file__).resolve().parent.parent / "data" / "play.json"
    p.add_argument("--out", type=Path, default=here, help="where to write the model")


def run(args: argparse.Namespace) -> int:
    if args.games is not None and args.games < 1:
        raise BuildError("--games must be at least 1")
    start = time.perf_counter()
    model = build(args.run, args.games)
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    took = time.perf_counter() - start
    print(f"{model['games']} games, fitted on {model['fitted']['cards']} cards in {took:.0f} s")
    for part in ("fitted", "held_out"):
        r = model[part]
        print(
            f"  {part:8}: {r['cards']:6} cards, log-likelihood {r['log_likelihood']:+.3f} a card "
            f"(uniform {r['uniform']:+.3f}), likeliest card played {100 * r['top_choice']:.1f}%"
        )
    for name, b in zip(FEATURES, model["coefficients"], strict=True):
        print(f"  {name:22} {b:+.3f}")
    print(f"written to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m twentynine.bots.play_model_build")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run(args)
    except BuildError as e:
        p.exit(2, f"{p.prog}: {e}\n")


if __name__ == "__main__":
    raise SystemExit(main())
