"""A client connection speaking docs/protocol.md, and the port that makes them: shared by a host and a front.

A host's port (tcp.py) and a cluster front's (cluster/gateway.py) read clients alike: bounded frames, each decoded
once into its message type (``link.messages``), rates, refusals, the hello and frame deadlines, lobby idling,
connections per network and their fair shares of the total (``make_room``), PROXY v2 headers. Each session class
has one handler per message type, ``on_<type>``, returning the reply (sent with the request's ``id`` as ``re``) or
None; a refusal is a ``ProtocolError`` or ``HostError``, by its code."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import inspect
import logging
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict, Unpack

import msgpack

from nothanks_tui import __version__
from nothanks_tui.engine import IllegalMove
from nothanks_tui.link import TableSummary, errors, wire
from nothanks_tui.link import messages as m
from nothanks_tui.link.identity import proven_owner
from nothanks_tui.link.names import MAX_NAME, BadName, clean_name
from nothanks_tui.link.wire import PROTOCOL_VERSION, ProtocolError, encode

from .cluster.membership import new_nonce, proves
from .limits import AddressCounts, ClientLimits, LoopStalls, TokenBucket, spend
from .proxy_protocol import BadProxyHeader, ProxySources, read_header

log = logging.getLogger(__name__)

READ_CHUNK = 4096
RATE_PER_SECOND = 50.0  # sustained messages per second per connection
RATE_BURST = 100.0  # messages a connection may send at once
MAX_SOFT_ERRORS = 20  # refused-but-harmless messages before we stop listening
MAX_KEY = 128  # characters of an SSH key fingerprint kept ("SHA256:" and 43 more)
LIST_PAGE = 50  # tables in one `tables` reply (list_tables' `offset` pages through the rest)
# New connections a network owes when one of its own is closed for room at the total (15 s at the default rate): a
# botnet whose connections close each other's in turn is refused at the door, where a connection costs least.
ROOM_PENALTY = 30.0
ACCEPT_BATCH = 16  # connections accepted in one turn of the event loop (a botnet's churn: thousands a second)...
LISTEN_BACKLOG = 1024  # ...while the kernel holds up to this many more for the next turns
HOUSEKEEPING_INTERVAL = 5.0  # seconds between checks for idle connections (and a host's unstarted tables)

Reply = dict[str, Any] | None


class ProtocolSession:
    """One client: its hello, its rate budgets, what waits for it to read; subclasses handle its messages."""

    offered: ClassVar[tuple[str, ...]] = wire.FEATURES  # the features our hello lists

    def __init__(self, server: ProtocolServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 peer: object = None) -> None:  # fmt: skip
        self.server = server
        self.reader = reader
        self.writer = writer
        self.name = ""
        # The client's (address, port): the socket's peer, or what a trusted load balancer's PROXY header said.
        self.peer = peer if peer is not None else writer.get_extra_info("peername")
        self.address = address_of(self.peer)  # whom the per-address limits count this connection against
        self.counted: str | None = None  # the address this connection is counted against, once it is
        self.nonce = new_nonce()  # in our hello: a cluster member proves it knows the secret by signing it
        self.key: str | None = None  # the SSH key fingerprint a front vouched for in hello: its seat is bound to it
        self.owner: str | None = None  # the key that owns its name (an SSH key's, a join's proven one); None: guest
        self.features: frozenset[str] = frozenset()  # what the client's hello says it speaks (e.g. "chat")
        now = time.monotonic()
        self.idle_since: float | None = now  # in the lobby (at no table) since then
        limits = server.limits
        self._messages = TokenBucket(server.rate, server.burst, server.stalls, now)
        self._lists = TokenBucket(limits.list_rate, limits.list_burst, server.stalls, now)
        self._soft_errors = 0
        self._closing = False
        self._said_closing = False
        # Frames waiting for a slow reader, in order; at most one of them is a view (the newest replaces it).
        self._backlog: list[bytes] = []
        self._backlog_view: int | None = None  # index of the view in the backlog
        self._flusher: asyncio.Task[None] | None = None
        with contextlib.suppress(AttributeError, RuntimeError):
            writer.transport.set_write_buffer_limits(high=limits.backlog_bytes)
        self.setup()

    def setup(self) -> None:
        """What a kind of session keeps beyond these (called at the end of ``__init__``)."""

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(encode(message))

    def reply(self, reply: dict[str, Any], request_id: int | None) -> None:
        if request_id is not None:
            reply["re"] = request_id
        self.send(reply)

    def send_raw(self, frame: bytes, view: bool = False) -> None:
        """Write ``frame``, or queue it while the client has not read what it was sent: a view replaces the one
        waiting (only the newest matters), so a slow or silent reader costs one view."""
        if self._closing or self._said_closing or self.writer.is_closing():
            return
        limits = self.server.limits
        if not self._backlog and self.writer.transport.get_write_buffer_size() <= limits.backlog_bytes:
            self.writer.write(frame)
            return
        if view and self._backlog_view is not None:
            del self._backlog[self._backlog_view]
            self._backlog_view = None
        elif not view and len(self._backlog) >= limits.backlog_frames:
            self._drop_slow_reader()
            return
        self._backlog.append(frame)
        if view:
            self._backlog_view = len(self._backlog) - 1
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush(), name=f"flush {self.peer}")

    async def _flush(self) -> None:
        """Hand the backlog to the socket as the client reads; drop one that reads nothing for too long."""
        try:
            while self._backlog and not self._closing:
                try:
                    await asyncio.wait_for(self.writer.drain(), self.server.limits.slow_reader)
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
        self.server.log.info("%s left its frames unread for too long; dropping it", self.peer)
        self._backlog, self._backlog_view = [], None
        if not self.writer.transport.is_closing():
            self.writer.transport.write(
                encode({"type": "error", "code": errors.SLOW_READER, "message": "you did not read", "fatal": True})
            )
        self.abort()

    @property
    def guest(self) -> bool:
        """No key owns its name (names.GUEST_MARK marks its seats)."""
        return self.owner is None

    def error(
        self, code: str, message: str, request_id: int | None = None, fatal: bool = False, name: str = ""
    ) -> None:
        more = ({"fatal": True} if fatal else {}) | ({"name": name} if name else {})
        self.reply({"type": "error", "code": code, "message": message, **more}, request_id)

    def say_closing(self, reason: str, *, restart: bool = False) -> None:
        """The last frame this connection gets: ``closing`` (``restart``: come back, the games are kept); nothing
        after it, no ``table_closed`` while the tables shut down."""
        if not self._said_closing:
            self.send({"type": "closing", "reason": reason, **({"restart": True} if restart else {})})
            self._said_closing = True

    def abort_after_send(self) -> None:
        """Close once what was written is sent (the reader task then ends): for a last error frame."""
        self._closing = True
        self.writer.close()

    def abort(self) -> None:
        """Close now; what it held is let go as the read loop ends (``ended``), not here (a table may be sending)."""
        self._closing = True
        self.writer.transport.abort()

    async def run(self) -> None:
        frames = wire.FrameReader(wire.host_unpacker(), wire.CLIENT_MAX_FRAME, wire.CLIENT_MAX_DEPTH)
        self.send(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "server": f"nothanks/{__version__}",
                "features": list(self.offered),
                "nonce": self.nonce,
            }
        )
        loop = asyncio.get_running_loop()
        limits = self.server.limits
        hello_by = loop.time() + limits.hello_timeout
        frame_by: float | None = None  # a frame begun must arrive whole by then (slowloris)
        try:
            while not self._closing:
                deadline = frame_by if self.name else hello_by
                try:
                    read = self.reader.read(READ_CHUNK)
                    data = await (read if deadline is None else asyncio.wait_for(read, max(0, deadline - loop.time())))
                except TimeoutError:
                    late = f"a frame must arrive whole within {limits.frame_timeout:g} s"
                    code, text = (errors.BAD_FRAME, late) if self.name else (errors.HELLO_FIRST, "say hello first")
                    self.error(code, text, fatal=True)
                    break
                if not data:
                    break
                try:
                    frames.feed(data)
                except msgpack.BufferFull:
                    self.error(errors.TOO_BIG, f"a frame is at most {wire.CLIENT_MAX_FRAME} bytes", fatal=True)
                    break
                if not await self._drain(frames):
                    break
                if not frames.partial:
                    frame_by = None
                elif frame_by is None:
                    frame_by = loop.time() + limits.frame_timeout
        except (ConnectionError, OSError):
            pass
        except Exception:
            self.server.log.exception("session %s failed", self.peer)
        finally:
            await self.ended()
            await self.close_writer()

    async def _drain(self, frames: wire.FrameReader) -> bool:
        """Handle every complete frame read; False once the connection must close."""
        while True:
            try:
                message = frames.next_frame()
            except wire.FrameTooBig as error:
                self.error(errors.TOO_BIG, f"a frame is at most {error.limit} bytes", fatal=True)
                return False
            except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as error:
                # Covers malformed bytes, over-limit strings/containers/nesting, non-str map keys: the stream is lost.
                self.error(errors.BAD_FRAME, f"undecodable frame: {type(error).__name__}", fatal=True)
                return False
            if message is None:
                return True
            if not self._messages.take(time.monotonic()):
                self.error(errors.FLOOD, f"more than {self.server.rate:.0f} messages a second", fatal=True)
                return False
            if not await self._handle(message):
                return False

    async def _handle(self, frame: object) -> bool:
        """Decode one frame into its message and handle it; False once the connection must close."""
        try:
            message = m.decode_client(frame)
            if not self.name and not isinstance(message, m.Hello):
                raise ProtocolError(errors.HELLO_FIRST, "the first message is hello", fatal=True)
        except ProtocolError as error:
            self.error(error.code, error.message, m.request_id_of(frame), fatal=error.fatal)
            return not error.fatal and self.soft_error()
        return await self.handle_message(message)

    async def handle_message(self, message: m.ClientMessage, handler: Callable[[Any], Any] | None = None) -> bool:
        """Run the message's handler (``on_<type>``, or ``handler``) and send its reply or refusal with its ``id``;
        False once the connection must close."""
        try:
            run: Callable[[Any], Any] = getattr(self, "on_" + m.kind_of(message), self.on_other)
            reply = (handler or run)(message)
            if inspect.isawaitable(reply):
                reply = await reply
        except ProtocolError as error:
            self.error(error.code, error.message, message.id, fatal=error.fatal, name=error.name)
            return not error.fatal and self.soft_error()
        except IllegalMove as error:  # (HostError is one: a refusal by the lobby or the table)
            self.error(error.code, error.message, message.id)
            return True
        if reply is not None:
            self.reply(reply, message.id)
        return not self._closing

    def soft_error(self) -> bool:
        """Count a refused message; False (the client told) once it sent too many."""
        self._soft_errors += 1
        if self._soft_errors > MAX_SOFT_ERRORS:
            self.error(errors.FLOOD, "too many refused messages", fatal=True)
            return False
        return True

    async def on_other(self, message: m.ClientMessage) -> Reply:
        raise ProtocolError(errors.UNKNOWN_TYPE, f"unknown message type {m.kind_of(message)!r}")

    async def on_hello(self, message: m.Hello) -> Reply:
        if self.name:
            raise ProtocolError(errors.BAD_FIELD, "hello only once")
        if message.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                errors.BAD_VERSION,
                f"this host speaks protocol {PROTOCOL_VERSION}, not {message.protocol}: update nothanks",
                fatal=True,
            )
        try:
            name = clean_name(message.name)
        except BadName as error:
            raise ProtocolError(errors.BAD_NAME, str(error), fatal=True) from None
        secret = self.server.member_secret
        member = secret is not None
        if member and not proves(secret or "", self.nonce, message.proof):
            raise ProtocolError(errors.NOT_MEMBER, "this port is for the cluster's members only", fatal=True)
        via = message.via
        if isinstance(via, str):
            self.server.speak_for(self, via, message.proxy_key, member=member)
        elif member:
            self.server.count(self, self.address)
        if isinstance(message.key, str) or isinstance(message.owner, str):
            if not isinstance(via, str):  # speak_for checked the proxy key
                raise ProtocolError(errors.BAD_FIELD, "'key' and 'owner' are for this host's own fronts", fatal=True)
            self.key = message.key[:MAX_KEY] if isinstance(message.key, str) else None
            self.owner = message.owner[:MAX_KEY] if isinstance(message.owner, str) else None
        if isinstance(message.public_key, str):
            self.owner = proven_owner(message.public_key, str(message.signature or ""), self.nonce)
            if self.owner is None:
                raise ProtocolError(errors.BAD_SIGNATURE, "the signature does not sign this host's nonce", fatal=True)
        if not (self.key and self.owner is None):  # (else an SSH front's look-up of the key's seat: no name yet)
            await self._check_owner(name)
        self.name = name
        self.features = m.features_of(message.features)
        held = await self.held_seat() if self.key else None
        return {"type": "welcome", "name": self.name, **({"held": held} if held is not None else {})}

    async def _check_owner(self, name: str) -> None:
        """``name`` is this client's here: unowned (a key claims it, durably, before the welcome), or its key's;
        else ``name_taken``, with a free variant of it (``name2``...) to offer."""
        holder = await self.server.name_owner(name, self.owner)
        if holder is None or holder == self.owner:
            return
        for n in range(2, 20):
            free = f"{name[: MAX_NAME - len(str(n))]}{n}"
            if await self.server.name_owner(free, None) in (None, self.owner):
                break
        error = ProtocolError(errors.NAME_TAKEN, f"another player's key owns the name {name!r} here", fatal=True)
        error.name = free
        raise error

    async def held_seat(self) -> dict[str, Any] | None:
        """The seat the hello's SSH key holds (``welcome``'s ``held``: table, seat, name), if any."""
        return None

    def on_ping(self, message: m.ClientMessage) -> Reply:
        return {"type": "pong"}

    def on_bye(self, message: m.ClientMessage) -> None:
        self._closing = True

    def on_list_tables(self, message: m.ListTables) -> None:
        self.take_lobby_read("list the tables")
        self.send_raw(self.server.tables.frame(message.offset, message.id))

    def take_lobby_read(self, what: str) -> None:
        """Count a read of the lobby or the history (``slow_down`` past ``limits.list_rate`` a second)."""
        if not self._lists.take(time.monotonic()):
            raise ProtocolError(errors.SLOW_DOWN, f"{what} at most {self.server.limits.list_rate:g} times a second")

    def in_use(self) -> int:
        """How much this connection is used, for the shares of the total (``make_room``): 0 before its hello,
        1 idle in the lobby, 2 more (a host's session says 2 watching, 3 seated)."""
        return 0 if not self.name else 1 if self.idle_since is not None else 2

    async def ended(self) -> None:
        """The connection ended (hung up, dropped, or the port closes): let go of what it held."""

    async def close_writer(self) -> None:
        """Close once what was written is sent, or drop it after 2 s (a client that never reads would hold it)."""
        self._closing = True
        try:
            if not self.writer.is_closing():
                self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 2.0)
        except TimeoutError:
            self.writer.transport.abort()
        except (ConnectionError, OSError):
            pass


