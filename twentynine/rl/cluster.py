"""Arenas and the bidding-model build on a Dask cluster.

Dask distributed rather than Ray: it is pure Python and pip-installs in
seconds (no daemon, no native object store), a ``LocalCluster`` of worker
processes on one machine behaves like a real cluster for the tests, and a
scheduler plus workers on other machines is two commands
(``dask scheduler``, ``dask worker tcp://HOST:8786``). The work here is
many small independent jobs (a duplicate deal, a solved deal) whose results
are small dataclasses: a task queue is all it needs.

Results do not depend on where a job runs: every deal's cards and every
bot's seed derive from the run's seed and the deal's number, and results
are put back in deal order, so a cluster run equals a local run.

An address is a scheduler's (``tcp://HOST:8786``), or ``local`` /
``local:N`` to start N worker processes on this machine for the run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..bots.bidding_build import Mapper
from ..game.rules import Rules
from ..services.arena import BoardResult, deal_numbers, play_board

T = TypeVar("T")
R = TypeVar("R")
CONNECT_TIMEOUT = "10s"
BOARDS_PER_TASK = 8  # a duplicate deal of fast bots takes milliseconds: batch them


class ClusterError(RuntimeError):
    """The cluster cannot be reached or used; says which address and why."""


@contextlib.contextmanager
def connect(address: str, timeout: str = CONNECT_TIMEOUT) -> Iterator[Any]:
    """A Dask client for ``address`` (closed, with any local cluster, on exit)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "--cluster needs Dask distributed: pip install 'twentynine[research]'"
        ) from None
    if not isinstance(address, str) or not address.strip():
        raise ClusterError("a cluster address is a scheduler's tcp://HOST:PORT, or local:N")
    address = address.strip()
    if address == "local" or address.startswith("local:"):
        count = address.partition(":")[2] or "2"
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"{address!r}: local:N needs a number of workers N >= 1")
        cluster = LocalCluster(
            n_workers=int(count),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",  # the workers of local:N never listen beyond this machine
            dashboard_address=":0",  # any free port: never clash with a dashboard on 8787
        )
        try:
            with Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        yield client
    finally:
        client.close()


def ordered_map(client: Any, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
    """``fn`` over ``items`` on the cluster, results in the order of ``items``."""
    futures = client.map(fn, list(items), pure=False)
    try:
        for future in futures:
            yield future.result()
    finally:
        client.cancel(futures)


# ------------------------------------------------------------------ arenas
def _boards(args: tuple[Rules, str, str, Sequence[int], int]) -> list[BoardResult]:
    rules, a, b, deal_numbers, seed = args
    return [play_board(rules, a, b, n, seed) for n in deal_numbers]


def run_boards(
    client: Any, rules: Rules, a: str, b: str, deals: int | Sequence[int], seed: int
) -> Iterator[BoardResult]:
    """The duplicate deals of ``twentynine arena`` played on the cluster, in deal order
    (``deals``: how many, or which deal numbers, as ``arena.run_boards``)."""
    numbers = deal_numbers(deals)
    chunks = [numbers[i : i + BOARDS_PER_TASK] for i in range(0, len(numbers), BOARDS_PER_TASK)]
    work = [(rules, a, b, chunk, seed) for chunk in chunks]
    for part in ordered_map(client, _boards, work):
        yield from part


# ---------------------------------------------------------- bidding build
def bidding_mapper(client: Any) -> Mapper:
    """The bidding build's work on the cluster (``bidding_build.main(mapper=...)``)."""

    def run(fn: Callable[[tuple[int, int]], Any], work: list[tuple[int, int]]) -> Iterator[Any]:
        return ordered_map(client, fn, work)

    return run
