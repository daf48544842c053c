"""The client side of the TCP protocol: a host's lobby and one table over one msgpack connection.

``TcpLobby``'s reader task decodes each host frame once into its type (link/wire.py) and routes it: a reply to the
pending request with its ``id``, anything else as its event (``_pushed``). A host that restarts (``closing`` with
``restart``), or a connection lost while at a table, is reconnected to for up to ``RECONNECT_FOR`` seconds and the
table taken back (link/resume.py), so the screens see a pause, not an end.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeGuard, TypeVar

import msgpack
import msgspec

from .. import __version__
from ..defaults import DEFAULT_PORT
from ..i18n import N_, _
from ..link import ChatHistory, ChatLine, ConnectionInfo, LobbyConnection, LobbyError, TableConnection, errors
from ..link import messages as m
from ..link import wire as w
from ..link.chat import CHAT, LOBBY_CHAT
from ..link.events import Closed, CoachAdvice, NewTable, Rejected, TableEvent, TableSummary
from ..link.history import HISTORY_PAGE, HistoryPage, PlayerStats, Rated
from ..link.identity import Identity
from ..link.names import MAX_NAME, MAX_RAW_NAME, printable_text
from ..link.resume import RESENT_MOVE_ID, LastMove, SeatRoute, climb
from ..link.wire import CLIENT_MAX_STR, FEATURES, MOVING, PROTOCOL_VERSION, client_unpacker
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

    async def send_intent(self, message: m.ClientMessage) -> None:
        if isinstance(message, m.Act) and self.lobby.online:  # sent again if the connection dies before its outcome
            self.lobby.last_move.move = message  # is seen (link/resume.py)
        await self.lobby.send(message)

    async def ask_coach(self, state_id: int) -> CoachAdvice:
        return (await self.lobby.request(m.Coach(state_id=state_id), w.Advice)).event()

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

    async def close(self) -> None:
        """Leave the table; the lobby connection stays open for the next one."""
        if self._closed:
            return
        self._closed = True
        if self.lobby.table is self:
            self.lobby.table = None
            if self.lobby.online:  # (while a restarting host is away there is nobody to tell)
                with contextlib.suppress(LobbyError, ConnectionError, OSError):
                    await self.lobby.request(m.Leave(), w.Left)
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
        identity: Identity | None = None,
    ) -> None:
        """``via`` and ``proxy_key``: the host's own front (SSH workers) says which address its player comes from;
        ``key``: the player's SSH key fingerprint, which the host binds their seats to (``held``, ``resume_key``);
        ``identity``: the key pair proven in the hello, which owns the player's name (none: a guest)."""
        self.identity = identity
        self.host = host
        self.port = port
        self.name = name
        self._speaks_for: dict[str, str] = {}
        if via is not None and proxy_key:
            self._speaks_for = {"via": via, "proxy_key": proxy_key} | ({"key": key} if key else {})
        self.held: dict[str, Any] | None = None  # the seat the host holds for ``key``: table, seat, name
        self.info = ConnectionInfo(description=f"{host}:{port}")
        self.table: TcpTable | None = None
        self.features: frozenset[str] = frozenset()  # what the host's hello says it speaks beyond the version
        self.closed_reason: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pending: dict[int, asyncio.Future[w.HostFrame | None]] = {}
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
        Every failure is one ``LobbyError`` with one readable sentence, within ``HANDSHAKE_TIMEOUT``."""
        where = f"{self.host}:{self.port}"
        try:
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                return await self._handshake(where)
        except (LobbyError, OSError, msgpack.UnpackException, ValueError, TypeError) as error:
            self._drop_socket()
            if isinstance(error, LobbyError):
                raise
            raise _unreached(error, where) from None

    async def _handshake(self, where: str) -> msgpack.Unpacker:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        unpacker = client_unpacker()
        ours = m.Hello(protocol=PROTOCOL_VERSION, name=self.name, client=_client(), features=[*FEATURES, MOVING])
        ours = msgspec.structs.replace(ours, **self._speaks_for)
        hello = None
        if self.identity is not None:  # its proof signs the host hello's nonce: a host says hello at once, but a
            # server of something else waits for us, so after a while we speak unproven to hear what it is
            with contextlib.suppress(TimeoutError):
                hello = await asyncio.wait_for(self._read_one(unpacker, where, w.Hello), HANDSHAKE_TIMEOUT / 2)
            if hello is not None:
                ours = msgspec.structs.replace(ours, **self.identity.prove(hello.nonce))
        await self._write(ours)
        hello = hello or await self._read_one(unpacker, where, w.Hello)
        if hello.protocol != PROTOCOL_VERSION:
            raise LobbyError(
                errors.BAD_VERSION,
                f"{where} speaks protocol {hello.protocol!r} and this nothanks speaks {PROTOCOL_VERSION}: use the "
                "same version as the host",
            )
        self.features = m.features_of(hello.features)
        welcome = await self._read_one(unpacker, where, w.Welcome)
        self.name = welcome.name or self.name
        self.held = welcome.held
        self.info.extras["name"] = self.name
        return unpacker

    @property
    def seats_bound_to_key(self) -> bool:
        """Every seat this player takes is bound to the SSH key they came in with (no token: ``resume_key``)."""
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
        tables = (await self.request(m.ListTables(), w.Tables)).tables
        return msgspec.convert(tables, list[TableSummary], from_attributes=True)

    async def create_table(self, settings: NewTable) -> TableConnection:
        return await self._sit(msgspec.convert(settings, m.CreateTable, from_attributes=True))  # (the same fields)

    async def join(self, table_id: str, seat: int | None = None, code: str | None = None) -> TableConnection:
        return await self._sit(m.Join(table=table_id, seat=seat, code=code))

    async def spectate(self, table_id: str, code: str | None = None) -> TableConnection:
        return await self._sit(m.Spectate(table=table_id, code=code))

    async def resume(self, token: str) -> TableConnection:
        return await self._sit(m.Resume(token=token))

    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        return (await self.request(m.History(offset=offset, limit=limit), w.Games)).event()

    async def open_game(self, game_id: str) -> dict[str, Any]:
        return (await self.request(m.Replay(game=game_id), w.Record)).record

    async def player_stats(self) -> list[PlayerStats]:
        return (await self.request(m.Stats(), w.Stats)).players

    async def leaderboard(self) -> list[Rated]:
        return (await self.request(m.Leaderboard(), w.Board)).players

    async def daily(self) -> TableConnection:
        return await self._sit(m.Daily())

    async def daily_ranking(self) -> w.DailyRanking:
        return await self.request(m.DailyRanking(), w.DailyRanking)

    @property
    def can_chat(self) -> bool:
        return LOBBY_CHAT in self.features  # (an older host, or a cluster's front: no lobby chat)

    async def send_chat(self, text: str) -> None:
        await self.send(m.Chat(text=text))

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
        """Send without waiting for a reply (table intents: the answer is an update or an error event). A chat line
        the host would drop the connection for (a str over ``CLIENT_MAX_STR`` bytes) is refused here."""
        if isinstance(message, m.Chat) and len(message.text.encode("utf-8", "replace")) > CLIENT_MAX_STR:
            too_long = f"this line is too long to send (at most {CLIENT_MAX_STR} bytes): say less"
            self._pushed(w.Error(code=errors.CHAT_TOO_LONG, message=too_long))
            return
        if self._writer is None or not self._online.is_set():
            if self.table is not None:
                if self.closed_reason is None and self._restarting:
                    self.table.events.put_nowait(Rejected(errors.CLOSED, _(self._notice)))
                else:
                    self.table.events.put_nowait(Closed(self.closed_reason or N_("not connected")))
            return
        await self._write(message)

    async def request(self, message: m.ClientMessage, expect: type[Reply]) -> Reply:
        """Send a lobby request and wait for its reply (the frame that names its id), of type ``expect``; an
        ``error`` reply, or one of another type, raises LobbyError."""
        if not self._online.is_set() and self._restarting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._online.wait(), RECONNECT_FOR)
        if self._writer is None:
            raise LobbyError(errors.CLOSED, _(self.closed_reason or N_("not connected")))
        request_id = next(self._ids)
        future: asyncio.Future[w.HostFrame | None] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._write(m.with_id(message, request_id))
            reply = await asyncio.wait_for(future, REQUEST_TIMEOUT)
        except TimeoutError:
            raise LobbyError(errors.TIMEOUT, _("the host did not answer")) from None
        finally:
            self._pending.pop(request_id, None)
        return _expected(reply, expect, f"the host sent no readable answer to {m.kind_of(message)}")

    async def _sit(self, message: m.ClientMessage) -> TcpTable:
        self.last_move.move = None
        if self.table is not None:
            await self.table.close()
        # The table's first events may arrive right behind the reply: route them to a table made in advance.
        table = TcpTable(self, "", None, None)
        self.table = table
        try:
            reply = await self.request(message, w.Joined)
        except BaseException:
            self.table = None
            raise
        table.table_id, table.seat, table._token = reply.table, reply.seat, reply.token
        if table._token is not None and self.on_seat is not None:
            self.on_seat(table._token)
        return table

    async def _write(self, message: m.ClientMessage) -> None:
        if self._writer is None:
            raise LobbyError(errors.CLOSED, _("not connected"))
        self._writer.write(m.encode_message(message))
        await self._writer.drain()

    async def _read_one(self, unpacker: msgpack.Unpacker, where: str, expect: type[Reply]) -> Reply:
        """The next frame of the handshake, of type ``expect`` (the caller bounds the wait)."""
        async for message in self._frames(unpacker):
            try:
                frame = w.decode_host(message)
            except ValueError:
                frame = None
            return _expected(frame, expect, f"{where} is not a nothanks host (it answered something else)")
        raise LobbyError(errors.CLOSED, f"{where} hung up at once: not a nothanks host, or a busy one")

    async def _frames(self, unpacker: msgpack.Unpacker) -> AsyncIterator[object]:
        """Each frame the host sends (those after the one taken stay in ``unpacker``), until it hangs up."""
        assert self._reader is not None
        while True:
            for message in unpacker:
                yield message
            data = await self._reader.read(65536)
            if not data:
                return
            unpacker.feed(data)

    async def _read_loop(self, unpacker: msgpack.Unpacker) -> None:
        reason = N_("the host closed the connection")
        try:
            async for message in self._frames(unpacker):
                closing = self._route(message)
                if closing is not None:
                    reason = closing
        except asyncio.CancelledError:
            raise
        except (ConnectionError, OSError):
            reason = N_("the connection to the host was lost")
        except (msgpack.UnpackException, ValueError) as error:
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
        self._drop_socket()
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
                await self.request(back, w.Joined)
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
        except (LobbyError, OSError):  # (the socket dropped by _connect)
            return None

    def _route(self, message: object) -> str | None:
        """One frame from the host: a reply to its pending request, or a pushed frame's event (a type
        this client does not know is left alone); a closing reason if the host is done with us. A malformed reply
        fails its request, a malformed chat line is dropped, any other malformed frame ends the connection."""
        reply_to, kind = (message.get("re"), message.get("type")) if isinstance(message, dict) else (None, None)
        if isinstance(message, dict):
            self.last_move.heard(message)
        if reply_to == RESENT_MOVE_ID:  # our copy of a move, refused: it was played, or the game went on
            return None
        future = self._pending.pop(reply_to, None) if isinstance(reply_to, int) else None
        try:
            frame = w.decode_host(message)
        except msgspec.ValidationError as error:
            if future is None and kind not in ("chat", "chat_history"):
                raise
            log.warning("host sent a malformed frame: %r", error)
            frame = w.Error(code=errors.BAD_FRAME, message=f"the host sent an unreadable reply: {error}")
            if future is None:
                return None
        if future is not None:
            if not future.done():
                future.set_result(frame)
            return None
        return None if frame is None else self._pushed(frame)

    def _pushed(self, frame: w.HostFrame) -> str | None:
        """A frame no request waits for: an event for our table or the lobby's chat, or why the host is done with us
        (a cluster's front moving our table resumes our seat by itself: ``TableMoving``)."""
        if isinstance(frame, w.Closing):
            self._told, self._restarting = True, self._restarting or frame.restart
            return frame.reason
        if isinstance(frame, w.Error) and frame.fatal:
            self._told = True
            return error_sentence(frame.code, frame.message)
        if not isinstance(frame, PUSHED):
            return None
        event = frame.event()
        if _lobby_chat(event, self.table is not None):
            if self.on_chat is not None:
                self.on_chat(event)
        elif self.table is not None:
            self.table.events.put_nowait(event)
            if isinstance(event, Closed):
                self.table = None
        return None

    def _end(self, reason: str) -> None:
        if self.closed_reason is None:
            self.closed_reason = reason
        for future in self._pending.values():
            if not future.done():
                future.set_result(w.Error(code=errors.CLOSED, message=reason))
        self._pending.clear()
        if self.table is not None:
            self.table.events.put_nowait(Closed(reason))
            self.table = None
        self._drop_socket()


Reply = TypeVar("Reply", bound=w.HostFrame)
PUSHED = (w.Update, w.Waiting, w.Chat, w.ChatLines, w.Error, w.TableClosed, w.Moving)  # frames with an event


def _expected(frame: w.HostFrame | None, expect: type[Reply], otherwise: str) -> Reply:
    """``frame`` if it is of type ``expect``; else LobbyError: an ``error`` frame's, or ``bad_frame``."""
    if isinstance(frame, expect):
        return frame
    if isinstance(frame, w.Error):
        raise LobbyError(frame.code, frame.message, printable_text(frame.name[:MAX_RAW_NAME])[:MAX_NAME])
    raise LobbyError(errors.BAD_FRAME, otherwise)


def _unreached(error: Exception, where: str) -> LobbyError:
    """Why a handshake with ``where`` failed, in one readable sentence."""
    if isinstance(error, TimeoutError):
        message = _("{where} did not answer as a nothanks host within {seconds:g} s: check the address and port")
        return LobbyError(errors.TIMEOUT, message.format(where=where, seconds=HANDSHAKE_TIMEOUT))
    if isinstance(error, ConnectionRefusedError):
        message = _("cannot reach {where}: nothing is listening on that port")
        return LobbyError(errors.UNREACHABLE, message.format(where=where))
    if isinstance(error, OSError):
        return LobbyError(
            errors.UNREACHABLE, _("cannot reach {where}: {reason}").format(where=where, reason=os_reason(error))
        )
    return LobbyError(errors.BAD_FRAME, f"{where} is not a nothanks host (it answered something else)")


def _lobby_chat(event: object, at_table: bool) -> TypeGuard[ChatLine | ChatHistory | Rejected]:
    """A line said in the host's lobby (never a table's, wherever we are), or the refusal of ours (at no table)."""
    if isinstance(event, ChatLine | ChatHistory):
        return any(line.lobby for line in (event.lines[:1] if isinstance(event, ChatHistory) else (event,)))
    return isinstance(event, Rejected) and not at_table and event.code.startswith("chat_")


def _client() -> str:
    return f"nothanks/{__version__}"
