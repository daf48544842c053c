"""A front's client port: the protocol of docs/protocol.md, each client's frames routed to its table's owner.

A client of the front cannot tell it from a single host. The reading of every frame (limits, rates, the message
types, refusals) is session.py's, the same as a host's. The front answers ``hello``, ``ping`` and ``list_tables``
itself (the shared lobby, lobby_cache.py) and forwards every other message to one table host at a time over an
``Upstream`` (relay.py), chosen per the cluster contract (routes.py):

- ``create_table``, ``daily``: the live table host with the fewest tables;
- ``join``, ``spectate``: the holder of the table's lease; ``resume``: of the table its token names
  (``P:token:``); ``resume_key`` (and ``welcome``'s ``held``): of the seat the SSH key holds (``P:keyseat:``);
- ``history``, ``replay``, ``stats``, ``daily_ranking``: the table host the client is connected to, or any;
- the table's own messages (``action``, ``chat``...): the owner of the client's table.

What the owner sends back is passed on as it came (views were filtered for their seat there); the front reads
only each frame's ``type`` and ``re``, and keeps no copy of the seat's state: only its route (``SeatRoute``: the
table, and the token or key that takes the seat back, from ``joined``).

**A table that moves.** The owner goes away (its connection ends, it says ``closing`` with ``restart: true``) or
stops answering (relay.py pings it; no answer within ``OWNER_DEADLINE``): the client is told ``table_moving`` (if
its hello listed ``moving``), and the front climbs the same ladder as a client (link/resume.py): it waits for
the directory to name the table's owner (a host other than a silent one, which may be frozen), connects, asks
for the seat back, and swallows the reply. The client's frames meanwhile are queued (at most ``QUEUE_LIMIT``) and
sent after; requests the old owner never answered are asked again; the client's last move whose outcome it did
not see is sent again first (link/resume.py's ``LastMove``: a move gets no reply, so nothing else would tell it was
lost; one refused ``not_saved`` never), and a copy of a move the new owner has is refused by its ``state_id`` and
that refusal dropped. After ``MOVE_FOR`` seconds the front gives up with ``table_closed``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Unpack

from redis import RedisError  # (a front is a cluster member: redis is there)

from nothanks_tui.link import errors
from nothanks_tui.link import messages as m
from nothanks_tui.link.chat import LOBBY_CHAT
from nothanks_tui.link.resume import RESENT_MOVE_ID, LastMove, SeatRoute, climb
from nothanks_tui.link.wire import FEATURES, MOVING, ProtocolError

from ..errors import HostError
from ..session import PortOptions, ProtocolServer, ProtocolSession, Reply, TablePages
from .directory import Directory
from .leases import TABLE_LEASE_TTL
from .lobby_cache import LobbyCache
from .relay import ANSWER_WITHIN, PING_AFTER, Frame, Upstream, UpstreamRefused
from .routes import Routes, Target

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
            held = await self.server.routes.seat_of_key(self.key) if self.key else None
        except RedisError as error:  # the directory out of reach: welcome without it (resume_key will say)
            log.warning("the cluster's Redis did not answer for %s: %s", self.peer, error)
            return None
        if held is None:
            return None
        summary = self.server.cache.summary(held.table_id)
        seat_name = self.name
        if summary is not None and 0 <= held.seat < len(summary.seats):
            seat_name = summary.seats[held.seat].name
        return {"table": held.table_id, "seat": held.seat, "name": seat_name}

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
        if isinstance(message, m.SIT) and self.route is None:
            await self._use(await self._owner_for(message))
        elif isinstance(message, m.LOBBY_READS):
            self.take_lobby_read("ask for the history")
            if self.upstream is None:
                target = await self.server.routes.least_loaded()
                if target is None:
                    raise HostError(errors.SERVER_CLOSING, "no table host is up: try again soon")
                await self._use(target)
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

    async def _owner_for(self, message: m.ClientMessage) -> Target:
        """The table host for a sit request; ``HostError`` (the client told why) if there is none."""
        routes = self.server.routes
        if isinstance(message, m.CreateTable | m.Daily):
            target = await routes.least_loaded()
            if target is None:
                raise HostError(errors.TOO_MANY_TABLES, "no table host is up: try again soon")
            return target
        if isinstance(message, m.Join | m.Spectate):
            target = await routes.holder(message.table)
            if target is None:
                raise HostError(errors.NO_TABLE, "no such table")
            return target
        table_id: str | None
        if isinstance(message, m.Resume):
            table_id = await routes.table_of_token(message.token)
        else:
            if not self.key:
                raise HostError(errors.BAD_FIELD, "'resume_key' needs the key of a host's own front's hello")
            held = await routes.seat_of_key(self.key)
            table_id = None if held is None else held.table_id
        target = None if table_id is None else await self._holder_soon(table_id)
        if target is None:
            raise HostError(errors.BAD_TOKEN, "no seat holds that token")
        return target

    async def _holder_soon(self, table_id: str) -> Target | None:
        """The holder of a table known to exist: waits a little for one being taken over right now."""
        return await climb(lambda: self.server.routes.holder(table_id), within=RESUME_WAIT, first=0.05, most=0.5)

    async def _use(self, target: Target) -> None:
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

    async def _open(self, target: Target) -> Upstream:
        upstream = Upstream(target, self._from_owner, self._owner_lost)
        hello: dict[str, Any] = {
            "name": self.name,
            "via": self.address,
            "features": [feature for feature in RELAYED if feature in self.features],
        }
        if self.key:
            hello["key"] = self.key
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
            noted = _OWNER_FRAMES.get(kind)  # type: ignore[arg-type]
            if noted is not None and not noted(self, message):
                continue
            self.send_raw(raw, view=kind in ("update", "waiting"))
            if kind == "error" and message.get("fatal"):  # the owner dropped the client (flood...): so do we
                self.abort_after_send()
                return

    def _joined(self, message: dict[str, Any]) -> bool:
        self.route = SeatRoute.of_joined(message, by_key=self.key is not None)
        self.last_move.move = None  # (a move at another table, or the same one before, is not sent again)
        self.idle_since = None
        return True

    def _table_closed(self, message: dict[str, Any]) -> bool:
        self.route, self.idle_since = None, time.monotonic()
        return True

    def _owner_closing(self, message: dict[str, Any]) -> bool:
        """The owner stops: its tables move (or, if it is going for good, end). Not the client's news."""
        if self.upstream is not None:
            self.upstream.restarting = True
        return False

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
            silent = Silent(upstream.target.host_id, upstream.heard) if upstream.silent else None
            self.moving = asyncio.get_running_loop().create_task(self._move(self.route, silent), name="move")
            return
        waiting = list(self.unanswered)
        self.unanswered.clear()
        for request_id in waiting:  # (not fatal: the client stays, and may ask again)
            self.error(errors.SERVER_CLOSING, "the table's server went away: try again", request_id)

    # ---------------------------------------------------------------- a table that moves

    async def _move(self, route: SeatRoute, silent: Silent | None) -> None:
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

    async def _resume_at_owner(self, route: SeatRoute, silent: Silent | None) -> bool | None:
        """One step of the ladder: True once the seat is back; False if it is gone; None to try again."""
        if self._closing:
            return False
        try:
            if not await self._still_held(route):
                return False
            target = await self.server.routes.holder(route.table_id)
            if target is None:
                return None
            if silent is not None and target.host_id == silent.host_id and await silent.may_be_frozen(self, route):
                return None
            return True if await self._resume_at(target, route) else None
        except Exception as error:  # Redis or the new owner not answering yet: try again
            log.info("moving table %s: %s", route.table_id, error)
            return None

    async def _still_held(self, route: SeatRoute) -> bool:
        """The seat being moved still exists: its token (or key) is still bound to the table in Redis."""
        routes = self.server.routes
        if route.token is not None:
            return await routes.table_of_token(route.token) == route.table_id
        if route.by_key and self.key:
            held = await routes.seat_of_key(self.key)
            return held is not None and held.table_id == route.table_id
        return True  # a spectator: the table's lease says

    async def _resume_at(self, target: Target, route: SeatRoute) -> bool:
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


