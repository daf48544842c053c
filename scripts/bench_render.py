#!/usr/bin/env python3
"""What one table update costs an SSH player's app on the host: CPU, lines repainted and bytes sent.

On an SSH host every player's Textual app runs in the host process, so the CPU an app spends turning one table
update into terminal output is paid once per player per move. This measures it without the network or the
clients: one app (you against two bots, paced just enough that each update gets its own frame, fixed seeds) is
drawn on the SSH front's own ``ChannelDriver`` into a channel that only counts what it is sent, and a player
answers each turn (No thanks! while it has chips, else take) as soon as its app has sent the frame showing the
turn. It plays ``--games`` games and prints the process CPU time per table update (bots and engine included),
the frames and bytes sent per update, and optionally a cProfile (``--profile``) of the whole run.

Run from the repository root: ``.venv/bin/python scripts/bench_render.py [--games 5] [--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from nothanks_server.solo import SoloGame, solo_table  # noqa: E402
from nothanks_server.ssh.css_cache import share_parsed_css  # noqa: E402
from nothanks_server.ssh.driver import ChannelDriver  # noqa: E402
from nothanks_server.ssh.terminal import session_console  # noqa: E402
from nothanks_tui.client.app import NoThanksApp  # noqa: E402
from nothanks_tui.client.screens.table import TableScreen  # noqa: E402

SIZE = (80, 24)


class CountingChannel:
    """The SSH session as the driver sees it (``ChannelLink``): counts frames and bytes, wakes the player."""

    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0
        self.driver: ChannelDriver | None = None
        self.output = asyncio.Event()

    def send_output(self, text: str) -> None:
        self.frames += 1
        self.bytes += len(text.encode())
        self.output.set()

    def driver_started(self, driver: ChannelDriver) -> None:
        self.driver = driver

    def input_waiting(self) -> bool:
        return False


class Counts:
    """Table events the table screens handled (counted by wrapping the screen's handler)."""

    def __init__(self) -> None:
        self.updates = 0

    def count_table_events(self) -> None:
        handler = TableScreen.on_table_screen_table_event_arrived

        @functools.wraps(handler)
        def counted(screen: TableScreen, message: TableScreen.TableEventArrived) -> None:
            self.updates += 1
            handler(screen, message)

        TableScreen.on_table_screen_table_event_arrived = counted  # type: ignore[method-assign]


async def play_one_game(seed: int, counts: Counts, bot_pace: float) -> tuple[int, int]:
    """One game to its end; the frames and bytes it sent."""
    channel = CountingChannel()
    app = NoThanksApp(
        solo_table(SoloGame(players=3, bot="rules", seed=seed, bot_pace=bot_pace))
    )
    app.driver_class = functools.partial(ChannelDriver, link=channel)  # type: ignore[assignment]
    app.console = session_console("xterm-256color", {"COLORTERM": "truecolor"}, SIZE)
    share_parsed_css(app)
    running = asyncio.ensure_future(app.run_async(size=SIZE, mouse=True))
    answered: int | None = None  # the state id of the turn answered last
    table_screen: TableScreen | None = None
    view = None
    try:
        while not running.done():
            channel.output.clear()
            if table_screen is None and app.is_running and isinstance(app.screen, TableScreen):
                table_screen = app.screen
            if table_screen is not None and table_screen.table is not None:
                view = table_screen.table.view
                if view.finished:
                    break
                if view.my_turn and view.state_id != answered and channel.driver is not None:
                    answered = view.state_id
                    channel.driver.feed(b"n" if view.my_chips else b"t")
            output = asyncio.ensure_future(channel.output.wait())
            done, _ = await asyncio.wait([running, output], timeout=30, return_when=asyncio.FIRST_COMPLETED)
            output.cancel()
            if not done:
                raise RuntimeError(f"the app sent nothing for 30 s; screen {app.screen!r}, view {view!r}")
    finally:
        app.exit()
        await running
    return channel.frames, channel.bytes


async def run(games: int, bot_pace: float) -> dict[str, Any]:
    counts = Counts()
    counts.count_table_events()
    frames = sent = 0
    cpu_started, wall_started = time.process_time(), time.perf_counter()
    for game in range(games):
        game_frames, game_bytes = await play_one_game(1000 + game, counts, bot_pace)
        frames += game_frames
        sent += game_bytes
    cpu = time.process_time() - cpu_started
    return {
        "games": games,
        "bot_pace_s": bot_pace,
        "table_updates": counts.updates,
        "cpu_ms_per_update": round(1000 * cpu / max(1, counts.updates), 3),
        "frames_per_update": round(frames / max(1, counts.updates), 2),
        "bytes_per_update": round(sent / max(1, counts.updates)),
        "wall_s": round(time.perf_counter() - wall_started, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument(
        "--bot-pace", type=float, default=0.05, help="seconds between bot moves (0.05: one frame per update)"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the run")
    parser.add_argument("--sort", default="cumulative", help="profile order: cumulative (default) or tottime")
    parser.add_argument("--top", type=int, default=50)
    args = parser.parse_args(argv)
    profiler = cProfile.Profile()
    if args.profile:
        profiler.enable()
    result = asyncio.run(run(args.games, args.bot_pace))
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stdout).sort_stats(args.sort).print_stats(args.top)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
