"""The host's lobby: which tables exist, creating them, finding a seat again from its token.

One ``Lobby`` per host process. Transports (TCP, SSH, in-process) call it and then the ``Table`` it hands out;
it holds the settings every table shares (bot pace, turn timer, data dir) and closes everything on shutdown.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from pathlib import Path

from nothanks_tui.bots import bot_names
from nothanks_tui.defaults import BOT_PACE, DEFAULT_BOT, MAX_TABLES, TURN_TIMER
from nothanks_tui.engine import IllegalMove
from nothanks_tui.link import NewTable, TableSummary, errors

from .errors import HostError
from .storage import RecordStore
from .table import Member, Table, TableSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LobbySettings:
    """Host-wide settings. ``seed`` makes every deal reproducible (tests); None deals from the OS's randomness."""

    data_dir: Path | None = None
    bot_delay: float = BOT_PACE
    turn_timer: float | None = TURN_TIMER
    default_bot: str = DEFAULT_BOT
    max_tables: int = MAX_TABLES
    max_tables_per_address: int = 4  # tables created by one address that are still open
    unstarted_table_timeout: float = 900.0  # seconds a table may wait for its game to start before it closes
    seed: int | None = None


class Lobby:
    """The tables of one host."""

    def __init__(self, settings: LobbySettings | None = None) -> None:
        self.settings = settings or LobbySettings()
        self._tables: dict[str, Table] = {}
        self._next_id = 1
        self._rng = None if self.settings.seed is None else random.Random(self.settings.seed)
        self._store = None if self.settings.data_dir is None else RecordStore(self.settings.data_dir)
        self.closed = False
        self.version = 0  # counts changes to any table's lobby line (transports cache their table lists by it)
        self._owners: dict[str, str] = {}  # table id -> the address that created it (for the per-address limit)

    def tables(self) -> list[TableSummary]:
        return [table.summary() for table in self._tables.values()]

    def all_tables(self) -> list[Table]:
        return list(self._tables.values())

    def table(self, table_id: object) -> Table:
        if not isinstance(table_id, str) or table_id not in self._tables:
            raise HostError(errors.NO_TABLE, f"no table {str(table_id)[:20]!r}")
        return self._tables[table_id]

    def create_table(self, new: NewTable, creator: Member, owner: str | None = None) -> tuple[Table, int, str]:
        """A new table with ``creator`` in seat 0 and ``new.bots`` bots; returns (table, seat, resume token).
        ``owner``: the address it is created from, limited to ``max_tables_per_address`` open tables."""
        if self.closed:
            raise HostError(errors.SERVER_CLOSING, "the host is shutting down")
        if len(self._tables) >= self.settings.max_tables:
            raise HostError(errors.TOO_MANY_TABLES, "this host has as many tables as it can hold")
        limit = self.settings.max_tables_per_address
        if owner is not None and sum(1 for who in self._owners.values() if who == owner) >= limit:
            raise HostError(errors.TOO_MANY, f"your address has {limit} open tables already: play at one of them")
        if new.bot not in bot_names():
            raise HostError(errors.BAD_BOT, f"unknown bot {new.bot[:20]!r}; choose from {', '.join(bot_names())}")
        settings = TableSettings(
            players=new.players,
            open_chips=new.open_chips,
            variant=new.variant,
            bot_delay=self.settings.bot_delay,
            turn_timer=self.settings.turn_timer,
            default_bot=new.bot,
        )
        table_id = f"t{self._next_id}"
        rng = None if self._rng is None else random.Random(self._rng.randrange(2**63))
        table = Table(table_id, settings, store=self._store, rng=rng, on_idle=self._drop, on_summary=self._changed)
        if not isinstance(new.bots, int) or not 0 <= new.bots < new.players:
            raise IllegalMove(errors.BAD_FIELD, f"bots must be 0..{new.players - 1}: one seat is yours")
        self._next_id += 1
        self._tables[table_id] = table
        self.version += 1
        if owner is not None:
            self._owners[table_id] = owner
        seat, token = table.join(creator)
        table.add_bots(new.bots, new.bot)
        log.info("table %s created: %d players, %d bots", table_id, new.players, new.bots)
        return table, seat, token

    def resume(self, token: object, member: Member) -> tuple[Table, int]:
        """Give back the seat ``token`` was issued for; returns (table, seat)."""
        if isinstance(token, str):
            for table in self._tables.values():
                if table.has_token(token):
                    return table, table.resume(token, member)
        raise HostError(errors.BAD_TOKEN, "no seat holds this token (the game may be over)")

    def close(self, reason: str = "the host is shutting down") -> None:
        """Close every table, telling every member ``reason``."""
        self.closed = True
        for table in list(self._tables.values()):
            table.close(reason)
        self._tables.clear()

    def expire_unstarted(self, now: float | None = None) -> int:
        """Close the tables whose game has not started ``unstarted_table_timeout`` seconds after they were made."""
        now = time.monotonic() if now is None else now
        timeout = self.settings.unstarted_table_timeout
        stale = [t for t in self._tables.values() if not t.started and now - t.created_at >= timeout]
        for table in stale:
            self._drop(table, f"the game did not start within {timeout / 60:g} minutes")
        return len(stale)

    def _changed(self, _table: Table) -> None:
        self.version += 1

    def _drop(self, table: Table, reason: str = "table closed") -> None:
        if self._tables.get(table.table_id) is table:
            del self._tables[table.table_id]
            self._owners.pop(table.table_id, None)
            self.version += 1
            table.close(reason)
            log.info("table %s closed: %s", table.table_id, reason)
