#!/usr/bin/env python3
"""Where an SSH host's time goes while N sessions play: the tool behind docs/benchmarks.md, "SSH front", second and
third pass.

Runs a host (lobby and SSH front) in this process, sends N visitors at it from a separate process (the game
script of tests/ssh/visitors.py: name, lobby, a 3-seat table with two bots, then playing on), waits until every
table has started, and then watches the play phase only:

- the host's CPU share, and event-loop lag (how late a 10 ms sleep wakes up: what every session waits for),
- garbage collections per generation (count, total and longest pause), with the number of tracked objects,
- the freezing collector's deep collections in the phase (reason and pause), and what is frozen,
- optionally (``--profile``) a cProfile of the phase, sorted by cumulative time (``--sort tottime`` for own time),
- key-to-update inside the host (a play key's bytes in, the redrawn own line out: no network, no client), and
  the visitors' own key-to-update times (their 50 terminal emulators add their event loop's lag to these),
- with ``--newcomers N`` the first frame of N visitors arriving one by one,
- with ``--stages`` where a play key's time goes inside the host, stage by stage: its bytes in, the screen's action
  running, the move sent to the table, the screen handling its new view, the screen's update timer firing, the
  frame out (p50 / p90 / p99 of each step, and the mean of each step over the slowest 5 % of keys).

Options to try a change without editing the code: ``--gc-thresholds 700,10,1000`` sets gc thresholds for the run;
``--no-freeze`` runs without the freezing collector (server/nothanks_server/ssh/collector.py) to compare; ``--objects
N`` lists the N most common kinds of object the collector still walks; ``--think MIN,MAX`` makes the players wait a
random time before each move (seconds), as people do (default: every move the instant the turn shows).

Run from the repository root: ``.venv/bin/python scripts/profile_ssh.py --sessions 50 [--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import pstats
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.ssh.visitors is run as a module from the repository root

from textual.screen import Screen  # noqa: E402

from nothanks_server import Lobby, LobbySettings  # noqa: E402
from nothanks_server.ssh import SSHFront, SSHSettings  # noqa: E402
from nothanks_server.ssh.collector import PROCESS_COLLECTOR  # noqa: E402
from nothanks_server.ssh.game import game_app_factory  # noqa: E402
from nothanks_server.ssh.session import GameSession  # noqa: E402
from nothanks_tui.client.screens.table import TableScreen  # noqa: E402

LAG_TICK = 0.01  # seconds the loop-lag probe sleeps
PLAY_KEYS = (b"n", b"t")  # the keys timed: pass and take
OWN_LINE = "You:"  # output that redraws the player's own line: the key's effect has been sent


def report(text: str) -> None:
    """Print to the real stdout: while session apps run, ``sys.stdout`` is redirected into logging."""
    print(text, file=sys.__stdout__, flush=True)


async def probe_loop_lag(lags: list[float], watchdog: StallWatchdog | None = None) -> None:
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        await asyncio.sleep(LAG_TICK)
        lags.append(loop.time() - started - LAG_TICK)
        if watchdog is not None:
            watchdog.beat()


class StallWatchdog:
    """A thread that samples the event loop's stack while the loop has not beaten for ``threshold`` seconds.

    Each stall is reported with its length and the deepest frames seen most often while it lasted: what held every
    session up.
    """

    SAMPLE = 0.02  # seconds between samples

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self.stalls: list[tuple[float, float, Counter[str]]] = []  # (started, length, stacks sampled)
        self._last_beat = self._started = time.perf_counter()
        self._loop_thread = threading.get_ident()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stall watchdog", daemon=True)

    def beat(self) -> None:
        self._last_beat = time.perf_counter()

    def start(self) -> None:
        self.beat()
        self._started = self._last_beat
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()

    def _watch(self) -> None:
        samples: Counter[str] | None = None
        stall_beat = 0.0
        while not self._stopped.wait(self.SAMPLE):
            beat = self._last_beat
            if time.perf_counter() - beat < self.threshold + LAG_TICK:
                if samples is not None:
                    self.stalls.append((stall_beat - self._started, beat - stall_beat, samples))
                    samples = None
                continue
            if samples is None:
                samples, stall_beat = Counter(), beat
            frame = sys._current_frames().get(self._loop_thread)
            if frame is not None:
                samples[self._where(traceback.extract_stack(frame))] += 1

    @staticmethod
    def _where(stack: traceback.StackSummary) -> str:
        """The callback the loop is running (the frames under the loop's own) and the innermost two frames."""
        names = [f"{Path(item.filename).name}:{item.name}" for item in stack]
        try:
            outer = len(names) - 1 - names[::-1].index("events.py:_run")
        except ValueError:
            outer = 0
        callback = names[outer + 1 : outer + 5]
        return " > ".join(callback) + " ... " + " > ".join(names[-2:])

    def summary(self) -> str:
        lines = [f"stalls over {1000 * self.threshold:.0f} ms: {len(self.stalls)}"]
        for started, length, samples in self.stalls:
            lines.append(f"  at {started:.1f} s, {1000 * length:.0f} ms, {sum(samples.values())} samples:")
            lines.extend(f"    {count} x {where}" for where, count in samples.most_common(3))
        return "\n".join(lines)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] if ordered else float("nan")


