"""The folder of an arena run (``twentynine arena --out DIR``), written as boards finish.

A long match (a thousand deals of two search bots) takes an hour or more, and
a run stopped before its end used to leave nothing. The folder keeps:

- ``run.json``: what was played (the two bots, the rules, the seed of the
  deals) and a fingerprint of the code that plays (the bots, the solver, the
  rules engine, the bidding model and the model of the play);
- ``boards.jsonl``: one line per finished board, appended and flushed as it
  finishes (each of its two games without the record);
- ``games/``: the game record of every game, written as its board finishes;
- ``summary.json``: the statistics over every board, written at the end.

``--resume`` reads the folder back and plays only the deals not yet in it,
refusing when anything above differs: boards played by other code or under
other rules are not the same experiment. A line cut short by a kill is
dropped and its deal played again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..game.rules import Rules
from .arena import BoardResult, GameResult, Summary

FORMAT = 1
PACKAGE = Path(__file__).resolve().parent.parent
# What decides how a board comes out: the players, their solver, the rules, the
# bidding model and the model of the play. Interfaces, servers and docs may change
# between two halves of a run.
PLAYING_CODE = ("bots", "solver", "game")
PLAYING_DATA = ("data/bidding.json", "data/play.json")


class FolderError(Exception):
    """The folder cannot take this run: a one-line reason for the command line."""


def code_fingerprint(root: Path = PACKAGE) -> str:
    """A hash of the source that plays the boards (``PLAYING_CODE``, ``PLAYING_DATA``)."""
    digest = hashlib.sha256()
    files = [p for d in PLAYING_CODE for p in sorted((root / d).rglob("*.py"))]
    files += [root / name for name in PLAYING_DATA if (root / name).exists()]
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def identity(a: str, b: str, rules: Rules, seed: int) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "a": a,
        "b": b,
        "rules": rules.to_json(),
        "seed": seed,
        "code": code_fingerprint(),
    }


def game_to_json(g: GameResult) -> dict[str, Any]:
    return {
        "a_team": g.a_team,
        "delta": list(g.delta),
        "bidder": g.bidder,
        "bid": g.bid,
        "points": list(g.points),
        "result": g.result,
        "times": {k: [round(t, 6) for t in v] for k, v in g.times.items()},
        "fault": g.fault,
    }


def board_to_json(board: BoardResult) -> dict[str, Any]:
    return {"deal": board.deal, "games": [game_to_json(g) for g in board.games]}


def board_from_json(obj: dict[str, Any]) -> BoardResult:
    deal = int(obj["deal"])
    games = [
        GameResult(
            deal=deal,
            a_team=int(g["a_team"]),
            record={},  # the record is in games/, not needed for the statistics
            delta=(int(g["delta"][0]), int(g["delta"][1])),
            bidder=g["bidder"],
            bid=g["bid"],
            points=(int(g["points"][0]), int(g["points"][1])),
            result=str(g["result"]),
            times={str(k): [float(t) for t in v] for k, v in g["times"].items()},
            fault=g["fault"],
        )
        for g in obj["games"]
    ]
    if len(games) != 2:
        raise ValueError(f"deal {deal} has {len(games)} games, not 2")
    return BoardResult(deal, games)


class RunFolder:
    """An arena run's folder, opened to add boards to it."""

    def __init__(self, path: Path, ident: dict[str, Any], boards: list[BoardResult]) -> None:
        self.path = path
        self.identity = ident
        self.boards = boards  # read back from an earlier run (resume), by deal
        self._log: IO[str] | None = None

    @classmethod
    def open(cls, path: Path, a: str, b: str, rules: Rules, seed: int, resume: bool) -> RunFolder:
        """The folder for a new run, or (``resume``) the earlier run kept in it.

        Raises ``FolderError`` when a new run would mix with an old one, or when
        the run to resume was not this one (other bots, rules, seed or code)."""
        ident = identity(a, b, rules, seed)
        run_file = path / "run.json"
        if not resume:
            if run_file.exists() or (path / "boards.jsonl").exists():
                raise FolderError(
                    f"{path} already holds a run; add --resume to go on with it, "
                    "or give another --out"
                )
            return cls(path, ident, [])
        if not run_file.exists():
            return cls(path, ident, [])  # nothing to resume yet: start it
        earlier = _description(run_file)
        for key, what in (
            ("format", "the folder's format"),
            ("a", "bot A"),
            ("b", "bot B"),
            ("rules", "the rules"),
            ("seed", "the seed of the deals"),
            ("code", "the playing code (bots, solver, engine, bidding and play models)"),
        ):
            if earlier.get(key) != ident[key]:
                raise FolderError(
                    f"cannot resume {path}: {what} differ "
                    f"({earlier.get(key)!r} there, {ident[key]!r} now)"
                )
        return cls(path, ident, read_boards(path / "boards.jsonl"))

    def done(self) -> set[int]:
        return {board.deal for board in self.boards}

    def __enter__(self) -> RunFolder:
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "games").mkdir(exist_ok=True)
        (self.path / "run.json").write_text(json.dumps(self.identity, indent=2) + "\n")
        log = self.path / "boards.jsonl"
        # rewrite what was read back: a line cut short by a kill goes
        text = "".join(json.dumps(board_to_json(x)) + "\n" for x in self.boards)
        log.write_text(text)
        self._log = log.open("a")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def add(self, board: BoardResult) -> None:
        """Keep a finished board: its records, then its line (flushed)."""
        assert self._log is not None, "use the folder in a with block"
        write_records(self.path, [board])
        self._log.write(json.dumps(board_to_json(board)) + "\n")
        self._log.flush()
        self.boards.append(board)

    def finish(self, summary: Summary) -> None:
        """Write ``summary.json``: the statistics of the boards the run was asked for."""
        text = json.dumps(summary.to_json(), indent=2) + "\n"
        (self.path / "summary.json").write_text(text)


