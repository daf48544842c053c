"""The client side of the TCP protocol: a host's lobby and one table over one msgpack connection.

``TcpLobby`` opens the socket, exchanges hellos and runs one reader task that routes frames: replies to the
pending lobby request that carries the same ``id``, table events to the current ``TcpTable``. Everything from
the host is checked (limits, then shape) before it becomes an event; a host that sends garbage is dropped.

A host that restarts says so (``closing`` with ``restart: true``) and keeps every game: the lobby then reconnects
by itself for up to ``RECONNECT_FOR`` seconds and takes the table back (``resume`` with the seat's token, or
``spectate`` again), so the screens see a pause, not an end. Moves tried meanwhile are refused with a notice. A
connection lost without a word (a cluster's front killed, a network cut) while at a table is taken back the same
way: the player's seat waits for them on the host. A cluster's front says ``table_moving`` while the table
changes host (the feature ``moving``): the table's screen says so, and the front resumes the seat by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from typing import Any

import msgpack
import msgspec

from .. import __version__
from ..defaults import DEFAULT_PORT
from ..engine import Action
from ..i18n import N_, _
from ..link import (
    Closed,
    CoachAdvice,
    ConnectionInfo,
    LobbyConnection,
    LobbyError,
    NewTable,
    Rejected,
    TableConnection,
    TableEvent,
    TableMoving,
    TableSummary,
    errors,
)
from ..link import messages as m
from ..link.chat import CHAT
from ..link.history import HISTORY_PAGE, HistoryPage, PlayerStats, page_from_wire, stats_from_wire
from ..link.resume import RESENT_MOVE_ID, LastMove, SeatRoute, climb
from ..link.wire import (
    CLIENT_MAX_STR,
    FEATURES,
    MOVING,
    PROTOCOL_VERSION,
    advice_from_wire,
    chat_from_wire,
    client_unpacker,
    event_from_wire,
    summary_from_wire,
)
from .error_sentences import error_sentence, os_reason

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0
HANDSHAKE_TIMEOUT = 3.0  # connect, hellos and welcome: a wrong address or port is said within this
RECONNECT_FOR = 60.0  # seconds a client waits for a restarting host to come back
RESTARTING = N_("the host is restarting; your game is kept: reconnecting to your table in a moment…")
CONNECTION_LOST = N_("the connection to the host was lost; your seat is kept: reconnecting to your table…")


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``[v6]:PORT`` or a bare IPv6 address -> (host, port). ValueError if unreadable."""
    text = text.strip()
    if not text:
        raise ValueError(_("empty address"))
    port_text = None
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(
                _("cannot read address {text!r}: an IPv6 address is written [address]:port").format(text=text)
            )
        port_text = rest[1:] if rest else None
    elif text.count(":") == 1:
        host, _colon, port_text = text.partition(":")
    else:
        host = text
    port = default_port if port_text is None else _port_number(port_text)
    if not host or port is None:
        raise ValueError(_("cannot read address {text!r}: the port is a number from 1 to 65535").format(text=text))
    return host, port


def _port_number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and 0 < int(text) < 65536 else None