@dataclass
class TablePages:
    """The ``tables`` reply, page by page: each encoded once per change of the listing (``version``)."""

    _listing: Callable[[], Sequence[Any]]  # the tables, in the order they are listed
    _summary: Callable[[Any], TableSummary]
    _version: Callable[[], object]
    _pages: dict[int, bytes] = field(default_factory=dict, init=False)  # offset -> the encoded page
    _of: object = field(default=None, init=False)

    def frame(self, offset: int, request_id: int | None) -> bytes:
        version = self._version()
        if version != self._of:
            self._pages.clear()
            self._of = version
        offset = max(0, offset)
        page = self._pages.get(offset)
        if page is None:
            listed = self._listing()
            tables = [wire.to_wire(self._summary(table)) for table in listed[offset : offset + LIST_PAGE]]
            page = encode({"type": "tables", "tables": tables, "total": len(listed), "offset": offset})
            if len(self._pages) < 64:
                self._pages[offset] = page
        return page if request_id is None else wire.with_entry(page, "re", request_id)


def address_of(peer: object) -> str:
    """The address a connection comes from (its IP), whatever the socket family reports."""
    return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)


class PortOptions(TypedDict, total=False):
    """What a port may be given beyond its address (``ProtocolServer`` says what each does)."""

    rate: float
    limits: ClientLimits | None
    proxy_key: str | None
    proxy_from: ProxySources | None
    member_secret: str | None


