"""Many SSH visitors from a separate process: ``python -m tools.loadgen.visitors --port P --sessions N``.

Used by the leak test (so the host's memory is measured without the clients in it) and by scripts/bench_ssh.py.
Each visitor connects with a pty, waits for the first screen, plays its script and drops the connection. With
``--play-seconds`` the game script plays on once every visitor is seated, while ``--newcomers`` more visitors
arrive one by one (see scripts/bench_ssh.py). ``--think MIN,MAX`` makes each player wait a random time in that range
(seconds) before each move, as people do; without it every visitor moves the instant its turn shows, so all tables
move in lockstep (the worst case for the host). ``--screen fast`` gives each visitor the cheap terminal screen of
loadgen/fast_screen.py instead of pyte (same text, a fraction of the CPU: this process's own lag is part of every
time it measures). Prints one JSON object: counts and timings in seconds
(first_frame, setup_key, key_to_update, newcomer_first_frame; key_into_play says when each key_to_update was pressed,
in seconds since play started).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections.abc import Awaitable, Callable

from nothanks_server.table.seats import BOT_SEAT_NAMES
from nothanks_tui.defaults import DEFAULT_BOT

from .terminal_client import TerminalClient

# The waiting room once the creator added a bot: named as at a local table, its level beside it
FIRST_BOT_SEAT = f"seat 2: {BOT_SEAT_NAMES[0]}  bot ({DEFAULT_BOT})"
NOT_YOUR_TURN = "Not your turn yet"  # the game's toast for a play key pressed out of turn
KITTY_KEYS = "\x1b[120u\x1b[121;2u\x1b[27u"  # x, shift+y, escape in the kitty keyboard protocol


async def timed_key(client: TerminalClient, keys: str, expect: str, timings: dict[str, list[float]]) -> None:
    client.mark()
    started = time.perf_counter()
    client.send(keys)
    await client.wait_for(expect, timeout=60)
    timings["key_to_update"].append(time.perf_counter() - started)


async def probe_script(client: TerminalClient, timings: dict[str, list[float]]) -> None:
    """Against loadgen/probe_app.py: keys, kitty-protocol keys, a lone escape, a resize."""
    await timed_key(client, "a", "last: a", timings)
    await timed_key(client, "b", "last: b", timings)
    client.mark()
    client.send(KITTY_KEYS)
    await client.wait_for("last: ESCAPE-BINDING", timeout=60)
    client.mark()
    client.resize(90, 30)
    await client.wait_for("size: 90x30", timeout=60)


async def step(client: TerminalClient, keys: str, expect: str, timings: dict[str, list[float]]) -> None:
    """A key of the way to the table (name, lobby, waiting room), timed into ``setup_key``."""
    client.mark()
    started = time.perf_counter()
    client.send(keys)
    await client.wait_for(expect, timeout=60)  # raw: in output after the key; emulated: on the screen
    timings["setup_key"].append(client.last_output_at - started)


def my_turn(client: TerminalClient) -> bool:
    """Does the screen say it is my turn?"""
    return "Your turn" in client.text()


_MY_CHIPS = re.compile(r"You: (?:\x1b\[[0-9;]*m)*(\d+) chips?")


def my_chips(client: TerminalClient) -> int | None:
    """The chip count on the screen's "You: N chips" line (needs the emulator: updates redraw only what changed)."""
    found = _MY_CHIPS.findall(client.text())
    return int(found[-1]) if found else None


def my_area(client: TerminalClient) -> tuple[str, ...]:
    """The lines of my own area that a move of mine always changes: my chips and score, my cards."""
    return tuple(line for line in client.text().splitlines() if line.lstrip().startswith(("You:", "Your cards")))


async def play_my_turn(client: TerminalClient, timeout: float = 60) -> bool:
    """Press No thanks! (while I have chips, else take) and wait until my own area on the screen changes: True.

    False for a key that changed nothing (seen in about 1 game in 30 with bots that move at once): the screen still
    said "Your turn" when the app no longer did, and the app said so in a toast. This returns once the toast is gone
    (no new one is shown while it is up), to look again whose turn it is."""
    before = my_area(client)
    client.send("n" if my_chips(client) else "t")
    await client.wait_for(lambda: my_area(client) != before or NOT_YOUR_TURN in client.text(), timeout)
    if my_area(client) != before:
        return True
    await client.wait_for(lambda: NOT_YOUR_TURN not in client.text(), timeout)
    return False


GROWN = (100, 30)  # the window after the first resize, then shrunk to SHRUNK (width, height)
SHRUNK = (70, 20)


