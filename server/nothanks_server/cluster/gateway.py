"""A front's client port: the protocol of docs/protocol.md, each client relayed to the table host of its table.

A client of the gateway cannot tell it from a single host. The gateway answers ``hello``, ``ping`` and
``list_tables`` itself (the shared lobby, lobby_cache.py), and relays everything else to one table host at a time
over an ``Upstream`` (relay.py), chosen per the cluster contract (routes.py):

- ``create_table``: the live table host with the fewest tables;
- ``join``, ``spectate``: the holder of the table's lease; ``resume``: of the table its token names
  (``P:token:``); ``resume_key`` (and ``welcome``'s ``held``): of the seat the SSH key holds (``P:keyseat:``);
- ``history``, ``replay``, ``stats``: the table host the client is connected to, or any;
- the table's own messages (``action``, ``chat``...): the table host the client sits at.

Every client frame is checked against the same schema and limits as on a host (tcp.py's: frame size, nesting,
rate, refused messages, hello deadline, idle time, connections per address, PROXY v2 headers from
``--proxy-from`` only) before anything is relayed, and relayed re-encoded from its checked fields. Frames from the
table host are passed on as they came: views were filtered for their seat there and are not looked into here.

**A table that moves.** When the table host of a seated client goes away (its connection ends, or it says
``closing`` with ``restart: true``), the client is told ``table_moving`` (if its hello listed the feature
``moving``), the gateway waits for the table's new lease holder (another host takes a dead host's table over
within seconds), connects, ``resume``s the seat with its token (or its key, or watches again) and swallows the
reply; the updates that follow are relayed as usual. The client's frames meanwhile are queued (at most
``QUEUE_LIMIT``) and sent after. The client's last move, if it went to the host in the instant the host went
away, is sent again at the new one (a move gets no reply, so nothing else would tell it was lost). An action sent
twice is applied once (its ``state_id``): the new host refuses a copy of a move it has, and the gateway drops that
refusal. After ``MOVE_FOR``
seconds the gateway gives up with ``table_closed`` and a sentence saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from collections.abc import Coroutine
from typing import Any

import msgpack
from redis import RedisError  # (a front is a cluster member: redis is there)

from nothanks_tui import __version__
from nothanks_tui.link import errors
from nothanks_tui.link.names import BadName, clean_name
from nothanks_tui.link.wire import (
    CLIENT_MAX_DEPTH,
    CLIENT_MAX_FRAME,
    FEATURES,
    MAX_ID,
    MOVING,
    PROTOCOL_VERSION,
    FrameReader,
    FrameTooBig,
    ProtocolError,
    check_client_message,
    encode,
    features_of,
    host_unpacker,
)

from ..limits import AddressCounts, ClientLimits, LoopStalls, TokenBucket
from ..proxy_protocol import BadProxyHeader, ProxySources, read_header
from ..tcp import (
    HELLO_TIMEOUT,
    HISTORY_REQUESTS,
    HOUSEKEEPING_INTERVAL,
    MAX_CONNECTIONS,
    MAX_KEY,
    MAX_SOFT_ERRORS,
    RATE_BURST,
    RATE_PER_SECOND,
    READ_CHUNK,
)
from .directory import Directory
from .lobby_cache import LobbyCache
from .membership import new_nonce
from .relay import Frame, Upstream, UpstreamRefused
from .routes import Routes, Target

log = logging.getLogger(__name__)

GATEWAY_FEATURES = (*FEATURES, MOVING)
MOVE_FOR = 30.0  # seconds the gateway looks for a moved table's new host before it gives up
RESUME_WAIT = 5.0  # seconds a `resume` waits for a table being taken over to have a holder again
QUEUE_LIMIT = 64  # client frames kept while its table moves
MAX_UNSENT = 256 * 1024  # bytes of local replies (tables, errors) waiting for a client that does not read
SIT = frozenset({"create_table", "join", "spectate", "resume", "resume_key"})
ANSWERED = frozenset({"coach", *HISTORY_REQUESTS})  # table host requests that always get a reply (with `re`)
# The id the gateway gives an action it sends again at the table's new host (the client's own ids are rarely this
# high; its refusal, `stale_state` when the first one was applied after all, is the gateway's to swallow).
RESENT_ACTION_ID = MAX_ID
GAVE_UP = "the table could not be moved to another server within {seconds:.0f} s: it may be over"


class GatewaySession:
    """One client of the gateway: its hello, its rate budgets, and its upstream (at most one at a time)."""

    def __init__(
        self, gateway: Gateway, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: object
    ) -> None:
        self.gateway = gateway
        self.reader = reader
        self.writer = writer
        self.peer = peer
        self.address = _address_of(peer)
        self.name = ""
        self.key: str | None = None
        self.features: frozenset[str] = frozenset()
        self.upstream: Upstream | None = None
        self.at_table = False  # the table host said `joined` (and not since `left` or `table_closed`)
        self.sitting: int | bool = False  # a sit request sent and not answered yet (its id, or True)
        self.table_id: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.moving: asyncio.Task[None] | None = None
        self.queue: list[tuple[str, dict[str, Any], int | None]] = []
        # Requests sent to the table host that always get a reply and have not had it yet (id -> the request): if
        # the table moves meanwhile, they are asked again of its new host, so no client waits for a lost answer.
        self.unanswered: dict[int, tuple[str, dict[str, Any]]] = {}
        # The client's last move and the upstream it went to: if that table host goes away in the same instant, the
        # move may have died with it, unanswered (a move gets no reply, only the next view). It is sent again at the
        # new host, which applies a state's move once: a copy of a move it has is refused, and that refusal dropped.
        self.last_action: tuple[dict[str, Any], Upstream] | None = None
        self._resent_pending = False
        self._resuming: asyncio.Future[dict[str, Any]] | None = None
        self._closing = False
        now = time.monotonic()
        self.idle_since: float | None = now
        stalls = gateway.stalls
        self._messages = TokenBucket(gateway.rate, gateway.burst, stalls, now)
        self._lists = TokenBucket(gateway.limits.list_rate, gateway.limits.list_burst, stalls, now)
        self._soft_errors = 0
        with contextlib.suppress(AttributeError, RuntimeError):
            writer.transport.set_write_buffer_limits(high=gateway.limits.backlog_bytes)

    # ---------------------------------------------------------------- to the client

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(encode(message))

    def send_raw(self, frame: bytes) -> None:
        if self._closing or self.writer.is_closing():
            return
        if self.writer.transport.get_write_buffer_size() > MAX_UNSENT:
            self._drop_slow_reader()
            return
        self.writer.write(frame)

    def error(self, code: str, message: str, request_id: int | None = None, fatal: bool = False) -> None:
        frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if request_id is not None:
            frame["re"] = request_id
        if fatal:
            frame["fatal"] = True
        self.send(frame)

    def _drop_slow_reader(self) -> None:
        log.info("%s left the gateway's frames unread for too long; dropping it", self.peer)
        if not self.writer.transport.is_closing():
            self.writer.transport.write(
                encode({"type": "error", "code": errors.SLOW_READER, "message": "you did not read", "fatal": True})
            )
        self.abort()

    def abort(self) -> None:
        self._closing = True
        self.writer.transport.abort()

    def say_closing(self, reason: str, *, restart: bool) -> None:
        message: dict[str, Any] = {"type": "closing", "reason": reason}
        if restart:
            message["restart"] = True
        self.send(message)
        self._closing = True

    # ---------------------------------------------------------------- the read loop

    async def run(self) -> None:
        frames = FrameReader(host_unpacker(), CLIENT_MAX_FRAME, CLIENT_MAX_DEPTH)
        self.send(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "server": f"nothanks/{__version__}",
                "features": list(GATEWAY_FEATURES),
                "nonce": new_nonce(),
            }
        )
        loop = asyncio.get_running_loop()
        try:
            hello_deadline = loop.time() + HELLO_TIMEOUT
            while not self._closing:
                if not self.name:
                    try:
                        data = await asyncio.wait_for(
                            self.reader.read(READ_CHUNK), max(0.0, hello_deadline - loop.time())
                        )
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
                if not await self._drain(frames):
                    break
        except (ConnectionError, OSError):
            pass
        except Exception:
            log.exception("gateway session %s failed", self.peer)
        finally:
            await self.hang_up()

    async def _drain(self, frames: FrameReader) -> bool:
        while True:
            try:
                message = frames.next_frame()
            except FrameTooBig as error:
                self.error(errors.TOO_BIG, f"a frame is at most {error.limit} bytes", fatal=True)
                return False
            except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as error:
                self.error(errors.BAD_FRAME, f"undecodable frame: {type(error).__name__}", fatal=True)
                return False
            if message is None:
                return True
            if not self._messages.take(time.monotonic()):
                self.error(errors.FLOOD, f"more than {self.gateway.rate:.0f} messages a second", fatal=True)
                return False
            if not await self._handle(message):
                return False

    async def _handle(self, message: object) -> bool:
        request_id = message.get("id") if isinstance(message, dict) else None
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            request_id = None
        try:
            kind, fields, request_id = check_client_message(message)
            if not self.name and kind != "hello":
                raise ProtocolError(errors.HELLO_FIRST, "the first message is hello", fatal=True)
        except ProtocolError as error:
            return self._refused(error, request_id)
        return await self._guarded(self._dispatch(kind, fields, request_id), request_id)

    async def _guarded(self, step: Coroutine[Any, Any, bool], request_id: int | None) -> bool:
        """Run a request's handling; a refusal is answered (False: the connection must close)."""
        try:
            return await step
        except ProtocolError as error:
            return self._refused(error, request_id)
        except RedisError as error:  # the directory out of reach: this request fails, the connection stays
            log.warning("the cluster's Redis did not answer for %s: %s", self.peer, error)
            self.error(errors.SERVER_CLOSING, "the cluster's directory cannot be reached: try again soon", request_id)
            return True

    def _refused(self, error: ProtocolError, request_id: int | None) -> bool:
        self.error(error.code, error.message, request_id, fatal=error.fatal)
        return not error.fatal and self._soft_error()

    def _soft_error(self) -> bool:
        self._soft_errors += 1
        if self._soft_errors > MAX_SOFT_ERRORS:
            self.error(errors.FLOOD, "too many refused messages", fatal=True)
            return False
        return True

    def _refuse(self, code: str, message: str, request_id: int | None) -> bool:
        self.error(code, message, request_id)
        return self._soft_error()

    # ---------------------------------------------------------------- messages

    async def _dispatch(self, kind: str, fields: dict[str, Any], request_id: int | None) -> bool:
        if kind == "hello":
            await self._hello(fields, request_id)
            return True
        if kind == "bye":
            return False
        if kind == "ping":
            self._reply({"type": "pong"}, request_id)
            return True
        if kind == "list_tables":
            if not self._lists.take(time.monotonic()):
                raise ProtocolError(
                    errors.SLOW_DOWN, f"list the tables at most {self.gateway.limits.list_rate:g} times a second"
                )
            self.send_raw(self.gateway.cache.tables_frame(fields.get("offset", 0), request_id))
            return True
        if self.moving is not None:
            if len(self.queue) >= QUEUE_LIMIT:
                return self._refuse(errors.SLOW_DOWN, "your table is moving to another server: wait", request_id)
            self.queue.append((kind, fields, request_id))
            return True
        return await self._relay(kind, fields, request_id)

    async def _relay(self, kind: str, fields: dict[str, Any], request_id: int | None) -> bool:
        message = {"type": kind, **fields}
        if request_id is not None:
            message["id"] = request_id
        if kind in SIT and not (self.at_table or self.sitting):
            target = await self._route(kind, fields, request_id)
            if target is None:
                return self._soft_error()
            if not await self._use(target, request_id):
                return self._soft_error()
            self.sitting = request_id if request_id is not None else True
        elif kind in HISTORY_REQUESTS:
            if not self._lists.take(time.monotonic()):
                raise ProtocolError(
                    errors.SLOW_DOWN, f"ask for the history at most {self.gateway.limits.list_rate:g} times a second"
                )
            if self.upstream is None:
                target = await self.gateway.routes.least_loaded()
                if target is None:
                    return self._refuse(errors.SERVER_CLOSING, "no table host is up: try again soon", request_id)
                if not await self._use(target, request_id):
                    return self._soft_error()
        elif kind == "leave":
            self.at_table = False  # the table host handles it in order, and always: what follows is at no table
            self.idle_since = time.monotonic()
            if self.upstream is None:
                self._reply({"type": "left"}, request_id)
                return True
        elif self.upstream is None:
            return self._refuse(errors.NOT_AT_TABLE, "join a table first", request_id)
        assert self.upstream is not None
        if kind == "action":
            self.last_action = (fields, self.upstream)
        if request_id is not None and kind in ANSWERED:
            if len(self.unanswered) >= QUEUE_LIMIT:
                self.unanswered.pop(next(iter(self.unanswered)))
            self.unanswered[request_id] = (kind, fields)
        self.upstream.send(message)
        return True

    def _reply(self, reply: dict[str, Any], request_id: int | None) -> None:
        if request_id is not None:
            reply["re"] = request_id
        self.send(reply)

    async def _hello(self, fields: dict[str, Any], request_id: int | None) -> None:
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
        via = fields.get("via")
        if via is not None:
            self.gateway.speak_for(self, via, fields.get("proxy_key"))
        key = fields.get("key")
        if key is not None:
            if via is None:
                raise ProtocolError(errors.BAD_FIELD, "'key' is for this host's own fronts", fatal=True)
            self.key = key[:MAX_KEY]
        self.name = name
        self.features = features_of(fields.get("features"))
        welcome: dict[str, Any] = {"type": "welcome", "name": name}
        if self.key:
            held = await self.gateway.routes.seat_of_key(self.key)
            if held is not None:
                summary = self.gateway.cache.summary(held.table_id)
                seat_name = name
                if summary is not None and 0 <= held.seat < len(summary.seats):
                    seat_name = summary.seats[held.seat].name
                welcome["held"] = {"table": held.table_id, "seat": held.seat, "name": seat_name}
        self._reply(welcome, request_id)

    async def _route(self, kind: str, fields: dict[str, Any], request_id: int | None) -> Target | None:
        """The table host for a sit request; None (and the client told why) if there is none."""
        routes = self.gateway.routes
        if kind == "create_table":
            target = await routes.least_loaded()
            if target is None:
                self.error(errors.TOO_MANY_TABLES, "no table host is up: try again soon", request_id)
            return target
        if kind in ("join", "spectate"):
            target = await routes.holder(fields["table"])
            if target is None:
                self.error(errors.NO_TABLE, "no such table", request_id)
            return target
        table_id: str | None
        if kind == "resume":
            table_id = await routes.table_of_token(fields["token"])
        else:
            if not self.key:
                self.error(errors.BAD_FIELD, "'resume_key' needs the key of a host's own front's hello", request_id)
                return None
            held = await routes.seat_of_key(self.key)
            table_id = None if held is None else held.table_id
        target = None if table_id is None else await self._holder_soon(table_id)
        if target is None:
            self.error(errors.BAD_TOKEN, "no seat holds that token", request_id)
        return target

    async def _holder_soon(self, table_id: str) -> Target | None:
        """The holder of a table known to exist: waits a little for one being taken over right now."""
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + RESUME_WAIT, 0.05
        while True:
            target = await self.gateway.routes.holder(table_id)
            if target is not None or loop.time() + pause > deadline:
                return target
            await asyncio.sleep(pause)  # a takeover has no event a front can wait on: poll the lease
            pause = min(0.5, pause * 2)

    async def _use(self, target: Target, request_id: int | None) -> bool:
        """Make ``target`` this client's upstream (the one it has, if it is that host); False (client told) if it
        cannot be reached."""
        if self.upstream is not None and self.upstream.target.host_id == target.host_id:
            return True
        await self._drop_upstream()
        try:
            self.upstream = await self._open(target)
        except UpstreamRefused as refusal:  # e.g. too_many: this player's address is at the table host's limit
            code = refusal.code if refusal.code in errors.HOST_CODES else errors.SERVER_CLOSING
            self.error(code, refusal.message or "the table's server refused", request_id)
            return False
        except (OSError, TimeoutError) as error:
            log.warning("could not reach table host %s at %s: %s", target.host_id, target.address, error)
            self.error(errors.SERVER_CLOSING, "the table's server cannot be reached: try again soon", request_id)
            return False
        return True

    async def _open(self, target: Target) -> Upstream:
        upstream = Upstream(target, self._from_upstream, self._upstream_lost)
        hello: dict[str, Any] = {
            "name": self.name,
            "via": self.address,
            "features": [feature for feature in FEATURES if feature in self.features],
        }
        if self.key:
            hello["key"] = self.key
        await upstream.open(hello, self.gateway.secret)
        return upstream

    async def _drop_upstream(self) -> None:
        upstream, self.upstream = self.upstream, None
        if upstream is not None:
            await upstream.close()

    # ---------------------------------------------------------------- from the table host

    async def _from_upstream(self, frames: list[Frame]) -> None:
        out: list[bytes] = []  # the frames to pass on, written in one piece (one system call for a chunk's frames)
        for message, raw in frames:
            kind = message.get("type")
            answers = message.get("re")
            if self._resuming is not None and kind in ("joined", "error") and answers is None:
                if not self._resuming.done():
                    self._resuming.set_result(message)
                continue
            if answers == RESENT_ACTION_ID and self._resent_pending:
                self._resent_pending = False
                if kind == "error":
                    continue  # our own copy of a move the new host has already: not the client's business
            if answers is not None:
                self.unanswered.pop(answers, None)
            if kind == "joined":
                self._seated(message)
            elif kind == "error":
                if answers == self.sitting or (answers is None and self.sitting is True):
                    self.sitting = False  # the sit request was refused (with its id, or, sent without one, none)
                if message.get("fatal"):  # the table host dropped the client (flood, slow reader...): so do we
                    self.send_raw(b"".join([*out, raw]))
                    self.abort()
                    return
            elif kind == "table_closed":
                self.at_table = False
                self.idle_since = time.monotonic()
            elif kind == "closing":  # the table host stops: its tables move (or, if it is going for good, end)
                if self.upstream is not None:
                    self.upstream.restarting = True
                continue
            out.append(raw)
        if out:
            self.send_raw(out[0] if len(out) == 1 else b"".join(out))
        # Wait for a client that has not read what it was sent (the table host then keeps only the newest view for
        # it); one that keeps up costs nothing here.
        if not self._closing and self.writer.transport.get_write_buffer_size() > self.gateway.limits.backlog_bytes:
            try:
                await asyncio.wait_for(self.writer.drain(), self.gateway.limits.slow_reader)
            except TimeoutError:
                self._drop_slow_reader()
            except (ConnectionError, OSError):
                self.abort()

    def _seated(self, message: dict[str, Any]) -> None:
        self.at_table, self.sitting = True, False
        self.idle_since = None
        table, seat, token = message.get("table"), message.get("seat"), message.get("token")
        self.table_id = table if isinstance(table, str) else None
        self.seat = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        self.token = token if isinstance(token, str) else None

    def _upstream_lost(self, upstream: Upstream) -> None:
        if upstream is not self.upstream or self._closing:
            return
        self.upstream = None
        last, self.last_action = self.last_action, None
        if self.at_table and self.table_id is not None:
            if last is not None and last[1] is upstream:
                self.queue.insert(0, ("action", last[0], RESENT_ACTION_ID))  # (sent first at the new host)
                self._resent_pending = True
            log.info("%s's table %s lost its host %s: moving it", self.peer, self.table_id, upstream.target.host_id)
            self.moving = asyncio.get_running_loop().create_task(self._move(), name=f"move {self.table_id}")
            return
        waiting: list[int | None] = list(self.unanswered)
        self.unanswered.clear()
        if self.sitting is not False:
            sitting, self.sitting = self.sitting, False
            waiting.append(sitting if isinstance(sitting, int) and not isinstance(sitting, bool) else None)
        for request_id in waiting:  # (not fatal: the client stays, and may ask again)
            self.error(errors.SERVER_CLOSING, "the table's server went away: try again", request_id)

    # ---------------------------------------------------------------- a table that moves

    async def _move(self) -> None:
        table_id = self.table_id
        assert table_id is not None
        if MOVING in self.features:
            self.send({"type": "table_moving", "table": table_id})
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + self.gateway.move_for, 0.05
        moved = False
        try:
            while not self._closing:
                try:
                    if not await self._still_held(table_id):
                        break
                    target = await self.gateway.routes.holder(table_id)
                    if target is not None and await self._resume_at(target):
                        moved = True
                        break
                except Exception as error:  # Redis or the new host not answering yet: try again
                    log.info("moving table %s: %s", table_id, error)
                if loop.time() + pause > deadline:
                    break
                await asyncio.sleep(pause)  # the takeover happens elsewhere, with no event to wait on here
                pause = min(0.5, pause * 2)
            if not moved and not self._closing:
                log.warning("gave up moving table %s for %s", table_id, self.peer)
                self.at_table = False
                self.idle_since = time.monotonic()
                self.send({"type": "table_closed", "reason": GAVE_UP.format(seconds=self.gateway.move_for)})
            again = [(kind, fields, request_id) for request_id, (kind, fields) in self.unanswered.items()]
            self.unanswered.clear()
            self.queue[:0] = again  # asked before the move: asked first
            while self.queue and not self._closing:
                kind, fields, request_id = self.queue.pop(0)
                if not await self._guarded(self._relay(kind, fields, request_id), request_id):
                    self.abort()
        finally:
            self.moving = None

    async def _still_held(self, table_id: str) -> bool:
        """The seat being moved still exists: its token (or key) is still bound to the table in Redis."""
        routes = self.gateway.routes
        if self.token is not None:
            return await routes.table_of_token(self.token) == table_id
        if self.seat is not None and self.key:
            held = await routes.seat_of_key(self.key)
            return held is not None and held.table_id == table_id
        return True  # a spectator: the table's lease says

    async def _resume_at(self, target: Target) -> bool:
        """Connect to ``target`` and take the seat back there (or watch again); True once it said ``joined``."""
        upstream = await self._open(target)
        self._resuming = asyncio.get_running_loop().create_future()
        self.upstream = upstream
        if self.token is not None:
            upstream.send({"type": "resume", "token": self.token})
        elif self.seat is not None and self.key:
            upstream.send({"type": "resume_key"})
        else:
            upstream.send({"type": "spectate", "table": self.table_id})
        try:
            reply = await asyncio.wait_for(self._resuming, RESUME_WAIT)
        except TimeoutError:
            reply = {"type": "error", "code": errors.TIMEOUT}
        finally:
            self._resuming = None
        if reply.get("type") == "joined" and upstream is self.upstream:
            self.at_table = True
            return True
        if upstream is self.upstream:
            self.upstream = None
        await upstream.close()
        return False

    # ---------------------------------------------------------------- the end

    async def hang_up(self) -> None:
        self._closing = True
        if self.moving is not None:
            self.moving.cancel()
        await self._drop_upstream()
        try:
            if not self.writer.is_closing():
                self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 2.0)
        except (ConnectionError, OSError, TimeoutError):
            pass


