"""Helpers for programs that start local servers (benchmarks, and the tests).

``free_port`` picks a TCP port on the loopback address; ``stop`` ends a
subprocess politely, then firmly; ``CHROMIUM_ARGS`` are the flags headless
chromium needs on a machine with a closed network.
"""

from __future__ import annotations

import socket
import subprocess

LOOPBACK = "127.0.0.1"

# Without the background-networking flags chromium keeps trying (and failing) to reach
# its own services; --no-sandbox is needed when running as root.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port free on ``host`` at the time of asking."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str], wait: float = 10) -> None:
    """Terminate ``proc`` and wait for it; kill it if it does not end within ``wait`` s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(wait)
