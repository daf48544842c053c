"""The link's connection interfaces talking to a ``Lobby`` or ``Table`` in this very process, with no socket between.

``nothanks host`` gives its own player an ``InProcessLobby``; ``nothanks play`` a seat at a table of its own
(solo.py); tests use them to drive tables directly. Same events, same refusals as over TCP, because both go through the
same ``Table`` methods.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from nothanks_tui.engine import Action, IllegalMove, to_record
from nothanks_tui.i18n import N_
from nothanks_tui.link import (
    Closed,
    CoachAdvice,
    ConnectionInfo,
    LobbyConnection,
    LobbyError,
    NewTable,
    Rejected,
    TableConnection,
    TableEvent,
    TableSummary,
    errors,
)
from nothanks_tui.link.history import HISTORY_PAGE, HistoryPage, PlayerStats
from nothanks_tui.link.names import BadName, clean_name

from .chat import chat_bucket, too_fast
from .lobby import Lobby
from .table import HostEvent, Table

Result = TypeVar("Result")


class InProcessTable(TableConnection):
    """A seat (or a spectator's chair) at a ``Table`` of this process. Also the table's ``Member``."""

    def __init__(self, name: str, info: ConnectionInfo | None = None) -> None:
        self.name = name
        self.info = info or ConnectionInfo(description=N_("host"))
        self.table: Table | None = None
        self.table_id = ""  # the table this connection sat at (kept after leaving it)
        self.seat: int | None = None
        self._token: str | None = None
        self._events: asyncio.Queue[HostEvent] = asyncio.Queue()
        self._closed = False
        self._chats = chat_bucket(time.monotonic())

    def seated(self, table: Table, seat: int | None, token: str | None = None) -> None:
        """This connection is now at ``table`` (``seat`` None: watching), holding ``token`` to come back."""
        self.table, self.seat, self._token = table, seat, token
        self.table_id = table.table_id

    # Member side (called by the Table)
    def deliver(self, event: HostEvent) -> None:
        if isinstance(event, Closed):
            self.table = None
        self._events.put_nowait(event)

    # TableConnection side (called by the App)
    async def start(self) -> None:
        if self.table is None and not self._closed:
            raise RuntimeError("join a table through InProcessLobby first")

    async def next_event(self) -> TableEvent:
        if self._closed and self._events.empty():
            return Closed(N_("left the table"))
        return await self._events.get()

    async def send_action(self, action: Action, state_id: int) -> None:
        self._call(lambda table: table.submit(self, action, state_id))

    async def play_again(self) -> None:
        self._call(lambda table: table.play_again(self))

    async def start_game(self) -> None:
        self._call(lambda table: table.start(self))

    async def add_bot(self, bot: str | None = None) -> None:
        self._call(lambda table: table.add_bot(self, bot))

    async def stand_in_for(self, seat: int) -> None:
        self._call(lambda table: table.stand_in_for(self, seat))

    async def ask_coach(self, state_id: int) -> CoachAdvice:
        if self.table is None:
            raise LobbyError(errors.NOT_AT_TABLE, "you are not at a table")
        try:
            return await self.table.ask_coach(self, state_id)
        except IllegalMove as error:
            raise LobbyError(error.code, error.message) from None

    @property
    def seat_token(self) -> str | None:
        return self._token

    async def game_record(self) -> dict[str, Any]:
        """The finished game at this table, as its record (the table is in this process: nothing is hidden from
        the host's own code, and the game is over)."""
        table = self.table
        state = None if table is None else table.state
        if table is None or state is None:
            raise LobbyError(errors.NO_GAME, "no game at this table")
        if not state.finished:
            raise LobbyError(errors.NOT_FINISHED, "the game is still being played")
        names = [seat.name or "?" for seat in table.seats]
        bots = [seat.bot is not None for seat in table.seats]
        return to_record(state, names, table=table.table_id, bots=bots, finished_at=time.time())

    @property
    def can_chat(self) -> bool:
        return True

    async def send_chat(self, text: str) -> None:
        if not self._chats.take(time.monotonic()):
            error = too_fast()
            self._events.put_nowait(Rejected(error.code, error.message))
            return
        self._call(lambda table: table.say(self, text))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.table is not None:
            self.table.leave(self)
            self.table = None
        self._events.put_nowait(Closed(N_("left the table")))

    def _call(self, request: Callable[[Table], object]) -> None:
        if self.table is None:
            self._events.put_nowait(Rejected(errors.NOT_AT_TABLE, "you are not at a table"))
            return
        try:
            request(self.table)
        except IllegalMove as error:
            self._events.put_nowait(Rejected(error.code, error.message))


class InProcessLobby(LobbyConnection):
    """A player's way into a ``Lobby`` of this process. ``name`` is cleaned here (``LobbyError`` bad_name)."""

    def __init__(self, lobby: Lobby, name: str, info: ConnectionInfo | None = None) -> None:
        self.lobby = lobby
        self.raw_name = name
        self.name = ""
        self.info = info or ConnectionInfo(description=N_("host"))

    async def start(self) -> None:
        try:
            self.name = clean_name(self.raw_name)
        except BadName as error:
            raise LobbyError(errors.BAD_NAME, str(error)) from None

    async def list_tables(self) -> list[TableSummary]:
        return self.lobby.tables()

    async def create_table(self, settings: NewTable) -> TableConnection:
        seat = self._seat()
        table, index, token = _refusing(lambda: self.lobby.create_table(settings, seat))
        seat.seated(table, index, token)
        return seat

    async def join(self, table_id: str, seat: int | None = None) -> TableConnection:
        member = self._seat()
        table = _refusing(lambda: self.lobby.table(table_id))
        index, token = _refusing(lambda: table.join(member, seat))
        member.seated(table, index, token)
        return member

    async def spectate(self, table_id: str) -> TableConnection:
        member = self._seat()
        table = _refusing(lambda: self.lobby.table(table_id))
        _refusing(lambda: table.spectate(member))
        member.seated(table, None)
        return member

    async def resume(self, token: str) -> TableConnection:
        member = self._seat()
        table, index = _refusing(lambda: self.lobby.resume(token, member))
        member.seated(table, index, token)
        return member

    async def close(self) -> None:
        return None

    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        return _refusing(lambda: self.lobby.history(offset, limit))

    async def open_game(self, game_id: str) -> dict[str, Any]:
        return _refusing(lambda: self.lobby.game_record(game_id))

    async def player_stats(self) -> list[PlayerStats]:
        return _refusing(lambda: self.lobby.stats())

    def _seat(self) -> InProcessTable:
        if not self.name:
            raise LobbyError(errors.HELLO_FIRST, "call start() first")
        return InProcessTable(self.name, self.info)


def _refusing(call: Callable[[], Result]) -> Result:
    """``call()``, with the host's refusal turned into the lobby interface's ``LobbyError``."""
    try:
        return call()
    except IllegalMove as error:
        raise LobbyError(error.code, error.message) from None
