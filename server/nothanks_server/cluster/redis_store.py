"""The table store of a cluster's table hosts: every table in Redis, so that any table host can restore any table.

Why: a table must outlive its host (issue 19). Each table's seats, deal and moves are in the cluster's Redis
(docs/scaling.md, "Keys in Redis"), written only by the host holding the table's lease (leases.py) and refused to
any other (fencing: each write is a script that first checks the lease, epoch and all); the host that takes a table
over (takeover.py) reads it back with ``load_table`` at its last accepted move.

Finished games are filed here for the whole cluster: a front sends ``history``, ``replay`` and ``stats`` to any
table host, so each answers alike. A game's record, with archive.py's summary and per-player totals (who a player
is, as there: ``key:``, ``seat:``, else the name; ``bot:``), is filed once by the host that played its last move,
in that move's round trip and fenced by the same lease, and rates its people only if the ratings read before are
still there. The local ``SqliteStore`` only says whether each game's JSON file was written.

The moves, the hot path, go on the asyncio client (``add_moves_async``, the group commit's: one round trip, one
script call for every table's moves), so the event loop never waits for Redis while 500 tables play; the rare
writes (a seat, a deal, a new or dropped table, a key binding) on the blocking one, as the table's ``_persist``
expects (exchanges.py lets one code serve both).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack
import redis

from nothanks_tui.link.history import STATS_ROWS, GameListing, PlayerStats, Rated, game_id

from .. import ratings
from ..archive import HOST, finished_at, host_identities, listing, stats_row, summarise, who_is
from ..store import (
    SqliteStore,
    StoredMove,
    StoredRecord,
    StoredSeat,
    StoredTable,
    StoreError,
    TablesRefused,
    open_store,
)
from .directory import Keyed, seat_at
from .directory import text as _text
from .exchanges import Command, Exchange, Lua, asked, call, connect, run, run_async
from .leases import LeaseBook
from .movelog import APPEND_MANY, GAP, NOT_HOLDER, OTHER_MOVE, LoggedMove, moves_key, pack_move

log = logging.getLogger(__name__)

REDIS_TIMEOUT = 1.0  # seconds
DAILY_KEPT = 8 * 86400  # seconds a day's daily results stay
RETRY_FIRST, RETRY_MOST = 0.05, 0.5  # seconds between sending unanswered moves again (doubling)
CHANGED = -2  # the fenced script's answer when a rating it was to replace changed meanwhile

# KEYS[1]: the table's lease; KEYS[2..]: the keys the operations name. ARGV[1]: the writer's lease value;
# ARGV[2]: the operations, msgpack without its bin type (which Lua's cmsgpack cannot read): a list of
# {command, index of its key in KEYS, arguments...}; ARGV[3], optional: the index in KEYS of a key whose presence
# means it was all done already; ARGV[4], optional (with ARGV[3]): {index in KEYS of a hash, field, value} the hash
# must still hold ('': no such field; players' ratings read before). All or nothing: -1 (not the lease holder:
# nothing written), -2 (a value changed: nothing written), 0 (done already), or 1.
_FENCED = Lua("""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if ARGV[3] and redis.call('EXISTS', KEYS[tonumber(ARGV[3])]) == 1 then return 0 end
for _, held in ipairs(ARGV[4] and cmsgpack.unpack(ARGV[4]) or {}) do
  if (redis.call('HGET', KEYS[held[1]], held[2]) or '') ~= held[3] then return -2 end
end
for _, op in ipairs(cmsgpack.unpack(ARGV[2])) do
  op[2] = KEYS[op[2]]
  redis.call(unpack(op))
end
return 1
""")
_APPEND_MANY = Lua(APPEND_MANY)
# A table hash's fields absent while None: (field, StoredTable's name, type).
_OPTIONAL: list[tuple[str, str, Callable[[bytes], Any]]] = [("creator", "creator_seat", int), ("seed", "seed", int)]
_OPTIONAL += [
    ("started_at", "started_at", float),
    ("invite", "invite", bytes.decode),
    ("turn_clock", "turn_clock", float),
]


class _Writes:
    """Redis commands for the fenced script, each naming its key by its place in KEYS (declared, as scripts must),
    the first the table's lease."""

    def __init__(self, lease_key: str) -> None:
        self.keys: list[str] = [lease_key]
        self.ops: list[list[Any]] = []

    def __call__(self, command: str, key: str, *args: object) -> None:
        self.ops.append([command, self.index(key), *(_arg(arg) for arg in args)])

    def hset(self, key: str, fields: Mapping[str, object]) -> None:
        self("HSET", key, *(part for pair in fields.items() for part in pair))

    def index(self, key: str) -> int:
        """``key``'s place in KEYS, counted from 1 as Lua does."""
        if key not in self.keys:
            self.keys.append(key)
        return self.keys.index(key) + 1