async def play_a_game(client: TerminalClient, max_moves: int = 200) -> int:
    """From the welcome screen: a name, the lobby, a 3-seat table with two bots, then moves (No thanks! while I have
    chips, else take) until the game is over, the window grown after the 3rd move and shrunk after the 8th; then
    ctrl+q, until the session ends. The number of moves made."""
    for keys, shown in [
        ("", "Your name at the table"),
        ("\r", "No tables yet"),
        ("c", "New table"),
        ("\x13", "waiting for players"),  # ctrl+s: create
        ("b", FIRST_BOT_SEAT),
        ("b", "press s to start"),
        ("s", "You: 11 chips"),
    ]:
        client.send(keys)
        await client.wait_for(shown)
    moves = 0
    while moves < max_moves:
        await client.wait_for(lambda: my_turn(client) or "Game over" in client.text(), timeout=30)
        if not my_turn(client):
            break
        if not await play_my_turn(client, timeout=10):
            continue
        moves += 1
        if moves == 3:
            client.resize(*GROWN)
            await client.wait_for("─" * GROWN[0])
        elif moves == 8:
            client.resize(*SHRUNK)  # the emulators drop lines from the top: the title is back once redrawn
            await client.wait_for(lambda: "No Thanks!" in client.text().splitlines()[0])
    client.send("\x11")  # ctrl+q
    await client.wait_closed()
    return moves


class Crowd:
    """What the visitors of one run share: when everyone is seated, when to stop playing."""

    def __init__(self, sessions: int, think: tuple[float, float] = (0.0, 0.0)) -> None:
        self.think = think  # seconds a player waits before each move: (shortest, longest)
        self.unseated = sessions
        self.all_seated = asyncio.Event()
        self.play_started = 0.0  # time.perf_counter() when everyone was seated
        self.stop_playing = asyncio.Event()

    def seated(self) -> None:
        self.unseated -= 1
        if self.unseated <= 0 and not self.all_seated.is_set():
            self.play_started = time.perf_counter()
            self.all_seated.set()


async def game_script(client: TerminalClient, timings: dict[str, list[float]], crowd: Crowd) -> None:
    """Against the game: name, lobby, a new 3-seat table, two bots, start (each key timed into ``setup_key``).
    Then, once every visitor is seated, play on (No thanks! while I have chips, else take) until told to stop or
    the game ends, timing each key until my own area on the screen changes (``key_to_update``)."""
    assert client.emulate, "the game script reads the screen: run it without --raw"
    await step(client, "\r", "New table", timings)
    await step(client, "c", "Create", timings)
    await step(client, "\x13", "waiting for players", timings)  # ctrl+s
    await step(client, "b", FIRST_BOT_SEAT, timings)
    await step(client, "b", "press s to start", timings)
    await step(client, "s", "Take", timings)
    crowd.seated()
    await crowd.all_seated.wait()
    while not crowd.stop_playing.is_set():
        await client.wait_for(lambda: my_turn(client) or "Game over" in client.text(), timeout=120)
        if not my_turn(client):
            return  # the game is over
        if crowd.think[1] > 0:
            await asyncio.sleep(random.uniform(*crowd.think))  # the player's thinking time, not synchronisation
            if crowd.stop_playing.is_set():
                return
        started = time.perf_counter()
        if not await play_my_turn(client):
            continue  # not a key-to-update sample
        timings["key_to_update"].append(client.last_output_at - started)
        timings["key_into_play"].append(started - crowd.play_started)


async def probe_play(client: TerminalClient, timings: dict[str, list[float]], crowd: Crowd) -> None:
    await probe_script(client, timings)
    crowd.seated()


async def lobby_script(client: TerminalClient, timings: dict[str, list[float]], crowd: Crowd) -> None:
    """Against the game: a name, the lobby, and away (a visitor who comes to look)."""
    await step(client, "\r", "New table", timings)
    crowd.seated()


SCRIPTS: dict[str, tuple[str, Callable[[TerminalClient, dict[str, list[float]], Crowd], Awaitable[None]]]] = {
    "probe": ("No Thanks!", probe_play),
    "game": ("Go to the tables", game_script),
    "lobby": ("Go to the tables", lobby_script),
}


async def visit(
    port: int,
    index: int,
    script: str,
    timings: dict[str, list[float]],
    crowd: Crowd,
    played: asyncio.Queue[None],
    hold: asyncio.Event,
    emulate: bool,
    screen: str = "pyte",
) -> None:
    first_screen, play = SCRIPTS[script]
    client = TerminalClient(emulate=emulate, screen=screen)
    try:
        started = time.perf_counter()
        await client.connect(port, f"visitor{index}")
        await client.wait_for(first_screen, timeout=60)
        timings["first_frame"].append(client.last_output_at - started)
        await play(client, timings, crowd)
    finally:
        played.put_nowait(None)
    await hold.wait()
    await client.close()


