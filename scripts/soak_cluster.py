#!/usr/bin/env python3
"""Soak a whole cluster on this machine: SSH and TCP players through HAProxy while table hosts and fronts are
killed at random and started again; then the numbers of issue 19 (docs/scaling.md, "Measured in a soak").

It starts what tests/cluster/cluster_processes.py starts (Redis with ``appendfsync always``, three table hosts, two
fronts, HAProxy) and runs, in this process:

- TCP players (the documented protocol, tests/cluster/tcp_player.py): each at a 2-seat table with a bot, playing
  game after game; a player whose connection ends connects again through the balancer and resumes by token. Every
  view they saw accepted is compared at the end with the fenced move log in Redis: **moves lost** counts the moves
  a player saw accepted that the log does not have at their place (target 0), or has twice;
- SSH players (the game's own screens, a key each, the cheap terminal emulator of loadgen/fast_screen.py): each at
  a 3-seat table with two bots, playing game after game; one whose session ends connects again with its key
  (the balancer sends it to a live front) and is back at its seat;
- the chaos: every ``--kill-every`` seconds (give or take half) a random table host or front is SIGKILLed and
  started again 1-3 s later (never the last table host standing).

Phases: ``--quiet`` seconds with TCP players only, then as long with the SSH players too (the fronts' and table
hosts' CPU and memory per player are read from /proc over these two, with no kills), then ``--minutes`` of chaos.
Then, for comparison, the same players against one ``nothanks server`` (no Redis, no balancer) for ``--quiet``
seconds: the key latency without the cluster's hop. Prints one report; exit status 1 if a move was lost.

    .venv/bin/python scripts/soak_cluster.py [--ssh-players 20] [--tcp-players 6] [--minutes 2] [--kill-every 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the harness lives with the tests: tests/cluster/cluster_processes.py

import asyncssh  # noqa: E402

from nothanks_server.ssh.loadgen.terminal_client import TerminalClient  # noqa: E402
from nothanks_server.ssh.loadgen.visitors import my_turn, play_my_turn  # noqa: E402
from nothanks_tui.defaults import DEFAULT_BOT  # noqa: E402
from tests.cluster.cluster_processes import Cluster, ClusterShape, Member, running_cluster  # noqa: E402
from tests.cluster.tcp_player import TcpPlayer  # noqa: E402

WAIT = 60.0  # a single wait that takes longer is a failure, counted and reported


@dataclass
class Phase:
    """What the players measured during one phase."""

    name: str
    ssh_latency: list[float] = field(default_factory=list)  # key to my area redrawn
    tcp_latency: list[float] = field(default_factory=list)  # action sent to the next view
    ssh_games: int = 0
    tcp_games: int = 0


@dataclass
class Soak:
    phase: Phase
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    failures: list[str] = field(default_factory=list)
    kills: list[tuple[float, str]] = field(default_factory=list)
    reconnect_waits: list[float] = field(default_factory=list)  # a session lost to back at the table
    moving_waits: list[float] = field(default_factory=list)  # table_moving to the next view (TCP)
    games_seen: dict[tuple[str, int], list[tuple[int, str]]] = field(default_factory=dict)  # (table, nth game)
    phases: list[Phase] = field(default_factory=list)

    def enter(self, name: str) -> None:
        self.phase = Phase(name)
        self.phases.append(self.phase)

    def fail(self, who: str, error: BaseException | str) -> None:
        text = error if isinstance(error, str) else f"{type(error).__name__}: {str(error)[:200]}"
        self.failures.append(f"{who}: {text}")


# Players ----------------------------------------------------------------------------------------------------------


async def tcp_player(soak: Soak, number: int, port: int, think: tuple[float, float]) -> None:
    name, source = f"t{number}", f"127.0.2.{number + 1}"
    player = TcpPlayer(name)
    games = 0  # games finished at this table: the next is its (games)th
    try:
        await player.connect(port, source=source)
        created = await player.request({"type": "create_table", "players": 2, "bots": 1})
        if created.get("type") != "joined":
            soak.fail(name, f"create_table: {created}")
            return
        player.send({"type": "start"})
        while not soak.stop.is_set():
            if player.closed.is_set():
                await tcp_comes_back(soak, player, port, source)
                continue
            try:
                await player.until(
                    lambda: player.my_turn() or (player.view is not None and player.view["finished"])
                    or player.closed.is_set(),
                    timeout=WAIT,
                )  # fmt: skip
            except TimeoutError:
                soak.fail(name, f"no turn for {WAIT} s at {player.table} (view {summary(player.view)})")
                await player.close()
                continue
            if player.closed.is_set():
                continue
            view = player.view
            assert view is not None and player.table is not None
            if view["finished"]:
                soak.games_seen[(player.table, games)] = public(view["moves"])
                soak.phase.tcp_games += 1
                games += 1
                player.send({"type": "play_again"})
                await player.until(lambda: player.closed.is_set() or not (player.view or {}).get("finished"), WAIT)
                continue
            soak.games_seen[(player.table, games)] = public(view["moves"])
            await asyncio.sleep(random.uniform(*think))  # the player's thinking time
            if player.closed.is_set() or player.view is not view:
                continue
            before = view["state_id"]
            moving = player.moving
            started = time.monotonic()
            chips = view["chips"][player.seat] or 0
            player.send({"type": "action", "action": "pass" if chips else "take", "state_id": before})
            try:
                await player.until(
                    lambda before=before: (
                        player.closed.is_set() or (player.view is not None and player.view["state_id"] > before)
                    ),
                    timeout=WAIT,
                )
            except TimeoutError:
                soak.fail(name, f"a move at {player.table} state {before} not answered in {WAIT} s")
                await player.close()
                continue
            if not player.closed.is_set():
                took = time.monotonic() - started
                soak.phase.tcp_latency.append(took)
                if player.moving > moving:
                    soak.moving_waits.append(took)
    except Exception as error:  # reported with the others: one player's failure must not end the soak
        soak.fail(name, error)
    finally:
        await player.close()


async def tcp_comes_back(soak: Soak, player: TcpPlayer, port: int, source: str) -> None:
    """Its connection ended (its front died): through the balancer again, resume by token."""
    started = time.monotonic()
    deadline = started + WAIT
    while time.monotonic() < deadline and not soak.stop.is_set():
        try:
            welcome = await player.connect(port, source=source)
            if welcome.get("type") == "welcome":
                resumed = await player.request({"type": "resume", "token": player.token})
                if resumed.get("type") == "joined":
                    await player.until(lambda: player.view is not None or player.closed.is_set(), WAIT)
                    soak.reconnect_waits.append(time.monotonic() - started)
                    return
        except (OSError, TimeoutError, AssertionError):
            pass
        await asyncio.sleep(0.2)  # the balancer has not noticed the dead front yet: try again shortly
    soak.fail(player.name, f"could not resume at {player.table} within {WAIT} s")


async def ssh_player(soak: Soak, number: int, port: int, think: tuple[float, float]) -> None:
    name, source = f"s{number}", f"127.0.3.{number + 1}"
    key = asyncssh.generate_private_key("ssh-ed25519")
    client: TerminalClient | None = None
    try:
        client = await ssh_connect(port, name, key, source)
        await client.wait_for("Your name at the table", timeout=WAIT)
        for keys, shown in [
            ("\r", "New table"), ("c", "Create"), ("\x13", "waiting for players"), ("b", f"seat 2: {DEFAULT_BOT}"),
            ("b", "press s to start"), ("s", "You: 11 chips"),
        ]:  # fmt: skip
            client.send(keys)
            await client.wait_for(shown, timeout=WAIT)
        while not soak.stop.is_set():
            current = client
            try:
                await current.wait_for(
                    lambda c=current: my_turn(c) or "Game over" in c.text() or c.closed.is_set(),
                    timeout=WAIT,
                )
            except AssertionError as error:  # closed while waiting comes here too
                if not current.closed.is_set():
                    soak.fail(name, error)
                    current.closed.set()
            if current.closed.is_set():
                client = await ssh_comes_back(soak, name, port, key, source)
                if client is None:
                    return
                continue
            if "Game over" in current.text():
                soak.phase.ssh_games += 1
                current.send("a")  # play again, at the same seats
                await current.wait_for(lambda c=current: "Game over" not in c.text() or c.closed.is_set(), WAIT)
                continue
            await asyncio.sleep(random.uniform(*think))
            started = time.perf_counter()
            try:
                moved = await play_my_turn(current, timeout=WAIT)
            except AssertionError as error:
                if not current.closed.is_set():
                    soak.fail(name, error)
                continue
            if moved:
                soak.phase.ssh_latency.append(current.last_output_at - started)
    except Exception as error:
        soak.fail(name, error)
    finally:
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()


async def ssh_connect(port: int, name: str, key: Any, source: str) -> TerminalClient:
    client = TerminalClient(screen="fast")
    await asyncio.wait_for(client.connect(port, name, client_keys=[key], local_addr=(source, 0)), WAIT)
    return client


async def ssh_comes_back(soak: Soak, name: str, port: int, key: Any, source: str) -> TerminalClient | None:
    """Its session ended (its front died): ssh again with the same key, until back at the table."""
    started = time.monotonic()
    deadline = started + WAIT
    while time.monotonic() < deadline and not soak.stop.is_set():
        try:
            client = await ssh_connect(port, name, key, source)
            await client.wait_for(lambda c=client: "You:" in c.text() or "Your name" in c.text(), timeout=WAIT)
            if "You:" in client.text():
                soak.reconnect_waits.append(time.monotonic() - started)
                return client
            soak.fail(name, "came back to the name screen, not to its seat")
            await client.close()
            return None
        except (OSError, TimeoutError, AssertionError, asyncssh.Error):
            await asyncio.sleep(0.2)  # the balancer has not noticed the dead front yet
    if not soak.stop.is_set():
        soak.fail(name, f"could not get back to its seat within {WAIT} s")
    return None


def public(moves: list[list[Any]]) -> list[tuple[int, str]]:
    return [(int(move[0]), str(move[1])) for move in moves]


def summary(view: dict[str, Any] | None) -> str:
    if view is None:
        return "none"
    return f"state {view['state_id']}, to move {view['to_move']}, finished {view['finished']}"


# The chaos ------------------------------------------------------------------------------------------------------


async def chaos(soak: Soak, cluster: Cluster, every: float, began: float) -> None:
    rng = random.Random(7)
    while not soak.stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(soak.stop.wait(), rng.uniform(every / 2, every * 1.5))  # the next kill's time
        if soak.stop.is_set():
            return
        candidates = [m for m in cluster.members if m.alive]
        if sum(m.role == "table" and m.alive for m in cluster.members) <= 1:
            candidates = [m for m in candidates if m.role != "table"]
        victim = rng.choice(candidates)
        await victim.kill()
        soak.kills.append((time.monotonic() - began, victim.name))
        await asyncio.sleep(rng.uniform(1.0, 3.0))  # down for a while, as a crashed machine is
        try:
            await victim.start()
        except RuntimeError as error:
            soak.fail(victim.name, f"did not start again: {error}")


# Measuring the processes ----------------------------------------------------------------------------------------


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (a front's SSH workers are its children)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def cpu_and_rss(pids: list[int]) -> tuple[float, float]:
    """CPU seconds used so far and resident MiB, summed over ``pids``."""
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = rss = 0.0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / ticks
            rss += int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
    return cpu, rss


def sample(members: list[Member]) -> tuple[float, float]:
    pids = [pid for m in members if m.alive and m.process for pid in process_tree(m.process.pid)]
    return cpu_and_rss(pids)


async def redis_commands(cluster: Cluster) -> dict[str, int]:
    directory = await cluster.directory_client()
    stats = await directory.client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


async def logged_games(cluster: Cluster) -> dict[str, list[list[tuple[int, str]]]]:
    """Every table's games in the fenced log, in game order: (seat, action) of each move."""
    from nothanks_server.cluster.movelog import MoveLog

    directory = await cluster.directory_client()
    log = MoveLog(directory)
    games: dict[str, dict[int, list[tuple[int, str]]]] = {}
    async for key in directory.client.scan_iter(match=f"{directory.prefix}:moves:*", count=1000):
        _, _, table, number = key.decode().rsplit(":", 3)
        games.setdefault(table, {})[int(number)] = [(m.seat, m.action) for m in await log.moves(table, int(number))]
    return {table: [numbered[n] for n in sorted(numbered)] for table, numbered in games.items()}