def open_redis_store(url: str, prefix: str, data_dir: Path | None) -> RedisTableStore:
    """The store of a table host on the Redis at ``url`` (``leases.owner`` is set once the host knows its id), its
    JSON files' bookkeeping in ``data_dir``. Nothing is sent yet: a Redis out of reach shows as the host joins."""
    timeouts = {"socket_timeout": REDIS_TIMEOUT, "socket_connect_timeout": REDIS_TIMEOUT}  # (a Redis that hangs)
    client, aclient = connect(url, False, **timeouts), connect(url, True, **timeouts)
    return RedisTableStore(LeaseBook(client, aclient, prefix, owner=""), open_store(data_dir))


class RedisTableStore(Keyed):
    """``TableStore`` (store.py) in Redis for the table host ``leases.owner``, on the leases' clients (blocking;
    asyncio for the moves); ``local`` keeps the games it finished, for their JSON files. ``on_fenced(table_id)``:
    a write was refused, this host no longer holds the lease (the table must stop here: another may play it)."""

    def __init__(self, leases: LeaseBook, local: SqliteStore) -> None:
        super().__init__(leases.client, leases.prefix)
        self.aclient = leases.aclient
        self.leases = leases
        self.local = local
        self.on_fenced: Callable[[str], None] | None = None
        self._closing: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------------------------------- tables

    def load_tables(self) -> list[StoredTable]:
        """None: a table host holds no table when it starts; it takes them by lease (created, or taken over)."""
        return []

    def load_table(self, table_id: str) -> StoredTable | None:
        """``table_id`` as the store has it, at its last accepted move (None if it is not in the store)."""
        [table] = self.ask(("HGETALL", self.key("table", table_id)))
        fields = {_text(name): value for name, value in table.items()}
        if "config" not in fields:
            return None
        game_no = int(fields.get("game_no", 0))
        [logged] = self.ask(("LRANGE", moves_key(self.prefix, table_id, game_no), 0, -1)) if game_no else [[]]
        players, open_chips, variant, default_bot, chips, _created = msgpack.unpackb(fields["config"])
        found = _seats(fields)
        moves = tuple((move.seat, move.action) for move in (LoggedMove(*msgpack.unpackb(item)) for item in logged))
        known: dict[str, Any] = {name: kind(fields[key]) for key, name, kind in _OPTIONAL if key in fields}
        known |= {name: fields.get(name) == b"1" for name in ("finished", "coach")}
        config = (table_id, players, open_chips, variant, default_bot, chips, tuple(map(found.get, range(players))))
        return StoredTable(*config, game_no=game_no, moves=moves, **known)

    def next_table_number(self) -> int:
        return int(self.ask(("INCR", self.key("next_table")))[0])

    def create_table(self, table: StoredTable) -> None:
        """A new table, with its lease taken for this host."""
        with redis_errors():
            lease = self.leases.acquire(table.table_id)
        if lease is None:
            raise StoreError(f"table {table.table_id} is held by another host")
        write = self._writes(table.table_id)
        config = (table.players, table.open_chips, table.variant, table.default_bot, table.chips_per_player)
        fields = {"config": msgpack.packb((*config, time.time())), "game_no": table.game_no}
        fields |= {"finished": table.finished, "coach": table.coach}
        optional = {"creator": table.creator_seat, "invite": table.invite or None, "turn_clock": table.turn_clock}
        fields |= {name: value for name, value in optional.items() if value is not None}
        write.hset(self.key("table", table.table_id), fields)
        for index, seat in enumerate(table.seats):
            if seat is not None:
                self._put_seat(write, table.table_id, index, seat)
        try:
            self._commit(table.table_id, write)
        except StoreError:
            self.leases.forget(table.table_id)  # (its lease runs out: nobody finds a table to take over)
            raise

    def set_seat(self, table_id: str, seat: int, stored: StoredSeat | None) -> None:
        table_key = self.key("table", table_id)
        fields, bindings, _ = run(self.client, self._reading(table_id))
        write = self._writes(table_id)
        old = getattr(_seats(fields).get(seat), "token_hash", None)
        if old is not None and (stored is None or stored.token_hash != old):
            write("DEL", self.key("token", old.hex()))
        if stored is None:
            write("HDEL", table_key, f"seat:{seat}")
            for fingerprint, bound in bindings.items():
                if int(bound) == seat:
                    write("DEL", self.key("keyseat", _text(fingerprint)))
                    write("HDEL", self.key("keyseats", table_id), fingerprint)
        else:
            self._put_seat(write, table_id, seat, stored)
        self._commit(table_id, write)

    def set_seats(self, table_id: str, seats: Mapping[int, StoredSeat | None]) -> None:
        for seat, stored in seats.items():  # (each fenced by the lease: a new table's bots, before its game)
            self.set_seat(table_id, seat, stored)

    def _put_seat(self, write: _Writes, table_id: str, index: int, seat: StoredSeat) -> None:
        fields = (seat.name, seat.bot_kind, seat.bot_seed, seat.token_hash, seat.stand_in, seat.left, seat.guest)
        packed = msgpack.packb(fields)
        write("HSET", self.key("table", table_id), f"seat:{index}", packed)
        if seat.token_hash is not None:
            write("SET", self.key("token", seat.token_hash.hex()), table_id)

    def set_creator(self, table_id: str, seat: int | None) -> None:
        write = self._writes(table_id)
        if seat is None:
            write("HDEL", self.key("table", table_id), "creator")
        else:
            write("HSET", self.key("table", table_id), "creator", seat)
        self._commit(table_id, write)

    def start_game(self, table_id: str, game_no: int, seed: int, started_at: float) -> None:
        write = self._writes(table_id)
        fields = {"game_no": game_no, "seed": seed, "started_at": started_at, "finished": False}
        write.hset(self.key("table", table_id), fields)
        for old in range(max(0, game_no - 1), game_no + 1):  # the last game's moves, and any of this one's
            write("DEL", moves_key(self.prefix, table_id, old))
        self._commit(table_id, write)

    def add_moves(self, moves: Sequence[StoredMove]) -> None:
        run(self.client, self._adding(moves))

    async def add_moves_async(self, moves: Sequence[StoredMove]) -> None:
        """``add_moves`` on the asyncio client: the group commit's, so the event loop never waits for Redis.

        Redis not answering leaves the moves' fate unknown: they may be in the log. They are sent again (a copy of
        a logged move changes nothing) while this host holds any of their tables, until Redis answers. A table
        whose lease runs out meanwhile stops here and its log decides at its next host; its refusal is ``unsure``,
        so no player hears ``not_saved`` for a move that may be played."""
        pause, unsure = RETRY_FIRST, False
        while True:
            try:
                return await run_async(self.aclient, self._adding(moves))
            except StoreError as error:
                if not _unanswered(error) or not any(self.leases.value(move.table_id) for move in moves):
                    error.unsure = unsure or _unanswered(error)
                    raise
            unsure = True
            await asyncio.sleep(pause)  # (Redis coming back sends no event)
            pause = min(RETRY_MOST, pause * 2)

    def _adding(self, moves: Sequence[StoredMove]) -> Exchange[None]:
        """Every table's moves in one round trip: one call of the fenced log's append for all of them (each table's
        checked against its own lease); a table this host no longer holds has nothing written and is named in
        ``TablesRefused`` (the others' moves are kept). A game that ended is then marked finished and its record
        filed for the cluster's history (``file``), fenced too (two round trips more, once a game); and
        kept in the local store, which says whether its JSON file was written."""
        refused: dict[str, str] = {}
        fenced: list[str] = []
        keys: list[str] = []
        args: list[Any] = []
        sent: list[list[StoredMove]] = []  # the runs in the append, in order
        for run_ in _runs(moves):
            first = run_[0]
            value = self.leases.value(first.table_id)
            if value is None:
                refused[first.table_id] = "this host does not hold the table"
                fenced.append(first.table_id)
                continue
            keys += [self.key("lease", first.table_id), moves_key(self.prefix, first.table_id, first.game_no)]
            args += [value, first.state_id, len(run_)]
            args += [pack_move(LoggedMove(move.seat, move.action, move.state_id)) for move in run_]
            sent.append(run_)
        answers = []
        if sent:
            with redis_errors("the moves"):
                answers = yield from call(_APPEND_MANY, keys, args)
        finished: list[StoredMove] = []
        for run_, answer in zip(sent, answers, strict=True):
            table_id = run_[0].table_id
            code = int(answer)
            if code == NOT_HOLDER:
                refused[table_id] = "this host no longer holds the table's lease"
                fenced.append(table_id)
            elif code in (GAP, OTHER_MOVE):
                refused[table_id] = f"the moves do not continue game {run_[0].game_no} in the log"
            elif run_[-1].record is not None:
                finished.append(run_[-1])
        for table_id in fenced:
            self._lost(table_id)
        for move in finished:
            try:
                yield from self._finishing(move)
            except StoreError as error:  # (the move is in the log: sent again, it is finished then, once)
                if _unanswered(error):
                    raise  # (all sent again: add_moves_async)
                refused[move.table_id] = str(error)
        if refused:
            raise TablesRefused("; ".join(f"{t}: {why}" for t, why in refused.items()), refused)

    def _finishing(self, move: StoredMove) -> Exchange[None]:
        """``move`` ended its game: the table marked finished and the record filed, once, in Redis; and locally."""
        record = move.record
        assert record is not None
        while True:  # (again if another table host rated one of its players meanwhile)
            fields, bindings, held = yield from self._reading(move.table_id, self.rated(record))
            answer = yield from self._filing(move, record, fields, bindings, held)
            if answer != CHANGED:
                break
        if answer == 0:
            return  # (filed already: the move was sent again)
        try:
            self.local.add_record(move.table_id, move.game_no, record, HOST)
        except Exception:  # filed in Redis; only this host's JSON file bookkeeping misses it
            log.exception("table %s: game %d's record is not kept locally", move.table_id, move.game_no)

    def _filing(self, move: StoredMove, record: dict[str, Any], fields: Any, bindings: Any, held: Any) -> Exchange[int]:
        """The fenced script filing the game (its record, summary and the per-player totals) and rating its people
        (from their ratings ``held`` before)."""
        table_id, game_no, table_key = move.table_id, move.game_no, self.key("table", move.table_id)
        tokens = [(index, seat.token_hash) for index, seat in _seats(fields).items()]
        keys = [(int(seat), _text(fingerprint)) for fingerprint, seat in bindings.items()]
        who, finished = host_identities(len(record.get("players", ())), tokens, keys), finished_at(record)
        write = self._writes(table_id)
        write("HSET", table_key, "finished", True)
        guards: list[tuple[str, str, str]] = []
        try:
            summary, seats = summarise(record, who, HOST)
            game = self.game_key(table_id, game_no)
            write.hset(game, {"record": json.dumps(record), "summary": json.dumps(summary), "finished_at": finished})
            write("ZADD", self.key("games"), finished, game_id(table_id, game_no))
            write("ZADD", self.key("games_of", table_id), game_no, game_no)
            for _seat, ident, name, bot, score, won in seats:
                player = self.key("player", ident)
                write("HINCRBY", player, "games", 1)
                write("HINCRBY", player, "wins", int(won))
                write("HINCRBY", player, "score_sum", score)
                write("HSET", player, "name", name, "bot", int(bot))
                write("ZADD", self.key("player_best"), "LT", score, ident)
                write("ZINCRBY", self.key("players", "bots" if bot else "people"), -1, ident)
            guards = self.rate(write, record, held)
        except (ValueError, TypeError, KeyError) as error:  # a record that does not read: the game still ends
            log.error("table %s: game %d's record is not filed (%s)", table_id, game_no, error)
            write = self._writes(table_id)
            write("HSET", table_key, "finished", True)
        return (yield from self._committing(table_id, write, write.index(self.game_key(table_id, game_no)), guards))

    def drop_table(self, table_id: str) -> None:
        """The table is gone for good: its keys, token and key bindings, and its lease with no deadline left. A
        table this host does not hold is left alone (another host may be playing it)."""
        if self.leases.value(table_id) is None:
            log.info("table %s: not dropped from Redis, this host does not hold it", table_id)
            return
        fields, bindings, _ = run(self.client, self._reading(table_id))
        write = self._writes(table_id)
        gone = [self.key("token", seat.token_hash.hex()) for seat in _seats(fields).values() if seat.token_hash]
        gone += [self.key("keyseat", _text(fingerprint)) for fingerprint in bindings]
        gone.append(moves_key(self.prefix, table_id, int(fields.get(b"game_no", 0))))
        gone += [self.key(kind, table_id) for kind in ("table", "keyseats", "epoch", "lease")]
        for key in gone:
            write("DEL", key)
        write("ZREM", self.leases.deadlines, table_id)
        self._commit(table_id, write)
        self.leases.forget(table_id)

    # ---------------------------------------------------------------------------------------- SSH keys

    def bind_key(self, fingerprint: str, table_id: str, seat: int) -> None:
        before = self.seat_for_key(fingerprint)
        write = self._writes(table_id)
        if before is not None and before[0] != table_id:
            write("HDEL", self.key("keyseats", before[0]), fingerprint)
        write("SET", self.key("keyseat", fingerprint), f"{table_id} {seat}")
        write("HSET", self.key("keyseats", table_id), fingerprint, seat)
        self._commit(table_id, write)

    def seat_for_key(self, fingerprint: str) -> tuple[str, int] | None:
        return seat_at(self.ask(("GET", self.key("keyseat", fingerprint)))[0])

    def claim_name(self, name: str, owner: str | None) -> str | None:
        with redis_errors():
            return run(self.client, self.claiming_name(name, owner))

    # ---------------------------------------------------------------------------------------- the daily deal

    def daily_secret(self) -> bytes:
        key = self.key("daily_secret")
        return bytes(self.ask(("SET", key, os.urandom(32), "NX"), ("GET", key))[1])

    def daily_entry(self, day: str, player: str) -> tuple[str, int | None] | None:
        [value] = self.ask(("HGET", self.key("daily", day), player))
        return None if value is None else tuple(msgpack.unpackb(value))

    def daily_start(self, day: str, player: str, table_id: str, started_at: float) -> bool:
        with redis_errors("a daily deal"), self.client.pipeline(transaction=True) as pipe:
            pipe.hsetnx(self.key("daily", day), player, msgpack.packb((table_id, None)))
            pipe.set(self.key("daily_table", table_id), msgpack.packb((day, player)), ex=DAILY_KEPT)
            pipe.expire(self.key("daily", day), DAILY_KEPT)
            return bool(pipe.execute()[0])

    def daily_finish(self, table_id: str, score: int, finished_at: float) -> None:
        [owner] = self.ask(("GET", self.key("daily_table", table_id)))
        if owner is not None:
            day, player = msgpack.unpackb(owner)
            self.ask(("HSET", self.key("daily", day), player, msgpack.packb((table_id, score))))

    def daily_results(self, day: str) -> list[tuple[str, int]]:
        [entries] = self.ask(("HGETALL", self.key("daily", day)))
        scores = {_text(player): msgpack.unpackb(value)[1] for player, value in entries.items()}
        return [(player, score) for player, score in scores.items() if score is not None]

    # ---------------------------------------------------------------------------------------- finished games
    # (the cluster's history: every table host reads the same)

    def records(self, pending_only: bool = False) -> list[StoredRecord]:
        return self.local.records(pending_only)

    def mark_exported(self, table_id: str, game_no: int) -> None:
        self.local.mark_exported(table_id, game_no)

    @property
    def ratings_key(self) -> str:
        return self.key("ratings")

    def game_key(self, table_id: str, game_no: int) -> str:
        """The key whose presence says the game is filed (written once, whoever sends it again)."""
        return self.key("game", game_id(table_id, game_no))

    @staticmethod
    def rated(record: dict[str, Any]) -> list[str]:
        """The keys of the people a finished game rates (none for a record that does not read)."""
        try:
            return [who for who, _name, level, _score in ratings.ranked(record) if level is None]
        except (ValueError, TypeError, KeyError):
            return []

    def rate(
        self, write: Callable[..., None], record: dict[str, Any], held: dict[str, bytes | None]
    ) -> list[tuple[str, str, str]]:
        """The commands rating the game's people from their ratings ``held`` before, and what the script must find
        still there for them: (key, field, value) each."""
        current = {who: tuple(json.loads(value)[1:]) for who, value in held.items() if value is not None}
        for who, (name, mu, sigma, games) in ratings.rate(record, current).items():
            write("HSET", self.ratings_key, who, json.dumps([name, mu, sigma, games]))
            write("ZADD", self.key("rating_board"), ratings.shown(mu, sigma), who)
        return [(self.ratings_key, who, _text(value or b"")) for who, value in held.items()]

    def ask(self, *commands: Command) -> list[Any]:
        """The answers to ``commands``, sent together in one round trip on the blocking client (``StoreError`` if
        Redis fails)."""
        with redis_errors():
            return run(self.client, asked(list(commands)))

    def ratings(self, names: Any) -> dict[str, int]:
        """The shown ratings of these names (rated people only), by name."""
        wanted = {ratings.key(name): name for name in names}
        [found] = self.ask(("HMGET", self.ratings_key, "-", *wanted))
        rows = {who: json.loads(value) for who, value in zip(wanted, found[1:], strict=True) if value is not None}
        return {wanted[who]: ratings.shown(mu, sigma) for who, (_name, mu, sigma, _games) in rows.items()}

    def leaderboard(self, limit: int = STATS_ROWS) -> list[Rated]:
        """People by shown rating, best first, with the bot levels' (ratings.board)."""
        [keys] = self.ask(("ZREVRANGE", self.key("rating_board"), 0, limit - 1)) if limit > 0 else [[]]
        [found] = self.ask(("HMGET", self.ratings_key, "-", *keys))
        rows = [json.loads(value) for value in found[1:] if value]
        return ratings.board([Rated(name, ratings.shown(mu, sigma), games) for name, mu, sigma, games in rows], limit)

    def list_games(self, offset: int = 0, limit: int = 100, place: str | None = None) -> tuple[list[GameListing], int]:
        """A page of the cluster's finished games, newest first (every table host lists the same), and how many
        there are."""
        if place not in (None, HOST):
            return [], 0
        offset, limit = max(0, offset), max(0, limit)
        games = self.key("games")
        total, ids = self.ask(("ZCARD", games), ("ZREVRANGE", games, offset, offset + limit - 1))
        if not ids or limit == 0:
            return [], int(total)
        rows = self.ask(*(("HMGET", self.key("game", _text(ident)), "finished_at", "summary") for ident in ids))
        listed = [
            listing(_text(ident), float(finished or 0), None if summary is None else _text(summary))
            for ident, (finished, summary) in zip(ids, rows, strict=True)
        ]
        return listed, int(total)

    def game_record(self, table_id: str, game_no: int | None, place: str | None = None) -> dict[str, Any] | None:
        """A finished game's record (``game_no`` None: the table's latest), None if there is none."""
        if place not in (None, HOST):
            return None
        if game_no is None:
            [latest] = self.ask(("ZREVRANGE", self.key("games_of", table_id), 0, 0))
            if not latest:
                return None
            game_no = int(latest[0])
        [text] = self.ask(("HGET", self.game_key(table_id, game_no), "record"))
        if text is None:
            return None
        try:
            record = json.loads(text)
        except ValueError as error:
            raise StoreError(f"the record of {game_id(table_id, game_no)} is damaged ({error})") from None
        if not isinstance(record, dict):
            raise StoreError(f"the record of {game_id(table_id, game_no)} is not a JSON object")
        return record

    def player_stats(
        self, place: str | None = None, limit: int = STATS_ROWS, key: str | None = None
    ) -> list[PlayerStats]:
        """Each player's games, wins, mean and best score: people before bots, most games first."""
        if place not in (None, HOST) or limit <= 0:
            return []
        people, bots = self.ask(*(("ZRANGE", self.key("players", kind), 0, limit - 1) for kind in ("people", "bots")))
        chosen = [_text(who) for who in [*people, *bots][:limit]]
        if not chosen:
            return []
        reads = [(("HGETALL", self.key("player", who)), ("ZSCORE", self.key("player_best"), who)) for who in chosen]
        answers = self.ask(*(read for pair in reads for read in pair))
        mine = who_is(HOST, key)
        stats = []
        for who, totals, best in zip(chosen, answers[::2], answers[1::2], strict=True):
            got = {_text(name): _text(value) for name, value in totals.items()}
            counts = [got.get("games"), got.get("wins"), got.get("score_sum"), best]
            stats.append(stats_row(who, got.get("name", "?"), got.get("bot") == "1", counts, mine))
        return stats

    def close(self) -> None:
        """Give every lease up (the lobby committed its last moves before closing its store): the other table hosts
        take the tables over at once. Then close the connections and the local store."""
        try:
            given = self.leases.release()
            if given:
                log.info("gave up %d table leases to the other table hosts", given)
        except Exception as error:  # their leases run out by themselves
            log.warning("could not give the tables' leases up: %s", error)
        self.client.close()
        self.local.close()
        with contextlib.suppress(RuntimeError):  # (no loop: its connections, if any, went with theirs)
            self._closing = asyncio.get_running_loop().create_task(self.aclient.aclose())

    # ---------------------------------------------------------------------------------------- plumbing

    def _writes(self, table_id: str) -> _Writes:
        return _Writes(self.leases.key("lease", table_id))

    def _reading(self, table_id: str, rated: Sequence[str] = ()) -> Exchange[list[Any]]:
        """The table's hash and its key bindings (fingerprint -> seat), and the ``rated`` players' ratings (a
        dict), in one round trip."""
        reads: list[tuple[Any, ...]] = [("HGETALL", self.key("table", table_id))]
        reads += [("HGETALL", self.key("keyseats", table_id)), ("HMGET", self.ratings_key, "-", *rated)]
        with redis_errors():
            *found, held = yield reads
        return [*found, dict(zip(rated, held[1:], strict=True))]

    def _commit(self, table_id: str, write: _Writes) -> None:
        run(self.client, self._committing(table_id, write))

    def _committing(
        self, table_id: str, write: _Writes, once: int | None = None, guards: Sequence[tuple[str, str, str]] = ()
    ) -> Exchange[int]:
        """``write``'s commands at once, if this host holds ``table_id``'s lease; ``StoreError`` (nothing written)
        otherwise, and the table is lost here. ``once``: the index in ``write.keys`` of a key whose presence means
        the commands were run already (then nothing is done: 0); ``guards``: (hash key, field, value) each hash must
        still hold (else nothing is done: ``CHANGED``). 1: done."""
        value = self.leases.value(table_id)
        if value is None:
            self._lost(table_id)
            raise StoreError(f"this host does not hold table {table_id}")
        args: list[Any] = [value, msgpack.packb(write.ops, use_bin_type=False)]
        if once is not None:
            args.append(once)
            held = [[write.index(key), field, before] for key, field, before in guards]
            args += [msgpack.packb(held, use_bin_type=False)] if held else []
        with redis_errors():
            answer = int((yield from call(_FENCED, write.keys, args)))
        if answer == NOT_HOLDER:
            self._lost(table_id)
            raise StoreError(f"this host no longer holds the lease of table {table_id}")
        return answer

    def _lost(self, table_id: str) -> None:
        self.leases.forget(table_id)
        if self.on_fenced is not None:
            self.on_fenced(table_id)


