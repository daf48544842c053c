"""A host's TCP port: one ``Session`` per connection, each client message a call on the Lobby or its Table.

The transport knows no rules. The reading (limits, decoding each frame into its message type, refusals answered
with their stable codes) is session.py's, shared with a cluster's front; here is what each message does on a host,
one handler each (``on_<type>``). A connection that sends garbage, oversize frames or floods is closed; nobody
else notices. Each member gets the view filtered for its seat at the moment it is sent (``deliver``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Unpack

from nothanks_tui.engine import IllegalMove
from nothanks_tui.link import (
    ChatHistory,
    ChatLine,
    Closed,
    NewTable,
    Rejected,
    TableSummary,
    TableUpdate,
    TableWaiting,
    errors,
)
from nothanks_tui.link import messages as m
from nothanks_tui.link.chat import CHAT
from nothanks_tui.link.history import page_to_wire, stats_to_wire
from nothanks_tui.link.wire import ProtocolError, advice_to_wire, chat_to_wire, encode_event

from .chat import chat_bucket, too_fast
from .errors import HostError
from .limits import MAX_CONNECTIONS, AddressCounts
from .lobby import Lobby
from .session import (
    RATE_PER_SECOND,
    PortOptions,
    ProtocolServer,
    ProtocolSession,
    Reply,
    TablePages,
)
from .table import HostEvent, Table

__all__ = ["MAX_CONNECTIONS", "RATE_PER_SECOND", "Session", "TcpHost"]

log = logging.getLogger(__name__)


class Session(ProtocolSession):
    """One TCP client of a host: its place at one table (seat or spectator), and what each message does there."""

    server: TcpHost

    def setup(self) -> None:
        self.table: Table | None = None
        self.spectating = False
        self._chats = chat_bucket(time.monotonic(), self.server.stalls)
        self._coaching: asyncio.Task[None] | None = None  # the coach request being answered (one at a time)

    @property
    def holder(self) -> str:
        """The network this connection's tables and watching count for (limits.py)."""
        return self.server.limits.network(self.address)

    def in_use(self) -> int:
        return super().in_use() if self.table is None else 2 if self.spectating else 3

    # ---------------------------------------------------------------- Member (called by the Table)

    def deliver(self, event: HostEvent) -> None:
        if isinstance(event, TableUpdate | TableWaiting):
            self.send_raw(_encoded(event), view=True)
        elif isinstance(event, Closed):
            self._at_no_table()
            self.send({"type": "table_closed", "reason": event.reason})
        elif isinstance(event, Rejected):
            self.send({"type": "error", "code": event.code, "message": event.message})
        elif isinstance(event, ChatLine | ChatHistory):
            if CHAT in self.features:  # a client that did not say it speaks chat never gets a chat frame
                self.send(chat_to_wire(event))

    # ---------------------------------------------------------------- the lobby's messages

    async def held_seat(self) -> dict[str, Any] | None:
        held = self.server.lobby.key_seat(self.key) if self.key else None
        if held is None:
            return None
        table, seat = held
        return {"table": table.table_id, "seat": seat, "name": table.seats[seat].name}

    def on_history(self, message: m.History) -> Reply:
        """The history's lobby requests: finished games only (``Lobby.game_record`` refuses a game in progress)."""
        self.take_lobby_read("ask for the history")
        return page_to_wire(self.server.lobby.history(message.offset, message.limit))

    def on_replay(self, message: m.Replay) -> Reply:
        self.take_lobby_read("ask for the history")
        return {"type": "record", "game": message.game, "record": self.server.lobby.game_record(message.game)}

    def on_stats(self, message: m.Stats) -> Reply:
        self.take_lobby_read("ask for the history")
        return stats_to_wire(self.server.lobby.stats(self.key))

    def on_create_table(self, message: m.CreateTable) -> Reply:
        self._not_at_table()
        lobby = self.server.lobby
        bot = message.bot if isinstance(message.bot, str) else lobby.settings.default_bot
        new = NewTable(message.players, message.bots, bot, message.open_chips, message.variant, message.coach)
        table, seat, token = lobby.create_table(new, self, owner=self.holder)
        return self._seated(table, seat, token)

    def on_join(self, message: m.Join) -> Reply:
        self._not_at_table()
        table = self.server.lobby.table(message.table)
        seat, token = table.join(self, message.seat)
        return self._seated(table, seat, token)

    def on_spectate(self, message: m.Spectate) -> Reply:
        self._not_at_table()
        table = self.server.lobby.table(message.table)
        limit = self.server.limits.per_address_spectating
        if not self.server.spectating.take(self.holder, limit, self):
            raise HostError(errors.TOO_MANY, f"your address already watches {limit} tables: leave one first")
        try:
            table.spectate(self)
        except BaseException:
            self.server.spectating.give_back(self.holder, self)
            raise
        self.spectating = True
        self._at(table)
        return {"type": "joined", "table": table.table_id, "seat": None, "token": None}

    def on_resume(self, message: m.Resume) -> Reply:
        self._not_at_table()
        table, seat = self.server.lobby.resume(message.token, self)
        return self._seated(table, seat, message.token)

    def on_resume_key(self, message: m.ResumeKey) -> Reply:
        self._not_at_table()
        if not self.key:
            raise ProtocolError(errors.BAD_FIELD, "'resume_key' needs the key of a host's own front's hello")
        table, seat = self.server.lobby.resume_key(self.key, self)
        self._at(table)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": None}

    def on_leave(self, message: m.Leave) -> Reply:
        self._leave_table(on_purpose=True)
        return {"type": "left"}

    # ---------------------------------------------------------------- the table's messages

    def on_action(self, message: m.Act) -> Reply:
        self._current_table().submit(self, message.action, message.state_id)
        return None

    def on_start(self, message: m.Start) -> Reply:
        self._current_table().start(self)
        return None

    def on_add_bot(self, message: m.AddBot) -> Reply:
        self._current_table().add_bot(self, message.bot)
        return None

    def on_play_again(self, message: m.PlayAgain) -> Reply:
        self._current_table().play_again(self)
        return None

    def on_chat(self, message: m.Chat) -> Reply:
        table = self._current_table()
        if not self._chats.take(time.monotonic()):
            raise too_fast()
        table.say(self, message.text)
        return None

    def on_stand_in(self, message: m.StandIn) -> Reply:
        self._current_table().stand_in_for(self, message.seat)
        return None

    def on_coach(self, message: m.Coach) -> Reply:
        """Answered when the search is done (the table goes on meanwhile): ``advice`` to this connection only, or
        an ``error`` with the request's id. One request at a time per connection."""
        table = self._current_table()
        if self._coaching is not None and not self._coaching.done():
            raise HostError(errors.SLOW_DOWN, "the coach is still thinking about your last question")

        async def answer() -> None:
            try:
                advice = await table.ask_coach(self, message.state_id)
            except IllegalMove as error:
                self.error(error.code, error.message, message.id)
                return
            self.reply(advice_to_wire(advice), message.id)

        self._coaching = asyncio.get_running_loop().create_task(answer(), name=f"coach {self.peer}")
        return None

    # ---------------------------------------------------------------- a seat

    def _seated(self, table: Table, seat: int, token: str | None) -> dict[str, Any]:
        self._at(table)
        self._bind(table, seat)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": token}

    def _bind(self, table: Table, seat: int) -> None:
        """A seat taken by a player a front vouched for by their SSH key: the key finds it again (store.py)."""
        if self.key:
            self.server.lobby.bind_key(self.key, table.table_id, seat)

    def _not_at_table(self) -> None:
        if self.table is not None:
            raise HostError(errors.ALREADY_AT_TABLE, "leave your table first")

    def _current_table(self) -> Table:
        if self.table is None:
            raise HostError(errors.NOT_AT_TABLE, "join a table first")
        return self.table

    def _at(self, table: Table) -> None:
        self.table = table
        self.idle_since = None

    def _at_no_table(self) -> None:
        """Bookkeeping when this connection is no longer at its table (it left, was dropped, or the table closed)."""
        self.table = None
        if self.spectating:
            self.spectating = False
            self.server.spectating.give_back(self.holder, self)
        if self.idle_since is None:
            self.idle_since = time.monotonic()

    def _leave_table(self, *, on_purpose: bool) -> None:
        """Off our table: ``on_purpose`` (a ``leave``) or because the connection ended (the seat then waits)."""
        table = self.table
        self._at_no_table()
        if table is not None:
            if on_purpose:
                table.leave(self)
            else:
                table.drop(self)

    async def ended(self) -> None:
        self._leave_table(on_purpose=False)  # the connection ended: a seat in a game waits for its player


