"""Many SSH visitors from a separate process: ``python -m tests.ssh.visitors --port P --sessions N``.

Used by the leak test (so the host's memory is measured without the clients in it) and by scripts/bench_ssh.py.
Each visitor connects with a pty, waits for the first screen, plays its script and drops the connection. Prints
one JSON object: counts and per-visitor timings (connect-to-first-frame, key-to-update) in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable

from .terminal_client import TerminalClient

KITTY_KEYS = "\x1b[120u\x1b[121;2u\x1b[27u"  # x, shift+y, escape in the kitty keyboard protocol

Script = Callable[[TerminalClient, dict[str, list[float]]], Awaitable[None]]


async def timed_key(client: TerminalClient, keys: str, expect: str, timings: dict[str, list[float]]) -> None:
    client.mark()
    started = time.perf_counter()
    client.send(keys)
    await client.wait_for(expect, timeout=60)
    timings["key_to_update"].append(time.perf_counter() - started)


async def probe_script(client: TerminalClient, timings: dict[str, list[float]]) -> None:
    """Against tests/ssh/probe_app.py: keys, kitty-protocol keys, a lone escape, a resize."""
    await timed_key(client, "a", "last: a", timings)
    await timed_key(client, "b", "last: b", timings)
    client.mark()
    client.send(KITTY_KEYS)
    await client.wait_for("last: ESCAPE-BINDING", timeout=60)
    client.mark()
    client.resize(90, 30)
    await client.wait_for("size: 90x30", timeout=60)


async def step(client: TerminalClient, keys: str, expect: str) -> None:
    client.mark()
    client.send(keys)
    await client.wait_for(expect, timeout=60)  # raw: in output after the key; emulated: on the screen


def my_turn(client: TerminalClient) -> bool:
    """Does the screen say it is my turn?"""
    return "Your turn" in client.text()


_MY_CHIPS = re.compile(r"You: (?:\x1b\[[0-9;]*m)*(\d+) chips?")


def my_chips(client: TerminalClient) -> int | None:
    """The chip count on the screen's "You: N chips" line (needs the emulator: updates redraw only what changed)."""
    found = _MY_CHIPS.findall(client.text())
    return int(found[-1]) if found else None


async def game_script(client: TerminalClient, timings: dict[str, list[float]]) -> None:
    assert client.emulate, "the game script reads the screen: run it without --raw"
    """Against the game: name, lobby, a new 3-seat table, two bots, start, then "No thanks!" twice; each key is
    timed until the screen shows one chip fewer."""
    await step(client, "\r", "New table")
    await step(client, "c", "Create")
    await step(client, "\x13", "waiting for players")  # ctrl+s
    await step(client, "b", "rules")
    await step(client, "b", "press s to start")
    await step(client, "s", "Take")
    for _ in range(2):
        await client.wait_for(lambda: my_turn(client), timeout=60)
        chips = my_chips(client)
        assert chips is not None and chips > 0
        started = time.perf_counter()
        client.send("n")
        await client.wait_for(lambda chips=chips: my_chips(client) == chips - 1, timeout=60)
        timings["key_to_update"].append(time.perf_counter() - started)


SCRIPTS: dict[str, tuple[str, Script]] = {
    "probe": ("No Thanks!", probe_script),
    "game": ("Go to the tables", game_script),
}


async def visit(
    port: int,
    index: int,
    script: str,
    timings: dict[str, list[float]],
    played: asyncio.Queue[None],
    hold: asyncio.Event,
    emulate: bool,
) -> None:
    first_screen, play = SCRIPTS[script]
    client = TerminalClient(emulate=emulate)
    try:
        started = time.perf_counter()
        await client.connect(port, f"visitor{index}")
        await client.wait_for(first_screen, timeout=60)
        timings["first_frame"].append(time.perf_counter() - started)
        await play(client, timings)
    finally:
        played.put_nowait(None)
    await hold.wait()
    await client.close()


async def run(
    port: int, sessions: int, concurrency: int, script: str, hold_all: bool, emulate: bool = True
) -> dict[str, object]:
    timings: dict[str, list[float]] = {"first_frame": [], "key_to_update": []}
    failures: list[str] = []
    played: asyncio.Queue[None] = asyncio.Queue()
    hold = asyncio.Event()
    if not hold_all:
        hold.set()

    async def one(index: int) -> None:
        try:
            await visit(port, index, script, timings, played, hold, emulate)
        except Exception as error:  # reported, never hidden: the caller fails on any failure
            failures.append(f"visitor {index}: {type(error).__name__}: {str(error)[:300]}")

    for start in range(0, sessions, concurrency):
        batch = [asyncio.ensure_future(one(index)) for index in range(start, min(sessions, start + concurrency))]
        if hold_all:
            # every visitor of this batch connected and played (or failed): report, then let them go together
            for _ in batch:
                await played.get()
            print(json.dumps({"all_connected": True, "failures": len(failures)}), flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            hold.set()
        await asyncio.gather(*batch)
    return {"sessions": sessions, "failures": failures, **timings}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--script", choices=sorted(SCRIPTS), default="probe")
    parser.add_argument("--hold", action="store_true", help="keep each batch connected until a line on stdin")
    parser.add_argument("--raw", action="store_true", help="no terminal emulator: match the raw output (cheaper)")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.port, args.sessions, args.concurrency, args.script, args.hold, not args.raw))
    print(json.dumps(result), flush=True)
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
