"""The msgpack-over-TCP transport: one ``Session`` per connection, translating frames to Lobby/Table calls.

The transport knows no rules. It decodes untrusted bytes with hard limits, checks every message against the
schema in ``nothanks_tui.link.wire``, and answers each refusal with an ``error`` frame carrying a stable code.
A connection that sends garbage, oversize frames or floods is closed; nobody else notices.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import msgpack

from nothanks_tui import __version__
from nothanks_tui.engine import IllegalMove
from nothanks_tui.link import Closed, NewTable, Rejected, TableUpdate, TableWaiting, errors
from nothanks_tui.link.names import BadName, clean_name
from nothanks_tui.link.wire import (
    PROTOCOL_VERSION,
    ProtocolError,
    check_client_message,
    encode,
    encode_event,
    host_unpacker,
    summary_to_wire,
)

from .errors import HostError
from .lobby import Lobby
from .table import HostEvent, Table

log = logging.getLogger(__name__)

READ_CHUNK = 4096
HELLO_TIMEOUT = 10.0  # seconds a new connection has to introduce itself
RATE_PER_SECOND = 50.0  # sustained messages per second per connection
RATE_BURST = 100.0  # messages a connection may send at once
MAX_SOFT_ERRORS = 20  # refused-but-harmless messages before we stop listening
MAX_WRITE_BUFFER = 1 << 20  # bytes queued to a client that does not read before we drop it
MAX_CONNECTIONS = 5000


class Session:
    """One TCP client: its name, its place at one table (seat or spectator), its rate budget."""

    def __init__(self, host: TcpHost, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.host = host
        self.reader = reader
        self.writer = writer
        self.name = ""
        self.table: Table | None = None
        self.peer = writer.get_extra_info("peername")
        self._tokens = host.burst
        self._refill_at = time.monotonic()
        self._soft_errors = 0
        self._closing = False
        self._said_closing = False

    # ---------------------------------------------------------------- Member (called by the Table)

    def deliver(self, event: HostEvent) -> None:
        if isinstance(event, TableUpdate | TableWaiting):
            self.send_raw(_encoded(event))
        elif isinstance(event, Closed):
            self.table = None
            self.send({"type": "table_closed", "reason": event.reason})
        elif isinstance(event, Rejected):
            self.send({"type": "error", "code": event.code, "message": event.message})

    # ---------------------------------------------------------------- sending

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(encode(message))

    def send_raw(self, frame: bytes) -> None:
        if self._closing or self._said_closing or self.writer.is_closing():
            return
        if self.writer.transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
            log.warning("%s does not read its frames; dropping it", self.peer)
            self.abort()
            return
        self.writer.write(frame)

    def error(self, code: str, message: str, request_id: int | None = None, fatal: bool = False) -> None:
        frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if request_id is not None:
            frame["re"] = request_id
        if fatal:
            frame["fatal"] = True
        self.send(frame)

    def say_closing(self, reason: str, *, restart: bool = False) -> None:
        """The last frame this connection gets: ``closing`` (``restart``: come back, the games are kept)."""
        if self._said_closing:
            return
        message: dict[str, Any] = {"type": "closing", "reason": reason}
        if restart:
            message["restart"] = True
        self.send(message)
        self._said_closing = True  # nothing after it: no table_closed while the tables shut down

    def abort(self) -> None:
        self._closing = True
        self.writer.transport.abort()

    # ---------------------------------------------------------------- the read loop

    async def run(self) -> None:
        unpacker = host_unpacker()
        self.send({"type": "hello", "protocol": PROTOCOL_VERSION, "server": f"nothanks/{__version__}"})
        try:
            hello_deadline = asyncio.get_running_loop().time() + HELLO_TIMEOUT
            while not self._closing:
                if not self.name:
                    remaining = hello_deadline - asyncio.get_running_loop().time()
                    try:
                        data = await asyncio.wait_for(self.reader.read(READ_CHUNK), max(0.0, remaining))
                    except TimeoutError:
                        self.error(errors.HELLO_FIRST, "say hello first", fatal=True)
                        break
                else:
                    data = await self.reader.read(READ_CHUNK)
                if not data:
                    break
                try:
                    unpacker.feed(data)
                except msgpack.BufferFull:
                    self.error(errors.TOO_BIG, "frame too large", fatal=True)
                    break
                if not self._drain(unpacker):
                    break
        except (ConnectionError, OSError):
            pass
        except Exception:
            log.exception("session %s failed", self.peer)
        finally:
            self._leave_table()
            await self._close_writer()

    def _drain(self, unpacker: msgpack.Unpacker) -> bool:
        """Handle every complete frame in the buffer; False once the connection must close."""
        while True:
            try:
                message = next(unpacker)
            except StopIteration:
                return True
            except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as error:
                # Covers malformed bytes, over-limit strings/containers, non-str map keys: the stream is lost.
                self.error(errors.BAD_FRAME, f"undecodable frame: {type(error).__name__}", fatal=True)
                return False
            if not self._spend_token():
                self.error(errors.FLOOD, f"more than {self.host.rate:.0f} messages a second", fatal=True)
                return False
            if not self._handle(message):
                return False

    def _spend_token(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.host.burst, self._tokens + (now - self._refill_at) * self.host.rate)
        self._refill_at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def _handle(self, message: object) -> bool:
        request_id = message.get("id") if isinstance(message, dict) else None
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            request_id = None
        try:
            kind, fields, request_id = check_client_message(message)
            if not self.name and kind != "hello":
                raise ProtocolError(errors.HELLO_FIRST, "the first message is hello", fatal=True)
            return self._dispatch(kind, fields, request_id)
        except ProtocolError as error:
            self.error(error.code, error.message, request_id, fatal=error.fatal)
            return not error.fatal and self._soft_error()
        except IllegalMove as error:
            self.error(error.code, error.message, request_id)
            return True

    def _soft_error(self) -> bool:
        self._soft_errors += 1
        if self._soft_errors > MAX_SOFT_ERRORS:
            self.error(errors.FLOOD, "too many refused messages", fatal=True)
            return False
        return True

    # ---------------------------------------------------------------- messages

    def _dispatch(self, kind: str, fields: dict[str, Any], request_id: int | None) -> bool:
        reply: dict[str, Any] | None
        if kind == "hello":
            reply = self._hello(fields)
        elif kind == "bye":
            return False
        elif kind == "ping":
            reply = {"type": "pong"}
        elif kind == "list_tables":
            reply = {"type": "tables", "tables": [summary_to_wire(t) for t in self.host.lobby.tables()]}
        elif kind == "create_table":
            reply = self._create(fields)
        elif kind == "join":
            reply = self._join(fields)
        elif kind == "spectate":
            reply = self._spectate(fields)
        elif kind == "resume":
            reply = self._resume(fields)
        elif kind == "leave":
            self._leave_table()
            reply = {"type": "left"}
        else:
            table = self._current_table()
            if kind == "action":
                table.submit(self, fields["action"], fields["state_id"])
            elif kind == "start":
                table.start(self)
            elif kind == "add_bot":
                table.add_bot(self, fields.get("bot"))
            elif kind == "play_again":
                table.play_again(self)
            reply = None
        if reply is not None:
            if request_id is not None:
                reply["re"] = request_id
            self.send(reply)
        return True

    def _hello(self, fields: dict[str, Any]) -> dict[str, Any]:
        if self.name:
            raise ProtocolError(errors.BAD_FIELD, "hello only once")
        if fields["protocol"] != PROTOCOL_VERSION:
            raise ProtocolError(
                errors.BAD_VERSION,
                f"this host speaks protocol {PROTOCOL_VERSION}, not {fields['protocol']}: update nothanks",
                fatal=True,
            )
        try:
            self.name = clean_name(fields["name"])
        except BadName as error:
            raise ProtocolError(errors.BAD_NAME, str(error), fatal=True) from None
        return {"type": "welcome", "name": self.name}

    def _create(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        new = NewTable(
            players=fields["players"],
            bots=fields.get("bots", 0),
            bot=fields.get("bot", self.host.lobby.settings.default_bot),
            open_chips=fields.get("open_chips", False),
            variant=fields.get("variant", "standard"),
        )
        table, seat, token = self.host.lobby.create_table(new, self)
        self.table = table
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": token}

    def _join(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        table = self.host.lobby.table(fields["table"])
        seat, token = table.join(self, fields.get("seat"))
        self.table = table
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": token}

    def _spectate(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        table = self.host.lobby.table(fields["table"])
        table.spectate(self)
        self.table = table
        return {"type": "joined", "table": table.table_id, "seat": None, "token": None}

    def _resume(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        table, seat = self.host.lobby.resume(fields["token"], self)
        self.table = table
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": fields["token"]}

    def _not_at_table(self) -> None:
        if self.table is not None:
            raise HostError(errors.ALREADY_AT_TABLE, "leave your table first")

    def _current_table(self) -> Table:
        if self.table is None:
            raise HostError(errors.NOT_AT_TABLE, "join a table first")
        return self.table

    def _leave_table(self) -> None:
        table, self.table = self.table, None
        if table is not None:
            table.leave(self)

    async def _close_writer(self) -> None:
        self._closing = True
        try:
            if not self.writer.is_closing():
                self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 2.0)
        except (ConnectionError, OSError, TimeoutError):
            pass


_last_event: tuple[object, bytes] | None = None


def _encoded(event: TableUpdate | TableWaiting) -> bytes:
    """Encode an event once for every member it goes to (a table hands the same object to one seat's watchers)."""
    global _last_event
    if _last_event is not None and _last_event[0] is event:
        return _last_event[1]
    frame = encode_event(event)
    _last_event = (event, frame)
    return frame


class TcpHost:
    """Serves a ``Lobby`` over TCP. ``start()`` binds (port 0 picks a free port); ``close()`` tells every client."""

    def __init__(self, lobby: Lobby, bind: str = "127.0.0.1", port: int = 7777, rate: float = RATE_PER_SECOND) -> None:
        self.lobby = lobby
        self.bind = bind
        self.port = port
        self.rate = rate  # messages per second a connection may send, sustained
        self.burst = max(RATE_BURST, rate * 2)
        self.sessions: set[Session] = set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._accept, self.bind, self.port, limit=READ_CHUNK * 4)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.port = port
        log.info("listening on %s:%d", host, port)
        return host, port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = Session(self, reader, writer)
        if len(self.sessions) >= MAX_CONNECTIONS:
            session.error(errors.SERVER_CLOSING, "this host is full", fatal=True)
            await session._close_writer()
            return
        self.sessions.add(session)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            if task is not None:
                self._tasks.discard(task)

    async def close(
        self, reason: str = "the host is shutting down", *, restart: bool = False, forget: bool = False
    ) -> None:
        """Stop accepting, tell every client ``reason`` in a ``closing`` frame (``restart``: with ``restart: true``,
        come back), close every table (kept in the store for the next start unless ``forget``)."""
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions):
            session.say_closing(reason, restart=restart)
        self.lobby.close(reason, forget=forget)
        for session in list(self.sessions):
            await session._close_writer()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
        if self._server is not None:
            await self._server.wait_closed()
