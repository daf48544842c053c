"""What each client message does at a host, and the host's TCP port.

``HostSide`` has one handler per message type (``on_<type>``), each a call on the Lobby or its Table: a TCP
``Session`` and an in-process connection (inprocess.py) both go through them, so one place decides what a message
does at a host. The reading (limits, decoding each frame into its message, refusals answered with their codes) is
session.py's, shared with a cluster's front. Each member gets the view filtered for its seat when it is sent."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any, Unpack

from nothanks_tui.engine import IllegalMove
from nothanks_tui.link import CoachAdvice, errors
from nothanks_tui.link import messages as m
from nothanks_tui.link.chat import CHAT, CHAT_BURST, CHAT_RATE, LOBBY_CHAT
from nothanks_tui.link.daily import is_daily
from nothanks_tui.link.events import ChatHistory, ChatLine, Closed, NewTable, Rejected, TableUpdate, TableWaiting
from nothanks_tui.link.wire import Board, ProtocolError, Stats, encode_event, to_wire

from .errors import HostError
from .limits import MAX_CONNECTIONS, AddressCounts, LoopStalls, PerTurn, TokenBucket
from .lobby import Lobby, daily_player
from .session import RATE_PER_SECOND, PortOptions, ProtocolServer, ProtocolSession, Reply, TablePages
from .store import StoreError
from .table import HostEvent, Table

__all__ = ["MAX_CONNECTIONS", "RATE_PER_SECOND", "HostSide", "Session", "TcpHost"]

log = logging.getLogger(__name__)

# What changes a table (a store commit), taken ``COSTLY_PER_TURN`` a turn of the loop (limits.PerTurn); not moves.
COSTLY = frozenset("create_table daily join start play_again add_bot remove resume resume_key".split())
COSTLY_PER_TURN = 4


class HostSide:
    """A client of a host: its place at one table (a seat, or watching) and its handlers (session.py's rules)."""

    lobby: Lobby
    name: str
    address = ""  # whom the per-address limits count ("": nobody, in-process)
    key: str | None = None  # the SSH key a host's own front vouched for: the seats taken are bound to it
    owner: str | None = None  # the key that owns its name (SSH, a join's, the hosting player's): else its seats'
    idle_since: float | None = None  # in the lobby (at no table) since then
    lobby_chat = False  # its hello listed lobby chat: at no table, it hears the lobby's (``Lobby.hear``)
    deliver: Callable[[HostEvent], None]  # what its table tells it (``Member``): the transport's to pass on

    def begin(self, stalls: LoopStalls | None = None) -> None:
        """At no table yet (``stalls``: the loop's, not charged to its chat budget)."""
        self.table: Table | None = None
        self.table_id = ""  # the table it sat at last (kept after leaving it)
        self.seat: int | None = None
        self.token: str | None = None
        self._chats = TokenBucket(CHAT_RATE, CHAT_BURST, stalls, time.monotonic())  # its own lines
        self._coaching: asyncio.Task[CoachAdvice] | None = None  # the coach request being answered (one at a time)

    @property
    def holder(self) -> str:
        """The network its tables and watching count for (limits.py; "": nobody, in-process)."""
        return ""

    def handle(self, message: m.ClientMessage) -> Reply:
        return getattr(self, "on_" + m.kind_of(message))(message)

    def on_create_table(self, message: m.CreateTable) -> Reply:
        self._not_at_table()
        bot = message.bot if isinstance(message.bot, str) else self.lobby.settings.default_bot
        fields = (message.open_chips, message.variant, message.coach, message.turn_clock, message.private)
        new = NewTable(message.players, message.bots, bot, *fields)
        return self.seated(*self.lobby.create_table(new, self, owner=self.holder or None))

    def on_daily(self, message: m.Daily) -> Reply:
        self._not_at_table()
        return self.seated(*self.lobby.daily(self, owner=self.holder or None))

    def on_join(self, message: m.Join) -> Reply:
        self._not_at_table()
        table = self.lobby.admit(message.table, message.code, self.holder)
        return self.seated(table, *table.join(self, message.seat))

    def on_spectate(self, message: m.Spectate) -> Reply:
        self._not_at_table()
        table = self.lobby.admit(message.table, message.code, self.holder)
        self._watching(True)
        try:
            table.spectate(self)
        except BaseException:
            self._watching(False)
            raise
        return self.seated(table, None, None)

    def on_resume(self, message: m.Resume) -> Reply:
        self._not_at_table()
        return self.seated(*self.lobby.resume(message.token, self), message.token)

    def on_resume_key(self, message: m.ResumeKey) -> Reply:
        self._not_at_table()
        if not self.key:
            raise ProtocolError(errors.BAD_FIELD, "'resume_key' needs the key of a host's own front's hello")
        return self.seated(*self.lobby.resume_key(self.key, self), None)

    def on_leave(self, message: m.Leave) -> Reply:
        self._leave_table(on_purpose=True)
        return {"type": "left"}

    def on_action(self, message: m.Act) -> None:
        self._current_table().submit(self, message.action, message.state_id)

    def on_start(self, message: m.Start) -> None:
        self._current_table().start(self)

    def on_remove(self, message: m.Remove) -> None:
        self._current_table().remove(self, message.seat)

    def on_add_bot(self, message: m.AddBot) -> None:
        self._current_table().add_bot(self, message.bot)

    def on_play_again(self, message: m.PlayAgain) -> None:
        if is_daily((table := self._current_table()).table_id):
            raise HostError(errors.DAILY_PLAYED, "a daily deal is played once: come back tomorrow (UTC)")
        table.play_again(self)

    def on_chat(self, message: m.Chat) -> None:
        room = self.lobby if self.table is None and self.lobby_chat else self._current_table()
        if not self._chats.take(time.monotonic()):
            slower = f"at most {CHAT_BURST:g} chat lines at once, then {CHAT_RATE:g} a second: wait a moment"
            raise HostError(errors.CHAT_TOO_FAST, slower)
        room.say(self, message.text)

    def on_stand_in(self, message: m.StandIn) -> None:
        self._current_table().stand_in_for(self, message.seat)

    def on_coach(self, message: m.Coach) -> None:
        """Worked out in a task (the table goes on meanwhile; ``_coaching``, its answer), one at a time."""
        table = self._current_table()
        if self._coaching is not None and not self._coaching.done():
            raise HostError(errors.SLOW_DOWN, "the coach is still thinking about your last question")
        self._coaching = asyncio.get_running_loop().create_task(table.ask_coach(self, message.state_id))
        self._coaching.add_done_callback(functools.partial(self.advised, message.id))

    def advised(self, request_id: int | None, task: asyncio.Task[CoachAdvice]) -> None:
        """The coach answered or refused (``task`` is done): a TCP client is told (in-process, the asker awaits)."""

    def seated(self, table: Table, seat: int | None, token: str | None) -> dict[str, Any]:
        """At ``table`` now (``seat`` None: watching), with ``token`` to come back; a seat taken with a token by a
        player a front vouched for by their SSH key (else with a key owning their name) is bound to that key
        (store.py): it finds the seat again, and the seat's games are filed (and marked theirs) by it."""
        self.table, self.table_id, self.seat, self.token, self.idle_since = table, table.table_id, seat, token, None
        self._hear_lobby(False)
        if (key := self.key or self.owner) and token and seat is not None:
            self.lobby.store.bind_key(key, table.table_id, seat)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": token}

    def _watching(self, more: bool) -> None:
        """Count one more (or one fewer) table watched from this address (raises ``too_many``); in-process: none."""

    def _not_at_table(self) -> None:
        if self.table is not None:
            raise HostError(errors.ALREADY_AT_TABLE, "leave your table first")

    def _current_table(self) -> Table:
        if self.table is None:
            raise HostError(errors.NOT_AT_TABLE, "join a table first")
        return self.table

    def _at_no_table(self) -> None:
        """No longer at its table (it left, was dropped, or the table closed)."""
        if self.table is not None and self.seat is None:
            self._watching(False)  # it watched that table
        self.table = None
        if self.idle_since is None:
            self.idle_since = time.monotonic()
        self._hear_lobby(True)

    def _hear_lobby(self, hears: bool) -> None:
        if self.lobby_chat:
            self.lobby.hear(self, hears)

    def _leave_table(self, *, on_purpose: bool) -> None:
        """Off its table: ``on_purpose`` (a ``leave``) or because the connection ended (the seat then waits)."""
        table = self.table
        self._at_no_table()
        if table is not None:
            table.part(self, on_purpose=on_purpose)


class Session(HostSide, ProtocolSession):
    """One TCP client of a host."""

    server: TcpHost

    def setup(self) -> None:
        self.lobby = self.server.lobby
        self.begin(self.server.stalls)

    @property
    def holder(self) -> str:
        return self.server.limits.network(self.address)

    def in_use(self) -> int:
        return super().in_use() if self.table is None else 2 if self.seat is None else 3

    async def handle_message(self, message: m.ClientMessage, handler: Callable[[Any], Any] | None = None) -> bool:
        if m.kind_of(message) in COSTLY:
            await self.server.costly.take(self.holder)
        return await super().handle_message(message, handler)

    def deliver(self, event: HostEvent) -> None:
        """What the table tells this member, as its frame (a view encoded once for every member it goes to)."""
        if isinstance(event, TableUpdate | TableWaiting):
            self.send_raw(_encoded(event), view=True)
        elif isinstance(event, Closed):
            self._at_no_table()
            self.send({"type": "table_closed", "reason": event.reason})
        elif isinstance(event, Rejected):
            self.send({"type": "error", "code": event.code, "message": event.message})
        elif isinstance(event, ChatLine | ChatHistory):
            if CHAT in self.features:  # a client that did not say it speaks chat never gets a chat frame
                self.send(to_wire(event))

    async def on_hello(self, message: m.Hello) -> Reply:
        self.reply(await super().on_hello(message) or {}, message.id)  # (before the lobby's chat history)
        self.lobby_chat = LOBBY_CHAT in self.features
        self._hear_lobby(True)
        return None

    async def held_seat(self) -> dict[str, Any] | None:
        held = self.lobby.key_seat(self.key) if self.key else None
        if held is None:
            return None
        table, seat = held
        return {"table": table.table_id, "seat": seat, "name": table.seats[seat].name}

    def on_history(self, message: m.History) -> Reply:
        """The history's lobby requests: finished games only (``Lobby.game_record`` refuses a game in progress)."""
        self.take_lobby_read("ask for the history")
        return to_wire(self.lobby.history(message.offset, message.limit))

    def on_replay(self, message: m.Replay) -> Reply:
        self.take_lobby_read("ask for the history")
        return {"type": "record", "game": message.game, "record": self.lobby.game_record(message.game)}

    def on_stats(self, message: m.Stats) -> Reply:
        self.take_lobby_read("ask for the history")
        return to_wire(Stats(players=self.lobby.stats(self.key or self.owner)))

    def on_leaderboard(self, message: m.Leaderboard) -> Reply:
        self.take_lobby_read("ask for the history")
        return to_wire(Board(players=self.lobby.leaderboard()))

    def on_daily_ranking(self, message: m.DailyRanking) -> Reply:
        self.take_lobby_read("ask for the daily ranking")
        return self.lobby.daily_ranking(daily_player(self))

    def advised(self, request_id: int | None, task: asyncio.Task[CoachAdvice]) -> None:
        error = None if task.cancelled() else task.exception()
        if isinstance(error, IllegalMove):
            self.error(error.code, error.message, request_id)
        elif error is not None:
            log.error("the coach failed", exc_info=error)
        elif not task.cancelled():
            self.reply(to_wire(task.result()), request_id)

    def _watching(self, more: bool) -> None:
        counts, limit = self.server.spectating, self.server.limits.per_address_spectating
        if not more:
            counts.give_back(self.holder, self)
        elif not counts.take(self.holder, limit, self):
            raise HostError(errors.TOO_MANY, f"your address already watches {limit} tables: leave one first")

    async def ended(self) -> None:
        self._hear_lobby(False)
        self.lobby_chat = False  # (nothing more to hear)
        self._leave_table(on_purpose=False)  # the connection ended: a seat in a game waits for its player


_last_event: tuple[object, bytes] | None = None


def _encoded(event: TableUpdate | TableWaiting) -> bytes:
    """Encode an event once for every member it goes to (a table hands the same object to one seat's watchers)."""
    global _last_event
    if _last_event is None or _last_event[0] is not event:
        _last_event = (event, encode_event(event))
    return _last_event[1]


class TcpHost(ProtocolServer):
    """Serves a ``Lobby`` over TCP (session.py's ``ProtocolServer`` says what the options do)."""

    session_class = Session
    log = log

    def __init__(self, lobby: Lobby, bind: str = "127.0.0.1", port: int = 7777, **options: Unpack[PortOptions]) -> None:
        def listed() -> list[Table]:  # the joinable first, then games under way, then finished; oldest first in each
            return sorted(lobby.listed(), key=lambda table: (table.started, table.finished, table.created_at))

        super().__init__(TablePages(listed, Table.summary, lambda: lobby.version), bind, port, **options)
        self.lobby = lobby
        self.spectating = AddressCounts()
        self.costly = PerTurn(COSTLY_PER_TURN)

    def keep_house(self) -> None:
        self.lobby.expire_unstarted()  # tables that never started

    async def name_owner(self, name: str, owner: str | None) -> str | None:
        try:
            return self.lobby.store.claim_name(name, owner)
        except StoreError as error:
            raise ProtocolError(
                errors.NOT_SAVED, f"the host cannot read or keep names now ({error})", fatal=True
            ) from None

    async def closed(self, reason: str, *, forget: bool) -> None:
        self.lobby.close(reason, forget=forget)  # every table (kept in the store for the next start unless forget)
