#!/usr/bin/env python3
"""Replay the abuse of a public host from one address while bystanders play, and report what the bystanders got.

Each attack of issue 16 ("A public host survives the internet") runs against a fresh ``nothanks server`` process
on loopback. Meanwhile a bystander plays a game over TCP from another loopback address (127.0.0.3), and at the end
of the attack a newcomer (127.0.0.4) asks for a seat. Reported per attack: the bystander's move round trip
(action sent -> its update back) p50/p99, whether the newcomer got a seat and how fast, the host's CPU (% of one
core over the attack) and its RSS growth. The attacker is 127.0.0.2: the per-address limits apply to it alone.

TCP attacks:

- idle: 4,999 connections send hello and sit idle;
- watchers: 1,000 connections watch a table that has not started and never read; 4 more toggle spectate/leave
  about 44 times a second;
- tables: 499 connections each create a 7-seat table; 3 more ask list_tables 45 times a second;
- bot-tables: 500 connections send hello and create_table {players: 7, bots: 6};
- slow-frame: 20 connections each send a 100 KB frame in 100-byte pieces.

SSH attacks (the host also listens on SSH; a second bystander plays over SSH from 127.0.0.3, an asyncssh client
with a pty walking the game's screens, timing each key until its own area of the screen changes, and logging in
again after each game):

- ssh-guess: the host asks for ``--ssh-password``; for the first third of the attack one connection after another
  tries passwords as fast as the host answers, then 20 connections at once do. The attacker reports how many
  passwords the host looked at a second, and how many connections were turned away;
- ssh-eof: ``ssh -tt -p P play@127.0.0.1 </dev/null`` (a pty, then end of input at once), 4 at a time, over and
  over; the host's log is searched for tracebacks.

Loopback only, bounded in time and count, stops by itself.

    .venv/bin/python scripts/bench_attacks.py [--attack NAME ...] [--seconds 10] [--nothanks PATH]

``--nothanks`` runs another build's server (e.g. an older checkout's .venv/bin/nothanks) for before/after runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import msgpack

from nothanks_server.table.seats import BOT_SEAT_NAMES

if TYPE_CHECKING:
    from tools.loadgen.terminal_client import TerminalClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/ (the scripted SSH players) is not installed
HOST = "127.0.0.1"
ATTACKER, BYSTANDER, NEWCOMER = "127.0.0.2", "127.0.0.3", "127.0.0.4"
PROTOCOL = 2
CONNECT_TIMEOUT = 5.0
THINK = 0.1  # seconds the bystander waits before each of its moves


def frame(message: dict[str, object]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


class Link:
    """A raw protocol connection: send maps, read maps, or do nothing at all."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=1 << 22)

    @classmethod
    async def open(cls, port: int, source: str, name: str | None = "p") -> Link:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(HOST, port, local_addr=(source, 0)), CONNECT_TIMEOUT
        )
        link = cls(reader, writer)
        if name is not None:
            link.send({"type": "hello", "protocol": PROTOCOL, "name": name})
        return link

    def send(self, message: dict[str, object]) -> None:
        if not self.writer.is_closing():
            self.writer.write(frame(message))

    async def next(self, timeout: float = 10.0) -> dict[str, object] | None:
        async def read() -> dict[str, object] | None:
            while True:
                for message in self.unpacker:
                    return message
                try:
                    data = await self.reader.read(65536)
                except (ConnectionError, OSError):
                    return None
                if not data:
                    return None
                self.unpacker.feed(data)

        return await asyncio.wait_for(read(), timeout)

    async def until(self, kind: str, timeout: float = 10.0) -> dict[str, object] | None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            message = await self.next(left)
            if message is None or message.get("type") == kind:
                return message
            if message.get("type") == "error" and message.get("fatal"):
                return message
        return None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.transport.abort()


# ------------------------------------------------------------------------------------------------ bystanders

PASSWORD = "a long shared password nobody guesses"  # --ssh-password for ssh-guess
SSH_ATTACKS = {"ssh-guess": ["--ssh-password", PASSWORD], "ssh-eof": []}  # the host's extra options for each