def moves_lost(seen: dict[tuple[str, int], list[tuple[int, str]]], logged: dict[str, list[list[Any]]]) -> list[str]:
    problems = []
    for (table, nth), moves in sorted(seen.items()):
        games = logged.get(table, [])
        log = games[nth] if nth < len(games) else []
        lost = sum(1 for index, move in enumerate(moves) if index >= len(log) or log[index] != move)
        if lost:
            problems.append(f"{table} game {nth}: {lost} of {len(moves)} moves seen accepted are not in the log")
    return problems


# The run ----------------------------------------------------------------------------------------------------------


def percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return f"n={len(values)}"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    p50, top = statistics.median(ordered), ordered[-1]
    return f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {top * 1000:.0f} ms (n={len(ordered)})"


async def soak_cluster(args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    soak = Soak(Phase("tcp only"))
    soak.phases.append(soak.phase)
    think = (args.think_min, args.think_max)
    report: dict[str, Any] = {"load_before": os.getloadavg()}
    shape = ClusterShape(
        bot_pace=args.bot_pace,
        front_options=("--per-address-connections", "1000", "--ssh-per-address", "1000", "--rate-limit", "1000"),
    )
    async with running_cluster(directory / "cluster", shape) as cluster:
        assert cluster.balancer is not None
        fronts, tables = cluster.fronts, cluster.tables
        commands_before = await redis_commands(cluster)
        tasks: list[asyncio.Task[None]] = []
        cpu0 = [sample(fronts), sample(tables)]
        t0 = time.monotonic()
        tasks += [
            asyncio.create_task(tcp_player(soak, n, cluster.balancer.game_port, think)) for n in range(args.tcp_players)
        ]
        await asyncio.sleep(args.quiet)  # the quiet phase's length
        cpu1 = [sample(fronts), sample(tables)]
        t1 = time.monotonic()
        soak.enter("tcp and ssh, quiet")
        tasks += [
            asyncio.create_task(ssh_player(soak, n, cluster.balancer.ssh_port, think)) for n in range(args.ssh_players)
        ]
        await asyncio.sleep(args.quiet)
        cpu2 = [sample(fronts), sample(tables)]
        t2 = time.monotonic()
        report["costs"] = costs(args, cpu0, cpu1, cpu2, t1 - t0, t2 - t1)
        soak.enter("chaos")
        began = time.monotonic()
        chaos_task = asyncio.create_task(chaos(soak, cluster, args.kill_every, began))
        await asyncio.sleep(args.minutes * 60)
        soak.stop.set()
        await chaos_task
        await asyncio.wait(tasks, timeout=WAIT)
        for task in tasks:
            task.cancel()
        commands_after = await redis_commands(cluster)
        logged = await logged_games(cluster)
        lost = moves_lost(soak.games_seen, logged)
        moves_in_log = sum(len(game) for games in logged.values() for game in games)
        total_commands = sum(commands_after.values()) - sum(commands_before.values())
        report["redis"] = {
            "moves_in_log": moves_in_log,
            "commands": total_commands,
            "commands_per_logged_move": round(total_commands / max(1, moves_in_log), 2),
            "by_command": {
                name: calls - commands_before.get(name, 0)
                for name, calls in sorted(commands_after.items())
                if calls - commands_before.get(name, 0) > 0
            },
        }
    report.update(
        {
            "phases": {p.name: phase_report(p) for p in soak.phases},
            "kills": soak.kills,
            "moves_seen_accepted": sum(len(moves) for moves in soak.games_seen.values()),
            "moves_lost": lost,
            "reconnect_waits": percentiles(soak.reconnect_waits),
            "longest_reconnect": round(max(soak.reconnect_waits, default=0.0), 2),
            "moving_waits": percentiles(soak.moving_waits),
            "longest_wait_for_a_move": round(
                max(soak.phases[-1].tcp_latency + soak.phases[-1].ssh_latency, default=0.0), 2
            ),
            "failures": soak.failures,
            "load_after": os.getloadavg(),
        }
    )
    return report


def costs(args: argparse.Namespace, cpu0: list, cpu1: list, cpu2: list, tcp_time: float, both_time: float) -> dict:
    (front0, _), (table0, _) = cpu0
    (front1, front_rss1), (table1, _) = cpu1
    (front2, front_rss2), (table2, _) = cpu2
    tcp_share = (front1 - front0) / tcp_time  # cores
    both_share = (front2 - front1) / both_time
    return {
        "fronts_cpu_tcp_only_percent": round(100 * tcp_share, 1),
        "fronts_cpu_per_tcp_player_percent": round(100 * tcp_share / max(1, args.tcp_players), 2),
        "fronts_cpu_with_ssh_percent": round(100 * both_share, 1),
        "fronts_cpu_per_ssh_player_percent": round(100 * (both_share - tcp_share) / max(1, args.ssh_players), 2),
        "fronts_rss_mib_tcp_only": round(front_rss1, 1),
        "fronts_rss_mib_with_ssh": round(front_rss2, 1),
        "fronts_rss_mib_per_ssh_player": round((front_rss2 - front_rss1) / max(1, args.ssh_players), 2),
        "table_hosts_cpu_percent_tcp_only": round(100 * (table1 - table0) / tcp_time, 1),
        "table_hosts_cpu_percent_with_ssh": round(100 * (table2 - table1) / both_time, 1),
    }


def phase_report(phase: Phase) -> dict[str, Any]:
    return {
        "ssh_key_to_update": percentiles(phase.ssh_latency),
        "tcp_move_to_update": percentiles(phase.tcp_latency),
        "ssh_games_finished": phase.ssh_games,
        "tcp_games_finished": phase.tcp_games,
    }


async def soak_single(args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    """The same players against one ``nothanks server`` (no Redis, no balancer): latency without the hop."""
    soak = Soak(Phase("single server"))
    soak.phases.append(soak.phase)
    think = (args.think_min, args.think_max)
    workdir = directory / "single"
    arguments = [
        "--bind", "127.0.0.1", "--data-dir", str(workdir / "data"), "--no-advertise", "--bot-pace", str(args.bot_pace),
        "--turn-timer", "off", "--per-address-connections", "1000", "--ssh-per-address", "1000",
        "--rate-limit", "1000",
    ]  # fmt: skip
    env = os.environ | {
        f"XDG_{name}_HOME": str(workdir / name.lower()) for name in ("CONFIG", "DATA", "STATE", "CACHE")
    }
    server = Member("single", "front", "127.0.0.1", arguments, workdir, env)
    await server.start()
    try:
        tasks = [asyncio.create_task(tcp_player(soak, n, server.port, think)) for n in range(args.tcp_players)]
        tasks += [asyncio.create_task(ssh_player(soak, n, server.ssh_port, think)) for n in range(args.ssh_players)]
        await asyncio.sleep(args.quiet * 2)
        soak.stop.set()
        await asyncio.wait(tasks, timeout=WAIT)
        for task in tasks:
            task.cancel()
    finally:
        await server.stop()
    return {"single_server": phase_report(soak.phase), "single_failures": soak.failures}


async def main_async(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="nothanks-soak-") as temp:
        report = await soak_cluster(args, Path(temp))
        if args.quiet > 0 and not args.no_single:
            report.update(await soak_single(args, Path(temp)))
    print(json.dumps(report, indent=2))
    return 1 if report["moves_lost"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ssh-players", type=int, default=20)
    parser.add_argument("--tcp-players", type=int, default=6)
    parser.add_argument("--minutes", type=float, default=2.0, help="of chaos (default 2)")
    parser.add_argument("--kill-every", type=float, default=20.0, help="seconds between kills, give or take half")
    parser.add_argument("--quiet", type=float, default=20.0, help="seconds of each quiet phase (default 20)")
    parser.add_argument("--think-min", type=float, default=0.5, help="a player's shortest think before a move")
    parser.add_argument("--think-max", type=float, default=2.0, help="and longest (seconds)")
    parser.add_argument("--bot-pace", type=float, default=0.3, help="the table hosts' --bot-pace")
    parser.add_argument("--no-single", action="store_true", help="skip the single-server comparison")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}; cpus: {os.cpu_count()}", file=sys.stderr, flush=True)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