@dataclass(frozen=True)
class Silent:
    """A table host that stopped answering (``heard``: loop time it last said anything). Still named by the
    directory, it may be frozen, its lease not run out yet: it is not asked again until its lease was renewed
    well after it went quiet (leases are renewed every second: it is alive), or would have run out had it been
    frozen (named still: it renews it)."""

    host_id: str
    heard: float

    async def may_be_frozen(self, session: FrontSession, route: SeatRoute) -> bool:
        now = asyncio.get_running_loop().time()
        if now >= self.heard + TABLE_LEASE_TTL + ANSWER_WITHIN:
            return False
        renewed_ago = await session.server.routes.lease_renewed(route.table_id)
        return renewed_ago is None or now - renewed_ago <= self.heard + PING_AFTER  # (renewed while it answered)


# What the front notes of the owner's frames (False: the frame is not passed on).
_OWNER_FRAMES = {
    "joined": FrontSession._joined,
    "table_closed": FrontSession._table_closed,
    "closing": FrontSession._owner_closing,
}


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
        self.routes = Routes(directory)
        self.cache = cache
        self.secret = secret
        self.move_for = move_for

    async def start(self) -> tuple[str, int]:
        await self.cache.start()
        return await super().start()

    async def closed(self, reason: str, *, forget: bool) -> None:
        await self.cache.close()
