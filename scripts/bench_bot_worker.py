#!/usr/bin/env python3
"""What one bot worker process costs the host (server/nothanks_server/thinking.py): its start, its memory, and what
it imports.

A worker is started with ``spawn``, which runs the host's main script again as ``__mp_main__``: for the ``nothanks``
command, the console script that imports ``nothanks_tui.cli``. This script starts the same way (it imports the
command line at the top, as the console script does), then asks a worker to search once: the time to the first
answer (the worker's start, imports and one ``hard`` search) and to a second one, and, from the worker itself, its
RSS and PSS (/proc/self/smaps_rollup), how many modules it holds and whether the client (textual), the SSH front
(asyncssh) or the host came with them.

    .venv/bin/python scripts/bench_bot_worker.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from nothanks_tui.cli import main as _command_line  # noqa: F401  (what the ``nothanks`` console script imports)


def worker_report(_: object) -> dict[str, object]:
    """In the worker: its memory and modules."""
    sizes = {}
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            key, _colon, rest = line.partition(":")
            if key in ("Rss", "Pss"):
                sizes[key] = int(rest.split()[0]) / 1024
    watched = ("textual", "asyncssh", "nothanks_server.host", "nothanks_tui.client")
    heavy = [name for name in watched if name in sys.modules]
    return {"rss": sizes["Rss"], "pss": sizes["Pss"], "modules": len(sys.modules), "heavy": heavy}


async def one_round() -> tuple[float, float, dict[str, object]]:
    from nothanks_server import thinking
    from nothanks_tui.bots import make_bot
    from nothanks_tui.engine import GameConfig, new_game, view_for

    bot = make_bot("hard", 1)
    view = view_for(new_game(GameConfig(players=3), 5), 0)
    thinking.use_processes(1)
    started = time.perf_counter()
    await thinking.choose(bot, view)
    first = time.perf_counter() - started
    started = time.perf_counter()
    await thinking.choose(bot, view)
    second = time.perf_counter() - started
    report = await thinking.run_search(worker_report, None)
    thinking.use_processes(0)
    return first, second, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("round  first search ms  second ms  worker RSS MiB  PSS MiB  modules  heavy imports")
    for index in range(args.rounds):
        first, second, report = asyncio.run(one_round())
        heavy = ", ".join(report["heavy"]) or "none"  # type: ignore[arg-type]
        print(
            f"{index + 1:5d}  {first * 1000:15.0f}  {second * 1000:9.0f}  {report['rss']:14.1f}  "
            f"{report['pss']:7.1f}  {report['modules']:7d}  {heavy}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
