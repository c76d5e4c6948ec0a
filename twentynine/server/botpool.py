"""Bots think in worker processes, so a thinking bot never stalls the server.

A worker receives only what the rules let the bot know: the character, the
bot's seed and its ``Observation``. The solver behind the strong and expert
bots keeps per-process state and is not thread-safe, so the pool is made of
processes (``spawn``ed: the server's event loop and threads are never
forked). The analysis of a finished deal runs there too (``analyse``).
``workers=0`` runs bots on one background thread instead, which is enough for
tests that use the quick bots. ``workers=INLINE`` (-1) decides on
the event loop itself: for the browser (Pyodide), which has neither
processes nor threads; the loop is the worker's own, so the page never waits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import random
import threading
import time
from typing import Any

from ..bots.base import RandomBot
from ..bots.characters import BY_ID
from ..bots.signals import choose_signal
from ..game.actions import Action
from ..game.observation import Observation

log = logging.getLogger("twentynine.server")

INLINE = -1  # ``BotPool(INLINE)``: no executor, bots decide on the event loop


def decide(character: str, seed: int, obs: Observation) -> dict[str, Any]:
    """Run in a worker: the bot's action as canonical JSON."""
    bot = BY_ID[character].make(seed)
    return bot.act(obs).to_json()


def signal_for(character: str, obs: Observation, action: Action) -> str | None:
    """The honest table signal a bot of this character attaches to ``action``."""
    if BY_ID[character].level in ("random", "novice"):
        return None
    return choose_signal(obs, action)


def analyse(record: dict[str, Any], index: int) -> dict[str, Any]:
    """Run in a worker: the analysis of a finished deal, given as a one-deal record
    (the deal is over, so nothing in it is hidden any more), as JSON."""
    from ..services.analysis import analyse_record

    result = analyse_record(record, 1).deals[0].to_json()
    result["deal"] = index + 1
    return result


def hint(obs: Observation) -> dict[str, Any]:
    """Run in a worker: the expert's hint for the seat's decision, from its observation."""
    from ..services.analysis import hint_for

    return hint_for(obs).to_json()


def advise(obs: Observation) -> dict[str, Any]:
    """Run in a worker: the bidding advisor's table for the seat's first four cards."""
    from ..services.analysis import advice_for

    return advice_for(obs)


def _warm() -> int:
    """Import the bots (and their solver) once in a fresh worker."""
    from .. import bots  # noqa: F401

    return 0


def _watch_parent(parent: int) -> None:
    """In a worker: exit when the server is gone, even if it was killed without warning."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


def fallback(seed: int, obs: Observation) -> Action:
    """A legal action when a bot fails: the table must never freeze on a bot bug."""
    return RandomBot(seed=seed).act(obs)


class BotPool:
    """A pool of bot workers with an asynchronous ``act``."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._executor: concurrent.futures.Executor | None = None

    @property
    def inline(self) -> bool:
        return self.workers < 0

    def _make(self) -> concurrent.futures.Executor:
        if self.workers <= 0:
            return concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bot")
        ctx = multiprocessing.get_context("spawn")
        return concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=ctx, initializer=_watch_parent, initargs=(os.getpid(),)
        )

    @property
    def executor(self) -> concurrent.futures.Executor:
        if self._executor is None:
            self._executor = self._make()
        return self._executor

    def warm_up(self) -> None:
        """Start the workers now rather than at the first bot decision."""
        if self.inline:
            _warm()
            return
        for _ in range(max(1, self.workers)):
            self.executor.submit(_warm)

    async def act(self, character: str, seed: int, obs: Observation) -> Action:
        loop = asyncio.get_running_loop()
        try:
            if self.inline:
                await asyncio.sleep(0)  # let the messages already sent go out first
                data = decide(character, seed, obs)
            else:
                data = await loop.run_in_executor(self.executor, decide, character, seed, obs)
            action = Action.from_json(data)
            if action in obs.legal:
                return action
            log.error("bot %s chose %s, which is not legal; playing a fallback", character, data)
        except concurrent.futures.BrokenExecutor:
            log.exception("the bot pool broke; starting a new one")
            self._executor = None
        except Exception:
            log.exception("bot %s failed; playing a fallback", character)
        return fallback(random.getrandbits(32), obs)

    async def decide(
        self, character: str, seed: int, obs: Observation
    ) -> tuple[Action, str | None]:
        """The bot's action and the signal it attaches (None at a table without signals)."""
        action = await self.act(character, seed, obs)
        return action, signal_for(character, obs, action)

    async def analyse(self, record: dict[str, Any], index: int) -> dict[str, Any]:
        """The analysis of a finished deal (``analyse``), worked out in a worker: it takes
        seconds of solving, which must not stall the tables. Errors propagate."""
        if self.inline:  # the browser's own server: no worker to hand it to
            await asyncio.sleep(0)
            return analyse(record, index)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor, analyse, record, index)
        except concurrent.futures.BrokenExecutor:
            log.exception("the bot pool broke during an analysis; starting a new one")
            self._executor = None
            raise

    async def _run(self, fn: Any, *args: Any) -> dict[str, Any]:
        """``fn(*args)`` in a worker (on the loop when inline); errors propagate."""
        if self.inline:
            await asyncio.sleep(0)
            result: dict[str, Any] = fn(*args)
            return result
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor, fn, *args)
        except concurrent.futures.BrokenExecutor:
            log.exception("the bot pool broke during %s; starting a new one", fn.__name__)
            self._executor = None
            raise

    async def hint(self, obs: Observation) -> dict[str, Any]:
        """The hint for ``obs``'s seat (``hint``), worked out in a worker: it solves
        sampled deals, which must not stall the tables."""
        return await self._run(hint, obs)

    async def advise(self, obs: Observation) -> dict[str, Any]:
        """The bidding advisor's table for ``obs``'s seat, in a worker."""
        return await self._run(advise, obs)

    def close(self) -> None:
        """Stop the workers now: a bot still thinking is not waited for."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=2)