class ProtocolServer:
    """A listening port of ``ProtocolSession``s. ``start()`` binds (port 0: any free one); ``close()`` tells every
    client ``closing``. ``proxy_key``: the secret a trusted front (the SSH workers) sends in its ``hello`` with
    ``via``, the player's address, then counted by the limits; ``proxy_from``: load balancers whose connections
    open with a PROXY v2 header naming the client; ``member_secret``: a cluster's table port, where every hello
    proves it knows the secret (cluster/membership.py), else ``not_member``, and may speak for a player."""

    session_class: ClassVar[type[ProtocolSession]]
    what: ClassVar[str] = "host"  # what a client is told is full
    closing_reason: ClassVar[str] = "the host is shutting down"
    restarts: ClassVar[bool] = False  # what ``close`` tells clients by default: come back, or not
    log: ClassVar[logging.Logger] = log

    def __init__(self, tables: TablePages, bind: str, port: int, **options: Unpack[PortOptions]) -> None:
        rate = options.get("rate", RATE_PER_SECOND)
        self.tables = tables
        self.bind = bind
        self.port = port
        self.rate = rate  # messages per second a connection may send, sustained
        self.burst = max(RATE_BURST, rate * 2)
        self.limits = options.get("limits") or ClientLimits()
        self.proxy_key = options.get("proxy_key")
        self.proxy_from = options.get("proxy_from")
        self.member_secret = options.get("member_secret")
        self.stalls = LoopStalls()
        self.connections = AddressCounts()
        self._connects: dict[str, TokenBucket] = {}  # each network's new connections a minute (churn)
        self.sessions: set[Any] = set()
        self._reading_headers: set[asyncio.StreamWriter] = set()  # balancer connections not through their header
        self._server: asyncio.Server | None = None
        self._tasks: dict[asyncio.Task[None], asyncio.StreamWriter] = {}  # each connection's, until it ends
        self._housekeeping: asyncio.Task[None] | None = None

    async def start(self) -> tuple[str, int]:
        self._server = await asyncio.start_server(
            self._accept, self.bind, self.port, limit=READ_CHUNK * 4, backlog=ACCEPT_BATCH
        )
        for listening in self._server.sockets:  # asyncio accepts ``backlog`` a turn; the kernel queues more
            with socket.fromfd(listening.fileno(), listening.family, listening.type) as same:
                same.listen(LISTEN_BACKLOG)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.port = port
        self.stalls.start()
        self._housekeeping = asyncio.get_running_loop().create_task(self._keep_house(), name="housekeeping")
        self.log.info("listening on %s:%d", host, port)
        return host, port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if self.proxy_from is not None and self.proxy_from.trusts(address_of(peer)):
            peer = await self._proxied_peer(reader, writer, peer)
            if peer is None:
                return
        # A cluster's table port counts a member's connection against the player it speaks for, once its hello
        # says whom (a front carries many players from one address); any other port counts it from the start, and
        # refuses it at the door before making it a session (a botnet's churn: thousands a second).
        network = self.limits.network(address_of(peer))
        if self.member_secret is None and (
            not self._may_connect(network) or self.connections[network] >= self.limits.per_address_connections
        ):
            writer.write(self._refusal)
            writer.close()  # (the frame is in the kernel's buffer: a fresh socket's is empty)
            return
        session = self.session_class(self, reader, writer, peer)
        if self.member_secret is None:
            self.connections.take(network, self.limits.per_address_connections, session)
            session.counted = network
        if len(self.sessions) >= self.limits.max_connections:
            self.make_room(session)
        self.sessions.add(session)
        task = asyncio.current_task()
        if task is not None:
            self._tasks[task] = writer
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            if session.counted is not None:
                self.connections.give_back(session.counted, session)
            if task is not None:
                self._tasks.pop(task, None)

    def make_room(self, newcomer: ProtocolSession) -> None:
        """At the total: close the least used connection of the network that holds the most (no hello yet, then
        idle in the lobby, then watching; a seated player's only when nobody else is left), so that ``newcomer``, a
        player coming back to their seat above all, is never refused because others hold the total."""
        networks = [*sorted(self.connections.held.values(), key=len, reverse=True), self.sessions]
        for held in networks:
            candidates = [session for session in held if session is not newcomer and session.in_use() < 3]
            if candidates:
                break
        else:  # (only seated players: the biggest network's)
            candidates = [session for session in networks[0] if session is not newcomer] or list(self.sessions)
        victim = min(candidates, key=lambda session: session.in_use())
        self.sessions.discard(victim)
        if victim.counted is not None:  # (not chosen twice while it closes)
            self.connections.give_back(victim.counted, victim)
            if (bucket := self._connects.get(victim.counted)) is not None:  # its next connections wait: no churn
                bucket.owe(ROOM_PENALTY)
        self.log.info("%s closed: the connections are at their total, its network holds the most", victim.peer)
        victim.error(errors.SERVER_CLOSING, f"this {self.what} is full: it closed the least used connection of the "
                     "network holding the most", fatal=True)  # fmt: skip
        victim.abort_after_send()

    def _may_connect(self, network: str) -> bool:
        """Charge one new connection to ``network``'s rate (``limits.connects_per_minute``, as many at once)."""
        return spend(self._connects, network, self.limits.connects_per_minute, self.limits.connects_per_minute)

    @functools.cached_property
    def _refusal(self) -> bytes:
        """The door's refusal, encoded once (``too_many``, fatal)."""
        return encode({"type": "error", "code": errors.TOO_MANY, "message": self._too_many(), "fatal": True})

    def _too_many(self) -> str:
        return (
            f"your address has {self.limits.per_address_connections} connections to this host already, or opened"
            f" {self.limits.connects_per_minute:g} in the last minute"
        )

    async def _proxied_peer(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, balancer: object
    ) -> object | None:
        """The client a balancer's connection carries, from its PROXY header; None (closed) if it is bad or late."""
        self._reading_headers.add(writer)
        try:
            header = await read_header(reader.readexactly)
        except (BadProxyHeader, TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError) as error:
            self.log.warning(
                "closed a connection from load balancer %s: %s", balancer, str(error) or type(error).__name__
            )
            writer.transport.abort()
            return None
        finally:
            self._reading_headers.discard(writer)
        if header.source is None:
            return balancer
        self.log.info("connection from %s:%d through load balancer %s", *header.source, address_of(balancer))
        return header.source

    def speak_for(self, session: ProtocolSession, address: str, key: object, *, member: bool = False) -> None:
        """A trusted front (its ``proxy_key``, or a checked cluster ``member``) says whom ``session`` carries: count
        it against ``address`` from now on."""
        own = self.proxy_key is not None and isinstance(key, str) and hmac.compare_digest(key, self.proxy_key)
        if not (own or member):
            raise ProtocolError(errors.BAD_FIELD, "'via' is for this host's own fronts", fatal=True)
        if own and session.counted in self._connects:  # the front's connection: its player pays at the front
            self._connects[session.counted].give_back()
        if self.limits.network(address) == session.counted:
            session.address = address
            return
        self.count(session, address)

    def count(self, session: ProtocolSession, address: str) -> None:
        """Count ``session`` against ``address`` instead; fatal ``too_many`` if that address is at its limit."""
        network = self.limits.network(address)
        if not self.connections.take(network, self.limits.per_address_connections, session):
            raise ProtocolError(errors.TOO_MANY, self._too_many(), fatal=True)
        if session.counted is not None:
            self.connections.give_back(session.counted, session)
        session.counted, session.address = network, address

    async def _keep_house(self) -> None:
        while True:
            await asyncio.sleep(HOUSEKEEPING_INTERVAL)
            now = time.monotonic()
            self.close_idle(now)
            for network in [network for network, bucket in self._connects.items() if bucket.rested(now)]:
                del self._connects[network]
            self.keep_house()

    def keep_house(self) -> None:
        """What else is checked every ``HOUSEKEEPING_INTERVAL`` seconds."""

    def close_idle(self, now: float) -> int:
        """Close every connection idle in the lobby (at no table) for ``limits.lobby_idle`` seconds; how many."""
        idle = self.limits.lobby_idle
        closing = [s for s in self.sessions if s.idle_since is not None and now - s.idle_since >= idle]
        for session in closing:
            session.error(errors.IDLE, f"you stayed in the lobby for {idle / 60:g} minutes without a table", fatal=True)
            session.abort_after_send()
        return len(closing)

    async def close(self, reason: str | None = None, *, restart: bool | None = None, forget: bool = False) -> None:
        """Stop accepting, tell every client ``reason`` in ``closing`` (``restart``: come back; by default
        ``restarts``), let go of what the port holds (``closed``), hang up."""
        reason = reason or self.closing_reason
        restart = self.restarts if restart is None else restart
        if self._housekeeping is not None:
            self._housekeeping.cancel()
        await self.stalls.stop()
        if self._server is not None:
            self._server.close()
        for writer in list(self._reading_headers):
            writer.transport.abort()
        for session in list(self.sessions):
            session.say_closing(reason, restart=restart)
        await self.closed(reason, forget=forget)
        await asyncio.gather(*(session.close_writer() for session in list(self.sessions)))
        if self._tasks:  # (one closed already, e.g. ``make_room``'s, whose client never read: dropped now)
            _done, stuck = await asyncio.wait(list(self._tasks), timeout=2.0)
            for task in stuck:
                self._tasks[task].transport.abort()
        if self._server is not None:
            await self._server.wait_closed()

    async def closed(self, reason: str, *, forget: bool) -> None:
        """The port closes (its clients told): close what it serves."""

    async def name_owner(self, name: str, owner: str | None) -> str | None:
        """The key owning ``name`` here, which ``owner`` becomes, durably, if none did (None: nobody; claim_name)."""
        return None