@dataclass
class Bystander:
    """Plays 2-player games against a bot, as fast as the host answers, timing each move's round trip."""

    round_trips: list[float] = field(default_factory=list)
    failure: str = ""

    async def play(self, port: int, stop: asyncio.Event) -> None:
        try:
            link = await Link.open(port, BYSTANDER, "bystander")
            link.send({"type": "create_table", "players": 2, "bots": 1})
            joined = await link.until("joined")
            if joined is None or joined.get("type") != "joined":
                self.failure = f"no table: {joined}"
                return
            link.send({"type": "start"})
            sent: tuple[int, float] | None = None
            while not stop.is_set():
                message = await link.next(timeout=15.0)
                if message is None:
                    self.failure = "the host closed the bystander's connection"
                    return
                if message.get("type") == "error" and message.get("fatal"):
                    self.failure = f"dropped: {message.get('code')}"
                    return
                if message.get("type") != "update":
                    continue
                view = message["view"]
                assert isinstance(view, dict)
                if sent is not None and view["state_id"] > sent[0]:
                    self.round_trips.append(time.monotonic() - sent[1])
                    sent = None
                if view["finished"]:
                    await asyncio.sleep(THINK)
                    link.send({"type": "play_again"})
                elif view["to_move"] == view["seat"] and sent is None:
                    await asyncio.sleep(THINK)  # a quick player, well inside the host's message budget
                    chips = view["chips"][view["seat"]]
                    action = "pass" if chips and view["pot"] < 3 else "take"
                    sent = (view["state_id"], time.monotonic())
                    link.send({"type": "action", "action": action, "state_id": view["state_id"]})
            link.close()
        except (TimeoutError, OSError) as error:
            self.failure = f"{type(error).__name__}: {error}"


TO_THE_TABLE = [  # keys from the welcome screen to a started game at a 3-seat table with two bots, what each shows
    ("\r", "New table"),
    ("c", "Create"),
    ("\x13", "waiting for players"),
    ("b", f"seat 2: {BOT_SEAT_NAMES[0]}"),  # (bots are named as at a local table)
    ("b", "press s to start"),
    ("s", "You: 11 chips"),
]


def _turn_or_over(client: TerminalClient) -> bool:
    from tools.loadgen.visitors import my_turn

    return my_turn(client) or "Game over" in client.text()


@dataclass
class SSHBystander:
    """Plays games over SSH with a pty (loadgen's terminal client and game script), a new login for each game."""

    password: str | None = None
    key_times: list[float] = field(default_factory=list)  # key -> my own area of the screen changed
    login_times: list[float] = field(default_factory=list)  # TCP connect -> the first screen
    failure: str = ""

    async def play(self, port: int, stop: asyncio.Event) -> None:
        from tools.loadgen.terminal_client import TerminalClient
        from tools.loadgen.visitors import my_turn, play_my_turn

        while not stop.is_set():
            started = time.monotonic()
            try:
                client = await asyncio.wait_for(
                    TerminalClient().connect(
                        port, "bystander", local_addr=(BYSTANDER, 0), password=self.password or ""
                    ),
                    30,
                )
                await client.wait_for("Your name at the table", timeout=30)
                self.login_times.append(time.monotonic() - started)
                for keys, shown in TO_THE_TABLE:
                    client.send(keys)
                    await client.wait_for(shown, timeout=30)
                while not stop.is_set():
                    await client.wait_for(functools.partial(_turn_or_over, client), timeout=30)
                    if not my_turn(client):
                        break
                    await asyncio.sleep(THINK)  # a quick player
                    pressed = time.perf_counter()
                    if await play_my_turn(client, timeout=30):
                        self.key_times.append(client.last_output_at - pressed)
                await client.close()
            except Exception as error:  # asyncssh's errors, timeouts, a screen never shown: reported
                self.failure = " ".join(f"{type(error).__name__}: {error}".split())[:80]
                return


async def newcomer_seat_time(port: int) -> float | None:
    """Seconds from connecting to holding a seat at a new table; None if refused or too slow (10 s)."""
    started = time.monotonic()
    try:
        link = await Link.open(port, NEWCOMER, "newcomer")
        link.send({"type": "create_table", "players": 3, "bots": 2})
        joined = await link.until("joined", timeout=10.0)
        link.close()
    except (TimeoutError, OSError):
        return None
    if joined is None or joined.get("type") != "joined":
        return None
    return time.monotonic() - started


# ------------------------------------------------------------------------------------------------ attacks

Attack = Callable[[int, asyncio.Event, list[Link]], Awaitable[None]]