def read_boards(log: Path) -> list[BoardResult]:
    """The boards of ``boards.jsonl``, one per deal; a last line cut short is left out."""
    if not log.exists():
        return []
    lines = log.read_text().splitlines()
    boards: dict[int, BoardResult] = {}
    for n, line in enumerate(lines, 1):
        try:
            board = board_from_json(json.loads(line))
        except (ValueError, KeyError, TypeError, IndexError) as e:
            if n == len(lines):
                break  # the run was stopped while writing it: that deal is played again
            raise FolderError(f"{log}, line {n}: not a board ({e})") from None
        boards[board.deal] = board
    return [boards[d] for d in sorted(boards)]


def _description(run_file: Path) -> dict[str, Any]:
    """A folder's ``run.json`` as a dict (``FolderError`` when it cannot be read as one)."""
    try:
        ident = json.loads(run_file.read_text())
    except (OSError, ValueError) as e:
        raise FolderError(f"cannot read {run_file}: {e}") from None
    if not isinstance(ident, dict):
        raise FolderError(f"{run_file} is not a run's description")
    return ident


@dataclass
class KeptRun:
    """A run read back from its folder, finished or stopped: what was played, and its boards."""

    path: Path
    identity: dict[str, Any]
    boards: list[BoardResult]


def read_run(path: Path) -> KeptRun:
    """The run kept in ``path`` (``FolderError`` when there is none or it cannot be read)."""
    run_file = path / "run.json"
    if not run_file.exists():
        raise FolderError(f"{path} holds no arena run (no run.json)")
    ident = _description(run_file)
    missing = [k for k in ("format", "a", "b", "rules", "seed", "code") if k not in ident]
    if missing:
        raise FolderError(f"{run_file} is not a run's description (no {', '.join(missing)})")
    if ident["format"] != FORMAT:
        raise FolderError(f"{run_file} has format {ident['format']!r}; this version reads {FORMAT}")
    return KeptRun(path, ident, read_boards(path / "boards.jsonl"))


def pool_runs(runs: list[KeptRun]) -> list[BoardResult]:
    """The boards of ``runs`` taken together, as one sample of deals.

    Runs pool when they played the same two bots under the same rules on other
    deals (other seeds); a ``FolderError`` says which run differs and how. The
    playing code may differ between them (a later session's fingerprint): the
    caller says so beside the figures, as boards are only comparable when it
    played the same way.
    """
    if not runs:
        raise FolderError("no run to report")
    first = runs[0]
    seeds: dict[Any, Path] = {}
    for run in runs:
        for key, what in (("a", "bot A"), ("b", "bot B"), ("rules", "the rules")):
            if run.identity[key] != first.identity[key]:
                raise FolderError(
                    f"{run.path} and {first.path} did not play the same match: {what} differ "
                    f"({run.identity[key]!r} against {first.identity[key]!r})"
                )
        seed = run.identity["seed"]
        if seed in seeds:
            raise FolderError(
                f"{run.path} and {seeds[seed]} were dealt with the same seed ({seed}): "
                "their deals are the same ones, not more of them"
            )
        seeds[seed] = run.path
        if not run.boards:
            raise FolderError(f"{run.path} has no finished board yet")
    return [board for run in runs for board in run.boards]


def pair_runs(first: KeptRun, second: KeptRun) -> list[tuple[BoardResult, BoardResult]]:
    """The boards of two runs on the same deals, deal by deal.

    Two bots measured against the same opponent on the same deals (the same
    rules and seed) can be compared deal by deal: the opponent and the cards are
    the same, so what differs is the bots. A ``FolderError`` says why two runs
    are not such a pair (another opponent, other rules or deals, the same bot A,
    or no deal that both finished)."""
    for key, what in (("b", "their bots B"), ("rules", "their rules"), ("seed", "their seeds")):
        if first.identity[key] != second.identity[key]:
            raise FolderError(
                f"{first.path} and {second.path} cannot be paired: {what} differ "
                f"({first.identity[key]!r} against {second.identity[key]!r})"
            )
    if first.identity["a"] == second.identity["a"]:
        raise FolderError(
            f"{first.path} and {second.path} both played {first.identity['a']!r} as bot A: "
            "nothing to compare (pool other deals of one match without --paired)"
        )
    theirs = {board.deal: board for board in second.boards}
    pairs = [(board, theirs[board.deal]) for board in first.boards if board.deal in theirs]
    if not pairs:
        raise FolderError(f"{first.path} and {second.path} have no finished deal in common")
    return sorted(pairs, key=lambda pair: pair[0].deal)


def record_name(deal: int, a_team: int) -> str:
    """The file in ``games/`` that keeps deal ``deal`` as played with bot A on ``a_team``."""
    return f"deal{deal:05d}-{'A-NS' if a_team == 0 else 'A-EW'}.json"


def write_records(out: Path, boards: Iterable[BoardResult]) -> None:
    games = out / "games"
    games.mkdir(parents=True, exist_ok=True)
    for board in boards:
        for g in board.games:
            if not g.record:
                continue
            (games / record_name(board.deal, g.a_team)).write_text(json.dumps(g.record) + "\n")


__all__ = [
    "FolderError",
    "KeptRun",
    "RunFolder",
    "code_fingerprint",
    "pair_runs",
    "pool_runs",
    "read_boards",
    "read_run",
    "record_name",
    "write_records",
]