@contextlib.contextmanager
def redis_errors(what: str = "") -> Iterator[None]:
    """redis-py's errors (connection lost, timeout, a script's error) as ``StoreError``, with which the host knows
    how to refuse a change."""
    try:
        yield
    except redis.RedisError as error:
        raise StoreError(f"Redis refused {what}: {error}" if what else f"Redis: {error}") from error


def _unanswered(error: StoreError) -> bool:
    """Redis did not answer (a timeout, a lost connection): what was sent may have been done, or not."""
    return isinstance(error.__cause__, redis.ConnectionError | redis.TimeoutError)


def _runs(moves: Sequence[StoredMove]) -> list[list[StoredMove]]:
    """The moves in runs of one table's game at consecutive places, in order (one script call each)."""
    runs: dict[tuple[str, int], list[list[StoredMove]]] = {}
    ordered: list[list[StoredMove]] = []
    for move in moves:
        chain = runs.setdefault((move.table_id, move.game_no), [])
        if chain and chain[-1][-1].state_id + 1 == move.state_id:
            chain[-1].append(move)
        else:
            chain.append([move])
            ordered.append(chain[-1])
    return ordered


def _seats(fields: Mapping[Any, bytes]) -> dict[int, StoredSeat]:
    """The seats in a table's hash (``seat:{n}`` fields), by index."""
    seats = {}
    for key, value in fields.items():
        if _text(key).startswith("seat:"):
            name, bot_kind, bot_seed, token_hash, *flags = msgpack.unpackb(value)
            flags = [bool(flag) for flag in (*flags, 0, 0, 0)[:3]]
            seats[int(_text(key)[5:])] = StoredSeat(name, bot_kind, bot_seed, token_hash, *flags)
    return seats


def _arg(value: object) -> bytes | str:
    """One argument of a Redis command, as the fenced script passes it on: never a number (Lua's are doubles, and
    a seed has 63 bits)."""
    if isinstance(value, bytes | str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"not a Redis argument: {value!r}")