async def _open_many(port: int, count: int, held: list[Link], name: str | None = "x") -> list[Link]:
    opened: list[Link] = []
    for start in range(0, count, 100):
        batch = await asyncio.gather(
            *(Link.open(port, ATTACKER, name) for _ in range(min(100, count - start))), return_exceptions=True
        )
        opened.extend(link for link in batch if isinstance(link, Link))
    held.extend(opened)
    return opened


async def attack_idle(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    for link in await _open_many(port, 4999, held):
        cast(asyncio.Transport, link.writer.transport).pause_reading()
    await stop.wait()


async def attack_watchers(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    [owner] = await _open_many(port, 1, held)
    owner.send({"type": "create_table", "players": 7})
    joined = await owner.until("joined")
    table = joined.get("table") if joined else None
    for link in await _open_many(port, 1000, held):
        link.send({"type": "spectate", "table": table})
        cast(asyncio.Transport, link.writer.transport).pause_reading()  # never reads
    togglers = await _open_many(port, 4, held)
    while not stop.is_set():
        for link in togglers:
            link.send({"type": "spectate", "table": table})
            link.send({"type": "leave"})
        await asyncio.sleep(1 / 44)


async def attack_tables(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    for link in await _open_many(port, 499, held):
        link.send({"type": "create_table", "players": 7})
    askers = await _open_many(port, 3, held)
    readers = [asyncio.create_task(_read_and_forget(link, stop)) for link in askers]
    while not stop.is_set():
        for link in askers:
            link.send({"type": "list_tables"})
        await asyncio.sleep(1 / 45)
    await asyncio.gather(*readers, return_exceptions=True)


async def _read_and_forget(link: Link, stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError, OSError):
        while not stop.is_set() and await link.next(timeout=30.0) is not None:
            pass


async def attack_bot_tables(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    for link in await _open_many(port, 500, held):
        link.send({"type": "create_table", "players": 7, "bots": 6})
    await stop.wait()


async def attack_slow_frame(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    big = frame({"type": "ping", "pad": "x" * 500, "more": ["y" * 500] * 16}) * 12  # about 100 KB
    links = await _open_many(port, 20, held)
    for start in range(0, len(big), 100):
        if stop.is_set():
            return
        for link in links:
            if not link.writer.is_closing():
                link.writer.write(big[start : start + 100])
        await asyncio.sleep(0.001)
    await stop.wait()


class Tally:
    """What an SSH attacker saw, printed as one JSON line when it stops."""

    def __init__(self) -> None:
        self.counts: dict[str, float] = {}

    def add(self, name: str, amount: float = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + amount


TALLY = Tally()


async def _guess_on_one_connection(port: int, stop: asyncio.Event) -> None:
    import asyncssh

    class Guesser(asyncssh.SSHClient):
        def password_auth_requested(self) -> str | None:
            if stop.is_set():
                return None
            TALLY.add("tries")
            return f"guess-{time.monotonic_ns()}"

        def kbdint_auth_requested(self) -> str | None:
            return None

    try:
        conn = await asyncio.wait_for(
            asyncssh.connect(
                HOST, port, username="root", known_hosts=None, client_keys=None, agent_path=None,
                preferred_auth="password", client_factory=Guesser, local_addr=(ATTACKER, 0),
            ),
            30,
        )  # fmt: skip
        conn.close()
    except (asyncssh.Error, OSError, TimeoutError) as error:
        TALLY.add(f"ended by {type(error).__name__}")  # DisconnectError: the host's tries limit cut it


async def attack_ssh_guess(port: int, stop: asyncio.Event, held: list[Link], seconds: float = 10.0) -> None:
    phase = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds / 3, phase.set)
    started = time.monotonic()
    while not phase.is_set() and not stop.is_set():
        await _guess_on_one_connection(port, phase)
    TALLY.add("one connection: tries/s", TALLY.counts.get("tries", 0) / (time.monotonic() - started))
    before, started = TALLY.counts.get("tries", 0), time.monotonic()

    async def loop() -> None:
        while not stop.is_set():
            await _guess_on_one_connection(port, stop)

    tasks = [asyncio.create_task(loop()) for _ in range(20)]
    await stop.wait()
    TALLY.add("20 connections: tries/s", (TALLY.counts.get("tries", 0) - before) / (time.monotonic() - started))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def attack_ssh_eof(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    with tempfile.TemporaryDirectory() as keys:
        key = Path(keys) / "id_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        command = [
            "ssh", "-tt", "-p", str(port), "-b", ATTACKER, "-i", str(key), "-o", "IdentitiesOnly=yes",
            "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", f"play@{HOST}",
        ]  # fmt: skip

        async def loop() -> None:
            while not stop.is_set():
                process = await asyncio.create_subprocess_exec(
                    *command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                try:
                    code = await asyncio.wait_for(process.wait(), 30)
                except TimeoutError:
                    process.kill()
                    code = await process.wait()
                TALLY.add("ssh runs")
                TALLY.add(f"exit {code}")

        await asyncio.gather(*(loop() for _ in range(4)))


ATTACKS: dict[str, Attack] = {
    "idle": attack_idle,
    "watchers": attack_watchers,
    "tables": attack_tables,
    "bot-tables": attack_bot_tables,
    "slow-frame": attack_slow_frame,
    "ssh-guess": attack_ssh_guess,
    "ssh-eof": attack_ssh_eof,
}


# ------------------------------------------------------------------------------------------------ the host


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    try:
        match = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    except OSError:
        return 0.0
    return int(match.group(1)) / 1024 if match else 0.0


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the SSH front's forkserver and workers)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(children.get(current, []))
    return tree


def tree_cpu(pid: int) -> float:
    total = 0.0
    for member in process_tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += cpu_seconds(member)
    return total


def tree_rss(pid: int) -> float:
    return sum(rss_mib(member) for member in process_tree(pid))


@dataclass
class Result:
    attack: str
    round_trips: list[float]
    bystander_failure: str
    newcomer: float | None
    cpu: float
    rss_growth: float
    ssh: SSHBystander | None = None
    attacker: dict[str, float] = field(default_factory=dict)
    tracebacks: int = 0


async def run_attack(name: str, nothanks: str, seconds: float) -> Result:
    ssh = name in SSH_ATTACKS
    with tempfile.TemporaryDirectory() as data:
        log_path = Path(data) / "host.log"
        extra = ["--ssh-port", "0", *SSH_ATTACKS[name]] if ssh else []
        server = subprocess.Popen(
            [nothanks, "server", "--bind", HOST, "--port", "0", "--data-dir", data, "--bot-pace", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=log_path.open("w"),
            text=True,
            cwd=data,  # not this checkout: the SSH workers' forkserver puts its working directory on sys.path
        )
        try:
            assert server.stdout is not None
            line = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), 30)
            port = int(re.search(r":(\d+);", line).group(1))  # type: ignore[union-attr]
            ssh_port = port
            while ssh and ssh_port == port:
                line = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), 30)
                found = re.search(r"ssh -p (\d+)", line)
                if found:
                    ssh_port = int(found.group(1))
                elif not line:
                    raise RuntimeError(f"no SSH port: {log_path.read_text()[-2000:]}")
            rss_before = tree_rss(server.pid)
            stop = asyncio.Event()
            bystander = Bystander()
            playing = [asyncio.create_task(bystander.play(port, stop))]
            ssh_bystander = SSHBystander(PASSWORD if "--ssh-password" in extra else None) if ssh else None
            if ssh_bystander is not None:
                playing.append(asyncio.create_task(ssh_bystander.play(ssh_port, stop)))
            await asyncio.sleep(1.0)  # the bystander's game is under way before the attack
            bystander.round_trips.clear()
            cpu_before, started = tree_cpu(server.pid), time.monotonic()
            # The attack runs in a process of its own, so its client-side work never delays the bystander's reads.
            attacker = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--attacker", name, "--port", str(ssh_port), "--seconds", str(seconds + 15),
                "--attack-seconds", str(seconds), stdout=subprocess.PIPE,
            )  # fmt: skip
            peak = rss_before
            while time.monotonic() - started < seconds:
                await asyncio.sleep(0.5)
                peak = max(peak, tree_rss(server.pid))
            newcomer = await newcomer_seat_time(port)
            cpu = (tree_cpu(server.pid) - cpu_before) / (time.monotonic() - started) * 100
            stop.set()
            attacker.terminate()
            said, _ = await attacker.communicate()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*playing), 40)
            tally = json.loads(said.decode().strip().splitlines()[-1]) if said.strip() else {}
            host_log = log_path.read_text(errors="replace")
            tracebacks = host_log.count("Traceback")
            if tracebacks:  # the last line of each, once: what went wrong
                endings = re.findall(r"Traceback.*?\n(\S[^\n]*)", host_log, re.S)
                print(f"{name}: host tracebacks: {sorted(set(endings))}", file=sys.stderr)
            return Result(
                name, bystander.round_trips, bystander.failure, newcomer, cpu, peak - rss_before,
                ssh_bystander, tally, tracebacks,
            )  # fmt: skip
        finally:
            stop_server(server)