class TcpTable(TableConnection):
    """The table this client sits at (or watches) through a ``TcpLobby``'s connection."""

    def __init__(self, lobby: TcpLobby, table_id: str, seat: int | None, token: str | None) -> None:
        self.lobby = lobby
        self.info = lobby.info
        self.table_id = table_id
        self.seat = seat
        self._token = token
        self.events: asyncio.Queue[TableEvent] = asyncio.Queue()
        self._closed = False

    async def start(self) -> None:
        return None

    async def next_event(self) -> TableEvent:
        if self._closed and self.events.empty():
            return Closed(N_("left the table"))
        return await self.events.get()

    async def send_action(self, action: Action, state_id: int) -> None:
        move = m.Act(action=Action(action).value, state_id=state_id)
        if self.lobby.online:  # (sent again if the connection dies before its outcome is seen: link/resume.py)
            self.lobby.last_move.move = move
        await self.lobby.send(move)

    async def play_again(self) -> None:
        await self.lobby.send(m.PlayAgain())

    async def start_game(self) -> None:
        await self.lobby.send(m.Start())

    async def add_bot(self, bot: str | None = None) -> None:
        await self.lobby.send(m.AddBot(bot=bot))

    async def stand_in_for(self, seat: int) -> None:
        await self.lobby.send(m.StandIn(seat=seat))

    async def ask_coach(self, state_id: int) -> CoachAdvice:
        reply = await self.lobby.request(m.Coach(state_id=state_id))
        try:
            return advice_from_wire(reply)
        except (KeyError, TypeError, ValueError) as error:
            raise LobbyError(errors.BAD_FRAME, f"the host sent unreadable advice: {error}") from None

    @property
    def seat_token(self) -> str | None:
        return self._token

    @property
    def seat_kept(self) -> bool:
        # A player who came in over SSH with a key has every seat bound to it, with no token (resume_key).
        return self._token is not None or (self.seat is not None and self.lobby.seats_bound_to_key)

    async def game_record(self) -> dict[str, Any]:
        """This table's latest finished game, from the host's history (``replay`` with the table's id)."""
        return await self.lobby.open_game(self.table_id)

    @property
    def can_chat(self) -> bool:
        return CHAT in self.lobby.features  # an older host has no chat: the key is not offered

    async def send_chat(self, text: str) -> None:
        if len(text.encode("utf-8", "replace")) > CLIENT_MAX_STR:  # the host would drop the connection for it
            message = f"this line is too long to send (at most {CLIENT_MAX_STR} bytes): say it in fewer words"
            self.events.put_nowait(Rejected(errors.CHAT_TOO_LONG, message))
            return
        await self.lobby.send(m.Chat(text=text))

    async def close(self) -> None:
        """Leave the table; the lobby connection stays open for the next one."""
        if self._closed:
            return
        self._closed = True
        if self.lobby.table is self:
            self.lobby.table = None
            if self.lobby.online:  # (while a restarting host is away there is nobody to tell)
                with contextlib.suppress(LobbyError, ConnectionError, OSError):
                    await self.lobby.request(m.Leave())
        self.events.put_nowait(Closed(N_("left the table")))


