"""Kill the host again and again and check that nothing is lost: the chaos run behind scripts/chaos_host.py and
tests/test_chaos.py (the short version CI runs).

It runs a real ``nothanks server --data-dir D`` process on loopback with many tables (scripted TCP players, who
speak the documented protocol and keep their seat tokens, and bots), SIGKILLs it at random moments (some of them
right after a player saw a game end, while the host writes the record), restarts it with the same data dir, and
checks after every restart:

- no table in progress is lost: every seat token resumes its seat, also when the players come back late
  (``away``) and the bots, standing in for them (``turn_timer``), finished the game meanwhile;
- no accepted move is lost: every move a player saw in an ``update`` is in the restarted table's view;

and at the end (after a clean SIGTERM), that every finished game is recorded exactly once, in the store and as a
JSON file with the same content, that each record replays (``nothanks_tui.engine.replay``), and that every game a
player saw finish is among them. Everything is bounded: a time budget, a kill count, a timeout on every wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import signal
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from nothanks_server.store import DATABASE_NAME
from nothanks_tui.engine import IllegalMove, replay
from nothanks_tui.link import errors
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

WAIT = 20.0  # upper bound on any single wait (a loaded machine's process start included)
RECORD_NAME = re.compile(r"^\d{8}-\d{6}-(?P<table>t\d+)-g(?P<game>\d+)\.json$")


@dataclass(frozen=True)
class ChaosSettings:
    """``kills`` SIGKILLs over at most ``seconds``; ``tables`` tables kept going; ``humans`` scripted players per
    table (the other seats are bots); ``after_finish`` of the kills land right after a player saw a game end."""

    data_dir: Path
    kills: int = 30
    tables: int = 8
    players: int = 3
    humans: int = 2
    seconds: float = 600.0
    seed: int = 1
    bot_pace: float = 0.1
    after_finish: float = 0.3  # share of kills that wait for a game to end, then kill at once
    turn_timer: float | None = None  # the host's --turn-timer: a bot plays an away player's turn after it
    away: float = 0.0  # the players come back up to this many seconds after a restart (at random)
    python: str = sys.executable


@dataclass
class ChaosReport:
    kills: int = 0
    kills_after_finish: int = 0
    restarts: int = 0
    tables_created: int = 0
    tables_resumed: int = 0  # table resumptions checked after a restart (one per table per restart)
    tokens_resumed: int = 0  # seat tokens that took their seat back after a restart (summed over restarts)
    over_on_return: int = 0  # ...of which to a game that ended while its player was away
    moves_checked: int = 0  # acknowledged moves found again after a restart (summed over restarts)
    moves_acknowledged: int = 0  # distinct moves players saw acknowledged
    games_seen_finished: int = 0
    records_in_store: int = 0
    records_as_json: int = 0
    records_replayed: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def rows(self) -> list[tuple[str, object]]:
        return [
            ("SIGKILLs", self.kills),
            ("  of which right after a game ended", self.kills_after_finish),
            ("restarts", self.restarts),
            ("tables created", self.tables_created),
            ("table resumptions checked", self.tables_resumed),
            ("seat tokens resumed", self.tokens_resumed),
            ("  of which to a game over meanwhile", self.over_on_return),
            ("acknowledged moves", self.moves_acknowledged),
            ("acknowledged moves found after restarts", self.moves_checked),
            ("games seen finished", self.games_seen_finished),
            ("records in the store", self.records_in_store),
            ("records as JSON", self.records_as_json),
            ("records that replay", self.records_replayed),
            ("problems", len(self.problems)),
            ("seconds", f"{self.seconds:.1f}"),
        ]

    def table(self) -> str:
        width = max(len(name) for name, _ in self.rows())
        lines = [f"{name:<{width}}  {value}" for name, value in self.rows()]
        lines += [f"  problem: {problem}" for problem in self.problems[:20]]
        return "\n".join(lines)


@dataclass
class TrackedTable:
    """What the players of one table know: its seats' tokens and the moves they saw acknowledged."""

    table_id: str
    tokens: dict[int, str] = field(default_factory=dict)
    moves: list[list[Any]] = field(default_factory=list)  # the latest acknowledged view's public moves
    finished: bool = False