class Gateway:
    """A front's client TCP port. ``start()`` binds (port 0: any free one); ``close()`` tells every client.

    ``proxy_key``: the secret of this front's own SSH workers (they say for whom they connect, ``via``);
    ``secret``: the cluster's, proven to the table hosts; ``proxy_from``: load balancers sending PROXY v2 headers.
    """

    def __init__(
        self,
        directory: Directory,
        secret: str,
        bind: str = "127.0.0.1",
        port: int = 0,
        *,
        rate: float = RATE_PER_SECOND,
        limits: ClientLimits | None = None,
        proxy_key: str | None = None,
        proxy_from: ProxySources | None = None,
        move_for: float = MOVE_FOR,
    ) -> None:
        self.directory = directory
        self.routes = Routes(directory)
        self.cache = LobbyCache(directory)
        self.secret = secret
        self.bind = bind
        self.port = port
        self.rate = rate
        self.burst = max(RATE_BURST, rate * 2)
        self.limits = limits or ClientLimits()
        self.proxy_key = proxy_key
        self.proxy_from = proxy_from
        self.move_for = move_for
        self.stalls = LoopStalls()
        self.connections = AddressCounts()
        self.sessions: set[GatewaySession] = set()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._housekeeping: asyncio.Task[None] | None = None

    async def start(self) -> tuple[str, int]:
        await self.cache.start()
        self._server = await asyncio.start_server(self._accept, self.bind, self.port, limit=READ_CHUNK * 4)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.port = port
        self.stalls.start()
        self._housekeeping = asyncio.get_running_loop().create_task(self._keep_house(), name="gateway housekeeping")
        log.info("gateway listening on %s:%d", host, port)
        return host, port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if self.proxy_from is not None and self.proxy_from.trusts(_address_of(peer)):
            try:
                header = await read_header(reader.readexactly)
            except (BadProxyHeader, TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError) as error:
                log.warning("closed a connection from load balancer %s: %s", peer, str(error) or type(error).__name__)
                writer.transport.abort()
                return
            if header.source is not None:
                log.info("connection from %s:%d through load balancer %s", *header.source, _address_of(peer))
                peer = header.source
        session = GatewaySession(self, reader, writer, peer)
        if len(self.sessions) >= MAX_CONNECTIONS:
            session.error(errors.SERVER_CLOSING, "this front is full", fatal=True)
            await session.hang_up()
            return
        if not self.connections.take(session.address, self.limits.per_address_connections):
            session.error(
                errors.TOO_MANY,
                f"your address has {self.limits.per_address_connections} connections to this host already",
                fatal=True,
            )
            await session.hang_up()
            return
        self.sessions.add(session)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            self.connections.give_back(session.address)
            if task is not None:
                self._tasks.discard(task)

    def speak_for(self, session: GatewaySession, address: str, key: object) -> None:
        """This front's own SSH worker says whom ``session`` carries: count it against ``address`` from now on."""
        if self.proxy_key is None or not isinstance(key, str) or not hmac.compare_digest(key, self.proxy_key):
            raise ProtocolError(errors.BAD_FIELD, "'via' is for this host's own fronts", fatal=True)
        if address == session.address:
            return
        if not self.connections.take(address, self.limits.per_address_connections):
            raise ProtocolError(
                errors.TOO_MANY,
                f"your address has {self.limits.per_address_connections} connections to this host already",
                fatal=True,
            )
        self.connections.give_back(session.address)
        session.address = address

    async def _keep_house(self) -> None:
        while True:
            await asyncio.sleep(HOUSEKEEPING_INTERVAL)
            now = time.monotonic()
            for session in list(self.sessions):
                if session.idle_since is not None and now - session.idle_since >= self.limits.lobby_idle:
                    session.error(
                        errors.IDLE,
                        f"you stayed in the lobby for {self.limits.lobby_idle / 60:g} minutes without a table",
                        fatal=True,
                    )
                    session.abort()

    async def close(self, reason: str = "the front is shutting down", *, restart: bool = True) -> None:
        """Stop accepting; tell every client ``closing`` (``restart``: come back, through another front); hang up
        every upstream (the table hosts keep the seats, away, for their players' return)."""
        if self._housekeeping is not None:
            self._housekeeping.cancel()
        await self.stalls.stop()
        await self.cache.close()
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions):
            session.say_closing(reason, restart=restart)
        for session in list(self.sessions):
            await session.hang_up()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
        if self._server is not None:
            await self._server.wait_closed()


def _address_of(peer: object) -> str:
    if isinstance(peer, tuple) and peer:
        return str(peer[0])
    return str(peer)
