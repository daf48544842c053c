"""The host's durable memory: tables, their deals and accepted moves, seats, hashed seat tokens, SSH key bindings
and finished games, so that tables outlive the process (a SIGKILL, a SIGTERM, a power cut).

One small interface, ``TableStore``, is all the host uses; ``SqliteStore`` implements it with the standard
library's ``sqlite3`` (WAL, ``synchronous=FULL``: a commit has reached the disk when it returns). Without a data
dir the host uses the same class on ``:memory:``, so tests run the very same statements.

What is kept, and why it is enough: a game is its config, its seed and its moves; the engine is deterministic, so
the host rebuilds the state by replaying the moves (``Table.restore``). Seat tokens are kept as SHA-256 digests
only: the database never holds a token a reader could use. A finished game's record and its final move are one
transaction; the game's moves are then dropped (the record holds them).

A file store cannot vanish in silence: before SQLite touches the file, ``fault`` checks it is still the one opened
and writable (a store deleted, replaced, made immutable or read-only: SQLite's mmap'd shared memory would fault the
process with SIGBUS), ``check`` adds a write, and the lobby runs it every few seconds (lobby.py)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import faulthandler
import fcntl
import hashlib
import json
import logging
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

from nothanks_tui.link.history import STATS_ROWS, GameListing, PlayerStats, Rated, game_id
from nothanks_tui.link.names import name_key

from . import archive

log = logging.getLogger(__name__)

SCHEMA_VERSION = 7  # 2: finished games indexed for the history (summaries, per-seat results); 3: a table's coach
# option and its seats' stand-in bots (who left on purpose); 4: a private table's invite, a table's turn clock;
# 5: players' ratings (ratings.py); 6: names owned by keys, guests' seats; 7: the daily deal's secret and results
DATABASE_NAME = "nothanks.sqlite3"
Read = TypeVar("Read")


class StoreError(Exception):
    """A store could not keep a change (disk full, I/O error, a locked or broken database). Nothing was written,
    unless ``unsure``: the store could not tell (a cluster's Redis that did not answer), and the change may be kept."""

    unsure = False


class StoreDown(StoreError):
    """The store's file is gone, replaced or unwritable (``SqliteStore.fault``): every access is refused until it
    is back; said once, by whoever checks it (the lobby), not at every refusal."""


class TablesRefused(StoreError):
    """``add_moves`` kept the moves of every table but ``table_ids`` (those tables' moves: nothing written)."""

    def __init__(self, message: str, table_ids: Iterable[str]) -> None:
        super().__init__(message)
        self.table_ids = frozenset(table_ids)


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW, 0o600)


def hash_token(token: str) -> bytes:
    """What the store keeps of a seat token: its SHA-256 digest (tokens are 144 random bits: no salt needed)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


@dataclass(frozen=True)
class StoredSeat:
    """One filled seat: a human (``token_hash``) or a bot (``bot_kind`` and the seed it was made with)."""

    name: str
    bot_kind: str | None = None
    bot_seed: int | None = None
    token_hash: bytes | None = None
    stand_in: bool = False  # a bot plays this human's seat until they come back (the game in progress)
    left: bool = False  # ...because they left it on purpose (not only dropped out)
    guest: bool = False  # a player with no key (shown marked, left unrated)


@dataclass(frozen=True)
class StoredTable:
    """A table as the store knows it: enough to rebuild the ``Table`` and replay its current game."""

    table_id: str
    players: int
    open_chips: bool
    variant: str
    default_bot: str
    chips_per_player: int | None
    seats: tuple[StoredSeat | None, ...]
    creator_seat: int | None = None
    game_no: int = 0  # 0: not dealt yet
    seed: int | None = None
    started_at: float | None = None
    finished: bool = False
    moves: tuple[tuple[int, str], ...] = ()  # (seat, action) of the current game, in order
    coach: bool = False  # the table lets its players ask the coach
    invite: str | None = None  # a private table's secret (link/invites.py)
    turn_clock: float | None = None  # seconds (0: off; None: not kept, the host's default)


@dataclass(frozen=True)
class StoredMove:
    """One accepted move: ``state_id`` is the state it was played in; ``record``: the game's last, with its record."""

    table_id: str
    game_no: int
    state_id: int
    seat: int
    action: str
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class StoredRecord:
    """One finished game's ``nothanks-record/1`` record; ``exported``: its JSON file was written."""

    table_id: str
    game_no: int
    record: dict[str, Any]
    exported: bool


