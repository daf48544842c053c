#!/usr/bin/env python3
"""What a table host's Redis store costs (docs/scaling.md quotes the numbers): its group commit against SQLite's.

Starts its own redis-server (Debian's, on a Unix socket in a temporary directory) and times, from one synchronous
client as the host uses it: a group commit of one move at each of 1, 10 and 50 tables (``add_moves``: one
pipelined round trip of fenced appends), without and with ``appendfsync always``; the same commits on the
single host's SQLite store (``synchronous=FULL``, in the same temporary directory); renewing 50 and 500 leases (one
script); looking for due leases when none is due; and reading a table back with 40 moves (``load_table``, what a
takeover does). Prints each one's median and p99, and the Redis commands per call (INFO commandstats).

    .venv/bin/python scripts/bench_redis_store.py [--calls 1000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from nothanks_server.cluster.exchanges import run
from nothanks_server.cluster.redis_store import RedisTableStore, open_redis_store
from nothanks_server.store import SqliteStore, StoredMove, StoredSeat, StoredTable, TableStore, hash_token


def table(number: int) -> StoredTable:
    seats = (StoredSeat("ann", token_hash=hash_token(f"ann{number}")), StoredSeat("m", "medium", number), None)
    return StoredTable(f"t{number}", 3, False, "standard", "medium", None, seats, creator_seat=0)


def timed(name: str, calls: int, call: Callable[[int], object], client: Any) -> None:
    before = client.info("commandstats") if client is not None else {}
    times = []
    for n in range(calls):
        start = time.perf_counter()
        call(n)
        times.append(time.perf_counter() - start)
    commands = ""
    if client is not None:
        after = client.info("commandstats")
        sent = {
            key.removeprefix("cmdstat_"): (after[key]["calls"] - before.get(key, {"calls": 0})["calls"]) / calls
            for key in after
            if key != "cmdstat_info" and after[key]["calls"] != before.get(key, {"calls": 0})["calls"]
        }
        commands = "; per call: " + ", ".join(f"{count:g} {command}" for command, count in sorted(sent.items()))
    ordered = sorted(times)
    print(
        f"{name:44} median {statistics.median(ordered) * 1e6:7.0f} us, p99 "
        f"{ordered[max(0, int(calls * 0.99) - 1)] * 1e6:7.0f} us{commands}"
    )


def group_commits(label: str, store: TableStore, calls: int, client: Any, first_game: int) -> None:
    """One move at each of 1, 10, 50 tables per commit, ``calls`` commits each (a new game per size)."""
    for size in (1, 10, 50):
        game = first_game + size
        for number in range(size):
            store.start_game(f"t{number}", game, number, 1.0)
        timed(
            f"{label}: group commit, {size} tables",
            calls,
            lambda n, size=size, game=game: store.add_moves(  # type: ignore[misc]
                [StoredMove(f"t{number}", game, n, 0, "pass") for number in range(size)]
            ),
            client,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--dir", default=None, help="where Redis and SQLite keep their files (default $TMPDIR)")
    args = parser.parse_args()
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    with tempfile.TemporaryDirectory(dir=args.dir) as directory_name:
        sock = Path(directory_name) / "redis.sock"
        server = subprocess.Popen(
            [program, "--port", "0", "--unixsocket", str(sock), "--save", "", "--appendonly", "no"]
            + ["--dir", directory_name],
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(500):
                if sock.exists():
                    break
                time.sleep(0.01)
            client = redis.Redis(unix_socket_path=str(sock))
            store: RedisTableStore = open_redis_store(f"unix://{sock}", "bench", None)
            store.leases.owner = "h0"
            store.leases.ttl = 600.0
            for number in range(500):
                store.create_table(table(number))
            calls = args.calls
            group_commits("Redis, no AOF", store, calls, client, 0)
            client.config_set("appendfsync", "always")
            client.config_set("appendonly", "yes")
            while client.info("persistence")["aof_rewrite_in_progress"]:
                time.sleep(0.05)
            group_commits("Redis, AOF fsync always", store, calls, client, 100)

            renew, look = store.leases._renewing, store.leases._claiming  # (on the blocking client, as timed here)
            renew_all = store.leases.held
            fifty = dict(list(renew_all.items())[:50])
            everything = dict(renew_all)
            store.leases.held = fifty
            timed("renew 50 leases (one script)", calls, lambda n: run(client, renew()), client)
            store.leases.held = everything
            timed(
                "renew 500 leases (one script)",
                calls // 4,
                lambda n: run(client, renew()),
                client,
            )
            timed("look for due leases, none due", calls, lambda n: run(client, look(8)), client)
            store.start_game("t0", 900, 5, 1.0)
            store.add_moves([StoredMove("t0", 900, n, n % 3, "pass") for n in range(40)])
            timed("read a table back, 40 moves (load_table)", calls, lambda n: store.load_table("t0"), client)
            store.close()

            sqlite = SqliteStore(Path(directory_name) / "nothanks.sqlite3")
            for number in range(50):
                sqlite.create_table(table(number))
            group_commits("SQLite, synchronous=FULL", sqlite, calls, None, 0)
            sqlite.close()
        finally:
            server.terminate()
            server.wait(10)
    print(f"(python {sys.version.split()[0]}, redis-py {redis.__version__}, one client, Unix socket)")


if __name__ == "__main__":
    main()
