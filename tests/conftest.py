"""Shared fixtures: seeded games played with random legal actions, and their records.

The helpers are plain functions exposed through session-scoped fixtures, so
the test modules stay independent of each other (no ``import conftest``).
"""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pg import Cluster, Unavailable, start_cluster

from twentynine.benchmarks.throwaway import RedisServer, start_redis
from twentynine.game import record
from twentynine.game.actions import KINDS, Action
from twentynine.game.match import Match
from twentynine.game.rules import Rules, resolve

# How often each kind of action is picked when several kinds are legal (the
# kind first, then a card or amount uniformly). A single hand is rare at a
# table, and picking it half the time would hide everything else.
KIND_WEIGHTS = {"single": 0.15, "reveal": 0.5}

Policy = Callable[[Match, list[Action], random.Random], Action | None]


def pick_action(legal: list[Action], rng: random.Random) -> Action:
    """A random legal action: a kind (weighted), then one of its actions."""
    kinds = sorted({a.kind for a in legal}, key=KINDS.index)
    weights = [KIND_WEIGHTS.get(k, 1.0) for k in kinds]
    kind = rng.choices(kinds, weights)[0]
    of_kind = [a for a in legal if a.kind == kind]
    return of_kind[rng.randrange(len(of_kind))]


def play_game(
    rules: Rules | str = "pagat",
    seed: int = 1,
    rng_seed: int = 0,
    *,
    options: dict[str, Any] | None = None,
    max_actions: int | None = None,
    max_deals: int = 40,
    policy: Policy | None = None,
) -> Match:
    """A seeded match played with random legal actions.

    Stops when the match is won, after ``max_actions`` actions, or when
    ``max_deals`` deals have been started. With ``match_target: null`` the
    next deal is started by hand, so several single deals follow each other.
    ``policy`` may choose an action itself (return None to let chance pick).
    """
    if isinstance(rules, str):
        rules = resolve(rules, options or {})
    rng = random.Random(rng_seed)
    match = Match(rules, seed=seed)
    done = 0
    while match.winner is None and (max_actions is None or done < max_actions):
        if match.needs_deal:
            if len(match.deals) >= max_deals:
                break
            match.start_deal()
            continue
        if match.deal.is_over() and len(match.deals) >= max_deals:
            break
        legal = match.legal_actions()
        action = policy(match, legal, rng) if policy is not None else None
        if action is None:
            action = pick_action(legal, rng)
        match.apply(action)
        done += 1
    return match


def record_of(match: Match) -> dict[str, Any]:
    """The match's record as a fresh JSON object (safe to edit)."""
    obj: dict[str, Any] = json.loads(record.dumps(match))
    return obj


@pytest.fixture(scope="session")
def play() -> Callable[..., Match]:
    return play_game


@pytest.fixture(scope="session")
def arena_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small arena run kept in its folder (``arena --out``): casual against novice,
    6 pagat deals, seed 3. Read it; copy it to change it."""
    from twentynine.cli.main import main

    out = tmp_path_factory.mktemp("arena") / "run"
    args = ["arena", "casual", "novice", "--deals", "6", "--seed", "3", "--quiet", "--out"]
    assert main([*args, str(out)]) == 0
    return out


@pytest.fixture
def broken_run(arena_run: Path, tmp_path: Path) -> tuple[Path, str]:
    """A copy of ``arena_run`` whose first game record is not JSON, and that record's
    file name: a benchmark reading it must refuse the run naming the file."""
    copy = tmp_path / "run"
    shutil.copytree(arena_run, copy)
    broken = sorted((copy / "games").glob("*.json"))[0]
    broken.write_text("{")
    return copy, broken.name


@pytest.fixture(scope="session")
def record_json() -> Callable[[Match], dict[str, Any]]:
    return record_of


# ---------------------------------------------------------------------- PostgreSQL


def _missing(server: str, reason: str) -> None:
    """Skip a test that needs a server program; in CI, where the project installs it,
    fail it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{server} is required in CI: {reason}", pytrace=False)
    pytest.skip(f"no {server} server: {reason}")


def _start(server: str, start: Callable[[], Any], client: str) -> Any:
    """A throw-away server, or (skipped or failed) why there is none."""
    try:
        importlib.import_module(client)
        return start()
    except ImportError as e:
        why = f"{client} is not installed ({e}); pip install -e '.[test]'"
    except (Unavailable, OSError, subprocess.SubprocessError) as e:
        why = str(e)
    _missing(server, why)  # outside the except: the reason alone, no traceback
    return None


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A throw-away PostgreSQL server of this test process (see ``tests/pg.py``)."""
    cluster: Cluster = _start("PostgreSQL", start_cluster, "psycopg")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    """The URL of a new, empty database for one test; dropped after it."""
    url = pg_cluster.new_database()
    yield url
    pg_cluster.drop_database(url)


# ---------------------------------------------------------------------- Redis


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throw-away Redis of this test process (``twentynine.benchmarks.throwaway``)."""
    server: RedisServer = _start("Redis", start_redis, "redis")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of the test process's Redis, emptied for this test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushall()
    finally:
        client.close()
    return redis_server.url
