"""``nothanks server --redis``: a host lists itself and its tables in the cluster directory, leaves it when it
stops, refuses to start without the Redis it was given; and without ``--redis`` it never imports redis."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

from nothanks_server import LobbySettings
from nothanks_server.cluster.settings import ClusterSettings
from nothanks_server.host import Host

from ..net_helpers import RawClient, nothanks_process, of_type
from .conftest import WAIT


async def test_two_hosts_share_one_lobby_listing_through_redis(directory, redis_url):
    hosts = {}
    for host_id in ("a", "b"):
        hosts[host_id] = Host(
            LobbySettings(bot_delay=0.0, turn_timer=None, seed=1),
            "127.0.0.1",
            0,
            cluster=ClusterSettings(redis_url, host_id=host_id, prefix=directory.prefix),
        )
        await hosts[host_id].start()  # the first heartbeat is sent before start returns
    try:
        assert [(h.host_id, h.address, h.tables) for h in await directory.hosts()] == [
            ("a", f"127.0.0.1:{hosts['a'].port}", 0),
            ("b", f"127.0.0.1:{hosts['b'].port}", 0),
        ]
        ann = await RawClient.connect(hosts["a"].port, "ann")
        await ann.send({"type": "create_table", "players": 3, "bots": 1})
        await ann.until(of_type("joined"))
        await hosts["a"].presence.beat()  # the next heartbeat, now rather than in a second
        lobby = await directory.lobby()
        assert [(line.host_id, line.summary.table_id) for line in lobby] == [("a", "t1")]
        assert [seat.name for seat in lobby[0].summary.seats][:1] == ["ann"]
        assert (await directory.least_loaded()).host_id == "b"  # a holds a table now: b gets the next one
        await ann.close()
    finally:
        await hosts["a"].close("the test is over")
    assert [h.host_id for h in await directory.hosts()] == ["b"]  # a withdrew as it stopped
    assert await directory.lobby() == []
    await hosts["b"].close("the test is over")
    assert await directory.hosts() == []


async def test_a_server_whose_redis_does_not_answer_does_not_start(tmp_path):
    secret = tmp_path / "cluster-secret"
    secret.write_text("a secret of the members\n")
    process = await nothanks_process(
        "server",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--redis",
        f"unix://{tmp_path}/no-redis-here.sock",
        "--cluster-secret-file",
        str(secret),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(process.communicate(), WAIT)
    assert process.returncode == 1
    assert b"cannot reach Redis at unix://" in err and b"Traceback" not in err


def test_a_server_without_redis_never_imports_it(tmp_path):
    script = textwrap.dedent(
        """
        import asyncio, sys
        import nothanks_tui.cli
        from nothanks_server import LobbySettings
        from nothanks_server.host import Host

        async def main():
            host = Host(LobbySettings(data_dir=None), "127.0.0.1", 0)
            await host.start()
            await host.close()

        asyncio.run(main())
        print(sorted(name for name in sys.modules if name == "redis" or name.startswith("redis.")))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=WAIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