_last_event: tuple[object, bytes] | None = None


def _encoded(event: TableUpdate | TableWaiting) -> bytes:
    """Encode an event once for every member it goes to (a table hands the same object to one seat's watchers)."""
    global _last_event
    if _last_event is not None and _last_event[0] is event:
        return _last_event[1]
    frame = encode_event(event)
    _last_event = (event, frame)
    return frame


def _listing_order(table: Table) -> tuple[bool, bool, float]:
    """Tables that can still be joined first, then games under way, then finished ones; oldest first in each."""
    return (table.started, table.finished, table.created_at)


class TcpHost(ProtocolServer):
    """Serves a ``Lobby`` over TCP (session.py's ``ProtocolServer``: ``proxy_key``, ``proxy_from`` and
    ``member_secret`` are said there)."""

    session_class = Session
    log = log

    def __init__(self, lobby: Lobby, bind: str = "127.0.0.1", port: int = 7777, **options: Unpack[PortOptions]) -> None:
        pages = TablePages(lambda: sorted(lobby.all_tables(), key=_listing_order), _summary, lambda: lobby.version)
        super().__init__(pages, bind, port, **options)
        self.lobby = lobby
        self.spectating = AddressCounts()

    def keep_house(self) -> None:
        self.lobby.expire_unstarted()  # tables that never started

    async def closed(self, reason: str, *, forget: bool) -> None:
        self.lobby.close(reason, forget=forget)  # every table (kept in the store for the next start unless forget)


def _summary(table: Table) -> TableSummary:
    return table.summary()
