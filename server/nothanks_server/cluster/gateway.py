"""A front's client port: the protocol of docs/protocol.md, each client's frames routed to its table's owner.

A client cannot tell the front from a single host: session.py reads every frame, as a host's does. The front
answers ``hello``, ``ping`` and ``list_tables`` itself (the shared lobby, ``LobbyCache``) and forwards the rest
over an ``Upstream`` (relay.py) to one table host at a time, as docs/scaling.md lists: ``create_table`` to the
least loaded, a table's messages to its lease holder, ``resume`` / ``resume_key`` to the holder of the token's or
key's table (directory.py). The owner's frames are passed on as they came; the front keeps only the seat's route.

**A table that moves.** The owner goes away (its connection ends, or it says ``closing`` with ``restart``) or stops
answering (relay.py's ping): the client hears ``table_moving``, and the front climbs the client's own ladder
(link/resume.py) to the table's new owner (not a silent host, which may be frozen: ``_frozen``), takes the seat
back, sends the last move whose outcome was not seen (``LastMove``; a copy refused by ``state_id`` is dropped),
the requests never answered, then the client's queued frames. After ``MOVE_FOR`` seconds: ``table_closed``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Unpack

from redis import RedisError  # (a front is a cluster member: redis is there)

from nothanks_tui.link import errors
from nothanks_tui.link import messages as m
from nothanks_tui.link.chat import LOBBY_CHAT
from nothanks_tui.link.resume import RESENT_MOVE_ID, LastMove, SeatRoute, climb
from nothanks_tui.link.wire import FEATURES, MOVING, ProtocolError

from ..errors import HostError
from ..host import RESTART_REASON, PlayerPorts
from ..session import RATE_PER_SECOND, PortOptions, ProtocolServer, ProtocolSession, Reply, TablePages
from .directory import TABLE_LEASE_TTL, Directory, HostInfo, LobbyCache
from .exchanges import run_async
from .relay import ANSWER_WITHIN, PING_AFTER, Frame, Upstream, UpstreamRefused
from .settings import ClusterSettings

if TYPE_CHECKING:
    from ..limits import ClientLimits
    from ..proxy_protocol import ProxySources
    from ..ssh.settings import SSHSettings

log = logging.getLogger(__name__)

MOVE_FOR = 30.0  # seconds the front looks for a moved table's new owner before it gives up
RESUME_WAIT = 5.0  # seconds a `resume` waits for a table being taken over to have a holder again
QUEUE_LIMIT = 64  # client frames kept while its table moves
RELAYED = tuple(feature for feature in FEATURES if feature != LOBBY_CHAT)  # (lobby chat is per host: not offered)
ANSWERED = (m.Coach, *m.LOBBY_READS, *m.SIT)  # owner requests that always get a reply (with `re`)
GAVE_UP = "the table could not be moved to another server within {seconds:.0f} s: it may be over"


class FrontSession(ProtocolSession):
    """One client of the front: its upstream to its table's owner (at most one at a time) and its seat's route."""

    offered = (*RELAYED, MOVING)
    server: Gateway

    def setup(self) -> None:
        self.upstream: Upstream | None = None
        self.route: SeatRoute | None = None  # where the owner said `joined` (until `left` or `table_closed`)
        self.moving: asyncio.Task[None] | None = None
        self.queue: list[m.ClientMessage] = []  # what the client sent while its table moves
        # Requests sent to the owner that always get a reply and have not had it yet: if the table moves meanwhile,
        # they are asked again of its new owner, so no client waits for a lost answer.
        self.unanswered: dict[int, m.ClientMessage] = {}
        self.last_move = LastMove()  # sent again if its owner goes away (see above)
        self._resuming: asyncio.Future[dict[str, Any]] | None = None

    # ---------------------------------------------------------------- what the front answers itself

    async def held_seat(self) -> dict[str, Any] | None:
        try:
            held = await self.server.directory.seat_of_key(self.key) if self.key else None
        except RedisError as error:  # the directory out of reach: welcome without it (resume_key will say)
            log.warning("the cluster's Redis did not answer for %s: %s", self.peer, error)
            return None
        if held is None:
            return None
        table_id, seat = held
        summary = self.server.cache.summary(table_id)
        seat_name = self.name
        if summary is not None and 0 <= seat < len(summary.seats):
            seat_name = summary.seats[seat].name
        return {"table": table_id, "seat": seat, "name": seat_name}

    # ---------------------------------------------------------------- what goes to the owner

    async def on_other(self, message: m.ClientMessage) -> Reply:
        """Every message the front does not answer itself: to the owner (queued while the table moves)."""
        if self.moving is not None:
            if len(self.queue) >= QUEUE_LIMIT:
                raise ProtocolError(errors.SLOW_DOWN, "your table is moving to another server: wait")
            self.queue.append(message)
            return None
        return await self._forward_routed(message)

    async def _forward_routed(self, message: m.ClientMessage) -> Reply:
        """``_forward``; a refusal of the front's own (no such table, no host up...) counts as a refused message
        (each one may have cost a look-up in Redis), and Redis out of reach fails this request only."""
        try:
            return await self._forward(message)
        except HostError as refusal:
            self.error(refusal.code, refusal.message, message.id)
        except RedisError as error:
            log.warning("the cluster's Redis did not answer for %s: %s", self.peer, error)
            self.error(errors.SERVER_CLOSING, "the cluster's directory cannot be reached: try again soon", message.id)
        if not self.soft_error():
            self.abort_after_send()
        return None

    async def _forward(self, message: m.ClientMessage) -> Reply:
        lobby_read = isinstance(message, m.LOBBY_READS)
        if lobby_read:
            self.take_lobby_read("ask for the history")
        if (isinstance(message, m.SIT) and self.route is None) or (lobby_read and self.upstream is None):
            await self._use(await self._owner_for(message))
        elif isinstance(message, m.Leave):
            self.route, self.idle_since = None, time.monotonic()  # what follows is at no table
            if self.upstream is None:
                return {"type": "left"}
        if self.upstream is None or (isinstance(message, m.Chat) and self.route is None):
            raise HostError(errors.NOT_AT_TABLE, "join a table first (a cluster's lobby has no chat)")
        if isinstance(message, m.Act):
            self.last_move.move = message
        if message.id is not None and isinstance(message, ANSWERED):
            if len(self.unanswered) >= QUEUE_LIMIT:
                self.unanswered.pop(next(iter(self.unanswered)))
            self.unanswered[message.id] = message
        self.upstream.send(message)
        return None

    async def _owner_for(self, message: m.ClientMessage) -> HostInfo:
        """The table host for a sit request or a lobby read; ``HostError`` (the client told why) if there is none."""
        directory = self.server.directory
        if isinstance(message, (m.CreateTable, m.Daily, *m.LOBBY_READS)):  # (a daily deal is a new table too)
            target = await directory.least_loaded()
            code = errors.SERVER_CLOSING if isinstance(message, m.LOBBY_READS) else errors.TOO_MANY_TABLES
            refusal = (code, "no table host is up: try again soon")
        elif isinstance(message, m.Join | m.Spectate):
            target, refusal = await directory.owner(message.table), (errors.NO_TABLE, "no such table")
        else:
            if not isinstance(message, m.Resume) and not self.key:
                raise HostError(errors.BAD_FIELD, "'resume_key' needs the key of a host's own front's hello")
            table_id = await self._seat_table(message.token if isinstance(message, m.Resume) else None)
            target = None if table_id is None else await self._holder_soon(table_id)
            refusal = (errors.BAD_TOKEN, "no seat holds that token")
        if target is None:
            raise HostError(*refusal)
        return target

    async def _seat_table(self, token: str | None) -> str | None:
        """The table a seat token (None: this client's SSH key) is bound to in the directory."""
        if token is not None:
            return await self.server.directory.table_of_token(token)
        held = await self.server.directory.seat_of_key(self.key) if self.key else None
        return None if held is None else held[0]

    async def _holder_soon(self, table_id: str) -> HostInfo | None:
        """The holder of a table known to exist: waits a little for one being taken over right now."""
        return await climb(lambda: self.server.directory.owner(table_id), within=RESUME_WAIT, first=0.05, most=0.5)

    async def _use(self, target: HostInfo) -> None:
        """Make ``target`` this client's upstream (the one it has, if it is that host); ``HostError`` if it
        cannot be reached."""
        if self.upstream is not None and self.upstream.target.host_id == target.host_id:
            return
        await self._drop_upstream()
        try:
            self.upstream = await self._open(target)
        except UpstreamRefused as refusal:  # e.g. too_many: this player's address is at the table host's limit
            code = refusal.code if refusal.code in errors.HOST_CODES else errors.SERVER_CLOSING
            raise HostError(code, refusal.message or "the table's server refused") from None
        except (OSError, TimeoutError) as error:
            log.warning("could not reach table host %s at %s: %s", target.host_id, target.address, error)
            raise HostError(errors.SERVER_CLOSING, "the table's server cannot be reached: try again soon") from None

    async def _open(self, target: HostInfo) -> Upstream:
        upstream = Upstream(target, self._from_owner, self._owner_lost)
        hello = {"name": self.name, "via": self.address, "features": [f for f in RELAYED if f in self.features]}
        hello |= {"key": self.key} if self.key else {}
        hello |= {"owner": self.owner} if self.owner else {}  # (none: a guest, to the table host too)
        await upstream.open(hello, self.server.secret)
        return upstream

    async def _drop_upstream(self) -> None:
        upstream, self.upstream = self.upstream, None
        if upstream is not None:
            await upstream.close()

    # ---------------------------------------------------------------- from the owner

    async def _from_owner(self, frames: list[Frame]) -> None:
        """Pass the owner's frames on as they came, but for what is the front's own business."""
        for message, raw in frames:
            kind, answers = message.get("type"), message.get("re")
            if self._resuming is not None and kind in ("joined", "error") and answers is None:
                if not self._resuming.done():
                    self._resuming.set_result(message)
                continue
            self.last_move.heard(message)
            if answers == RESENT_MOVE_ID and kind == "error":
                continue  # our own copy of a move the new owner has already: not the client's business
            if answers is not None:
                self.unanswered.pop(answers, None)
            if kind == "joined":
                self.route = SeatRoute.of_joined(message, by_key=self.key is not None)
                self.last_move.move = self.idle_since = None  # (a move at another table is not sent again)
            elif kind == "table_closed":
                self.route, self.idle_since = None, time.monotonic()
            elif kind == "closing":  # the owner stops: its tables move (or end); not the client's news
                if self.upstream is not None:
                    self.upstream.restarting = True
                continue
            self.send_raw(raw, view=kind in ("update", "waiting"))
            if kind == "error" and message.get("fatal"):  # the owner dropped the client (flood...): so do we
                self.abort_after_send()
                return

    def _owner_lost(self, upstream: Upstream) -> None:
        """The owner's connection ended, or the owner stopped answering (``upstream.silent``)."""
        if upstream is not self.upstream or self._closing:
            return
        self.upstream = None
        if upstream.silent:
            asyncio.get_running_loop().create_task(upstream.close())  # (it may wake up: we hang up on it)
        last = self.last_move.again()
        if self.route is not None:
            if last is not None:
                self.queue.insert(0, last)  # (sent first at the new owner)
            log.info("%s's table %s lost its owner %s: moving it", self.peer, self.route.table_id, upstream.target)
            silent = upstream if upstream.silent else None
            self.moving = asyncio.get_running_loop().create_task(self._move(self.route, silent), name="move")
            return
        waiting = list(self.unanswered)
        self.unanswered.clear()
        for request_id in waiting:  # (not fatal: the client stays, and may ask again)
            self.error(errors.SERVER_CLOSING, "the table's server went away: try again", request_id)

    # ---------------------------------------------------------------- a table that moves

    async def _move(self, route: SeatRoute, silent: Upstream | None) -> None:
        """Take the seat back at the table's owner, as the directory names it (but not the ``silent`` host, while
        it may be frozen); then send what the client sent meanwhile."""
        if MOVING in self.features:
            self.send({"type": "table_moving", "table": route.table_id})
        try:
            moved = await climb(lambda: self._resume_at_owner(route, silent), within=self.server.move_for,
                                first=0.05, most=0.5)  # fmt: skip
            if moved is None and not self._closing:
                log.warning("gave up moving table %s for %s", route.table_id, self.peer)
                self.route, self.idle_since = None, time.monotonic()
                self.send({"type": "table_closed", "reason": GAVE_UP.format(seconds=self.server.move_for)})
            again = list(self.unanswered.values())
            self.unanswered.clear()
            self.queue[:0] = again  # asked before the move: asked first
            while self.queue and not self._closing and (self.upstream is not None or moved is None):
                message = self.queue.pop(0)  # (what the client sends meanwhile is queued behind)
                if not await self.handle_message(message, self._forward_routed):
                    self.abort()
        finally:
            if self.moving is asyncio.current_task():
                self.moving = None

    async def _resume_at_owner(self, route: SeatRoute, silent: Upstream | None) -> bool | None:
        """One step of the ladder: True once the seat is back; False if it is gone; None to try again."""
        if self._closing:
            return False
        try:
            if not await self._still_held(route):
                return False
            target = await self.server.directory.owner(route.table_id)
            if target is None:
                return None
            if silent is not None and target.host_id == silent.target.host_id and await self._frozen(silent, route):
                return None
            return True if await self._resume_at(target, route) else None
        except Exception as error:  # Redis or the new owner not answering yet: try again
            log.info("moving table %s: %s", route.table_id, error)
            return None

    async def _frozen(self, silent: Upstream, route: SeatRoute) -> bool:
        """Whether a host that stopped answering, still named by the directory, may be frozen, its lease not run
        out yet: it is not asked again until its lease was renewed well after it went quiet (leases are renewed
        every second: it is alive), or would have run out had it been frozen (named still: it renews it)."""
        now = asyncio.get_running_loop().time()
        if now >= silent.heard + TABLE_LEASE_TTL + ANSWER_WITHIN:
            return False
        renewed_ago = await self.server.directory.lease_renewed(route.table_id)
        return renewed_ago is None or now - renewed_ago <= silent.heard + PING_AFTER  # (renewed while it answered)

    async def _still_held(self, route: SeatRoute) -> bool:
        """The seat being moved still exists: its token (or key) is still bound to the table in Redis."""
        if route.token is None and not (route.by_key and self.key):
            return True  # a spectator: the table's lease says
        return await self._seat_table(route.token) == route.table_id

    async def _resume_at(self, target: HostInfo, route: SeatRoute) -> bool:
        """Connect to ``target`` and take the seat back there (or watch again); True once it said ``joined``."""
        back = route.request()
        if back is None:
            return False
        upstream = await self._open(target)
        self._resuming = asyncio.get_running_loop().create_future()
        self.upstream = upstream
        upstream.send(back)
        try:
            reply = await asyncio.wait_for(self._resuming, RESUME_WAIT)
        except TimeoutError:
            reply = {"type": "error", "code": errors.TIMEOUT}
        finally:
            self._resuming = None
        if reply.get("type") == "joined" and upstream is self.upstream:
            return True
        log.info("table %s: %s did not take the seat back: %s", route.table_id, target.host_id, reply.get("code"))
        if upstream is self.upstream:
            self.upstream = None
        await upstream.close()
        return False

    # ---------------------------------------------------------------- the end

    async def ended(self) -> None:
        if self.moving is not None:
            self.moving.cancel()
        await self._drop_upstream()


class Gateway(ProtocolServer):
    """A front's client TCP port (session.py's ``ProtocolServer``). ``proxy_key``: the secret of this front's own
    SSH workers (they say for whom they connect, ``via``); ``secret``: the cluster's, proven to the table hosts;
    ``proxy_from``: load balancers sending PROXY v2 headers."""

    session_class = FrontSession
    what = "front"
    closing_reason = "the front is shutting down"
    restarts = True  # come back, through another front: the table hosts keep the seats, away, for their return
    log = log

    def __init__(
        self,
        directory: Directory,
        secret: str,
        bind: str = "127.0.0.1",
        port: int = 0,
        *,
        move_for: float = MOVE_FOR,
        **options: Unpack[PortOptions],
    ) -> None:
        cache = LobbyCache(directory)
        pages = TablePages(lambda: cache.listed, lambda line: line.summary, lambda: cache.refreshes)
        super().__init__(pages, bind, port, **options)
        self.directory = directory
        self.cache = cache
        self.secret = secret
        self.move_for = move_for

    async def start(self) -> tuple[str, int]:
        await self.cache.start()
        return await super().start()

    async def name_owner(self, name: str, owner: str | None) -> str | None:
        """The cluster's, in Redis (``Keyed.claiming_name``), shared with every front and table host."""
        try:
            return await run_async(self.directory.client, self.directory.claiming_name(name, owner))
        except RedisError as error:
            raise ProtocolError(
                errors.SERVER_CLOSING, f"the cluster's names cannot be read now ({error})", fatal=True
            ) from None

    async def closed(self, reason: str, *, forget: bool) -> None:
        await self.cache.close()


class FrontHost(PlayerPorts):
    """A front (``--role front``, or the front half of ``both``): the gateway on ``bind``:``port`` and, with ``ssh``,
    the SSH front, whose workers reach the gateway on loopback with ``proxy_key``. ``start`` binds; ``close`` tells
    every client ``closing`` with ``restart`` (they come back, by another front, to the same seats)."""

    def __init__(
        self,
        cluster: ClusterSettings,
        bind: str,
        port: int,
        *,
        ssh: SSHSettings | None = None,
        rate: float = RATE_PER_SECOND,
        limits: ClientLimits | None = None,
        proxy_from: ProxySources | None = None,
    ) -> None:
        super().__init__(bind, ssh, proxy_from)
        self.cluster = cluster
        self.requested_port = port
        self.ports = PortOptions(rate=rate, limits=limits, proxy_key=self.proxy_key, proxy_from=proxy_from)
        self.gateway: Gateway | None = None
        self._closed = False

    @property
    def port(self) -> int:
        return self.gateway.port if self.gateway is not None else self.requested_port

    async def start(self) -> None:
        """Reach Redis, listen for clients, then on SSH if asked; on any failure nothing is left listening."""
        self._raise_open_files(2)  # each client holds two sockets here: its own and its upstream to a table host
        directory = await Directory.connect(self.cluster.redis_url, self.cluster.prefix)
        gateway = Gateway(directory, self.cluster.secret, self.bind, self.requested_port, **self.ports)
        try:
            await gateway.start()
        except BaseException:
            await directory.close()
            raise
        self.gateway = gateway
        try:
            await self._start_ssh(gateway.port)
        except BaseException:
            await self.close()
            raise

    async def close(self, reason: str = RESTART_REASON, *, restart: bool = True, forget: bool = False) -> None:
        """Tell every client to come back (``restart``) and hang up; safe to call twice (``forget``: no tables
        here to end)."""
        if self._closed:
            return
        self._closed = True
        gateway, self.gateway = self.gateway, None
        if gateway is not None:
            await gateway.close(reason, restart=restart)
            await gateway.directory.close()
        await self._close_ssh(reason)
