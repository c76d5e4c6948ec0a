"""Running a coroutine from a test, whatever else runs in the same worker.

Playwright's sync API leaves an event loop running in the worker's main
thread after a browser test, and ``asyncio.run`` refuses to start inside a
running loop. A test that runs a coroutine does it in a thread of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a fresh thread; its result, or its exception raised here."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