async def newcomers(
    port: int,
    count: int,
    script: str,
    timings: dict[str, list[float]],
    emulate: bool,
    spread_over: float = 0.0,
    screen: str = "pyte",
) -> None:
    """One visitor at a time connects, waits for its first screen and leaves: the first frame a newcomer sees
    while the crowd plays. With ``spread_over`` (seconds), the arrivals are spaced evenly over that time (the
    play phase), not all at its start, when every table makes its first move at once."""
    first_screen, _ = SCRIPTS[script]
    loop = asyncio.get_running_loop()
    began = loop.time()

    async def arrive(client: TerminalClient, index: int) -> None:
        await client.connect(port, f"newcomer{index}")
        await client.wait_for(first_screen, timeout=120)

    for index in range(count):
        due = began + (index + 1) * spread_over / (count + 1)
        if due > loop.time():
            await asyncio.sleep(due - loop.time())  # the arrival schedule, not a wait for anything
        client = TerminalClient(emulate=emulate, screen=screen)
        started = time.perf_counter()
        await asyncio.wait_for(arrive(client, index), timeout=120)  # connect and first screen, however slow
        timings["newcomer_first_frame"].append(client.last_output_at - started)
        await client.close()


async def probe_own_lag(lags: list[float], tick: float = 0.01) -> None:
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        await asyncio.sleep(tick)  # the probe's period: what is measured is how late it wakes
        lags.append(loop.time() - started - tick)


async def run(
    port: int,
    sessions: int,
    concurrency: int,
    script: str,
    hold_all: bool,
    emulate: bool = True,
    *,
    play_seconds: float = 0.0,
    newcomer_count: int = 0,
    think: tuple[float, float] = (0.0, 0.0),
    screen: str = "pyte",
) -> dict[str, object]:
    """``sessions`` visitors in batches of ``concurrency`` that connect at once. With ``play_seconds`` (game
    script), the visitors of a batch play on for that long once all are seated, while ``newcomer_count``
    newcomers arrive one after another. ``screen``: each visitor's terminal emulator, "pyte" or "fast"."""
    timings: dict[str, list[float]] = {
        "first_frame": [],
        "setup_key": [],
        "key_to_update": [],
        "key_into_play": [],  # for each key_to_update: seconds since play started (everyone seated) it was pressed
        "newcomer_first_frame": [],
        "visitors_loop_lag": [],  # how late this process's own loop ran a 10 ms sleep during play: its share of
        # every time measured here (50 terminal emulators in one process are busy)
    }
    failures: list[str] = []
    played: asyncio.Queue[None] = asyncio.Queue()
    hold = asyncio.Event()
    if not hold_all:
        hold.set()

    for start in range(0, sessions, concurrency):
        crowd = Crowd(min(sessions, start + concurrency) - start, think)
        if not play_seconds:
            crowd.stop_playing.set()

        async def one(index: int, crowd: Crowd = crowd) -> None:
            try:
                await visit(port, index, script, timings, crowd, played, hold, emulate, screen)
            except Exception as error:  # reported, never hidden: the caller fails on any failure
                failures.append(f"visitor {index}: {type(error).__name__}: {str(error)[:300]}")
                crowd.seated()  # a failed visitor must not keep the others waiting

        batch = [asyncio.ensure_future(one(index)) for index in range(start, min(sessions, start + concurrency))]
        if play_seconds:
            await crowd.all_seated.wait()
            lag_probe = asyncio.ensure_future(probe_own_lag(timings["visitors_loop_lag"]))
            playing = asyncio.ensure_future(asyncio.sleep(play_seconds))  # the benchmark's playing time
            try:
                await newcomers(port, newcomer_count, script, timings, emulate, spread_over=play_seconds, screen=screen)
            except Exception as error:
                failures.append(f"newcomer: {type(error).__name__}: {str(error)[:300]}")
            await playing  # the crowd plays on for at least play_seconds, and until the last newcomer is done
            crowd.stop_playing.set()
            lag_probe.cancel()
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
    parser.add_argument("--play-seconds", type=float, default=0.0, help="game: play on this long once all are seated")
    parser.add_argument("--newcomers", type=int, default=0, help="game: visitors arriving one by one while all play")
    parser.add_argument("--think", default="0,0", help="game: MIN,MAX seconds each player waits before a move (0,0)")
    parser.add_argument(
        "--screen",
        choices=("pyte", "fast"),
        default="pyte",
        help="terminal emulator of each visitor: pyte, or the cheap loadgen/fast_screen.py (pyte)",
    )
    args = parser.parse_args(argv)
    shortest, longest = (float(part) for part in args.think.split(","))
    result = asyncio.run(
        run(
            args.port,
            args.sessions,
            args.concurrency,
            args.script,
            args.hold,
            not args.raw,
            play_seconds=args.play_seconds,
            newcomer_count=args.newcomers,
            think=(shortest, longest),
            screen=args.screen,
        )
    )
    print(json.dumps(result), flush=True)
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