class HostKeyTimer:
    """Key-to-update as the host sees it: a play key's bytes arriving on a session's channel, to the first output
    the session sends that redraws the player's own line ("You: ..."). No network, no client: what the visitors
    measure, less the loopback and their own event loop (50 terminal emulators in one process lag it)."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._received = GameSession.data_received
        self._send = GameSession.send_output

    def install(self) -> None:
        timer = self

        def data_received(session: GameSession, data: bytes, datatype: object) -> None:
            if data in PLAY_KEYS:
                session._bench_key_at = time.perf_counter()  # type: ignore[attr-defined]
            timer._received(session, data, datatype)

        def send_output(session: GameSession, text: str) -> None:
            pressed = getattr(session, "_bench_key_at", None)
            if pressed is not None and OWN_LINE in text:
                timer.samples.append(time.perf_counter() - pressed)
                session._bench_key_at = None  # type: ignore[attr-defined]
            timer._send(session, text)

        GameSession.data_received = data_received  # type: ignore[method-assign,assignment]
        GameSession.send_output = send_output  # type: ignore[method-assign]

    def uninstall(self) -> None:
        GameSession.data_received = self._received  # type: ignore[method-assign]
        GameSession.send_output = self._send  # type: ignore[method-assign]


class KeyStages:
    """A play key's way through the host, timed at each hand-over (see the module's ``--stages``).

    Each step but "handled" and "drawn" is mostly waiting: for the event loop to come round to the next task (the
    app, the screen's reader, the screen's update timer) behind every other session's ready work."""

    STAGES = ("key in", "action", "sent", "view", "handled", "timer", "frame out")

    def __init__(self) -> None:
        self.samples: list[dict[str, float]] = []
        self.recording = False  # installed before the sessions start (their timers hold the method), then switched on
        self._open: dict[int, dict[str, float]] = {}  # id(app) -> stamps of the key in flight
        self._saved: list[tuple[type, str, object]] = []

    def _stamp(self, app: object, stage: str, after: str) -> None:
        stamps = self._open.get(id(app))
        if stamps is not None and after in stamps and stage not in stamps:
            stamps[stage] = time.perf_counter()

    def _patch(self, owner: type, name: str, replacement: object) -> None:
        self._saved.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, replacement)

    def install(self) -> None:
        stages = self
        received, send = GameSession.data_received, GameSession.send_output
        arrived, timer_update = TableScreen.on_table_screen_table_event_arrived, Screen._on_timer_update

        def data_received(session: GameSession, data: bytes, datatype: object) -> None:
            if stages.recording and data in PLAY_KEYS and session._app is not None:
                stages._open[id(session._app)] = {"key in": time.perf_counter()}
            received(session, data, datatype)

        def send_output(session: GameSession, text: str) -> None:
            stamps = stages._open.get(id(session._app))
            if stamps is not None and "timer" in stamps and OWN_LINE in text:
                stamps["frame out"] = time.perf_counter()
                stages.samples.append(stamps)
                del stages._open[id(session._app)]
            send(session, text)

        def playing(original):  # type: ignore[no-untyped-def]
            async def action(screen: TableScreen) -> None:
                stages._stamp(screen.app, "action", "key in")
                await original(screen)
                stages._stamp(screen.app, "sent", "action")

            return action

        def on_view(screen: TableScreen, message: TableScreen.TableEventArrived) -> None:
            stages._stamp(screen.app, "view", "sent")
            arrived(screen, message)
            stages._stamp(screen.app, "handled", "view")

        def on_timer(screen: Screen[object]) -> None:
            stages._stamp(screen.app, "timer", "handled")
            timer_update(screen)

        self._patch(GameSession, "data_received", data_received)
        self._patch(GameSession, "send_output", send_output)
        self._patch(TableScreen, "action_take", playing(TableScreen.action_take))
        self._patch(TableScreen, "action_no_thanks", playing(TableScreen.action_no_thanks))
        self._patch(TableScreen, "on_table_screen_table_event_arrived", on_view)
        self._patch(Screen, "_on_timer_update", on_timer)

    def uninstall(self) -> None:
        while self._saved:
            owner, name, original = self._saved.pop()
            setattr(owner, name, original)

    def summary(self) -> str:
        if not self.samples:
            return "key stages: no keys timed"
        lines = [f"key stages inside the host, ms ({len(self.samples)} keys): p50 / p90 / p99, slowest 5 % mean"]
        slowest = sorted(self.samples, key=lambda stamps: stamps["frame out"] - stamps["key in"])
        slowest = slowest[-max(1, len(slowest) // 20) :]
        for before, after in zip(self.STAGES, self.STAGES[1:]):
            steps = [1000 * (stamps[after] - stamps[before]) for stamps in self.samples]
            worst = sum(1000 * (stamps[after] - stamps[before]) for stamps in slowest) / len(slowest)
            lines.append(
                f"  {before:>8} -> {after:<9} {percentile(steps, 0.5):6.1f} / {percentile(steps, 0.9):6.1f} / "
                f"{percentile(steps, 0.99):6.1f}   {worst:6.1f}"
            )
        return "\n".join(lines)


class CollectionTimer:
    """Times every garbage collection through ``gc.callbacks``."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {}
        self.freed: dict[int, int] = {}  # objects found unreachable, per generation
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            generation = info["generation"]
            self.pauses.setdefault(generation, []).append(time.perf_counter() - self._started)
            self.freed[generation] = self.freed.get(generation, 0) + info["collected"]

    def summary(self) -> str:
        return ", ".join(
            f"gen{generation}: {len(pauses)} in {1000 * sum(pauses):.0f} ms (longest {1000 * max(pauses):.0f} ms, "
            f"median {1000 * percentile(pauses, 0.5):.1f} ms, {self.freed[generation]:,} objects freed)"
            for generation, pauses in sorted(self.pauses.items())
        )


async def run(options: argparse.Namespace) -> None:
    """One host, one crowd of visitors, one report: ``options`` are the command line's (see ``main``)."""
    sessions, play_seconds, profile = options.sessions, options.play_seconds, options.profile
    freeze, objects = not options.no_freeze, options.objects
    directory = Path(tempfile.mkdtemp())
    lobby = Lobby(LobbySettings())
    front = SSHFront(
        SSHSettings(host_key_path=directory / "host_key", port=0, max_sessions=sessions + 10, freeze_objects=freeze),
        game_app_factory(lobby),
    )
    key_stages = KeyStages() if options.stages else None
    if key_stages is not None:
        key_stages.install()  # before any session: a screen's update timer holds the method it was made with
    await front.start()
    blocks_at_start = sys.getallocatedblocks()
    visitors = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.ssh.visitors",
        "--port",
        str(front.port),
        "--sessions",
        str(sessions),
        "--concurrency",
        str(sessions),
        "--script",
        "game",
        "--play-seconds",
        str(play_seconds),
        "--think",
        options.think,
        "--newcomers",
        str(options.newcomers),
        "--screen",
        options.screen,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    arrived = time.perf_counter()
    while sum(1 for table in lobby.tables() if table.started) < sessions:
        await asyncio.sleep(0.05)
    report(f"all {sessions} tables started {time.perf_counter() - arrived:.1f} s after the visitors set off")
    report(
        f"objects: {len(gc.get_objects()):,} walked by the collector, {gc.get_freeze_count():,} frozen; "
        f"memory blocks: {sys.getallocatedblocks():,} ({blocks_at_start:,} at start)"
    )
    if objects:
        counts = Counter(type(item).__qualname__ for item in gc.get_objects())
        report("  most common: " + ", ".join(f"{name} {count:,}" for name, count in counts.most_common(objects)))
    if options.skip:
        await asyncio.sleep(options.skip)  # past the end of the arrivals' burst: the steady part of play
    deep_before = PROCESS_COLLECTOR.deep_collection_count
    host_keys = HostKeyTimer()
    host_keys.install()
    if key_stages is not None:
        key_stages.recording = True

    lags: list[float] = []
    watchdog = StallWatchdog(options.stalls / 1000) if options.stalls else None
    if watchdog is not None:
        watchdog.start()
    lag_probe = asyncio.ensure_future(probe_loop_lag(lags, watchdog))
    collections = CollectionTimer()
    gc.callbacks.append(collections)
    profiler = cProfile.Profile()
    if profile:
        profiler.enable()
    cpu_before, wall_before = time.process_time(), time.perf_counter()
    await asyncio.sleep(max(1.0, play_seconds - 4 - options.skip))  # the middle of the play phase
    if profile:
        profiler.disable()
    cpu, wall = time.process_time() - cpu_before, time.perf_counter() - wall_before
    gc.callbacks.remove(collections)
    lag_probe.cancel()
    if key_stages is not None:
        key_stages.recording = False
    host_keys.uninstall()
    if watchdog is not None:
        watchdog.stop()

    report(f"play phase ({wall:.1f} s): host CPU {100 * cpu / wall:.0f} % of one core")
    report(
        f"event-loop lag: p50 {1000 * percentile(lags, 0.5):.1f} ms, p99 {1000 * percentile(lags, 0.99):.1f} ms, "
        f"max {1000 * max(lags):.1f} ms"
    )
    report(f"garbage collections: {collections.summary() or 'none'}")
    inside = [1000 * value for value in host_keys.samples]
    report(
        f"key-to-update inside the host, over the watched phase: p50 {percentile(inside, 0.5):.0f} ms, "
        f"p90 {percentile(inside, 0.9):.0f} ms, p99 {percentile(inside, 0.99):.0f} ms ({len(inside)} keys)"
    )
    if key_stages is not None:
        report(key_stages.summary())
    if watchdog is not None:
        report(watchdog.summary())
    if freeze:
        new = PROCESS_COLLECTOR.deep_collection_count - deep_before
        deep = PROCESS_COLLECTOR.deep_collections[-new:] if new else []
        report(
            f"deep collections: {new}"
            + "".join(f"; {item.reason} {1000 * item.seconds:.0f} ms" for item in deep)
            + f"; frozen now {gc.get_freeze_count():,}"
        )
    output, _ = await visitors.communicate()
    result = json.loads(output.decode().strip().splitlines()[-1])
    keys = [1000 * value for value in result["key_to_update"]]
    report(
        f"key-to-update over the whole play phase: p50 {percentile(keys, 0.5):.0f} ms, "
        f"p99 {percentile(keys, 0.99):.0f} ms ({len(keys)} keys); failures: {result['failures'][:1] or 'none'}"
    )
    steady = [key for key, pressed in zip(keys, result["key_into_play"]) if pressed >= 5]
    report(
        f"  pressed 5 s or more into play: p50 {percentile(steady, 0.5):.0f} ms, "
        f"p99 {percentile(steady, 0.99):.0f} ms ({len(steady)} keys)"
    )
    if result["newcomer_first_frame"]:
        firsts = [1000 * value for value in result["newcomer_first_frame"]]
        report("newcomers' first frame: " + ", ".join(f"{value:.0f}" for value in firsts) + " ms")
    if freeze:
        report(
            "every deep collection since the host started (reason, sessions, blocks before -> after, pause): "
            + "; ".join(
                f"{item.reason} {item.sessions} {item.blocks_before:,} -> {item.blocks_after:,} "
                f"{1000 * item.seconds:.0f} ms"
                for item in PROCESS_COLLECTOR.deep_collections
            )
        )
    if profile:
        pstats.Stats(profiler, stream=sys.__stdout__).sort_stats(options.sort).print_stats(options.top)
    await front.close()
    lobby.close()
    if key_stages is not None:
        key_stages.uninstall()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--play-seconds", type=float, default=20.0)
    parser.add_argument("--profile", action="store_true", help="cProfile the play phase (slows the host about 2x)")
    parser.add_argument("--top", type=int, default=60, help="profile lines to print (60)")
    parser.add_argument("--think", default="0,0", help="MIN,MAX seconds each player thinks before a move (0,0)")
    parser.add_argument("--no-freeze", action="store_true", help="without the freezing collector, to compare")
    parser.add_argument("--objects", type=int, default=0, help="list the N most common kinds of walked object")
    parser.add_argument("--gc-thresholds", help="e.g. 700,10,1000: gc.set_threshold for this run")
    parser.add_argument("--sort", default="cumulative", help="profile order: cumulative (default) or tottime")
    parser.add_argument("--newcomers", type=int, default=0, help="visitors arriving one by one during play (0)")
    parser.add_argument(
        "--screen", choices=("pyte", "fast"), default="fast", help="the visitors' terminal emulator (fast)"
    )
    parser.add_argument("--skip", type=float, default=0, help="seconds of play to let pass before watching (0)")
    parser.add_argument("--stages", action="store_true", help="time a play key's way through the host, by stage")
    parser.add_argument("--stalls", type=float, default=0, help="MS: show where the loop was when it stalled this long")
    args = parser.parse_args()
    if args.gc_thresholds:
        gc.set_threshold(*(int(part) for part in args.gc_thresholds.split(",")))
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
