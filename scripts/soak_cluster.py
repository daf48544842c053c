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
- the chaos: every ``--kill-every`` seconds (give or take half) a table host (one that holds tables, never the
  last one standing) or a front, in turn, chosen at random, is SIGKILLed and started again 1-3 s later.

Phases: ``--idle`` seconds with no player (what the cluster costs by itself); ``--quiet`` seconds with TCP
players only; the SSH players sit down; ``--quiet`` seconds with them too
(the fronts' and table hosts' CPU and memory per player are read from /proc over these two, with no kills: a
front's SSH workers are its children); then ``--minutes`` of chaos. Then, for comparison, the same players against
one ``nothanks server`` (no Redis, no balancer) for twice ``--quiet`` seconds: the key latency without the
cluster's hop. Redis's INFO commandstats gives the commands per move (over the TCP-only phase, whose tables' every
move the players see). Prints one JSON report; exit status 1 if a move was lost.

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
sys.path.insert(
    0, str(ROOT)
)  # the harness lives with the tests (tests/cluster/cluster_processes.py), players in tools/

import asyncssh  # noqa: E402

from tests.cluster.cluster_processes import Cluster, ClusterShape, Member, running_cluster  # noqa: E402
from tests.cluster.tcp_player import TcpPlayer  # noqa: E402
from tools.loadgen.terminal_client import TerminalClient  # noqa: E402
from tools.loadgen.visitors import FIRST_BOT_SEAT, my_turn, play_my_turn  # noqa: E402

WAIT = 60.0  # a single wait that takes longer is a failure, counted and reported
ATTEMPT = 10.0  # one attempt of an SSH player to connect again; it tries again until WAIT is over


@dataclass
class Phase:
    """What the players measured during one phase."""

    name: str
    ssh_latency: list[float] = field(default_factory=list)  # key to my area redrawn
    tcp_latency: list[float] = field(default_factory=list)  # action sent to the next view
    ssh_games: int = 0
    tcp_games: int = 0


@dataclass
class Seen:
    """The moves of one game that its TCP player saw accepted (the latest view's), and whether it saw it end."""

    moves: list[tuple[int, str]]
    finished: bool = False


@dataclass
class Soak:
    phase: Phase
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    failures: list[str] = field(default_factory=list)
    kills: list[tuple[float, str]] = field(default_factory=list)
    reconnect_waits: list[float] = field(default_factory=list)  # a session lost to back at the table
    moving_waits: list[float] = field(default_factory=list)  # table_moving to the table's next view (TCP)
    games_seen: dict[tuple[str, int], Seen] = field(default_factory=dict)  # (table, its nth game) -> what was seen
    phases: list[Phase] = field(default_factory=list)
    seated: int = 0  # SSH players at their tables
    ended_while_away: int = 0  # SSH players whose game ended while their front was dead (no seat held any more)
    all_seated: asyncio.Event = field(default_factory=asyncio.Event)
    ssh_players: int = 0

    def sat_down(self) -> None:
        self.seated += 1
        if self.seated >= self.ssh_players:
            self.all_seated.set()

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
                soak.games_seen[(player.table, games)] = Seen(public(view["moves"]), finished=True)
                soak.phase.tcp_games += 1
                games += 1
                player.send({"type": "play_again"})
                await player.until(lambda: player.closed.is_set() or not (player.view or {}).get("finished"), WAIT)
                continue
            soak.games_seen[(player.table, games)] = Seen(public(view["moves"]))
            await asyncio.sleep(random.uniform(*think))  # the player's thinking time
            if player.closed.is_set() or player.view is not view:
                continue
            before = view["state_id"]
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
                soak.phase.tcp_latency.append(time.monotonic() - started)
    except Exception as error:  # reported with the others: one player's failure must not end the soak
        soak.fail(name, error)
    finally:
        soak.moving_waits.extend(player.moving_waits)
        await player.close()


async def tcp_comes_back(soak: Soak, player: TcpPlayer, port: int, source: str) -> None:
    """Its connection ended (its front died): through the balancer again, resume by token."""
    started = time.monotonic()
    deadline = started + WAIT
    refused = None
    while time.monotonic() < deadline and not soak.stop.is_set():
        try:
            welcome = await player.connect(port, source=source)
            if welcome.get("type") == "welcome":
                resumed = await player.request({"type": "resume", "token": player.token})
                refused = resumed.get("code")
                if resumed.get("type") == "joined":
                    await player.until(lambda: player.view is not None or player.closed.is_set(), WAIT)
                    soak.reconnect_waits.append(time.monotonic() - started)
                    return
        except (OSError, TimeoutError, AssertionError):
            pass
        await asyncio.sleep(0.2)  # the balancer has not noticed the dead front yet: try again shortly
    soak.fail(player.name, f"could not resume at {player.table} within {WAIT} s (last refusal: {refused})")


async def ssh_player(soak: Soak, number: int, port: int, think: tuple[float, float]) -> None:
    name, source = f"s{number}", f"127.0.3.{number + 1}"
    key = asyncssh.generate_private_key("ssh-ed25519")
    client: TerminalClient | None = None
    try:
        client = await ssh_connect(port, name, key, source)
        await client.wait_for("Your name at the table", timeout=WAIT)
        await sit_down(client)
        soak.sat_down()
        while not soak.stop.is_set():
            current = client
            try:
                await ssh_turn(soak, current, think)
            except AssertionError as error:  # closed while waiting comes here too
                if not current.closed.is_set():
                    soak.fail(name, error)
                    current.closed.set()
            except (BrokenPipeError, ConnectionError, asyncssh.Error):
                current.closed.set()  # the session was closing under a key being sent
            if current.closed.is_set():
                client = await ssh_comes_back(soak, name, port, key, source)
                if client is None:
                    return
    except Exception as error:
        soak.fail(name, error)
    finally:
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()


async def sit_down(client: TerminalClient) -> None:
    """From the name screen: a new 3-seat table, two bots, started."""
    for keys, shown in [
        ("\r", "New table"), ("c", "Create"), ("\x13", "waiting for players"), ("b", FIRST_BOT_SEAT),
        ("b", "press s to start"), ("s", "You: 11 chips"),
    ]:  # fmt: skip
        client.send(keys)
        await client.wait_for(shown, timeout=WAIT)


async def ssh_turn(soak: Soak, client: TerminalClient, think: tuple[float, float]) -> None:
    """Wait for my turn (or the game's end: then play again), think, and move, timing the key."""
    await client.wait_for(lambda: my_turn(client) or "Game over" in client.text() or client.closed.is_set(), WAIT)
    if client.closed.is_set():
        return
    if "Game over" in client.text():
        soak.phase.ssh_games += 1
        client.send("a")  # play again, at the same seats
        await client.wait_for(lambda: "Game over" not in client.text() or client.closed.is_set(), WAIT)
        return
    await asyncio.sleep(random.uniform(*think))  # the player's thinking time
    started = time.perf_counter()
    if await play_my_turn(client, timeout=WAIT):
        soak.phase.ssh_latency.append(client.last_output_at - started)


async def ssh_connect(port: int, name: str, key: Any, source: str, timeout: float = WAIT) -> TerminalClient:
    client = TerminalClient(screen="fast")
    await asyncio.wait_for(client.connect(port, name, client_keys=[key], local_addr=(source, 0)), timeout)
    return client


async def ssh_comes_back(soak: Soak, name: str, port: int, key: Any, source: str) -> TerminalClient | None:
    """Its session ended (its front died): ssh again with the same key, until back at the table."""
    started = time.monotonic()
    deadline = started + WAIT
    screen = "(none: no session opened)"
    while time.monotonic() < deadline and not soak.stop.is_set():
        try:
            # A player whose ssh hangs gives up and tries again, as people do: a connection that reached a front
            # just as it was killed was seen to hang in the handshake (HAProxy still had it up)
            client = await ssh_connect(port, name, key, source, timeout=ATTEMPT)
            try:
                back = client
                await back.wait_for(lambda c=back: "You:" in c.text() or "Your name" in c.text(), ATTEMPT * 2)
                with contextlib.suppress(AssertionError):  # the name screen first, the held seat right after?
                    await back.wait_for("You:", timeout=ATTEMPT)
                if "You:" not in back.text():
                    # No seat held for the key: its game ended while it was away (its bots played the last cards;
                    # a finished table nobody is at is closed, as on one host). A new table, then.
                    soak.ended_while_away += 1
                    await sit_down(back)
            except AssertionError:
                if not client.closed.is_set():
                    screen = " | ".join(line.strip() for line in client.text().splitlines() if line.strip())
                    await client.close()
                raise
            soak.reconnect_waits.append(time.monotonic() - started)
            return client
        except (OSError, TimeoutError, AssertionError, asyncssh.Error):
            await asyncio.sleep(0.2)  # the balancer has not noticed the dead front yet
    if not soak.stop.is_set():
        soak.fail(name, f"could not get back to its seat within {WAIT} s; last screen: {screen[:300]}")
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
        holding = {host.host_id for host in await (await cluster.directory_client()).hosts() if host.tables}
        tables = [m for m in cluster.tables if m.alive and m.name in holding]  # a host without tables: no test
        fronts = [m for m in cluster.fronts if m.alive]
        if sum(m.alive for m in cluster.tables) <= 1:
            tables = []  # never the last table host standing
        kinds = [tables, fronts] if len(soak.kills) % 2 == 0 else [fronts, tables]  # table hosts and fronts in turn
        candidates = kinds[0] or kinds[1]
        if not candidates:
            continue
        if candidates is fronts:  # the front with the most players: after a kill, they all sit on the other one
            load = await front_connections(cluster)
            candidates = [front for front in fronts if load[front.name] == max(load[f.name] for f in fronts)]
        victim = rng.choice(candidates)
        await victim.kill()
        soak.kills.append((round(time.monotonic() - began, 1), victim.name))
        await asyncio.sleep(rng.uniform(1.0, 3.0))  # down for a while, as a crashed machine is
        try:
            await victim.start()
        except RuntimeError as error:
            soak.fail(victim.name, f"did not start again: {error}")


async def front_connections(cluster: Cluster) -> dict[str, int]:
    """Each front's current connections (SSH and TCP) as HAProxy counts them."""
    assert cluster.balancer is not None
    counts = {front.name: 0 for front in cluster.fronts}
    for row in await cluster.balancer.show_stat():
        if row["svname"].startswith("game"):
            counts[cluster.fronts[int(row["svname"][4:]) - 1].name] += int(row["scur"] or 0)
    return counts


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


async def moves_lost(cluster: Cluster, seen: dict[tuple[str, int], Seen]) -> tuple[list[str], dict[str, int]]:
    """What players saw accepted against what the cluster kept: a finished game against its record (filed in Redis
    by the host that played its last move; the fenced log keeps only each table's current game), the game in
    progress against the fenced log. Problems, and counts."""
    from tools.chaos import read_store_records
    from tools.cluster_log import MoveLog

    directory = await cluster.directory_client()
    filed: dict[tuple[str, int], dict[str, Any]] = {}  # the cluster's records in Redis (redis_store.py) ...
    async for key in directory.client.scan_iter(match=f"{directory.prefix}:game:*", count=1000):
        table_id, _, number = key.decode().rsplit(":", 1)[1].partition("/")
        text = await directory.client.hget(key, "record")
        if text is not None:
            filed[(table_id, int(number))] = json.loads(text)
    for member in cluster.tables:  # ... and any a table host kept in its own store
        filed.update(read_store_records(member.workdir / "data"))
    records = [(key[0], [(int(m["seat"]), str(m["action"])) for m in record["moves"]]) for key, record in filed.items()]
    log = MoveLog(directory)
    latest = {table: max(nth for t, nth in seen if t == table) for table, _ in seen}
    problems: list[str] = []
    counts = {"finished_games_checked": 0, "current_games_checked": 0, "moves_checked": 0, "records": len(records)}
    for (table, nth), game in sorted(seen.items()):
        if game.finished:
            found = sum(1 for t, moves in records if t == table and moves == game.moves)
            if found != 1:
                problems.append(f"{table} game {nth}: a game seen finished has {found} records with its moves")
            counts["finished_games_checked"] += 1
        elif nth == latest[table]:
            game_no = int(await directory.client.hget(f"{directory.prefix}:table:{table}", "game_no") or 0)
            logged = [(m.seat, m.action) for m in await log.moves(table, game_no)]
            ended = [moves for t, moves in records if t == table and moves[: len(game.moves)] == game.moves]
            if ended:  # it ended after its player last looked: its record holds every move seen, and more
                logged = ended[0]
                counts["seen_unfinished_found_recorded"] = counts.get("seen_unfinished_found_recorded", 0) + 1
            lost = sum(1 for index, move in enumerate(game.moves) if index >= len(logged) or logged[index] != move)
            if lost:
                problems.append(
                    f"{table} game {nth}: {lost} of {len(game.moves)} moves seen accepted are in neither the log "
                    f"(game {game_no}: {len(logged)} moves) nor a record"
                )
            counts["current_games_checked"] += 1
        else:
            continue
        counts["moves_checked"] += len(game.moves)
    return problems, counts


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
    soak.ssh_players = args.ssh_players
    if not args.ssh_players:
        soak.all_seated.set()
    shape = ClusterShape(
        tables=args.tables,
        fronts=args.fronts,
        bot_pace=args.bot_pace,
        front_options=(
            "--per-address-connections",
            "1000",
            "--connects-per-minute",
            "1000000",
            "--ssh-per-address",
            "1000",
            "--ssh-connect-rate",
            "0",
            "--rate-limit",
            "1000",
        ),
    )
    async with running_cluster(directory / "cluster", shape) as cluster:
        assert cluster.balancer is not None
        fronts, tables = cluster.fronts, cluster.tables
        idle_commands = await redis_commands(cluster)
        idle_cpu = [sample(fronts), sample(tables)]
        idle_started = time.monotonic()
        await asyncio.sleep(args.idle)  # no player yet: what the cluster costs by itself (beats, leases, checks)
        idle_seconds = time.monotonic() - idle_started
        commands_before = await redis_commands(cluster)
        tasks: list[asyncio.Task[None]] = []
        cpu0 = [sample(fronts), sample(tables)]
        t0 = time.monotonic()
        idle = {
            "seconds": round(idle_seconds, 1),
            "fronts_cpu_percent": round(100 * (cpu0[0][0] - idle_cpu[0][0]) / idle_seconds, 1),
            "fronts_rss_mib": round(cpu0[0][1], 1),
            "table_hosts_cpu_percent": round(100 * (cpu0[1][0] - idle_cpu[1][0]) / idle_seconds, 1),
            "table_hosts_rss_mib": round(cpu0[1][1], 1),
            "redis_commands_per_second": round(
                (sum(commands_before.values()) - sum(idle_commands.values())) / idle_seconds, 1
            ),
        }
        report["idle"] = idle
        tasks += [
            asyncio.create_task(tcp_player(soak, n, cluster.balancer.game_port, think)) for n in range(args.tcp_players)
        ]
        await asyncio.sleep(args.quiet)  # the quiet phase's length
        cpu1 = [sample(fronts), sample(tables)]
        tcp_seconds = time.monotonic() - t0
        cpu_tcp = cpu1
        commands_quiet = await redis_commands(cluster)
        moves_quiet = sum(len(game.moves) for game in soak.games_seen.values())  # every move of the TCP tables
        soak.enter("ssh players sitting down")
        tasks += [
            asyncio.create_task(ssh_player(soak, n, cluster.balancer.ssh_port, think)) for n in range(args.ssh_players)
        ]
        with contextlib.suppress(TimeoutError):  # the SSH players' logins and app starts are not the steady cost
            await asyncio.wait_for(soak.all_seated.wait(), 180)
        report["ssh_players_seated"] = soak.seated
        soak.enter("tcp and ssh, quiet")
        cpu1 = [sample(fronts), sample(tables)]
        t1 = time.monotonic()
        await asyncio.sleep(args.quiet)
        cpu2 = [sample(fronts), sample(tables)]
        t2 = time.monotonic()
        report["costs"] = costs(args, cpu0, cpu_tcp, cpu1, cpu2, tcp_seconds, t2 - t1)
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
        lost, checked = await moves_lost(cluster, soak.games_seen)
        moves_made = sum(len(p.tcp_latency) + len(p.ssh_latency) for p in soak.phases)
        total_commands = sum(commands_after.values()) - sum(commands_before.values())
        quiet_delta = {
            name: calls - commands_before.get(name, 0)
            for name, calls in commands_quiet.items()
            if calls - commands_before.get(name, 0) > 0
        }
        report["redis_tcp_phase"] = {
            "moves": moves_quiet,
            "seconds": round(tcp_seconds, 1),
            "moves_per_second": round(moves_quiet / tcp_seconds, 1),
            "commands": sum(quiet_delta.values()),
            "commands_per_move": round(sum(quiet_delta.values()) / max(1, moves_quiet), 2),
            "commands_per_move_above_idle": round(
                (sum(quiet_delta.values()) - idle["redis_commands_per_second"] * tcp_seconds) / max(1, moves_quiet), 2
            ),
            "evalsha_per_move": round(quiet_delta.get("evalsha", 0) / max(1, moves_quiet), 2),
            "by_command": quiet_delta,
        }
        found = report["costs"]
        found["fronts_cpu_per_tcp_player_above_idle_percent"] = round(
            (found["fronts_cpu_tcp_only_percent"] - idle["fronts_cpu_percent"]) / max(1, args.tcp_players), 2
        )
        found["table_hosts_cpu_ms_per_move_above_idle"] = round(
            10
            * (found["table_hosts_cpu_percent_tcp_only"] - idle["table_hosts_cpu_percent"])
            * tcp_seconds
            / max(1, moves_quiet),
            2,
        )  # percent of a core x seconds / moves: 10 ms per percent-second
        report["redis"] = {
            "commands": total_commands,
            "players_moves_timed": moves_made,
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
            "checked": checked,
            "moves_lost": lost,
            "reconnect_waits": percentiles(soak.reconnect_waits),
            "longest_reconnect": round(max(soak.reconnect_waits, default=0.0), 2),
            "moving_waits": percentiles(soak.moving_waits),
            "longest_wait_for_a_move": round(
                max(soak.phases[-1].tcp_latency + soak.phases[-1].ssh_latency, default=0.0), 2
            ),
            "ssh_games_ended_while_away": soak.ended_while_away,
            "failures": soak.failures,
            "load_after": os.getloadavg(),
        }
    )
    return report