class TcpLobby(LobbyConnection):
    """A connection to a host: lobby requests, and the one table we are at."""

    def __init__(
        self,
        host: str,
        port: int = DEFAULT_PORT,
        name: str = "player",
        *,
        via: str | None = None,
        proxy_key: str | None = None,
        key: str | None = None,
    ) -> None:
        """``via`` and ``proxy_key``: a front of the host itself (the SSH front's workers) says which address the
        player it carries comes from, so that the host's per-address limits count the player, not the front; and
        ``key``, the fingerprint of the SSH key the player proved they hold: the host binds their seat to it and
        says in ``held`` which seat it holds for it (``resume_key`` takes it back)."""
        self.host = host
        self.port = port
        self.name = name
        self._speaks_for: dict[str, str] = {}
        if via is not None and proxy_key:
            self._speaks_for = {"via": via, "proxy_key": proxy_key} | ({"key": key} if key else {})
        self.held: dict[str, Any] | None = None  # the seat the host holds for ``key``: table, seat, name
        self.info = ConnectionInfo(description=f"{host}:{port}")
        self.table: TcpTable | None = None
        self.server_name = ""
        self.features: frozenset[str] = frozenset()  # what the host's hello says it speaks beyond the version
        self.closed_reason: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.last_move = LastMove()
        self._ids = itertools.count(1)
        self._read_task: asyncio.Task[None] | None = None
        self._restarting = False  # the host said it restarts: reconnect when the connection ends
        self._notice = RESTARTING  # what a move tried while reconnecting is told
        self._told = False  # the host said why it closes (closing, or a fatal error): no reconnecting unasked
        self._online = asyncio.Event()  # connected (cleared while reconnecting to a restarting host)
        self.on_seat: Callable[[str], None] | None = None  # called with each seat token we are given

    async def start(self) -> None:
        unpacker = await self._connect()
        self._online.set()
        self._read_task = asyncio.get_running_loop().create_task(self._read_loop(unpacker))

    async def _connect(self) -> msgpack.Unpacker:
        """Open the connection and exchange hellos; returns the unpacker holding whatever came after ``welcome``.

        Every failure is one ``LobbyError`` with one readable sentence, within ``HANDSHAKE_TIMEOUT``: nothing
        listening, no answer, something that is not a nothanks host, another protocol version, or the host's own
        refusal (full, bad name)."""
        where = f"{self.host}:{self.port}"
        try:
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                return await self._handshake(where)
        except LobbyError:
            self._drop_socket()
            raise
        except TimeoutError:
            self._drop_socket()
            raise LobbyError(
                errors.TIMEOUT,
                _("{where} did not answer as a nothanks host within {seconds:g} s: check the address and port").format(
                    where=where, seconds=HANDSHAKE_TIMEOUT
                ),
            ) from None
        except ConnectionRefusedError:
            self._drop_socket()
            raise LobbyError(
                errors.UNREACHABLE, _("cannot reach {where}: nothing is listening on that port").format(where=where)
            ) from None
        except OSError as error:
            self._drop_socket()
            reason = os_reason(error)
            raise LobbyError(
                errors.UNREACHABLE, _("cannot reach {where}: {reason}").format(where=where, reason=reason)
            ) from None
        except (msgpack.UnpackException, ValueError, TypeError):
            self._drop_socket()
            raise LobbyError(errors.BAD_FRAME, f"{where} is not a nothanks host (it answered something else)") from None

    async def _handshake(self, where: str) -> msgpack.Unpacker:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        unpacker = client_unpacker()
        ours = m.Hello(protocol=PROTOCOL_VERSION, name=self.name, client=_client(), features=[*FEATURES, MOVING])
        await self._write(msgspec.structs.replace(ours, **self._speaks_for))
        hello = await self._read_one(unpacker, where)
        if hello.get("type") == "error":
            raise LobbyError(str(hello.get("code")), str(hello.get("message")))
        if hello.get("type") != "hello":
            raise LobbyError(errors.BAD_FRAME, f"{where} is not a nothanks host (it answered something else)")
        if hello.get("protocol") != PROTOCOL_VERSION:
            theirs = hello.get("protocol")
            raise LobbyError(
                errors.BAD_VERSION,
                f"{where} speaks protocol {theirs!r} and this nothanks speaks {PROTOCOL_VERSION}: use the same "
                "version as the host",
            )
        self.server_name = str(hello.get("server", ""))
        self.features = m.features_of(hello.get("features"))
        welcome = await self._read_one(unpacker, where)
        if welcome.get("type") == "error":
            raise LobbyError(str(welcome.get("code")), str(welcome.get("message")))
        self.name = str(welcome.get("name", self.name))
        held = welcome.get("held")
        self.held = held if isinstance(held, dict) else None
        self.info.extras["name"] = self.name
        return unpacker

    @property
    def seats_bound_to_key(self) -> bool:
        """Every seat this player takes is bound to the SSH key they came in with (hello's ``key``): the host keeps
        it for them without a token (``resume_key``)."""
        return "key" in self._speaks_for

    def _drop_socket(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.close()

    @property
    def online(self) -> bool:
        """Connected (false while reconnecting to a restarting host, and once closed)."""
        return self._online.is_set() and self._writer is not None

    async def list_tables(self) -> list[TableSummary]:
        reply = await self.request(m.ListTables())
        try:
            return [summary_from_wire(item) for item in reply["tables"]]
        except (KeyError, TypeError, ValueError) as error:
            raise LobbyError(errors.BAD_FRAME, f"the host sent an unreadable table list: {error}") from None

    async def create_table(self, settings: NewTable) -> TableConnection:
        return await self._sit(
            m.CreateTable(
                players=settings.players,
                bots=settings.bots,
                bot=settings.bot,
                open_chips=settings.open_chips,
                variant=settings.variant,
                coach=settings.coach,
            )
        )

    async def join(self, table_id: str, seat: int | None = None) -> TableConnection:
        return await self._sit(m.Join(table=table_id, seat=seat))

    async def spectate(self, table_id: str) -> TableConnection:
        return await self._sit(m.Spectate(table=table_id))

    async def resume(self, token: str) -> TableConnection:
        return await self._sit(m.Resume(token=token))

    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        reply = await self.request(m.History(offset=offset, limit=limit))
        try:
            return page_from_wire(reply)
        except (KeyError, TypeError, ValueError) as error:
            raise LobbyError(errors.BAD_FRAME, f"the host sent an unreadable history: {error}") from None

    async def open_game(self, game_id: str) -> dict[str, Any]:
        reply = await self.request(m.Replay(game=game_id))
        record = reply.get("record")
        if not isinstance(record, dict):
            raise LobbyError(errors.BAD_FRAME, "the host sent an unreadable record")
        return record

    async def player_stats(self) -> list[PlayerStats]:
        reply = await self.request(m.Stats())
        try:
            return stats_from_wire(reply)
        except (KeyError, TypeError, ValueError) as error:
            raise LobbyError(errors.BAD_FRAME, f"the host sent unreadable statistics: {error}") from None

    async def resume_key(self) -> TableConnection:
        """Take back the seat bound to the SSH key given in hello (a host's own front only)."""
        return await self._sit(m.ResumeKey())

    async def close(self) -> None:
        if self._writer is None and self.closed_reason is not None:
            return
        if self.closed_reason is None:
            self.closed_reason = "disconnected"  # we hung up: whatever the reader sees next is not news
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.write(m.encode_message(m.Bye()))
                writer.close()
                await asyncio.wait_for(writer.wait_closed(), 2.0)
        if self._read_task is not None and self._read_task is not asyncio.current_task():
            self._read_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._read_task
        self._end("disconnected")

    # ---------------------------------------------------------------- plumbing

    async def send(self, message: m.ClientMessage) -> None:
        """Send without waiting for a reply (table intents: the answer is an update or an error event)."""
        if self._writer is None or not self._online.is_set():
            if self.table is not None:
                if self.closed_reason is None and self._restarting:
                    self.table.events.put_nowait(Rejected(errors.CLOSED, _(self._notice)))
                else:
                    self.table.events.put_nowait(Closed(self.closed_reason or N_("not connected")))
            return
        await self._write(message)

    async def request(self, message: m.ClientMessage) -> dict[str, Any]:
        """Send a lobby request and wait for the reply that names its id; an ``error`` reply raises LobbyError."""
        if not self._online.is_set() and self._restarting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._online.wait(), RECONNECT_FOR)
        if self._writer is None:
            raise LobbyError(errors.CLOSED, _(self.closed_reason or N_("not connected")))
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._write(m.with_id(message, request_id))
            reply = await asyncio.wait_for(future, REQUEST_TIMEOUT)
        except TimeoutError:
            raise LobbyError(errors.TIMEOUT, _("the host did not answer")) from None
        finally:
            self._pending.pop(request_id, None)
        if reply.get("type") == "error":
            raise LobbyError(str(reply.get("code")), str(reply.get("message")))
        return reply

    async def _sit(self, message: m.ClientMessage) -> TcpTable:
        self.last_move.move = None
        if self.table is not None:
            await self.table.close()
        # The table's first events may arrive right behind the reply: route them to a table made in advance.
        table = TcpTable(self, "", None, None)
        self.table = table
        try:
            reply = await self.request(message)
        except BaseException:
            self.table = None
            raise
        table.table_id = str(reply.get("table", ""))
        seat = reply.get("seat")
        table.seat = seat if isinstance(seat, int) else None
        token = reply.get("token")
        table._token = token if isinstance(token, str) else None
        if table._token is not None and self.on_seat is not None:
            self.on_seat(table._token)
        return table

    async def _write(self, message: m.ClientMessage) -> None:
        if self._writer is None:
            raise LobbyError(errors.CLOSED, _("not connected"))
        self._writer.write(m.encode_message(message))
        await self._writer.drain()

    async def _read_one(self, unpacker: msgpack.Unpacker, where: str) -> dict[str, Any]:
        """The next message of the handshake (the caller bounds the wait)."""
        assert self._reader is not None
        while True:
            try:
                message = next(unpacker)
            except StopIteration:
                data = await self._reader.read(65536)
                if not data:
                    raise LobbyError(
                        errors.CLOSED, f"{where} hung up at once: not a nothanks host, or a busy one"
                    ) from None
                unpacker.feed(data)
                continue
            if not isinstance(message, dict):
                raise LobbyError(errors.BAD_FRAME, f"{where} is not a nothanks host (it answered something else)")
            return message

    async def _read_loop(self, unpacker: msgpack.Unpacker) -> None:
        reason = N_("the host closed the connection")
        try:
            assert self._reader is not None
            while True:
                for message in unpacker:
                    if not isinstance(message, dict):
                        raise ValueError("not a map")
                    closing = self._route(message)
                    if closing is not None:
                        reason = closing
                data = await self._reader.read(65536)
                if not data:
                    break
                unpacker.feed(data)
        except asyncio.CancelledError:
            raise
        except (ConnectionError, OSError):
            reason = N_("the connection to the host was lost")
        except (msgpack.UnpackException, ValueError, TypeError, KeyError) as error:
            log.warning("host sent a malformed frame: %r", error)
            reason = N_("the host sent a malformed message")
            self._told = True  # not a connection lost: nothing to come back to
        if self.closed_reason is None and not self._restarting and not self._told and self.table is not None:
            self._restarting, self._notice = True, CONNECTION_LOST  # lost without a word while at a table
        if self._restarting and self.closed_reason is None:
            await self._reconnect()
        else:
            self._end(reason)

    async def _reconnect(self) -> None:
        """The host said it restarts: connect again (for up to ``RECONNECT_FOR`` seconds) and take our table back."""
        self._online.clear()
        self._restarting = True
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.close()
        table = self.table
        if table is not None:  # said on the table's screen at once (a toast), not only when a key is pressed
            table.events.put_nowait(Rejected(errors.CLOSED, _(self._notice)))
        unpacker = await climb(self._try_connect, within=RECONNECT_FOR, first=0.2, most=2.0)
        if unpacker is None:
            gone = (
                _(
                    "the connection to the host was lost and it did not come back within {seconds:.0f} s: "
                    "run `nothanks join {address}` again later (your seat is kept)"
                )
                if self._notice == CONNECTION_LOST
                else _(
                    "the host is restarting and did not come back within {seconds:.0f} s: run "
                    "`nothanks join {address}` again later (your seat is kept)"
                )
            )
            self._end(gone.format(seconds=RECONNECT_FOR, address=f"{self.host}:{self.port}"))
            return
        self._restarting, self._notice, self._told = False, RESTARTING, False
        self._read_task = asyncio.get_running_loop().create_task(self._read_loop(unpacker))
        self._online.set()
        if table is None or self.table is not table:
            return
        back = SeatRoute(table.table_id, table.seat, table.seat_token, self.seats_bound_to_key).request()
        try:
            if back is not None:
                await self.request(back)
            if (again := self.last_move.again()) is not None:
                await self._write(again)
        except LobbyError as error:
            if self.table is table:
                self.table = None
                table.events.put_nowait(
                    Closed(
                        _("the host restarted but this table is gone ({reason})").format(
                            reason=error_sentence(error.code, error.message)
                        )
                    )
                )

    async def _try_connect(self) -> msgpack.Unpacker | None:
        try:
            return await self._connect()
        except (LobbyError, OSError, TimeoutError):
            self._writer = None
            return None

    def _route(self, message: dict[str, Any]) -> str | None:
        """One frame from the host: a reply to its pending request, or an event for its type's handler (a type
        this client does not know is left alone); a closing reason if the host is done with us."""
        reply_to = message.get("re")
        self.last_move.heard(message)
        if reply_to == RESENT_MOVE_ID:  # our copy of a move, refused: it was played, or the game went on
            return None
        if isinstance(reply_to, int) and reply_to in self._pending:
            future = self._pending.pop(reply_to)
            if not future.done():
                future.set_result(message)
            return None
        kind = message.get("type")
        return getattr(self, f"_on_{kind}")(message) if kind in _PUSHED else None

    def _on_update(self, message: dict[str, Any]) -> str | None:
        if self.table is not None:
            self.table.events.put_nowait(event_from_wire(message))
        return None

    _on_waiting = _on_update

    def _on_chat(self, message: dict[str, Any]) -> str | None:
        if self.table is not None:
            try:
                self.table.events.put_nowait(chat_from_wire(message))
            except (KeyError, TypeError, ValueError) as error:  # a bad line is dropped, not the connection
                log.warning("host sent a malformed chat frame: %r", error)
        return None

    _on_chat_history = _on_chat

    def _on_error(self, message: dict[str, Any]) -> str | None:
        code, text = str(message.get("code", "error")), str(message.get("message", ""))
        if message.get("fatal"):
            self._told = True
            return error_sentence(code, text)
        if self.table is not None:
            self.table.events.put_nowait(Rejected(code, text))
        return None

    def _on_table_closed(self, message: dict[str, Any]) -> str | None:
        if self.table is not None:
            self.table.events.put_nowait(Closed(str(message.get("reason", N_("table closed")))))
            self.table = None
        return None

    def _on_closing(self, message: dict[str, Any]) -> str | None:
        self._told = True
        if message.get("restart") is True:
            self._restarting = True
        return str(message.get("reason", N_("the host is shutting down")))

    def _on_table_moving(self, message: dict[str, Any]) -> str | None:
        """A cluster's front moves our table to another server and resumes our seat by itself."""
        if self.table is not None:
            self.table.events.put_nowait(TableMoving())
        return None

    def _end(self, reason: str) -> None:
        if self.closed_reason is None:
            self.closed_reason = reason
        for future in self._pending.values():
            if not future.done():
                future.set_result({"type": "error", "code": errors.CLOSED, "message": reason})
        self._pending.clear()
        if self.table is not None:
            self.table.events.put_nowait(Closed(reason))
            self.table = None
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.close()


# The frames a host pushes, each handled by its ``_on_<type>`` (replies to a request go to its caller instead).
_PUSHED = frozenset({"update", "waiting", "chat", "chat_history", "error", "table_closed", "closing", "table_moving"})


def _client() -> str:
    return f"nothanks/{__version__}"
