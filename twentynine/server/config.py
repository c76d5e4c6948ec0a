"""A server's settings: how fast its bots play, how many games it keeps, its pauses
and limits, and where its games are stored; ``ServerConfig.from_env`` reads them
from the ``TWENTYNINE_*`` variables of ``twentynine serve``."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..services.protocols.hosts import ENV as BOT_HOSTS_ENV
from ..services.protocols.hosts import NOWHERE, AllowList
from .limits import Limits

PACES = {"slow": 1.8, "normal": 1.0, "fast": 0.4}


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class ServerConfig:
    """Settings of a server; ``from_env`` reads the ``TWENTYNINE_*`` variables."""

    bot_delay: float = 0.6  # seconds a bot takes at least, so people can follow
    bot_workers: int = 2  # worker processes; 0 runs bots on one thread
    max_games: int = 200
    max_rooms: int = 500
    idle_seconds: float = 6 * 3600
    # a room kept in the store is forgotten after this long untouched, unless its
    # game is still being played (``Lobby._prune_rooms``)
    room_keep_seconds: float = 7 * 24 * 3600
    warm_up: bool = True
    db: str | None = None  # where games are kept (path or URL); None: in memory only
    # Redis shared with the other server processes (``cluster``); None: this process alone
    redis: str | None = None
    lease_seconds: float = 2.0  # how long a dead process's tables wait before a takeover
    trick_pause: float = 1.5  # seconds a finished trick stays on a room's table
    # seconds a room waits after a trick that could open a pair window (``pair``)
    pair_pause: float = 4.0
    # where contest bots seated by URL may be called (nowhere: no such seats)
    bot_hosts: AllowList = NOWHERE
    limits: Limits = field(default_factory=Limits)  # per connection and address (``limits``)

    @classmethod
    def from_env(cls) -> ServerConfig:
        cpus = os.cpu_count() or 1
        return cls(
            bot_delay=max(0, _env_int("TWENTYNINE_BOT_DELAY_MS", 600)) / 1000,
            bot_workers=max(0, _env_int("TWENTYNINE_BOT_WORKERS", min(2, cpus))),
            max_games=max(1, _env_int("TWENTYNINE_MAX_GAMES", 200)),
            max_rooms=max(1, _env_int("TWENTYNINE_MAX_ROOMS", 500)),
            room_keep_seconds=max(1, _env_int("TWENTYNINE_ROOM_KEEP_HOURS", 7 * 24)) * 3600.0,
            db=os.environ.get("TWENTYNINE_DB") or None,
            redis=os.environ.get("TWENTYNINE_REDIS") or None,
            lease_seconds=max(200, _env_int("TWENTYNINE_LEASE_MS", 2000)) / 1000,
            trick_pause=max(0, _env_int("TWENTYNINE_TRICK_PAUSE_MS", 1500)) / 1000,
            pair_pause=max(0, _env_int("TWENTYNINE_PAIR_PAUSE_MS", 4000)) / 1000,
            bot_hosts=AllowList.parse(os.environ.get(BOT_HOSTS_ENV)),  # ValueError if malformed
            limits=Limits.from_env(),
        )

    @property
    def url_bots(self) -> bool:
        """Whether this server seats contest bots by URL at all."""
        return bool(self.bot_hosts)