def costs(args: argparse.Namespace, *samples: Any) -> dict:
    """From (CPU seconds, MiB) of the fronts and of the table hosts: at the start, after the TCP-only phase, once
    the SSH players sat down, at the end; and the two phases' lengths."""
    cpu0, cpu_tcp, cpu1, cpu2, tcp_time, both_time = samples
    (front0, _), (table0, _) = cpu0
    (front_tcp, front_rss1), (table_tcp, _) = cpu_tcp
    (front1, _), (table1, _) = cpu1
    (front2, front_rss2), (table2, _) = cpu2
    tcp_share = (front_tcp - front0) / tcp_time  # cores
    both_share = (front2 - front1) / both_time
    return {
        "fronts_cpu_tcp_only_percent": round(100 * tcp_share, 1),
        "fronts_cpu_per_tcp_player_percent": round(100 * tcp_share / max(1, args.tcp_players), 2),
        "fronts_cpu_with_ssh_percent": round(100 * both_share, 1),
        "fronts_cpu_per_ssh_player_percent": round(100 * (both_share - tcp_share) / max(1, args.ssh_players), 2),
        "fronts_rss_mib_tcp_only": round(front_rss1, 1),
        "fronts_rss_mib_with_ssh": round(front_rss2, 1),
        "fronts_rss_mib_per_ssh_player": round((front_rss2 - front_rss1) / max(1, args.ssh_players), 2),
        "table_hosts_cpu_percent_tcp_only": round(100 * (table_tcp - table0) / tcp_time, 1),
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
        "--turn-timer", "off", "--per-address-connections", "1000", "--connects-per-minute", "1000000",
        "--ssh-per-address", "1000",
        "--ssh-connect-rate", "0", "--rate-limit", "1000",
    ]  # fmt: skip
    env = os.environ | {
        f"XDG_{name}_HOME": str(workdir / name.lower()) for name in ("CONFIG", "DATA", "STATE", "CACHE")
    }
    server = Member("single", "front", "127.0.0.1", arguments, workdir, env)
    await server.start()
    try:
        tasks = [asyncio.create_task(tcp_player(soak, n, server.port, think)) for n in range(args.tcp_players)]
        soak.ssh_players = args.ssh_players
        if not args.ssh_players:
            soak.all_seated.set()
        tasks += [asyncio.create_task(ssh_player(soak, n, server.ssh_port, think)) for n in range(args.ssh_players)]
        with contextlib.suppress(TimeoutError):  # measured once all sat down, as on the cluster
            await asyncio.wait_for(soak.all_seated.wait(), 180)
        soak.enter("single server")
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
        directory = args.keep or Path(temp)  # --keep: the members' logs and data stay there to be read
        report = await soak_cluster(args, directory)
        if args.quiet > 0 and not args.no_single:
            report.update(await soak_single(args, directory))
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
    parser.add_argument("--idle", type=float, default=10.0, help="seconds with no player first (default 10)")
    parser.add_argument("--tables", type=int, default=3, help="table hosts (default 3)")
    parser.add_argument("--fronts", type=int, default=2, help="fronts (1 or 2, default 2)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the members' logs and data in this directory")
    parser.add_argument("--no-single", action="store_true", help="skip the single-server comparison")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}; cpus: {os.cpu_count()}", file=sys.stderr, flush=True)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
