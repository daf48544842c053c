"""A scripted player speaking the documented TCP protocol (docs/protocol.md), for the cluster's end-to-end tests
and scripts/soak_cluster.py: it reads every frame in the background, keeps its latest view and every state it
saw accepted, answers requests by id, and says in its hello that it understands ``table_moving``.

Why not ``tests/net_helpers.RawClient``: a cluster player must keep reading while its table moves between hosts
(pushes arrive at any time, the connection may close under it) and be asked "what have you seen" afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

import msgpack

from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

WAIT = 30.0


class TcpPlayer:
    """One connection of one player (a new one after a front died: ``connect`` again, then ``resume``)."""

    def __init__(self, name: str, features: tuple[str, ...] = ("chat", "moving")) -> None:
        self.name = name
        self.features = features
        self.frames: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None  # the latest update's view
        self.waiting: dict[str, Any] | None = None  # the latest waiting frame
        self.table: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.moving = 0  # table_moving frames received
        self.moving_since: float | None = None  # when the table started moving (until the next update)
        self.moving_waits: list[float] = []  # seconds from each table_moving to the table's next view
        self.accepted: dict[int, list[Any]] = {}  # state_id -> the public moves of the view at that state
        self.welcome: dict[str, Any] | None = None
        self.changed = asyncio.Event()
        self.closed = asyncio.Event()
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.last_frame_at = 0.0

    async def connect(self, port: int, source: str | None = None, host: str = "127.0.0.1") -> dict[str, Any]:
        """Connect (from the loopback address ``source``), exchange hellos: the host's answer (``welcome``), or the
        error it turned the connection away with."""
        await self.close()
        self.closed = asyncio.Event()
        local = None if source is None else (source, 0)
        reader, self._writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local), WAIT)
        self._reader_task = asyncio.get_running_loop().create_task(self._read(reader))
        since = len(self.frames)
        opening = ("hello", "error")
        await self.until(lambda: any(f["type"] in opening for f in self.frames[since:]) or self.closed.is_set())
        hello = next((f for f in self.frames[since:] if f["type"] in opening), {"type": "closed"})
        if hello["type"] != "hello":
            return hello  # turned away before the hellos (too many connections from this address, ...)
        assert hello["protocol"] == PROTOCOL_VERSION, hello
        self.welcome = await self.request(
            {"type": "hello", "protocol": PROTOCOL_VERSION, "name": self.name, "features": list(self.features)}
        )
        return self.welcome

    def send(self, message: dict[str, Any]) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(encode(message))

    async def request(self, message: dict[str, Any], timeout: float = WAIT) -> dict[str, Any]:
        """Send ``message`` with a new id: the reply that names it (``re``), or ``{"type": "closed"}``."""
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        self.send({**message, "id": request_id})
        return await asyncio.wait_for(future, timeout)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=1 << 22)
        try:
            while data := await reader.read(65536):
                unpacker.feed(data)
                for frame in unpacker:
                    self._frame(frame)
        except (ConnectionError, OSError):
            pass
        finally:
            for future in self._replies.values():
                if not future.done():
                    future.set_result({"type": "closed"})
            self._replies.clear()
            self.closed.set()
            self.changed.set()

    def _frame(self, frame: Any) -> None:
        if not isinstance(frame, dict):
            return
        self.frames.append(frame)
        self.last_frame_at = time.monotonic()
        kind = frame.get("type")
        if kind == "update":
            view = frame["view"]
            if self.moving_since is not None:  # the table's first view from its new host
                self.moving_waits.append(time.monotonic() - self.moving_since)
                self.moving_since = None
            self.view = view  # frames arrive in order on one connection: the last is the newest
            self.accepted[view["state_id"]] = view["moves"]
            self.table = frame.get("table", self.table)
        elif kind == "waiting":
            self.waiting = frame
            self.table = frame.get("table", self.table)
        elif kind == "table_moving":
            self.moving += 1
            self.moving_since = self.moving_since or time.monotonic()
        elif kind == "joined":
            self.table, self.seat = frame["table"], frame["seat"]
            self.token = frame.get("token") or self.token
        reply_to = frame.get("re")
        if isinstance(reply_to, int) and reply_to in self._replies:
            future = self._replies.pop(reply_to)
            if not future.done():
                future.set_result(frame)
        self.changed.set()

    async def until(self, condition: Any, timeout: float = WAIT) -> Any:
        """Until ``condition()`` is true (checked whenever a frame arrives): its value."""
        async with asyncio.timeout(timeout):
            while not (value := condition()):
                self.changed.clear()
                await self.changed.wait()
            return value

    async def next_of(self, kind: str, since: int = 0, timeout: float = WAIT) -> dict[str, Any]:
        """The first frame of type ``kind`` among those received from index ``since`` on."""

        def found() -> dict[str, Any] | None:
            return next((frame for frame in self.frames[since:] if frame.get("type") == kind), None)

        result = await self.until(lambda: found() or self.closed.is_set(), timeout)
        if result is True:
            raise AssertionError(f"{self.name}: closed while waiting for {kind}; frames: {self.frames[-5:]}")
        return result

    def my_turn(self) -> bool:
        view = self.view
        return bool(view and not view["finished"] and view["to_move"] == view["seat"] == self.seat)

    async def move(self, timeout: float = WAIT) -> dict[str, Any]:
        """On my turn: pass if I have chips, else take; until a later view than the one moved on arrives."""
        await self.until(self.my_turn, timeout)
        assert self.view is not None
        before = self.view["state_id"]
        chips = self.view["chips"][self.seat] or 0
        self.send({"type": "action", "action": "pass" if chips else "take", "state_id": before})
        await self.until(lambda: self.view is not None and self.view["state_id"] > before, timeout)
        return self.view

    async def play_to_the_end(self, timeout: float = 120.0) -> dict[str, Any]:
        """Move on every turn until the game is over: the last view."""
        async with asyncio.timeout(timeout):
            while True:
                await self.until(lambda: self.my_turn() or (self.view is not None and self.view["finished"]))
                assert self.view is not None
                if self.view["finished"]:
                    return self.view
                await self.move()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError, TimeoutError):
                await asyncio.wait_for(self._writer.wait_closed(), 2.0)
            self._writer = None
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader_task
            self._reader_task = None
