#!/usr/bin/env python3
"""How much cheaper tests/ssh/fast_screen.py is than pyte, on the output of a real game over SSH.

The benchmark visitors (tests/ssh/visitors.py, many in one process) feed every chunk of output they receive to a
terminal screen and then read its text; that work is the visitors process's own lag, part of every time that
scripts/bench_ssh.py measures. This script records once what one player's terminal receives (a real SSH front and
the game in this process, one client: name, lobby, a table with two bots, a whole game with two window resizes, the
session left with ctrl+q, as tests/ssh/game_session.py plays it), then replays that recording into each screen
``--repetitions`` times: feed each chunk, join the display into text (what ``TerminalClient.text()`` does once per
chunk), resize where the window was resized. It prints the time per replay for pyte and for the fast screen
(best and median over the repetitions), split into feeding and joining, and checks the two ended with the same text.

Run from the repository root: ``.venv/bin/python scripts/bench_screens.py [--repetitions 20]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.ssh is imported from the repository root

import pyte  # noqa: E402

from nothanks_server.ssh import SSHFront, SSHSettings  # noqa: E402
from tests.ssh.fast_screen import FastScreen  # noqa: E402
from tests.ssh.game_session import RecordingClient, bot_game_factory, play_a_game  # noqa: E402

Recording = list[bytes | tuple[int, int]]
Screen = tuple[Any, Callable[[bytes], None]]  # a screen (its ``display``, ``resize``) and how to feed it bytes


async def record() -> tuple[Recording, int]:
    """What one player's terminal receives in a whole game (and the moves the player made)."""
    with tempfile.TemporaryDirectory() as directory:
        front = SSHFront(
            SSHSettings(host_key_path=Path(directory) / "ssh_host_ed25519_key", port=0), bot_game_factory()
        )
        await front.start()
        try:
            client = await RecordingClient(screen="fast").connect(front.port, "alice")
            moves = await play_a_game(client)
        finally:
            await front.close()
    return client.recording, moves


def pyte_screen(columns: int, lines: int) -> Screen:
    screen = pyte.Screen(columns, lines)
    return screen, pyte.ByteStream(screen).feed


def fast_screen(columns: int, lines: int) -> Screen:
    screen = FastScreen(columns, lines)
    return screen, screen.feed


def replay(make: Callable[[int, int], Screen], recording: Recording) -> tuple[float, float, str]:
    """Seconds feeding, seconds joining the text, and the text at the end."""
    screen, feed = make(80, 24)
    feeding = joining = 0.0
    text = ""
    for event in recording:
        if isinstance(event, tuple):
            width, height = event
            screen.resize(height, width)
            continue
        started = time.perf_counter()
        feed(event)
        fed = time.perf_counter()
        text = "\n".join(screen.display)
        feeding += fed - started
        joining += time.perf_counter() - fed
    return feeding, joining, text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetitions", type=int, default=20, help="replays of the recording per screen (20)")
    args = parser.parse_args()
    recording, moves = asyncio.run(record())
    chunks = [event for event in recording if isinstance(event, bytes)]
    print(
        f"recorded: {len(chunks)} chunks, {sum(map(len, chunks)) / 1000:.0f} kB, {moves} moves, "
        f"{len(recording) - len(chunks)} resizes; {args.repetitions} replays per screen"
    )
    texts = {}
    results = {}
    for name, make in (("pyte", pyte_screen), ("fast", fast_screen)):
        runs = [replay(make, recording) for _ in range(args.repetitions)]
        texts[name] = runs[-1][2]
        totals = [feeding + joining for feeding, joining, _ in runs]
        results[name] = min(totals)
        print(
            f"{name}: {1000 * min(totals):7.1f} ms best, {1000 * statistics.median(totals):7.1f} ms median per replay"
            f" (feed {1000 * min(run[0] for run in runs):6.1f} ms + text {1000 * min(run[1] for run in runs):5.1f} ms"
            f" best); {1e6 * min(totals) / len(chunks):6.0f} µs per chunk"
        )
    print(f"fast is {results['pyte'] / results['fast']:.1f}x faster (best replays)")
    if texts["pyte"] != texts["fast"]:
        print("the two screens ended with different text", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
