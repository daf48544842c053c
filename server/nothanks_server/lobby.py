"""The host's lobby: which tables exist, creating them, finding a seat again from its token.

One ``Lobby`` per host process. Transports (TCP, SSH, in-process) call it and then the ``Table`` it hands out;
it holds the settings every table shares (bot pace, turn timer, data dir) and closes everything on shutdown.

It also owns the host's store (store.py): on start it brings back every table the store holds (``start``), and
a table that ends for good (nobody left, no game waiting for anyone) leaves the store with it. Closing the lobby
for a restart (SIGTERM, SIGINT) keeps every table in the store; ``close(forget=True)`` ends them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from nothanks_tui.bots import bot_names
from nothanks_tui.defaults import BOT_PACE, DEFAULT_BOT, MAX_TABLES, TURN_CLOCK, TURN_CLOCK_RANGE, TURN_TIMER
from nothanks_tui.engine import IllegalMove
from nothanks_tui.i18n import N_
from nothanks_tui.link import NewTable, Rejected, TableSummary, errors
from nothanks_tui.link.daily import DAILY_BOT, DAILY_PLAYERS, TOP, daily_seed, is_daily, rank, today
from nothanks_tui.link.history import HISTORY_PAGE, HistoryPage, PlayerStats, Rated, parse_game_id
from nothanks_tui.link.invites import new_secret, parse_invite
from nothanks_tui.link.names import name_key

from .archive import HOST
from .background import every
from .chat import ChatRoom
from .errors import HostError
from .history import RecordStore
from .limits import TokenBucket, spend
from .store import GroupCommit, StoredTable, StoreError, TableStore, hash_token, open_store
from .table import Member, Table, TableParts, TableSettings

Read = TypeVar("Read")

log = logging.getLogger(__name__)

RESTORED_WAITING_GRACE = 300.0  # seconds a restored table keeps its seats for players not back yet (but mid-game)
STORE_CHECK = 2.0  # seconds between two checks of the store's file (a problem is logged within this)


@dataclass(frozen=True)
class LobbySettings:
    """Host-wide settings. ``seed`` makes every deal reproducible (tests); None deals from the OS's randomness."""

    data_dir: Path | None = None
    bot_delay: float = BOT_PACE
    turn_timer: float | None = TURN_TIMER
    turn_clock: float | None = TURN_CLOCK  # a new table's, unless its creator chooses (a restored table's too)
    default_bot: str = DEFAULT_BOT
    max_tables: int = MAX_TABLES
    max_tables_per_address: int = 4  # tables created by one address (network) that are still open...
    tables_per_minute: float = 6.0  # ...and how many it creates a minute (at once: this or the above)
    code_guesses: float = 10.0  # invite codes one address (network) tries a minute (at once: as many)
    unstarted_table_timeout: float = 900.0  # seconds a table may wait for its game to start before it closes
    seed: int | None = None
    restored_waiting_grace: float = RESTORED_WAITING_GRACE
    bot_processes: int = 0  # worker processes for the bots' searches and the coach (thinking.py); 0: threads


def daily_player(member: Member) -> str:
    """Whom a daily deal is counted for: once a day per name at this host, case and width aside as a name is owned
    (``Alice`` is ``alice``: the same player), shown so in the ranking (the one place that says so)."""
    return name_key(member.name)


