#!/usr/bin/env python3
"""What the cluster directory costs in Redis (docs/scaling.md quotes the numbers).

Starts its own redis-server (Debian's, on a Unix socket in a temporary directory, nothing saved) and times, one
call after another from one asyncio client: a heartbeat (``announce``), publishing one host's lobby lines (50
tables), reading the shared lobby (10 hosts x 50 tables), and a lease's acquire, renew and release. It prints each
call's median and p99, appending one move to the fenced move log without and with ``appendfsync always``,
and the Redis commands each sends (INFO commandstats before and after), so "operations per
move" and "per second per host" can be worked out from them.

    .venv/bin/python scripts/bench_directory.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from nothanks_server.cluster.directory import Directory, HostInfo
from nothanks_server.cluster.movelog import LoggedMove
from nothanks_tui.link import SeatInfo, TableSummary

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/ (the log one call at a time) is not installed
from tools.cluster_log import MoveLog, acquire, release, renew


def lines(count: int) -> list[TableSummary]:
    seats = (SeatInfo("ann"), SeatInfo("bob"), SeatInfo("medium", is_bot=True), SeatInfo("", empty=True))
    return [
        TableSummary(f"t{n}", 4, seats, started=n % 2 == 0, finished=False, open_chips=False, variant="standard")
        for n in range(count)
    ]


async def timed(name: str, calls: int, call: Callable[[int], Awaitable[object]], directory: Directory) -> None:
    before = await directory.client.info("commandstats")
    times = []
    for n in range(calls):
        start = time.perf_counter()
        await call(n)
        times.append(time.perf_counter() - start)
    after = await directory.client.info("commandstats")
    sent = {
        key.removeprefix("cmdstat_"): (after[key]["calls"] - before.get(key, {"calls": 0})["calls"]) / calls
        for key in after
        if key != "cmdstat_info" and after[key]["calls"] != before.get(key, {"calls": 0})["calls"]
    }
    ordered = sorted(times)
    commands = ", ".join(f"{count:g} {command}" for command, count in sorted(sent.items()))
    print(
        f"{name:34} median {statistics.median(ordered) * 1e6:7.0f} us, p99 {ordered[int(calls * 0.99) - 1] * 1e6:7.0f}"
        f" us; per call: {commands}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--dir", default=None, help="where Redis keeps its files (the AOF's disk: default $TMPDIR)")
    args = parser.parse_args()
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    with tempfile.TemporaryDirectory(dir=args.dir) as directory_name:
        sock = Path(directory_name) / "redis.sock"
        server = subprocess.Popen(
            [
                program,
                "--port",
                "0",
                "--unixsocket",
                str(sock),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                directory_name,
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(500):
                if sock.exists():
                    break
                await asyncio.sleep(0.01)
            directory = await Directory.connect(f"unix://{sock}", prefix="bench")
            fifty = lines(50)
            for host in range(10):
                await directory.publish_tables(f"h{host}", fifty, ttl=600)
                await directory.announce(HostInfo(f"h{host}", f"10.0.0.{host}:7777", 50), ttl=600)
            calls = args.calls
            await timed(
                "heartbeat (announce)",
                calls,
                lambda n: directory.announce(HostInfo("h0", "x:1", 50), ttl=600),
                directory,
            )
            await timed(
                "publish 50 lobby lines",
                calls // 4,
                lambda n: directory.publish_tables("h0", fifty, ttl=600),
                directory,
            )
            await timed("read the lobby (10 hosts x 50)", calls // 20, lambda n: directory.lobby(), directory)
            await timed("lease acquire", calls, lambda n: acquire(directory, f"table{n}", "h0"), directory)
            leases = [await directory.holder(f"table{n}") for n in range(calls)]
            await timed("lease renew", calls, lambda n: renew(directory, leases[n]), directory)  # type: ignore[arg-type]
            await timed("lease release", calls, lambda n: release(directory, leases[n]), directory)  # type: ignore[arg-type]
            log = MoveLog(directory)
            lease = await acquire(directory, "game", "h0", ttl=600)
            assert lease is not None
            await timed(
                "append 1 move, no AOF", calls, lambda n: log.append(lease, 1, n, [LoggedMove(0, "pass", n)]), directory
            )
            await directory.client.config_set("appendfsync", "always")
            await directory.client.config_set("appendonly", "yes")
            while (await directory.client.info("persistence"))["aof_rewrite_in_progress"]:
                await asyncio.sleep(0.05)
            await timed(
                "append 1 move, AOF fsync always",
                calls,
                lambda n: log.append(lease, 2, n, [LoggedMove(0, "pass", n)]),
                directory,
            )
            await directory.close()
        finally:
            server.terminate()
            server.wait(10)
    print(f"(python {sys.version.split()[0]}, one client, Unix socket)")


if __name__ == "__main__":
    asyncio.run(main())
