"""Running a coroutine from a test, whatever else runs in the same worker.

Playwright's sync API leaves an event loop running in the worker's main
thread after a browser test, and ``asyncio.run`` refuses to start inside a
running loop. A test that runs a coroutine does it in a thread of its own.

The cyclic garbage collector is paused while that thread runs. A collection
started there can reach what the browser tests left in the worker's main
thread (Playwright's greenlets among it), and twice in full parallel runs it
crashed the worker with a segmentation fault (Textual's rendering, in a
worker that had driven chromium). Paused, the collector takes that garbage
in the main thread afterwards, where it belongs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a fresh thread; its result, or its exception raised here."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coro).result()
    finally:
        if collecting:
            gc.enable()
