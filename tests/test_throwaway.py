"""The throw-away Redis server of the tests and benchmarks (``benchmarks/throwaway.py``).

The fixture's server really answers: a key written is read back, and a
message published on a channel reaches a subscriber (redis.asyncio, as the
server's relay uses it); a test starts with an empty Redis. A server of its
own, stopped, is gone: its process has ended, its port answers no more and
its folder is removed.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from twentynine.benchmarks.throwaway import RedisServer, start_redis


def test_a_key_written_is_read_back(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        assert client.ping()
        assert client.dbsize() == 0  # emptied before each test
        client.set("tn:test", "29")
        assert client.get("tn:test") == "29"
    finally:
        client.close()


def test_a_message_published_reaches_a_subscriber(redis_url: str) -> None:
    import redis.asyncio as aioredis

    async def round_trip() -> dict[str, str]:
        client = aioredis.from_url(redis_url, decode_responses=True)
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe("tn:test")
            first = await pubsub.get_message(timeout=5)
            assert first is not None and first["type"] == "subscribe", first
            assert await client.publish("tn:test", "hello") == 1
            got = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
            assert got is not None, "nothing published arrived"
            return dict(got)
        finally:
            await pubsub.aclose()
            await client.aclose()

    got = asyncio.run(round_trip())
    assert (got["channel"], got["data"]) == ("tn:test", "hello")


def test_stop_ends_the_server(redis_server: RedisServer) -> None:
    # A server of its own: the fixture's stays up for the other tests of this process
    # (asked for only so that this test is skipped, or fails in CI, as the others are).
    import redis

    server = start_redis()
    try:
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        client.close()
    finally:
        server.stop()
    assert server.proc.poll() is not None  # the process has ended
    assert server.watchdog is None or server.watchdog.poll() is not None
    assert not server.root.exists()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", server.port), 1):
        pass
