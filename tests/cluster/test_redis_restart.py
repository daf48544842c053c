"""A cluster member's Redis connections after Redis restarts (issue 32, point 35): every pooled connection is
broken then, and each used to fail its next use (a front refused resumes `server_closing` minutes after Redis was
back). Now the first use of a broken connection opens it again and is answered."""

from __future__ import annotations

import asyncio

from nothanks_server.cluster.directory import Directory
from nothanks_server.cluster.redis_store import open_redis_store
from nothanks_server.store import hash_token

from .redis_server import running_redis

CALLS = 24  # at once: as many pooled connections


async def test_every_pooled_connection_works_again_at_its_first_use_after_redis_restarts(tmp_path):
    with running_redis(tmp_path) as url:
        directory = await Directory.connect(url, prefix="restart")
        store = open_redis_store(url, "restart", None)
        routes = directory  # (the front's look-ups)
        await directory.client.set(f"restart:token:{hash_token('abc').hex()}", "t1")
        # Fill the pools: a front's directory client, and a table host's asyncio and blocking store clients.
        assert await asyncio.gather(*(routes.table_of_token("abc") for _ in range(CALLS))) == ["t1"] * CALLS
        await asyncio.gather(*(store.aclient.ping() for _ in range(CALLS)))
        store.client.ping()
        assert len(directory.client.connection_pool._available_connections) >= CALLS // 2
    with running_redis(tmp_path) as url:  # the same server again, empty, on the same socket
        try:
            assert await asyncio.gather(*(routes.table_of_token("abc") for _ in range(CALLS))) == [None] * CALLS
            assert all(await asyncio.gather(*(store.aclient.ping() for _ in range(CALLS))))
            assert store.client.ping()
        finally:
            store.close()
            await directory.close()
