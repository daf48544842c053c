#!/usr/bin/env python3
"""Benchmark the history on a big store: listing, opening a replay, statistics, locally and over a host's TCP.

Builds a history of --games finished games (default 10,000) in a temporary data dir, the way local play files them
(``SqliteStore.add_records``: records, summaries, per-seat rows), from a few hundred distinct games the engine plays
(3 to 5 players, names from a pool of people and bots), each filed under its own id and date. Then it times, each
--repeat times (the median and the worst are reported):

- the first page of the history (100 games, newest first) and a page at the very end (offset games - 100), as
  ``nothanks history`` reads them (``StoreHistory``: the store opened, read, closed, per request);
- opening a replay: the record read from the store and replayed through the engine into every step
  (``StoreHistory.open_game`` + ``load_replay``), for games spread over the whole history;
- the same through the screens, headless at 80x24: from Enter on the history's row to the replay screen drawn
  (``HistoryScreen`` -> ``ReplayScreen``);
- the players' statistics (``player_stats``);
- the host's lobby requests over loopback TCP on a store of the same size (``history``, ``replay``, ``stats``
  round trips from a ``TcpLobby``).

    .venv/bin/python scripts/bench_history.py [--games 10000] [--repeat 20]

The issue's target: a replay opens in under 0.5 s on a 10,000-game history.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from nothanks_server.archive import HOST, LOCAL
from nothanks_server.history import StoreHistory, history_database
from nothanks_server.lobby import Lobby, LobbySettings
from nothanks_server.store import SqliteStore
from nothanks_server.tcp import TcpHost
from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.replaying import load_replay
from nothanks_tui.client.screens.history import HistoryScreen
from nothanks_tui.client.screens.replay import ReplayScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.engine import Action, GameConfig, apply, legal_actions, new_game, to_record
from nothanks_tui.link.history import HISTORY_PAGE

PEOPLE = ["ann", "bob", "carol", "dmitri", "eve", "fatima", "gus", "hiro", "ines", "jo", "kai", "lena"]
BOTS = ["ana", "bo", "cy", "dee"]
DISTINCT = 300  # games actually played; each is filed many times under other ids and dates
START = 1_700_000_000.0


def play(seed: int) -> dict[str, Any]:
    """One whole game between people and bots, with a simple policy (take at 3 chips or more)."""
    rng = random.Random(seed)
    players = rng.randint(3, 5)
    people = rng.sample(PEOPLE, rng.randint(1, 2))
    names = people + BOTS[: players - len(people)]
    state = new_game(GameConfig(players=players), seed)
    while not state.finished:
        legal = legal_actions(state)
        take = state.pot >= rng.randint(1, 4) or Action.PASS not in legal
        state = apply(state, Action.TAKE if take else Action.PASS)
    return to_record(state, names, bots=[name in BOTS for name in names], finished_at=0.0)


def build(directory: Path, games: int, place: str) -> float:
    """File ``games`` games; returns the seconds it took."""
    played = [play(seed) for seed in range(DISTINCT)]
    began = time.perf_counter()
    store = SqliteStore(history_database(directory), host=place == HOST)
    batch = []
    for number in range(1, games + 1):
        record = dict(played[number % DISTINCT], finished_at=START + number * 60.0)
        table = f"t{number}" if place == HOST else f"local-{number // 50:06x}"
        batch.append((table, number, record))
    store.add_records(batch, place)
    store.close()
    return time.perf_counter() - began


def timed(repeat: int, call: Callable[[int], Any]) -> list[float]:
    times = []
    for index in range(repeat):
        began = time.perf_counter()
        call(index)
        times.append(time.perf_counter() - began)
    return times


async def timed_async(repeat: int, call: Callable[[int], Awaitable[Any]]) -> list[float]:
    times = []
    for index in range(repeat):
        began = time.perf_counter()
        await call(index)
        times.append(time.perf_counter() - began)
    return times


def line(what: str, times: list[float]) -> str:
    median, worst = statistics.median(times) * 1000, max(times) * 1000
    return f"{what:<52} median {median:8.2f} ms   worst {worst:8.2f} ms   ({len(times)} runs)"


async def local_figures(directory: Path, games: int, repeat: int) -> list[str]:
    source = StoreHistory(directory)
    ids = [game.game_id for game in (await source.list_games(0, HISTORY_PAGE)).games]
    spread = [f"local-{n // 50:06x}/{n}" for n in range(1, games + 1, max(1, games // repeat))][:repeat]

    async def first_page(_: int) -> None:
        assert len((await source.list_games(0, HISTORY_PAGE)).games) == HISTORY_PAGE

    async def last_page(_: int) -> None:
        assert (await source.list_games(games - HISTORY_PAGE, HISTORY_PAGE)).games

    async def open_replay(index: int) -> None:
        replay = load_replay(await source.open_game(spread[index % len(spread)]))
        assert replay.final.finished

    async def stats(_: int) -> None:
        assert await source.player_stats()

    figures = [
        line("history: first page (100 newest)", await timed_async(repeat, first_page)),
        line(f"history: last page (offset {games - HISTORY_PAGE})", await timed_async(repeat, last_page)),
        line("replay opened: record read + every step replayed", await timed_async(repeat, open_replay)),
        line("statistics (every player)", await timed_async(repeat, stats)),
    ]
    assert ids
    mounted, drawn = await screen_times(directory, repeat)
    figures.append(line("screens: Enter on a row -> replay screen mounted", mounted))
    figures.append(line("screens: Enter on a row -> replay drawn, app idle", drawn))
    return figures


async def screen_times(directory: Path, repeat: int) -> tuple[list[float], list[float]]:
    """Headless at 80x24, Enter on the history's row: (until the replay screen is mounted with its first step
    shown, until the app is idle again: laid out and drawn, as Textual's test pilot waits for it)."""
    app = HistoryApp(lambda: HistoryScreen(StoreHistory(directory)))
    mounted, drawn = [], []
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        while len(getattr(screen, "games", ())) < HISTORY_PAGE:
            await pilot.pause(0.01)
        for index in range(repeat):
            began = time.perf_counter()
            await app.run_action("open_game", screen)  # what the Enter key runs
            while not (isinstance(app.screen, ReplayScreen) and app.screen.is_mounted and app.screen.table):
                await asyncio.sleep(0)
            mounted.append(time.perf_counter() - began)
            await pilot.pause(0)
            drawn.append(time.perf_counter() - began)
            await pilot.press("escape")
            await pilot.press("down" if index % 2 == 0 else "up")
    return mounted, drawn