class Lobby:
    """The tables of one host."""

    def __init__(self, settings: LobbySettings | None = None, store: TableStore | None = None) -> None:
        """``store``: where tables are kept; by default the SQLite store in the data dir (in memory without one).
        Tables the store holds are loaded here and set going by ``start``."""
        self.settings = settings or LobbySettings()
        self._tables: dict[str, Table] = {}
        self._rng = None if self.settings.seed is None else random.Random(self.settings.seed)
        data_dir = self.settings.data_dir
        self.store: TableStore = store if store is not None else open_store(data_dir)
        self.records = None if data_dir is None else RecordStore(data_dir)
        self.commits = GroupCommit(self.store)  # every table's moves, one commit per turn of the event loop
        # What every table of this lobby is given: the store, the records, the group commit and the callbacks.
        self._parts = TableParts(
            store=self.store, records=self.records, commits=self.commits, on_idle=self._drop, on_summary=self._changed
        )
        self._restored: list[Table] = []
        self._grace: asyncio.TimerHandle | None = None
        self._checks: asyncio.Task[None] | None = None
        self.closed = False
        self.version = 0  # counts changes to any table's lobby line (transports cache their table lists by it)
        self._owners: dict[str, str] = {}  # table id -> the address that created it (for the per-address limit)
        self._made: dict[str, TokenBucket] = {}  # address -> the tables it may create now
        self._closed_for_room: Counter[str] = Counter()  # address -> its tables closed to make room (_make_room)
        self._guesses: dict[str, TokenBucket] = {}  # address -> the invite codes it may try now
        self.chat = ChatRoom(lobby=True)  # what is said at no table (in memory only), to ``hearing``
        self.hearing: set[Member] = set()  # the connections at no table whose hello listed lobby chat
        self._restore()

    def _table_settings(self, new: NewTable) -> TableSettings:
        """A table's settings: what its creator chose, and this host's pace, turn timer and (unless the creator
        chose one: 0 is off) turn clock."""
        least, most = TURN_CLOCK_RANGE
        if new.turn_clock and not least <= new.turn_clock <= most:  # (the host's default is the command line's)
            raise IllegalMove(errors.BAD_FIELD, f"turn_clock must be {least:g}..{most:g} seconds, or 0 (off)")
        clock = self.settings.turn_clock if new.turn_clock is None else new.turn_clock or None
        settings = TableSettings(new.players, new.open_chips, new.variant, default_bot=new.bot, coach=bool(new.coach))
        return replace(
            settings, bot_delay=self.settings.bot_delay, turn_timer=self.settings.turn_timer, turn_clock=clock
        )

    def _restore(self) -> None:
        """Bring back every table the store holds: a game in progress at its last accepted move, a table that had
        not started with its seats and creator. A table whose last game is over is not brought back (its record is
        kept); nor is one with no player left to come back for."""
        if self.records is not None:
            if removed := self.records.clean_temps():
                log.info("removed %d temp files a previous run left", removed)
            if written := self.records.export_pending(self.store):
                log.info("wrote %d records the previous run had not written as JSON", written)
        self._restored = [table for table in map(self._restore_one, self.store.load_tables()) if table is not None]
        if self._restored:
            log.info("restored %d tables from the store", len(self._restored))

    def _restore_one(self, stored: StoredTable) -> Table | None:
        """Bring back one stored table into this lobby (not yet playing: its ``driver.drive()``); None if it is not
        worth it (dropped from the store) or cannot be replayed (left out, kept in the store)."""
        if not any(seat is not None and seat.bot_kind is None for seat in stored.seats):  # nobody to come back
            self.store.drop_table(stored.table_id)
            return None
        try:
            bot = stored.default_bot if stored.default_bot in bot_names() else self.settings.default_bot
            clock = None if stored.turn_clock is None else round(stored.turn_clock)
            settings = self._table_settings(
                NewTable(stored.players, 0, bot, stored.open_chips, stored.variant, stored.coach, clock)
            )
            table = Table.restore(stored, replace(settings, chips_per_player=stored.chips_per_player), **self._parts)
        except (IllegalMove, ValueError) as error:  # a store this version cannot replay: keep it out of play
            log.error("table %s cannot be restored (%s); leaving it out", stored.table_id, error)
            return None
        self._tables[table.table_id] = table
        if table.finished and is_daily(table.table_id):  # (its result, had the host stopped before keeping it)
            self._daily_over(table)
        return table

    def adopt(self, stored: StoredTable) -> Table | None:
        """While serving: one stored table (taken over from a host that died or stopped, cluster/takeover.py) plays
        on here at its last accepted move, its players given ``restored_waiting_grace`` seconds to resume by token
        or key (as at ``start``). None if it is not worth restoring or cannot be replayed."""
        if self.closed or stored.table_id in self._tables:
            return None
        table = self._restore_one(stored)
        if table is None:
            return None
        self.version += 1
        table.driver.drive()
        asyncio.get_running_loop().call_later(self.settings.restored_waiting_grace, self._release, [table])
        log.info("table %s adopted at move %d", table.table_id, len(stored.moves))
        return table

    def release(self, table_id: str, reason: str) -> Table | None:
        """The table stops here at once and leaves this lobby, but stays in the store (another host holds it now,
        or will: a lease lost, a host stopping). Its members are told ``reason``; the table, or None."""
        table = self._tables.get(table_id)
        if table is not None:
            self._drop(table, reason, keep=True)
        return table

    def start(self) -> None:
        """On the event loop: restored tables' bots and turn timers start again; their players have
        ``restored_waiting_grace`` seconds to resume before their seats free up (but in a game in progress), and a
        table whose game is over (its bots may finish it meanwhile) is kept that long for them."""
        restored, self._restored = self._restored, []
        if hasattr(self.store, "check"):  # (a file's: Redis is checked by its leases)
            checks = every(STORE_CHECK, self.check_store, lambda error: log.error("the store check failed: %s", error))
            self._checks = asyncio.get_running_loop().create_task(checks)
        for table in restored:
            table.driver.drive()
        if restored:
            loop = asyncio.get_running_loop()
            self._grace = loop.call_later(self.settings.restored_waiting_grace, self._release, restored)

    async def check_store(self) -> None:
        """The store's file is still there and takes a write: a change either way is logged, a failure told to every
        player (each move is refused meanwhile), and the bots play on once it is back."""
        store: Any = self.store
        was = store.broken
        problem = store.check()
        if problem == was or (problem and was):
            return
        if problem is None:
            log.warning("the store %s takes changes again: play goes on", store.path)
        else:
            log.error("the store cannot keep the games: %s; every move is refused until it can", problem)
        down = Rejected(errors.NOT_SAVED, f"the host cannot save the games right now: moves wait ({problem})")
        for table in list(self._tables.values()):
            if problem is None:
                table.driver.drive()
            else:
                for member in list(table.members):
                    table._deliver(member, down)

    def _release(self, tables: list[Table]) -> None:
        for table in tables:
            table.release_away_seats()

    def tables(self) -> list[TableSummary]:
        return [table.summary() for table in self.listed()]

    def listed(self) -> list[Table]:
        """The tables anyone may see: neither private nor a daily deal's."""
        return [table for table_id, table in self._tables.items() if table.invite is None and not is_daily(table_id)]

    def all_tables(self) -> list[Table]:
        return list(self._tables.values())

    def table(self, table_id: object) -> Table:
        if not isinstance(table_id, str) or table_id not in self._tables or is_daily(table_id):
            raise HostError(errors.NO_TABLE, f"no table {str(table_id)[:20]!r}")
        return self._tables[table_id]

    def admit(self, table_id: object, code: str | None, holder: str) -> Table:
        """The table ``table_id``, if it is public or ``code`` is its invite code; every code tried is counted
        against ``holder``'s network (``code_guesses`` a minute: too few to guess one)."""
        table = self.table(table_id)
        if table.invite is None:
            return table
        most = self.settings.code_guesses
        if holder and not spend(self._guesses, holder, most, most):
            raise HostError(errors.TOO_MANY, f"your address tries at most {most:g} codes a minute")
        parsed = parse_invite(code) if isinstance(code, str) else None
        if parsed is None or parsed[0] != table.table_id or not secrets.compare_digest(parsed[1], table.invite):
            raise HostError(errors.PRIVATE_TABLE, "this table is private: its invite code lets you in")
        return table

    def create_table(
        self, new: NewTable, creator: Member, owner: str | None = None, daily: int | None = None
    ) -> tuple[Table, int, str]:
        """A new table with ``creator`` in seat 0 and ``new.bots`` bots; returns (table, seat, resume token).
        ``owner``: the address it is created from, limited to ``max_tables_per_address`` open tables. ``daily``: the
        seed of a daily deal's table (its bots' seeds and its deal, drawn in that order)."""
        if self.closed:
            raise HostError(errors.SERVER_CLOSING, "the host is shutting down")
        limit, rate = self.settings.max_tables_per_address, self.settings.tables_per_minute
        if owner is not None and sum(1 for who in self._owners.values() if who == owner) >= limit:
            raise HostError(errors.TOO_MANY, f"your address has {limit} open tables already: play at one of them")
        if owner is not None and not spend(self._made, owner, rate, max(rate, limit)):
            raise HostError(errors.TOO_MANY, f"your address creates at most {rate:g} tables a minute")
        if new.bot not in bot_names():
            raise HostError(errors.BAD_BOT, f"unknown bot {new.bot[:20]!r}; choose from {', '.join(bot_names())}")
        settings = self._table_settings(new)
        try:  # (a cluster's store numbers the tables of every host)
            table_id = f"{'t' if daily is None else 'd'}{self.store.next_table_number()}"
        except StoreError as error:
            raise HostError(errors.NOT_SAVED, f"the host could not save a new table ({error})") from None
        rng = None if self._rng is None else random.Random(self._rng.randrange(2**63))
        rng = rng if daily is None else random.Random(daily)
        table = Table(table_id, settings, rng=rng, **self._parts)
        table.invite = new_secret() if new.private else None
        if not isinstance(new.bots, int) or not 0 <= new.bots < new.players:
            raise IllegalMove(errors.BAD_FIELD, f"bots must be 0..{new.players - 1}: one seat is yours")
        table.hush = True  # the table, its creator's seat, its bots and the table closed for room: one commit
        try:
            with getattr(self.store, "batch", contextlib.nullcontext)():  # (a botnet makes dozens a second)
                table._persist(lambda store: store.create_table(table.stored()))
                seat, token = table.join(creator)
                table.add_bots(new.bots, new.bot)
                if len(self._tables) >= self.settings.max_tables and not self._make_room(owner or ""):
                    raise HostError(errors.TOO_MANY_TABLES, "this host has as many tables as it can hold")
        except StoreError as error:
            raise HostError(errors.NOT_SAVED, f"the host could not save a new table ({error})") from None
        table.hush = False
        self._tables[table_id] = table
        if owner is not None:
            self._owners[table_id] = owner
        table._broadcast()  # (the lobby's version moves with its line)
        log.info("table %s created: %d players, %d bots", table_id, new.players, new.bots)
        return table, seat, token

    def _make_room(self, requester: str) -> bool:
        """At the total: close the oldest table where no person has moved, of the network holding the most, more
        than ``requester`` (the newcomer's network, which may replace its own), and between networks holding as
        many, of the one whose tables were closed for room most often (a botnet of many addresses churns: a
        newcomer's waiting table is not the oldest to go); False if there is none (fair shares, not first come)."""
        held, closed, owners = Counter(self._owners.values()), self._closed_for_room, self._owners

        def played(table: Table) -> bool:
            return table.person_moved or any(table.seats[seat].human for seat in table.movers())

        unplayed = [(owners.get(table.table_id, ""), table) for table in self._tables.values() if not played(table)]
        unplayed = [(owner, table) for owner, table in unplayed if held[owner] > held[requester] or owner == requester]
        if not unplayed:
            return False
        owner, victim = min(unplayed, key=lambda pair: (-held[pair[0]], -closed[pair[0]], pair[1].created_at))
        if len(closed) > 10_000:  # (forgotten all at once, as limits.spend's buckets)
            closed.clear()
        closed[owner] += 1
        self._drop(victim, "this host is full: it closed the oldest table where nobody had played")
        return True

    def resume(self, token: object, member: Member) -> tuple[Table, int]:
        """Give back the seat ``token`` was issued for; returns (table, seat)."""
        if isinstance(token, str):
            digest = hash_token(token)  # once, for every table
            for table in self._tables.values():
                index = table.seat_of_digest(digest)
                if index is not None:
                    return table, table.resume_seat(index, member)
        raise HostError(errors.BAD_TOKEN, "no seat holds this token (the game may be over)")

    # The daily deal: one deal a day (UTC) for everyone at this host, each at a table of their own.

    def daily(self, creator: Member, owner: str | None = None) -> tuple[Table, int, str]:
        """Today's deal for ``creator`` (``daily_played`` if they started it already), dealt at once."""
        if self.closed:
            raise HostError(errors.SERVER_CLOSING, "the host is shutting down")
        if getattr(creator, "guest", False):  # (a guest could play it again under another name, and learn it first)
            raise HostError(errors.DAILY_NEEDS_KEY, "a guest (no key) cannot play the daily deal: come with a key")
        day, player = today(), daily_player(creator)
        played = HostError(errors.DAILY_PLAYED, "you have played today's daily deal already: once a day (UTC)")
        try:
            if self.store.daily_entry(day, player) is not None:
                raise played
            seed = daily_seed(self.store.daily_secret(), day)
        except StoreError as error:
            raise HostError(errors.NOT_SAVED, f"the host cannot keep the daily deal now ({error})") from None
        new = NewTable(DAILY_PLAYERS, DAILY_PLAYERS - 1, DAILY_BOT)
        table, seat, token = self.create_table(new, creator, owner, daily=seed)
        try:
            started = self.store.daily_start(day, player, table.table_id, time.time())
        except StoreError as error:
            self._drop(table)
            raise HostError(errors.NOT_SAVED, f"the host cannot keep the daily deal now ({error})") from None
        if not started:
            self._drop(table)
            raise played
        table.start(None)
        return table, seat, token

    def daily_ranking(self, player: str) -> dict[str, Any]:
        """Today's ranking (its ``TOP`` lines), ``player``'s own line and whether they started today's deal."""
        day, what = today(), "the daily ranking"
        ranked = rank(self._read(lambda: self.store.daily_results(day), what))
        you = next((line for line in ranked if line.name == player), None)
        played = you is not None or self._read(lambda: self.store.daily_entry(day, player), what) is not None
        reply = {"type": "daily_ranking", "day": day, "count": len(ranked), "top": ranked[:TOP], "you": you}
        return msgspec.to_builtins({**reply, "played": played})

    def _daily_over(self, table: Table) -> None:
        """A daily deal's game is over: its player's score is kept (whoever played their last moves)."""
        assert table.state is not None
        try:
            self.store.daily_finish(table.table_id, table.state.scores()[0], time.time())
        except StoreError:
            log.exception("table %s: could not keep the daily result", table.table_id)

    def hear(self, member: Member, hears: bool) -> None:
        """``member`` is at no table now and hears the lobby's chat (its recent lines first), or no longer."""
        if not hears:
            self.hearing.discard(member)
        elif member not in self.hearing:
            self.hearing.add(member)
            if (history := self.chat.history()) is not None:
                member.deliver(history)

    def say(self, member: Member, text: object) -> None:
        """``member`` says ``text`` to everyone in the lobby, the sender too."""
        if member not in self.hearing:
            raise HostError(errors.NOT_AT_TABLE, "join a table first")
        line = self.chat.say(member.name, None, text)
        for listener in list(self.hearing):
            listener.deliver(line)

    # SSH keys: the SSH front binds a player's key to the seat they took, and gives it back when the key returns.

    def key_seat(self, fingerprint: str) -> tuple[Table, int] | None:
        """The table and seat bound to SSH key ``fingerprint`` now, if that table is still here."""
        bound = self.store.seat_for_key(fingerprint)
        if bound is None or bound[0] not in self._tables:
            return None
        table = self._tables[bound[0]]
        if not 0 <= bound[1] < len(table.seats) or not table.seats[bound[1]].human:
            return None
        return table, bound[1]

    def resume_key(self, fingerprint: str, member: Member) -> tuple[Table, int]:
        """Give back the seat bound to SSH key ``fingerprint``; returns (table, seat). ``bad_token`` if none."""
        if (held := self.key_seat(fingerprint)) is None:
            raise HostError(errors.BAD_TOKEN, "no seat is bound to this key (the game may be over)")
        return held[0], held[0].resume_seat(held[1], member)

    # The history: finished games only. A record holds the deal, so a game still being played is never opened.

    def history(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        offset = max(0, offset)
        games, total = self._read(lambda: self.store.list_games(offset, max(0, min(limit, HISTORY_PAGE)), HOST))
        return HistoryPage(tuple(games), total, offset)

    def game_record(self, game: str) -> dict[str, Any]:
        """The record of finished game ``game`` (``t3/2``; ``t3``: that table's latest finished game). A game in
        progress is refused (``not_finished``), whatever its id; so is one this host does not have (``no_game``)."""
        try:
            table_id, game_no = parse_game_id(game)
        except ValueError as error:
            raise HostError(errors.NO_GAME, str(error)) from None
        if is_daily(table_id):  # (it would show the deal to whoever has not played it yet)
            raise HostError(errors.NO_GAME, "a daily deal's games are not replayed")
        table = self._tables.get(table_id)
        if table is not None and table.started and not table.finished and game_no in (None, table.games_played):
            raise HostError(errors.NOT_FINISHED, "that game is still being played: it can be replayed once it is over")
        record = self._read(lambda: self.store.game_record(table_id, game_no, HOST), f"the record of {game[:40]!r}")
        if record is None:
            raise HostError(errors.NO_GAME, f"no finished game {game[:40]!r} at this host")
        return record

    def stats(self, key: str | None = None) -> list[PlayerStats]:
        """Every player's statistics at this host (per SSH key or seat token); ``key``: the asker's, marked."""
        return self._read(lambda: self.store.player_stats(HOST, key=key))

    def leaderboard(self) -> list[Rated]:
        """Players by rating at this host, best first, with the bot levels' fixed ratings (ratings.py)."""
        return self._read(self.store.leaderboard)

    def _read(self, read: Callable[[], Read], what: str = "its history") -> Read:
        try:
            return read()
        except StoreError as error:
            raise HostError(errors.NO_GAME, f"the host cannot read {what} ({error})") from None

    def close(self, reason: str = N_("the host is shutting down"), *, forget: bool = False) -> None:
        """Close every table, its members told ``reason``; the store keeps them for the next start unless ``forget``."""
        self.closed = True
        self.commits.flush()  # moves accepted a moment ago are kept (and shown, to whoever is still here)
        for timer in (self._grace, self._checks):
            if timer is not None:
                timer.cancel()
        for table in list(self._tables.values()):
            table.close(reason)
            if forget:
                self.store.drop_table(table.table_id)
        self._tables.clear()
        self.store.close()  # the data dir is free for the next host

    def expire_unstarted(self, now: float | None = None) -> int:
        """Close the tables whose game has not started ``unstarted_table_timeout`` seconds after they were made."""
        now = time.monotonic() if now is None else now
        timeout = self.settings.unstarted_table_timeout
        stale = [t for t in self._tables.values() if not t.started and now - t.created_at >= timeout]
        for table in stale:
            self._drop(table, f"the game did not start within {timeout / 60:g} minutes")
        return len(stale)

    def _changed(self, table: Table) -> None:
        self.version += 1
        if table.finished and is_daily(table.table_id):
            self._daily_over(table)

    def _drop(self, table: Table, reason: str = N_("table closed"), *, keep: bool = False) -> None:
        """``table`` closes here, its members told ``reason``, and leaves the store (``keep``: stays in it)."""
        if self._tables.get(table.table_id) is table:
            del self._tables[table.table_id]
            self._owners.pop(table.table_id, None)
            self.version += 1
            table.close(reason)
            try:
                if not keep:
                    self.store.drop_table(table.table_id)
            except Exception:
                log.exception("table %s: could not drop it from the store", table.table_id)
            log.info("table %s %s: %s", table.table_id, "released" if keep else "closed", reason)
