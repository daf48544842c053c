"""The msgpack-over-TCP transport: one ``Session`` per connection, translating frames to Lobby/Table calls.

The transport knows no rules. It decodes untrusted bytes with hard limits, checks every message against the
schema in ``nothanks_tui.link.wire``, and answers each refusal with an ``error`` frame carrying a stable code.
A connection that sends garbage, oversize frames or floods is closed; nobody else notices.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from typing import Any

import msgpack

from nothanks_tui import __version__
from nothanks_tui.engine import IllegalMove
from nothanks_tui.link import ChatHistory, ChatLine, Closed, NewTable, Rejected, TableUpdate, TableWaiting, errors
from nothanks_tui.link.chat import CHAT
from nothanks_tui.link.history import HISTORY_PAGE, page_to_wire, stats_to_wire
from nothanks_tui.link.names import BadName, clean_name
from nothanks_tui.link.wire import (
    CLIENT_MAX_DEPTH,
    CLIENT_MAX_FRAME,
    FEATURES,
    PROTOCOL_VERSION,
    FrameReader,
    FrameTooBig,
    ProtocolError,
    advice_to_wire,
    chat_to_wire,
    check_client_message,
    encode,
    encode_event,
    features_of,
    host_unpacker,
    summary_to_wire,
    with_entry,
)

from .chat import chat_bucket, too_fast
from .cluster.membership import new_nonce, proves
from .errors import HostError
from .limits import AddressCounts, ClientLimits, LoopStalls, TokenBucket
from .lobby import Lobby
from .proxy_protocol import BadProxyHeader, ProxySources, read_header
from .table import HostEvent, Table

log = logging.getLogger(__name__)

READ_CHUNK = 4096
HELLO_TIMEOUT = 10.0  # seconds a new connection has to introduce itself
RATE_PER_SECOND = 50.0  # sustained messages per second per connection
RATE_BURST = 100.0  # messages a connection may send at once
MAX_SOFT_ERRORS = 20  # refused-but-harmless messages before we stop listening
MAX_CONNECTIONS = 5000
MAX_KEY = 128  # characters of an SSH key fingerprint kept ("SHA256:" and 43 more)
LIST_PAGE = 50  # tables in one `tables` reply (list_tables' `offset` pages through the rest)
HISTORY_REQUESTS = frozenset({"history", "replay", "stats"})  # counted like list_tables (a read of the store)
HOUSEKEEPING_INTERVAL = 5.0  # seconds between checks for idle connections and tables that never started


class Session:
    """One TCP client: its name, its place at one table (seat or spectator), its rate budget."""

    def __init__(
        self, host: TcpHost, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: object = None
    ) -> None:
        self.host = host
        self.reader = reader
        self.writer = writer
        self.name = ""
        self.table: Table | None = None
        # The client's (address, port): the socket's peer, or what a trusted load balancer's PROXY header said.
        self.peer = peer if peer is not None else writer.get_extra_info("peername")
        self.address = _address_of(self.peer)  # whom the per-address limits count this connection against
        self.counted: str | None = None  # the address this connection is counted against, once it is
        self.nonce = new_nonce()  # in our hello: a cluster member proves it knows the secret by signing it
        self.spectating = False
        self.key: str | None = None  # the SSH key fingerprint a front vouched for in hello: its seat is bound to it
        self.features: frozenset[str] = frozenset()  # what the client's hello says it speaks (e.g. "chat")
        now = time.monotonic()
        self.idle_since: float | None = now  # in the lobby (at no table) since then
        self._messages = TokenBucket(host.rate, host.burst, host.stalls, now)
        self._lists = TokenBucket(host.limits.list_rate, host.limits.list_burst, host.stalls, now)
        self._chats = chat_bucket(now, host.stalls)
        self._soft_errors = 0
        self._closing = False
        self._said_closing = False
        # Frames waiting for a slow reader, in order; at most one of them is a view (the newest replaces it).
        self._backlog: list[bytes] = []
        self._backlog_view: int | None = None  # index of the view in the backlog
        self._flusher: asyncio.Task[None] | None = None
        self._coaching: asyncio.Task[None] | None = None  # the coach request being answered (one at a time)
        with contextlib.suppress(AttributeError, RuntimeError):
            writer.transport.set_write_buffer_limits(high=host.limits.backlog_bytes)

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

    # ---------------------------------------------------------------- sending

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(encode(message))

    def send_raw(self, frame: bytes, view: bool = False) -> None:
        """Write ``frame``, or queue it while the client has not read what it was sent: a view replaces the view
        still waiting (only the newest matters), so a slow or silent reader costs one view per table it is at."""
        if self._closing or self._said_closing or self.writer.is_closing():
            return
        if not self._backlog and self.writer.transport.get_write_buffer_size() <= self.host.limits.backlog_bytes:
            self.writer.write(frame)
            return
        if view and self._backlog_view is not None:
            del self._backlog[self._backlog_view]
            self._backlog_view = None
        elif not view and len(self._backlog) >= self.host.limits.backlog_frames:
            self._drop_slow_reader()
            return
        self._backlog.append(frame)
        if view:
            self._backlog_view = len(self._backlog) - 1
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush(), name=f"flush {self.peer}")

    async def _flush(self) -> None:
        """Hand the backlog to the socket as the client reads; drop a client that reads nothing for too long."""
        try:
            while self._backlog and not self._closing:
                try:
                    await asyncio.wait_for(self.writer.drain(), self.host.limits.slow_reader)
                except TimeoutError:
                    self._drop_slow_reader()
                    return
                frames, self._backlog, self._backlog_view = self._backlog, [], None
                self.writer.writelines(frames)
        except (ConnectionError, OSError):
            self.abort()
        finally:
            self._flusher = None

    def _drop_slow_reader(self) -> None:
        log.info("%s left the host's updates unread for too long; dropping it", self.peer)
        self._backlog.clear()
        self._backlog_view = None
        if not self.writer.transport.is_closing():
            self.writer.transport.write(
                encode({"type": "error", "code": errors.SLOW_READER, "message": "you did not read", "fatal": True})
            )
        self.abort()

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

    def abort_after_send(self) -> None:
        """Close once what was written is sent (the reader task then ends): for a last error frame."""
        self._closing = True
        self.writer.close()
        self._at_no_table()

    def abort(self) -> None:
        self._closing = True
        self.writer.transport.abort()
        self._at_no_table()

    # ---------------------------------------------------------------- the read loop

    async def run(self) -> None:
        frames = FrameReader(host_unpacker(), CLIENT_MAX_FRAME, CLIENT_MAX_DEPTH)
        self.send(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "server": f"nothanks/{__version__}",
                "features": list(FEATURES),
                "nonce": self.nonce,
            }
        )
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
                    frames.feed(data)
                except msgpack.BufferFull:
                    self.error(errors.TOO_BIG, f"a frame is at most {CLIENT_MAX_FRAME} bytes", fatal=True)
                    break
                if not self._drain(frames):
                    break
        except (ConnectionError, OSError):
            pass
        except Exception:
            log.exception("session %s failed", self.peer)
        finally:
            self._leave_table(on_purpose=False)  # the connection ended: a seat in a game waits for its player
            await self._close_writer()

    def _drain(self, frames: FrameReader) -> bool:
        """Handle every complete frame in the buffer; False once the connection must close."""
        while True:
            try:
                message = frames.next_frame()
            except FrameTooBig as error:
                self.error(errors.TOO_BIG, f"a frame is at most {error.limit} bytes", fatal=True)
                return False
            except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as error:
                # Covers malformed bytes, over-limit strings/containers/nesting, non-str map keys: the stream is lost.
                self.error(errors.BAD_FRAME, f"undecodable frame: {type(error).__name__}", fatal=True)
                return False
            if message is None:
                return True
            if not self._messages.take(time.monotonic()):
                self.error(errors.FLOOD, f"more than {self.host.rate:.0f} messages a second", fatal=True)
                return False
            if not self._handle(message):
                return False

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
            if not self._lists.take(time.monotonic()):
                raise ProtocolError(
                    errors.SLOW_DOWN, f"list the tables at most {self.host.limits.list_rate:g} times a second"
                )
            self.send_raw(self.host.tables_frame(fields.get("offset", 0), request_id))
            return True
        elif kind in HISTORY_REQUESTS:
            if not self._lists.take(time.monotonic()):
                raise ProtocolError(
                    errors.SLOW_DOWN, f"ask for the history at most {self.host.limits.list_rate:g} times a second"
                )
            reply = self._history(kind, fields)
        elif kind == "create_table":
            reply = self._create(fields)
        elif kind == "join":
            reply = self._join(fields)
        elif kind == "spectate":
            reply = self._spectate(fields)
        elif kind == "resume":
            reply = self._resume(fields)
        elif kind == "resume_key":
            reply = self._resume_key()
        elif kind == "leave":
            self._leave_table(on_purpose=True)
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
            elif kind == "chat":
                if not self._chats.take(time.monotonic()):
                    raise too_fast()
                table.say(self, fields["text"])
            elif kind == "stand_in":
                table.stand_in_for(self, fields["seat"])
            elif kind == "coach":
                self._ask_coach(table, fields["state_id"], request_id)
            reply = None
        if reply is not None:
            if request_id is not None:
                reply["re"] = request_id
            self.send(reply)
        return True

    def _history(self, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        """The history's lobby requests: finished games only (``Lobby.game_record`` refuses a game in progress)."""
        lobby = self.host.lobby
        if kind == "history":
            return page_to_wire(lobby.history(fields.get("offset", 0), fields.get("limit", HISTORY_PAGE)))
        if kind == "replay":
            return {"type": "record", "game": fields["game"], "record": lobby.game_record(fields["game"])}
        return stats_to_wire(lobby.stats(self.key))

    def _ask_coach(self, table: Table, state_id: int, request_id: int | None) -> None:
        """Answer a ``coach`` request when the search is done (the table goes on meanwhile): ``advice`` to this
        connection only, or an ``error`` with the request's id. One request at a time per connection."""
        if self._coaching is not None and not self._coaching.done():
            raise HostError(errors.SLOW_DOWN, "the coach is still thinking about your last question")

        async def answer() -> None:
            try:
                advice = await table.ask_coach(self, state_id)
            except IllegalMove as error:
                self.error(error.code, error.message, request_id)
                return
            reply = advice_to_wire(advice)
            if request_id is not None:
                reply["re"] = request_id
            self.send(reply)

        self._coaching = asyncio.get_running_loop().create_task(answer(), name=f"coach {self.peer}")

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
            name = clean_name(fields["name"])
        except BadName as error:
            raise ProtocolError(errors.BAD_NAME, str(error), fatal=True) from None
        member = self.host.member_secret is not None
        if member and not proves(self.host.member_secret or "", self.nonce, fields.get("proof")):
            raise ProtocolError(errors.NOT_MEMBER, "this port is for the cluster's members only", fatal=True)
        via = fields.get("via")
        if via is not None:
            self.host.speak_for(self, via, fields.get("proxy_key"), member=member)
        elif member:
            self.host.count(self, self.address)
        key = fields.get("key")
        if key is not None:
            if via is None:  # speak_for checked the proxy key
                raise ProtocolError(errors.BAD_FIELD, "'key' is for this host's own fronts", fatal=True)
            self.key = key[:MAX_KEY]
        self.name = name
        self.features = features_of(fields.get("features"))
        welcome: dict[str, Any] = {"type": "welcome", "name": self.name}
        held = self.host.lobby.key_seat(self.key) if self.key else None
        if held is not None:
            table, seat = held
            welcome["held"] = {"table": table.table_id, "seat": seat, "name": table.seats[seat].name}
        return welcome

    def _bind(self, table: Table, seat: int) -> None:
        """A seat taken by a player a front vouched for by their SSH key: the key finds it again (store.py)."""
        if self.key:
            self.host.lobby.bind_key(self.key, table.table_id, seat)

    def _create(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        new = NewTable(
            players=fields["players"],
            bots=fields.get("bots", 0),
            bot=fields.get("bot", self.host.lobby.settings.default_bot),
            open_chips=fields.get("open_chips", False),
            variant=fields.get("variant", "standard"),
            coach=fields.get("coach", False),
        )
        table, seat, token = self.host.lobby.create_table(new, self, owner=self.address)
        self._at(table)
        self._bind(table, seat)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": token}

    def _join(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        table = self.host.lobby.table(fields["table"])
        seat, token = table.join(self, fields.get("seat"))
        self._at(table)
        self._bind(table, seat)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": token}

    def _spectate(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        table = self.host.lobby.table(fields["table"])
        if not self.host.spectating.take(self.address, self.host.limits.per_address_spectating):
            raise HostError(
                errors.TOO_MANY,
                f"your address already watches {self.host.limits.per_address_spectating} tables: leave one first",
            )
        try:
            table.spectate(self)
        except BaseException:
            self.host.spectating.give_back(self.address)
            raise
        self.spectating = True
        self._at(table)
        return {"type": "joined", "table": table.table_id, "seat": None, "token": None}

    def _resume(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._not_at_table()
        table, seat = self.host.lobby.resume(fields["token"], self)
        self._at(table)
        self._bind(table, seat)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": fields["token"]}

    def _resume_key(self) -> dict[str, Any]:
        self._not_at_table()
        if not self.key:
            raise ProtocolError(errors.BAD_FIELD, "'resume_key' needs the key of a host's own front's hello")
        table, seat = self.host.lobby.resume_key(self.key, self)
        self._at(table)
        return {"type": "joined", "table": table.table_id, "seat": seat, "token": None}

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
            self.host.spectating.give_back(self.address)
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


def _listing_order(table: Table) -> tuple[bool, bool, float]:
    """Tables that can still be joined first, then games under way, then finished ones; oldest first in each."""
    return (table.started, table.finished, table.created_at)


def _address_of(peer: object) -> str:
    """The address a connection comes from (its IP), whatever the socket family reports."""
    if isinstance(peer, tuple) and peer:
        return str(peer[0])
    return str(peer)


class TcpHost:
    """Serves a ``Lobby`` over TCP. ``start()`` binds (port 0 picks a free port); ``close()`` tells every client.

    ``proxy_key``: the secret a trusted front (the SSH front's workers, on this machine) sends in its ``hello``
    with ``via``, the address of the player it speaks for; that address is then the one the limits count.

    ``proxy_from``: the load balancers (``--proxy-from``) whose connections open with a PROXY v2 header naming
    the client (proxy_protocol.py); their clients are counted and logged by that address.

    ``member_secret``: this is a cluster's table port; every hello must carry the ``proof`` that its sender knows
    the secret (cluster/membership.py), else ``not_member``. A member may speak for a player (``via``, ``key``).
    """

    def __init__(
        self,
        lobby: Lobby,
        bind: str = "127.0.0.1",
        port: int = 7777,
        rate: float = RATE_PER_SECOND,
        limits: ClientLimits | None = None,
        proxy_key: str | None = None,
        proxy_from: ProxySources | None = None,
        member_secret: str | None = None,
    ) -> None:
        self.lobby = lobby
        self.member_secret = member_secret
        self.proxy_from = proxy_from
        self._reading_headers: set[asyncio.StreamWriter] = set()  # balancer connections not through their header
        self.bind = bind
        self.port = port
        self.rate = rate  # messages per second a connection may send, sustained
        self.burst = max(RATE_BURST, rate * 2)
        self.limits = limits or ClientLimits()
        self.proxy_key = proxy_key
        self.stalls = LoopStalls()
        self.connections = AddressCounts()
        self.spectating = AddressCounts()
        self.sessions: set[Session] = set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._housekeeping: asyncio.Task[None] | None = None
        self._pages: dict[int, bytes] = {}  # offset -> the encoded `tables` reply, for lobby version _pages_of
        self._pages_of = -1

    def tables_frame(self, offset: int, request_id: int | None) -> bytes:
        """The `tables` reply for ``offset``: built once per change of the lobby, not once per request."""
        if self._pages_of != self.lobby.version:
            self._pages.clear()
            self._pages_of = self.lobby.version
        offset = max(0, offset)
        page = self._pages.get(offset)
        if page is None:
            listed = sorted(self.lobby.all_tables(), key=_listing_order)
            page = encode(
                {
                    "type": "tables",
                    "tables": [summary_to_wire(t.summary()) for t in listed[offset : offset + LIST_PAGE]],
                    "total": len(listed),
                    "offset": offset,
                }
            )
            if len(self._pages) < 64:
                self._pages[offset] = page
        return page if request_id is None else with_entry(page, "re", request_id)

    async def start(self) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._accept, self.bind, self.port, limit=READ_CHUNK * 4)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.port = port
        self.stalls.start()
        self._housekeeping = asyncio.get_running_loop().create_task(self._keep_house(), name="tcp housekeeping")
        log.info("listening on %s:%d", host, port)
        return host, port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if self.proxy_from is not None and self.proxy_from.trusts(_address_of(peer)):
            peer = await self._proxied_peer(reader, writer, peer)
            if peer is None:
                return
        session = Session(self, reader, writer, peer)
        if len(self.sessions) >= MAX_CONNECTIONS:
            session.error(errors.SERVER_CLOSING, "this host is full", fatal=True)
            await session._close_writer()
            return
        # A cluster's table port counts a member's connection against the player it speaks for, once its hello
        # says whom (a front carries many players from one address); any other port counts it from the start.
        if self.member_secret is None:
            if not self.connections.take(session.address, self.limits.per_address_connections):
                session.error(
                    errors.TOO_MANY,
                    f"your address has {self.limits.per_address_connections} connections to this host already",
                    fatal=True,
                )
                await session._close_writer()
                return
            session.counted = session.address
        self.sessions.add(session)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            if session.counted is not None:
                self.connections.give_back(session.counted)
            if task is not None:
                self._tasks.discard(task)

    async def _proxied_peer(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, balancer: object
    ) -> object | None:
        """The client a load balancer's connection carries, from its PROXY header; None (and the connection
        closed, nothing sent) if the header is bad, truncated or late."""
        self._reading_headers.add(writer)
        try:
            header = await read_header(reader.readexactly)
        except (BadProxyHeader, TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError) as error:
            log.warning("closed a connection from load balancer %s: %s", balancer, str(error) or type(error).__name__)
            writer.transport.abort()
            return None
        finally:
            self._reading_headers.discard(writer)
        if header.source is None:
            return balancer
        log.info("connection from %s:%d through load balancer %s", *header.source, _address_of(balancer))
        return header.source

    def speak_for(self, session: Session, address: str, key: object, *, member: bool = False) -> None:
        """A trusted front says whom ``session`` carries: count it against ``address`` from now on. Trusted: the
        host's own front (its ``proxy_key``), or a cluster member (``member``: its proof was checked)."""
        own = self.proxy_key is not None and isinstance(key, str) and hmac.compare_digest(key, self.proxy_key)
        if not (own or member):
            raise ProtocolError(errors.BAD_FIELD, "'via' is for this host's own fronts", fatal=True)
        if address == session.counted:
            session.address = address
            return
        self.count(session, address)

    def count(self, session: Session, address: str) -> None:
        """Count ``session`` against ``address`` (instead of whatever it was counted against); fatal ``too_many``
        if that address holds its limit already."""
        if not self.connections.take(address, self.limits.per_address_connections):
            raise ProtocolError(
                errors.TOO_MANY,
                f"your address has {self.limits.per_address_connections} connections to this host already",
                fatal=True,
            )
        if session.counted is not None:
            self.connections.give_back(session.counted)
        session.counted = session.address = address

    async def _keep_house(self) -> None:
        """Close connections that sat in the lobby too long, and tables that never started."""
        while True:
            await asyncio.sleep(HOUSEKEEPING_INTERVAL)
            self.close_idle(time.monotonic())
            self.lobby.expire_unstarted()

    def close_idle(self, now: float) -> int:
        """Close every connection idle in the lobby (at no table) for ``limits.lobby_idle`` seconds; how many."""
        closed = 0
        for session in list(self.sessions):
            if session.idle_since is not None and now - session.idle_since >= self.limits.lobby_idle:
                session.error(
                    errors.IDLE,
                    f"you stayed in the lobby for {self.limits.lobby_idle / 60:g} minutes without a table",
                    fatal=True,
                )
                session.abort_after_send()
                closed += 1
        return closed

    async def close(
        self, reason: str = "the host is shutting down", *, restart: bool = False, forget: bool = False
    ) -> None:
        """Stop accepting, tell every client ``reason`` in a ``closing`` frame (``restart``: with ``restart: true``,
        come back), close every table (kept in the store for the next start unless ``forget``)."""
        if self._housekeeping is not None:
            self._housekeeping.cancel()
        await self.stalls.stop()
        if self._server is not None:
            self._server.close()
        for writer in list(self._reading_headers):
            writer.transport.abort()
        for session in list(self.sessions):
            session.say_closing(reason, restart=restart)
        self.lobby.close(reason, forget=forget)
        for session in list(self.sessions):
            await session._close_writer()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
        if self._server is not None:
            await self._server.wait_closed()