async def host_figures(directory: Path, games: int, repeat: int) -> list[str]:
    lobby = Lobby(LobbySettings(data_dir=directory, bot_delay=0, turn_timer=None))
    from nothanks_server.limits import ClientLimits

    host = TcpHost(lobby, "127.0.0.1", 0, limits=ClientLimits(list_rate=10_000, list_burst=10_000))
    await host.start()
    client = TcpLobby("127.0.0.1", host.port, "bench")
    await client.start()
    try:
        first = await timed_async(repeat, lambda _: client.list_games(0, HISTORY_PAGE))
        step = max(1, games // repeat)

        async def open_replay(index: int) -> None:
            load_replay(await client.open_game(f"t{1 + index * step}/{1 + index * step}"))

        opened = await timed_async(repeat, open_replay)
        stats = await timed_async(repeat, lambda _: client.player_stats())
    finally:
        await client.close()
        await host.close("bench over")
    return [
        line("host over TCP: history, first page", first),
        line("host over TCP: replay request + every step replayed", opened),
        line("host over TCP: statistics", stats),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="finished games in the history (default 10000)")
    parser.add_argument("--repeat", type=int, default=20, help="runs of each measurement (default 20)")
    args = parser.parse_args()
    if args.games < HISTORY_PAGE:
        parser.error(f"--games must be at least {HISTORY_PAGE}")
    with tempfile.TemporaryDirectory(prefix="nothanks-bench-history-") as scratch:
        local_dir, host_dir = Path(scratch) / "local", Path(scratch) / "host"
        built = build(local_dir, args.games, LOCAL)
        size = history_database(local_dir).stat().st_size
        print(f"{args.games} games filed in {built:.1f} s; store {size / 2**20:.1f} MiB; load {os.getloadavg()[0]:.2f}")
        for text in asyncio.run(local_figures(local_dir, args.games, args.repeat)):
            print(text)
        build(host_dir, args.games, HOST)
        for text in asyncio.run(host_figures(host_dir, args.games, args.repeat)):
            print(text)
        print(f"load average after: {os.getloadavg()[0]:.2f} (on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