def stop_server(server: subprocess.Popen) -> None:
    """End a benchmark's server: SIGTERM (it closes as a restart), SIGKILL if it is still there after 10 s."""
    server.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(10)
    if server.poll() is None:
        server.kill()


async def attack_for(name: str, port: int, seconds: float, attack_seconds: float) -> None:
    """The attacker's process: run one attack until told to stop (SIGTERM) or ``seconds`` pass."""
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    with contextlib.suppress(NotImplementedError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    held: list[Link] = []
    try:
        if name == "ssh-guess":
            await attack_ssh_guess(port, stop, held, attack_seconds)
        else:
            await ATTACKS[name](port, stop, held)
    finally:
        for link in held:
            link.close()
        print(json.dumps(TALLY.counts), flush=True)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def report(results: list[Result]) -> str:
    lines = [
        "| attack | bystander moves | RTT p50 | RTT p99 | bystander | newcomer seated | host CPU | RSS growth |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        ms = [t * 1000 for t in r.round_trips]
        newcomer = "no" if r.newcomer is None else f"{r.newcomer * 1000:.0f} ms"
        lines.append(
            f"| {r.attack} | {len(ms)} | {statistics.median(ms) if ms else float('nan'):.1f} ms | "
            f"{percentile(ms, 0.99):.1f} ms | {r.bystander_failure or 'played on'} | {newcomer} | "
            f"{r.cpu:.0f} % | {r.rss_growth:.1f} MiB |"
        )
    ssh_rows = [r for r in results if r.ssh is not None]
    if ssh_rows:
        lines += [
            "",
            "| attack | attacker saw | SSH keys | key p50 | key p99 | SSH logins, p50 | SSH bystander "
            "| TCP RTT p50 / p99 | newcomer | host CPU | RSS growth | tracebacks |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in ssh_rows:
            assert r.ssh is not None
            keys = [t * 1000 for t in r.ssh.key_times]
            logins = [t * 1000 for t in r.ssh.login_times]
            rtt = [t * 1000 for t in r.round_trips]
            saw = ", ".join(f"{k} {v:.1f}" if v % 1 else f"{k} {v:.0f}" for k, v in sorted(r.attacker.items()))
            newcomer = "no" if r.newcomer is None else f"{r.newcomer * 1000:.0f} ms"
            lines.append(
                f"| {r.attack} | {saw} | {len(keys)} | {statistics.median(keys) if keys else float('nan'):.0f} ms | "
                f"{percentile(keys, 0.99):.0f} ms | {len(logins)}, "
                f"{statistics.median(logins) if logins else float('nan'):.0f} ms | {r.ssh.failure or 'played on'} | "
                f"{statistics.median(rtt) if rtt else float('nan'):.1f} / {percentile(rtt, 0.99):.1f} ms | "
                f"{newcomer} | {r.cpu:.0f} % | {r.rss_growth:.1f} MiB | {r.tracebacks} |"
            )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS), help="default: every attack")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each attack runs (10)")
    parser.add_argument("--nothanks", default=str(Path(sys.executable).with_name("nothanks")))
    parser.add_argument("--attacker", choices=sorted(ATTACKS), help=argparse.SUPPRESS)  # the attack's own process
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--attack-seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 16384), hard))  # 5,000 connections need the files
    if args.attacker:
        await attack_for(args.attacker, args.port, args.seconds, args.attack_seconds)
        return
    load = os.getloadavg()
    results = []
    for name in args.attack or list(ATTACKS):
        results.append(await run_attack(name, args.nothanks, args.seconds))
        print(report(results[-1:]).splitlines()[-1], flush=True)
    print(f"\nload average at start {load[0]:.2f}; server {args.nothanks}\n")
    print(report(results))


if __name__ == "__main__":
    asyncio.run(main())