class Player:
    """One scripted player on one TCP connection: resumes or sits, then moves whenever it is its turn."""

    def __init__(self, run: ChaosRun, name: str) -> None:
        self.run = run
        self.name = name
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=1 << 22)
        self.table: TrackedTable | None = None
        self.seat: int | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._task: asyncio.Task[None] | None = None
        self.first_view: dict[str, Any] | None = None  # the first update on this connection (a resumed table's)
        self._acted_on = -1  # the state id this player last moved in (one move per state, never a stale one)

    async def connect(self, port: int) -> None:
        self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), WAIT)
        self.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": self.name, "client": "chaos"})
        self._task = asyncio.get_running_loop().create_task(self._read())

    def send(self, message: dict[str, Any]) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(encode(message))

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        self.send({**message, "id": request_id})
        return await asyncio.wait_for(future, WAIT)

    async def _read(self) -> None:
        assert self.reader is not None
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    break
                self.unpacker.feed(data)
                for frame in self.unpacker:
                    self._frame(frame)
        except (ConnectionError, OSError):
            pass
        for future in self._replies.values():
            if not future.done():
                future.set_result({"type": "error", "code": errors.CLOSED})

    def _frame(self, frame: dict[str, Any]) -> None:
        reply_to = frame.get("re")
        if isinstance(reply_to, int) and reply_to in self._replies:
            future = self._replies.pop(reply_to)
            if not future.done():
                future.set_result(frame)
            return
        if frame.get("type") == "update" and self.table is not None:
            view = frame["view"]
            if self.first_view is None:
                self.first_view = view
            self.run.acknowledged(self.table, view)
            my_turn = not view["finished"] and view["to_move"] == self.seat == view["seat"]
            if my_turn and view["state_id"] > self._acted_on:
                self._acted_on = view["state_id"]
                chips = view["chips"][self.seat] or 0
                action = "pass" if chips > 0 and self.run.rng.random() < 0.6 else "take"
                self.send({"type": "action", "action": action, "state_id": view["state_id"]})
        elif frame.get("type") == "waiting":
            if self.first_view is None:  # (a table killed before its game started comes back waiting)
                self.first_view = {"moves": [], "finished": False}
            if frame.get("can_start"):
                self.send({"type": "start"})

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(ConnectionError, OSError, TimeoutError):
                await asyncio.wait_for(self.writer.wait_closed(), 2.0)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class ChaosRun:
    def __init__(self, settings: ChaosSettings) -> None:
        self.settings = settings
        self.rng = random.Random(settings.seed)
        self.report = ChaosReport()
        self.tracked: list[TrackedTable] = []
        self.finished_games: list[tuple[str, list[list[Any]]]] = []  # (table, moves) players saw finish
        self.players: list[Player] = []
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self.game_ended = asyncio.Event()
        self._acknowledged: dict[str, int] = {}
        self._stderr = settings.data_dir.parent / f"{settings.data_dir.name}-host-stderr.log"

    # ------------------------------------------------------------------------------------------- bookkeeping

    def acknowledged(self, table: TrackedTable, view: dict[str, Any]) -> None:
        moves = view["moves"]
        if len(moves) < len(table.moves) and not table.finished:
            return  # an older frame than one already seen (another seat's connection)
        if table.finished:
            return
        table.moves = moves
        self._acknowledged[table.table_id] = max(self._acknowledged.get(table.table_id, 0), len(moves))
        if view["finished"]:
            table.finished = True
            self.finished_games.append((table.table_id, moves))
            self.report.games_seen_finished += 1
            self.game_ended.set()

    def problem(self, text: str) -> None:
        self.report.problems.append(text)

    # ------------------------------------------------------------------------------------------- the host

    async def start_host(self) -> None:
        command = [
            self.settings.python,
            "-m",
            "nothanks_tui",
            "server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.settings.data_dir),
            "--bot-pace",
            str(self.settings.bot_pace),
            "--turn-timer",
            "off" if self.settings.turn_timer is None else str(self.settings.turn_timer),
            "--rate-limit",
            "100000",
            # every player comes from 127.0.0.1: lift the per-address limits
            "--per-address-connections",
            "100000",
            "--per-address-tables",
            "100000",
        ]
        with open(self._stderr, "ab") as stderr:
            self.process = await asyncio.create_subprocess_exec(
                *command, stdout=asyncio.subprocess.PIPE, stderr=stderr, stdin=asyncio.subprocess.DEVNULL
            )
        assert self.process.stdout is not None
        line = (await asyncio.wait_for(self.process.stdout.readline(), WAIT)).decode()
        match = re.search(r"127\.0\.0\.1:(\d+)", line)
        if match is None:
            raise RuntimeError(f"the host did not start: {line!r} (see {self._stderr})")
        self.port = int(match.group(1))
        self.report.restarts += 1

    async def kill_host(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        await asyncio.wait_for(self.process.wait(), WAIT)
        self.report.kills += 1
        await self.drop_players()

    async def stop_host(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.process.wait(), WAIT)
        if code != 0:
            self.problem(f"the host exited with {code} on SIGTERM")
        await self.drop_players()

    async def drop_players(self) -> None:
        players, self.players = self.players, []
        await asyncio.gather(*(player.close() for player in players))

    # ------------------------------------------------------------------------------------------- players

    async def resume_all(self) -> None:
        """Every table in progress: each of its players resumes its seat; the view must hold every move seen."""
        for table in list(self.tracked):
            if table.finished:
                self.tracked.remove(table)
                continue
            moves_before = list(table.moves)
            resumed = 0
            for seat, token in table.tokens.items():
                player = Player(self, f"p{seat}")
                player.table, player.seat = table, seat  # the view arrives right before `joined`
                await player.connect(self.port)
                self.players.append(player)
                reply = await player.request({"type": "resume", "token": token})
                if reply.get("type") != "joined":  # (a game over meanwhile keeps its seats for the grace too)
                    player.table = None
                    self.problem(f"{table.table_id} seat {seat}: resume refused ({reply.get('code')})")
                    continue
                if player.first_view is None:
                    self.problem(f"{table.table_id} seat {seat}: no view before `joined`")
                    continue
                self.check_resumed_view(table, moves_before, player.first_view)
                resumed += 1
                self.report.tokens_resumed += 1
                self.report.over_on_return += int(player.first_view["finished"])  # (ended while they were away)
            if resumed:
                self.report.tables_resumed += 1

    def check_resumed_view(self, table: TrackedTable, moves_before: list[list[Any]], view: dict[str, Any]) -> None:
        if view["moves"][: len(moves_before)] != moves_before:
            self.problem(
                f"{table.table_id}: {len(moves_before)} moves acknowledged before the kill, the restarted view has "
                f"{len(view['moves'])} and they differ"
            )
        else:
            self.report.moves_checked += len(moves_before)

    async def new_table(self) -> None:
        settings = self.settings
        creator = Player(self, "p0")
        await creator.connect(self.port)
        self.players.append(creator)
        bots = settings.players - settings.humans
        reply = await creator.request({"type": "create_table", "players": settings.players, "bots": bots})
        if reply.get("type") != "joined":
            self.problem(f"create_table refused: {reply}")
            return
        table = TrackedTable(reply["table"], {reply["seat"]: reply["token"]})
        self.tracked.append(table)
        self.report.tables_created += 1
        creator.table, creator.seat = table, reply["seat"]
        for number in range(1, settings.humans):
            player = Player(self, f"p{number}")
            await player.connect(self.port)
            self.players.append(player)
            joined = await player.request({"type": "join", "table": table.table_id})
            if joined.get("type") != "joined":
                self.problem(f"join {table.table_id} refused: {joined}")
                continue
            table.tokens[joined["seat"]] = joined["token"]
            player.table, player.seat = table, joined["seat"]

    # ------------------------------------------------------------------------------------------- the run

    async def run(self) -> ChaosReport:
        started = time.monotonic()
        deadline = started + self.settings.seconds
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            await self.start_host()
            while self.report.kills < self.settings.kills and time.monotonic() < deadline:
                await self.epoch(deadline)
                await self.start_host()
            await self.resume_all()  # the last restart is checked too
            await self.stop_host()
        finally:
            if self.process is not None and self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
            await self.drop_players()
        if self.report.kills < self.settings.kills:
            self.problem(f"only {self.report.kills} of {self.settings.kills} kills within {self.settings.seconds} s")
        self.check_records()
        self.report.moves_acknowledged = sum(self._acknowledged.values())
        self.report.seconds = time.monotonic() - started
        return self.report

    async def epoch(self, deadline: float) -> None:
        """Resume every table (after up to ``away`` seconds), top up to ``tables`` tables, play for a while, then
        SIGKILL the host."""
        await asyncio.sleep(self.rng.uniform(0, self.settings.away))
        await self.resume_all()
        while sum(1 for table in self.tracked if not table.finished) < self.settings.tables:
            await self.new_table()
        self.game_ended.clear()
        if self.rng.random() < self.settings.after_finish:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.game_ended.wait(), max(0.1, min(WAIT, deadline - time.monotonic())))
                self.report.kills_after_finish += 1
        else:
            await asyncio.sleep(self.rng.uniform(0.05, 1.5))
        await self.kill_host()

    def check_records(self) -> None:
        """Each finished game exactly once: one store record, one JSON file with the same content, replayable."""
        directory = self.settings.data_dir
        stored = read_store_records(directory)
        self.report.records_in_store = len(stored)
        files: dict[tuple[str, int], list[Path]] = {}
        for path in directory.glob("*.json"):
            match = RECORD_NAME.match(path.name)
            if match is None:
                self.problem(f"an unexpected file {path.name}")
                continue
            files.setdefault((match["table"], int(match["game"])), []).append(path)
        self.report.records_as_json = sum(len(paths) for paths in files.values())
        for key, paths in files.items():
            if len(paths) != 1:
                self.problem(f"{key}: {len(paths)} JSON files")
            if key not in stored:
                self.problem(f"{key}: a JSON file the store has no record of")
        for key, record in stored.items():
            if key not in files:
                self.problem(f"{key}: recorded in the store, no JSON file")
            elif json.loads(files[key][0].read_text()) != record:
                self.problem(f"{key}: the JSON file differs from the store's record")
            try:
                replay(record)
                self.report.records_replayed += 1
            except IllegalMove as error:
                self.problem(f"{key}: the record does not replay ({error})")
        temps = [path.name for path in directory.iterdir() if path.name.endswith(".tmp")]
        if temps:
            self.problem(f"temp files left: {temps[:5]}")
        for table_id, moves in self.finished_games:
            wanted = [[m[0], m[1]] for m in moves]
            if not any(
                key[0] == table_id and [[m["seat"], m["action"]] for m in record["moves"]] == wanted
                for key, record in stored.items()
            ):
                self.problem(f"{table_id}: a game players saw finish has no record")
        if self._stderr.exists() and "Traceback" in self._stderr.read_text(errors="replace"):
            self.problem(f"a traceback in the host's log ({self._stderr})")


def read_store_records(data_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The finished games' records in the store, read-only (the host may be running)."""
    path = data_dir / DATABASE_NAME
    if not path.exists():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=WAIT)
    try:
        return {
            (table_id, game_no): json.loads(text)
            for table_id, game_no, text in db.execute("SELECT table_id, game_no, record FROM records")
        }
    finally:
        db.close()


def run_chaos(settings: ChaosSettings) -> ChaosReport:
    """Run the chaos (blocking; its own event loop) and return what it found."""
    return asyncio.run(ChaosRun(settings).run())