class TableStore(Protocol):
    """Everything the host keeps across restarts. Every method that changes something has committed it durably when
    it returns, or raises ``StoreError`` having changed nothing."""

    def load_tables(self) -> list[StoredTable]: ...

    def next_table_number(self) -> int:
        """The number the next table gets (``t<N>``); never one a table had before."""

    def create_table(self, table: StoredTable) -> None:
        """A new table with its seats (and the next table number moved past it)."""

    def set_seats(self, table_id: str, seats: Mapping[int, StoredSeat | None]) -> None:
        """Fill (or, with None, free) seats, in one commit."""

    def set_creator(self, table_id: str, seat: int | None) -> None: ...

    def start_game(self, table_id: str, game_no: int, seed: int, started_at: float) -> None: ...

    def add_moves(self, moves: Sequence[StoredMove]) -> None:
        """Accepted moves, of any tables, in one transaction; a move with a ``record`` is its game's last and its
        record is stored with it. ``TablesRefused``: only the tables it names had nothing written."""

    def drop_table(self, table_id: str) -> None:
        """The table is gone for good: its seats, moves and key bindings go too (its records stay)."""

    def records(self, pending_only: bool = False) -> list[StoredRecord]:
        """Finished games' records (``pending_only``: those whose JSON file was not written yet)."""

    def mark_exported(self, table_id: str, game_no: int) -> None: ...

    def list_games(self, offset: int = 0, limit: int = 100, place: str | None = None) -> tuple[list[GameListing], int]:
        """Finished games, newest first (archive.py), and how many there are."""

    def game_record(self, table_id: str, game_no: int | None, place: str | None = None) -> dict[str, Any] | None: ...

    def player_stats(
        self, place: str | None = None, limit: int = STATS_ROWS, key: str | None = None
    ) -> list[PlayerStats]: ...

    def ratings(self, names: Sequence[str]) -> dict[str, int]:
        """The shown ratings (ratings.py) of these names, by name: rated people only (a finished game's filing
        rates its people, in its transaction)."""

    def leaderboard(self, limit: int = STATS_ROWS) -> list[Rated]:
        """People by rating, best first, with the bot levels' fixed ratings among them."""

    def bind_key(self, fingerprint: str, table_id: str, seat: int) -> None:
        """An SSH key now owns this seat (replacing whatever it owned before)."""

    def seat_for_key(self, fingerprint: str) -> tuple[str, int] | None: ...

    def claim_name(self, name: str, owner: str | None) -> str | None:
        """The key owning ``name`` (case aside), which ``owner`` becomes, durably, if it had none (None: only ask)."""

    def daily_secret(self) -> bytes:
        """The host's daily deal secret (made once, then kept): never sent to anyone."""

    def daily_entry(self, day: str, player: str) -> tuple[str, int | None] | None:
        """``player``'s daily deal of ``day``: its table and score (None until finished), or None if not started."""

    def daily_start(self, day: str, player: str, table_id: str, started_at: float) -> bool:
        """``player`` starts ``day``'s deal at ``table_id``; False (nothing written) if they had started it."""

    def daily_finish(self, table_id: str, score: int, finished_at: float) -> None:
        """The daily deal played at ``table_id`` is over with ``score`` (a table that is not one: nothing)."""

    def daily_results(self, day: str) -> list[tuple[str, int]]:
        """Every (player, score) of ``day``'s deal finished."""

    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, players INTEGER NOT NULL, open_chips INTEGER NOT NULL, variant TEXT NOT NULL,
    default_bot TEXT NOT NULL, chips_per_player INTEGER, creator_seat INTEGER, game_no INTEGER NOT NULL DEFAULT 0,
    seed INTEGER, started_at REAL, finished INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT NOT NULL, bot_kind TEXT, bot_seed INTEGER,
    token_hash BLOB, PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL, game_no INTEGER NOT NULL, state_id INTEGER NOT NULL, seat INTEGER NOT NULL,
    action TEXT NOT NULL, PRIMARY KEY (table_id, game_no, state_id)
);
CREATE TABLE IF NOT EXISTS records (
    table_id TEXT NOT NULL, game_no INTEGER NOT NULL, finished_at REAL NOT NULL, record TEXT NOT NULL,
    exported INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_id, game_no)
);
CREATE TABLE IF NOT EXISTS key_bindings (fingerprint TEXT PRIMARY KEY, table_id TEXT NOT NULL, seat INTEGER NOT NULL);
"""
_DAILY = """
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS daily (
    day TEXT NOT NULL, player TEXT NOT NULL, table_id TEXT NOT NULL, score INTEGER, started_at REAL NOT NULL,
    finished_at REAL, PRIMARY KEY (day, player)
);
CREATE INDEX IF NOT EXISTS daily_tables ON daily (table_id)
"""


# A table's and a seat's columns, in the order of ``StoredTable``'s and ``StoredSeat``'s fields.
_TABLE_COLUMNS = tuple(
    "table_id players open_chips variant default_bot chips_per_player creator_seat game_no seed started_at finished "
    "coach invite turn_clock".split()
)
_SEAT_COLUMNS = "name, bot_kind, bot_seed, token_hash, stand_in, left_game, guest"


class SqliteStore:
    """``TableStore`` on one SQLite file (``path``), or on ``":memory:"``. Use from one thread (the event loop's)."""

    def __init__(self, path: Path | str = ":memory:", *, host: bool = True) -> None:
        """Open (or create) the store at ``path``. A host's file store belongs to one process at a time: a second
        host on the same data dir would restore the same tables and play them twice, so it gets ``StoreError``
        instead (the lock, on ``<path>.lock``, goes with the process however it ends). ``host=False`` opens it for
        finished games only (local games recorded, the history read), beside a host that may be running: no lock,
        and SQLite's own locking between the writers."""
        self.path = str(path)
        self.broken: str | None = None  # what ``check`` last found wrong with the file (every access refused)
        self._batched = 0  # ``batch``es open
        self._lock: BinaryIO | None = None  # a file object: the lock goes when it is closed or collected
        if self.path != ":memory:":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                if host:
                    self._lock = open(self.path + ".lock", "ab", opener=_private_opener)
                    try:
                        fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except OSError:
                        self._lock.close()
                        raise StoreError(f"{self.path} is in use by another running nothanks host") from None
                    if not faulthandler.is_enabled():  # a fault in SQLite (SIGBUS) leaves a line in the log
                        streams = [getattr(h, "stream", None) for h in logging.getLogger().handlers]
                        faulthandler.enable(next((s for s in streams if hasattr(s, "fileno")), None) or sys.stderr)
                # The file holds the deals (a seed is the whole deck): readable by the host's user only. SQLite
                # gives its -wal and -shm files the database file's permissions.
                os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600))
            except OSError as error:
                folder = Path(self.path).parent
                if folder.exists() and not folder.is_dir():  # (mkdir's "File exists" would say it backwards)
                    raise StoreError(f"{folder}: not a directory (the data dir must be one)") from None
                raise StoreError(f"{self.path}: {error.strerror or error}") from None
        self._identity = None if self.path == ":memory:" else self._file_id()
        try:
            self._sqlite = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)  # we say BEGIN and COMMIT
            self._sqlite.execute("PRAGMA journal_mode=WAL")
            self._sqlite.execute("PRAGMA synchronous=FULL")  # a commit is on the disk, not only in the OS's cache
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: {error}") from None
        self._migrate()

    def _file_id(self) -> tuple[int, int] | None:
        with contextlib.suppress(FileNotFoundError):
            found = os.stat(self.path)
            return found.st_dev, found.st_ino
        return None

    def fault(self) -> str | None:
        """What keeps the file from holding a change now (None: nothing): it is not the file opened any more
        (deleted, replaced), or it, its journal or its folder cannot be written. A few system calls."""
        if self._identity is None:
            return None  # (in memory)
        found = self._file_id()
        if found != self._identity:
            return "the file was deleted" if found is None else "the file was replaced by another"
        for name in (os.path.dirname(self.path) or ".", self.path, self.path + "-wal", self.path + "-shm"):
            if os.path.exists(name) and not os.access(name, os.W_OK):
                return f"{name} cannot be written"
        return None

    def check(self) -> str | None:
        """``fault``, then a write that must work: what is wrong (kept as ``broken``), or None. A file deleted or
        replaced is first copied, from the one still open, beside its path (``.rescued-<time>``): nothing
        acknowledged is lost with it."""
        problem = self.fault()
        if problem is None:
            try:
                self._sqlite.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('checked', ?)", (time.time(),))
            except sqlite3.Error as error:
                problem = f"a write failed ({error})"
        if problem and not self.broken and self._file_id() != self._identity:
            problem += "; " + self._rescue()
        self.broken = problem
        return problem

    def _rescue(self) -> str:
        target = f"{self.path}.rescued-{time.strftime('%Y%m%d-%H%M%S')}"
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            with contextlib.closing(sqlite3.connect(target)) as copy:
                self._sqlite.backup(copy)
        except (OSError, sqlite3.Error) as error:
            return f"no copy could be written beside it ({error})"
        return f"what it held is copied to {target}: move it back before the next start to keep the tables"

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, once ``fault`` finds nothing wrong: SQLite never touches a file that could fault."""
        if problem := self.broken or self.fault():
            raise StoreDown(f"{self.path}: {problem}")
        return self._sqlite

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """The writes made inside are one transaction: one commit (one fsync, on the event loop), all kept or none."""
        with self._transaction():
            self._batched += 1
            try:
                yield
            finally:
                self._batched -= 1

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db, outer = self._db, not self._batched  # (inside a batch: part of its transaction)
        try:
            if outer:
                db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: {error}") from error
        try:
            yield db
            if outer:
                db.execute("COMMIT")
        except BaseException as error:
            with contextlib.suppress(sqlite3.Error):
                if outer:
                    db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise StoreError(f"{self.path}: {error}") from error
            raise

    def _migrate(self) -> None:
        with self._transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has store schema {version}; this nothanks knows up to {SCHEMA_VERSION}: update it"
                )
            if version < 1:
                archive.run_script(db, _SCHEMA)
            if version < 2:
                archive.migrate_to_2(db)
            if version < 3:
                db.execute("ALTER TABLE tables ADD COLUMN coach INTEGER NOT NULL DEFAULT 0")
                db.execute("ALTER TABLE seats ADD COLUMN stand_in INTEGER NOT NULL DEFAULT 0")
                db.execute("ALTER TABLE seats ADD COLUMN left_game INTEGER NOT NULL DEFAULT 0")
            if version < 4:
                db.execute("ALTER TABLE tables ADD COLUMN invite TEXT")
                db.execute("ALTER TABLE tables ADD COLUMN turn_clock REAL")
            if version < 5:
                archive.migrate_to_5(db)
            if version < 6:
                db.execute("ALTER TABLE seats ADD COLUMN guest INTEGER NOT NULL DEFAULT 0")
                db.execute("CREATE TABLE names (name TEXT PRIMARY KEY, owner TEXT NOT NULL)")
            if version < 7:
                archive.run_script(db, _DAILY)
            if version < SCHEMA_VERSION:
                db.execute("DELETE FROM schema_version")
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            # Later versions: `if version < 8: ALTER TABLE ...`, each step in this same transaction.

    def load_tables(self) -> list[StoredTable]:
        db, tables = self._db, []
        query = f"SELECT {', '.join(_TABLE_COLUMNS)} FROM tables ORDER BY created_at, table_id"
        for row in db.execute(query).fetchall():
            table = dict(zip(_TABLE_COLUMNS, row, strict=True))
            table_id, players = table["table_id"], table["players"]
            seats: list[StoredSeat | None] = [None] * players
            for seat, *fields in db.execute(f"SELECT seat, {_SEAT_COLUMNS} FROM seats WHERE table_id = ?", (table_id,)):
                if 0 <= seat < players:
                    name, bot_kind, bot_seed, token_hash, *flags = fields
                    digest = None if token_hash is None else bytes(token_hash)
                    seats[seat] = StoredSeat(name, bot_kind, bot_seed, digest, *map(bool, flags))
            query = "SELECT seat, action FROM moves WHERE table_id = ? AND game_no = ? ORDER BY state_id"
            moves = tuple((seat, action) for seat, action in db.execute(query, (table_id, table["game_no"])))
            flags = {name: bool(table[name]) for name in ("open_chips", "finished", "coach")}
            tables.append(StoredTable(**{**table, **flags}, seats=tuple(seats), moves=moves))
        return tables

    def next_table_number(self) -> int:
        rows = self._rows("SELECT value FROM meta WHERE key = 'next_table'")
        return int(rows[0][0]) if rows else 1

    def create_table(self, table: StoredTable) -> None:
        number = int(table.table_id[1:]) if table.table_id[1:].isdigit() else 0
        values = [getattr(table, name) for name in _TABLE_COLUMNS]
        with self._transaction() as db:
            db.execute(
                f"INSERT INTO tables ({', '.join(_TABLE_COLUMNS)}, created_at) VALUES ({'?,' * len(values)}?)",
                (*values, time.time()),
            )
            for index, seat in enumerate(table.seats):
                if seat is not None:
                    self._put_seat(db, table.table_id, index, seat)
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('next_table', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
                (number + 1,),
            )

    @staticmethod
    def _put_seat(db: sqlite3.Connection, table_id: str, index: int, seat: StoredSeat) -> None:
        values = (seat.name, seat.bot_kind, seat.bot_seed, seat.token_hash, seat.stand_in, seat.left, seat.guest)
        query = f"INSERT OR REPLACE INTO seats (table_id, seat, {_SEAT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
        db.execute(query, (table_id, index, *values))

    def set_seats(self, table_id: str, seats: Mapping[int, StoredSeat | None]) -> None:
        with self._transaction() as db:
            for seat, stored in seats.items():
                if stored is None:
                    db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))
                    db.execute("DELETE FROM key_bindings WHERE table_id = ? AND seat = ?", (table_id, seat))
                else:
                    self._put_seat(db, table_id, seat, stored)

    def set_creator(self, table_id: str, seat: int | None) -> None:
        self._write("UPDATE tables SET creator_seat = ? WHERE table_id = ?", seat, table_id)

    def start_game(self, table_id: str, game_no: int, seed: int, started_at: float) -> None:
        query = "UPDATE tables SET game_no = ?, seed = ?, started_at = ?, finished = 0 WHERE table_id = ?"
        with self._transaction() as db:
            db.execute(query, (game_no, seed, started_at, table_id))
            db.execute("DELETE FROM moves WHERE table_id = ?", (table_id,))

    def add_moves(self, moves: Sequence[StoredMove]) -> None:
        with self._transaction() as db:
            for move in moves:
                db.execute(  # (a table dropped while its move waited for the group commit keeps nothing)
                    "INSERT INTO moves (table_id, game_no, state_id, seat, action) SELECT ?,?,?,?,? "
                    "WHERE EXISTS (SELECT 1 FROM tables WHERE table_id = ?)",
                    (move.table_id, move.game_no, move.state_id, move.seat, move.action, move.table_id),
                )
                record = move.record
                if record is not None:
                    archive.file_record(db, move.table_id, move.game_no, record, archive.HOST)
                    db.execute("UPDATE tables SET finished = 1 WHERE table_id = ?", (move.table_id,))
                    db.execute("DELETE FROM moves WHERE table_id = ?", (move.table_id,))

    def drop_table(self, table_id: str) -> None:
        with self._transaction() as db:
            for name in ("tables", "seats", "moves", "key_bindings"):
                db.execute(f"DELETE FROM {name} WHERE table_id = ?", (table_id,))

    def records(self, pending_only: bool = False) -> list[StoredRecord]:
        where = " WHERE exported = 0" if pending_only else ""
        rows = self._rows(f"SELECT table_id, game_no, record, exported FROM records{where} ORDER BY finished_at")
        kept = []
        for table_id, game_no, text, exported in rows:
            try:
                record = json.loads(text)
            except (ValueError, TypeError):
                log.error("the record of %s is damaged: skipped", game_id(table_id, game_no))
                continue
            kept.append(StoredRecord(table_id, game_no, record, bool(exported)))
        return kept

    def mark_exported(self, table_id: str, game_no: int) -> None:
        self._write("UPDATE records SET exported = 1 WHERE table_id = ? AND game_no = ?", table_id, game_no)

    def add_record(
        self, table_id: str, game_no: int, record: dict[str, Any], place: str = "local", exported: bool = False
    ) -> None:
        """A finished game played elsewhere than at a host's table (``place`` ``local``: ``nothanks play``);
        ``exported``: its JSON file is written already."""
        with self._transaction() as db:
            archive.file_record(db, table_id, game_no, record, place, exported)

    def add_records(self, games: Iterable[tuple[str, int, dict[str, Any]]], place: str = "local") -> None:
        """Many finished games, (table id, game number, record) each, in one transaction (an import, a benchmark)."""
        with self._transaction() as db:
            for table_id, game_no, record in games:
                archive.file_record(db, table_id, game_no, record, place)

    def list_games(self, offset: int = 0, limit: int = 100, place: str | None = None) -> tuple[list[GameListing], int]:
        return self._reading(archive.list_games, offset, limit, place)

    def game_record(self, table_id: str, game_no: int | None, place: str | None = None) -> dict[str, Any] | None:
        """A finished game's record (``game_no`` None: the table's latest), or None; ``StoreError`` if damaged."""
        try:
            return archive.game_record(self._db, table_id, game_no, place)
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: {error}") from error
        except ValueError as error:
            which = game_id(table_id, game_no or 0)
            raise StoreError(f"{self.path}: the record of {which} is damaged ({error})") from None

    def player_stats(
        self, place: str | None = None, limit: int = STATS_ROWS, key: str | None = None
    ) -> list[PlayerStats]:
        return self._reading(archive.player_stats, place, limit, archive.who_is(place or "", key))

    def ratings(self, names: Sequence[str]) -> dict[str, int]:
        return self._reading(archive.rating_of, list(names))

    def leaderboard(self, limit: int = STATS_ROWS) -> list[Rated]:
        return self._reading(archive.leaderboard, limit)

    def _reading(self, read: Callable[..., Read], *args: object) -> Read:
        try:
            return read(self._db, *args)
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: {error}") from error

    def _rows(self, query: str, *args: object) -> list[Any]:
        return self._reading(lambda db: db.execute(query, args).fetchall())

    def _write(self, query: str, *args: object) -> int:
        with self._transaction() as db:
            return int(db.execute(query, args).rowcount)

    def bind_key(self, fingerprint: str, table_id: str, seat: int) -> None:
        query = "INSERT OR REPLACE INTO key_bindings (fingerprint, table_id, seat) VALUES (?,?,?)"
        self._write(query, fingerprint, table_id, seat)

    def seat_for_key(self, fingerprint: str) -> tuple[str, int] | None:
        rows = self._rows("SELECT table_id, seat FROM key_bindings WHERE fingerprint = ?", fingerprint)
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    def claim_name(self, name: str, owner: str | None) -> str | None:
        rows = self._rows("SELECT owner FROM names WHERE name = ?", name_key(name))
        if not rows and owner is not None:
            self._write("INSERT INTO names (name, owner) VALUES (?, ?)", name_key(name), owner)
            return owner
        return str(rows[0][0]) if rows else None

    def daily_secret(self) -> bytes:
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES ('daily', ?)", (os.urandom(32),))
            return bytes(db.execute("SELECT value FROM secrets WHERE name = 'daily'").fetchone()[0])

    def daily_entry(self, day: str, player: str) -> tuple[str, int | None] | None:
        rows = self._rows("SELECT table_id, score FROM daily WHERE day = ? AND player = ?", day, player)
        return (str(rows[0][0]), rows[0][1]) if rows else None

    def daily_start(self, day: str, player: str, table_id: str, started_at: float) -> bool:
        query = "INSERT OR IGNORE INTO daily (day, player, table_id, started_at) VALUES (?,?,?,?)"
        return self._write(query, day, player, table_id, started_at) == 1

    def daily_finish(self, table_id: str, score: int, finished_at: float) -> None:
        query = "UPDATE daily SET score = ?, finished_at = ? WHERE table_id = ? AND score IS NULL"
        self._write(query, score, finished_at, table_id)

    def daily_results(self, day: str) -> list[tuple[str, int]]:
        query = "SELECT player, score FROM daily WHERE day = ? AND score IS NOT NULL"
        return [(str(player), int(score)) for player, score in self._rows(query, day)]

    def close(self) -> None:
        if self.fault() is None:  # (else SQLite's last checkpoint could fault the process: the file is left as is)
            with contextlib.suppress(sqlite3.Error):
                self._sqlite.close()
        if self._lock is not None:
            self._lock.close()  # (closing the file releases the lock)
            self._lock = None


class GroupCommit:
    """Moves accepted in one turn of the event loop, at any tables, are committed together (one transaction, one
    fsync); ``add`` queues a move, ``done(error)`` hears once it is durable (None) or refused (``StoreError``: nothing
    of its batch kept). The moves arriving during a commit make up the next: under load one carries many tables'
    moves, at a quiet table one. A blocking store (SQLite) holds the loop while its disk works, as a plain commit
    would; one with ``add_moves_async`` (Redis) is awaited, and the loop serves everyone meanwhile."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self._pending: list[tuple[StoredMove, Callable[[StoreError | None], None]]] = []
        self._task: asyncio.Task[None] | None = None  # the commits under way: it takes what comes meanwhile
        self.commits = 0  # how many transactions, and how many moves they carried (for the log and tests)
        self.moves = 0

    def add(self, move: StoredMove, done: Callable[[StoreError | None], None]) -> None:
        self._pending.append((move, done))
        if self._task is not None and not self._task.done():
            return
        try:  # (in a context of its own: never a player's, see table/driver.py)
            self._task = asyncio.get_running_loop().create_task(self._commit_all(), context=contextvars.Context())
        except RuntimeError:  # no loop (a script driving tables by hand): commit now
            self.flush()

    def flush(self) -> None:
        """Commit what is queued with the store's blocking call, then tell each table (in the order moves came)."""
        batch, self._pending = self._pending, []
        if batch:
            error: StoreError | None = None
            try:
                self.store.add_moves([move for move, _ in batch])
            except StoreError as refused:
                error = refused
            self._told(batch, error)

    async def _commit_all(self) -> None:
        commit = getattr(self.store, "add_moves_async", None)
        while self._pending:
            if commit is None:
                self.flush()
                continue
            batch, self._pending = self._pending, []
            error: StoreError | None = None
            try:
                await commit([move for move, _ in batch])
            except StoreError as refused:
                error = refused
            except Exception as failed:  # (a table must not wait for ever on a move nobody will answer)
                log.exception("the group commit failed")
                error = StoreError(f"the store failed: {failed}")
            self._told(batch, error)

    def _told(
        self, batch: list[tuple[StoredMove, Callable[[StoreError | None], None]]], error: StoreError | None
    ) -> None:
        if error is None:
            self.commits += 1
            self.moves += len(batch)
        for move, done in batch:  # (a store may refuse some tables' moves only: the others are kept)
            done(None if isinstance(error, TablesRefused) and move.table_id not in error.table_ids else error)


def open_store(data_dir: Path | None) -> SqliteStore:
    """The store in ``data_dir`` (``nothanks.sqlite3``), or one in memory when there is no data dir."""
    return SqliteStore(":memory:" if data_dir is None else Path(data_dir) / DATABASE_NAME)
