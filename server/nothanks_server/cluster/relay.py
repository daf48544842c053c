"""One client's connection to the table host that holds its table, as a front's gateway keeps it open.

The gateway speaks to a table host as a client does, its hello with ``via`` (the player's address, for the table
host's per-address limits), ``key`` (an SSH player's) and ``proof`` (membership.py). Each frame back is decoded
once, for its ``type`` and ``re``, and passed on as the bytes it came in (``Unpacker.tell``): a view is never
encoded twice. A table host that stops answering (frozen, cut off) holds its sockets open, so an upstream silent for
``PING_AFTER`` pings it, and after ``ANSWER_WITHIN`` more takes it for lost (``silent``): the client then moves.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack

from nothanks_tui.link.messages import MAX_ID, ClientMessage, Ping, encode_message
from nothanks_tui.link.wire import PROTOCOL_VERSION, ProtocolError, client_unpacker, encode

from ..background import stop_task
from .directory import HostInfo
from .membership import proof

CONNECT_TIMEOUT = 3.0  # seconds to connect to a table host and exchange hellos
READ_CHUNK = 65536
PING_AFTER = 1.0  # seconds of silence from the table host before the front pings it
ANSWER_WITHIN = 1.0  # seconds more it has to say anything before it is taken for lost
PING_ID = MAX_ID - 1  # the id of the front's own pings (their pongs are not passed on)

Frame = tuple[dict[str, Any], bytes]  # a decoded frame and its original bytes


class UpstreamRefused(ProtocolError):
    """The table host did not take the connection (an ``error`` instead of ``welcome``, or not a host at all)."""


class Upstream:
    """A connection to ``target`` for one client. ``open`` exchanges hellos; frames then go to ``deliver``, and
    ``lost`` is called once when the connection ends (not after ``close``)."""

    def __init__(
        self,
        target: HostInfo,
        deliver: Callable[[list[Frame]], Awaitable[None]],
        lost: Callable[[Upstream], None],
    ) -> None:
        self.target = target
        self._deliver = deliver
        self._lost = lost
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._unpacker = client_unpacker()
        self._buffer = bytearray()
        self._base = 0  # stream offset of the buffer's first byte
        self._start = 0  # stream offset of the next frame's first byte
        self._task: asyncio.Task[None] | None = None
        self.closed = False
        self.restarting = False  # the table host said `closing` with `restart: true`
        self.silent = False  # the table host stopped answering (see above)
        self.heard = 0.0  # (loop time) when it last said anything

    async def open(self, hello: dict[str, Any], secret: str) -> None:
        """Connect, prove membership, say ``hello``, hear ``welcome``. Raises ``OSError``, ``TimeoutError`` or
        ``UpstreamRefused`` (the connection closed)."""
        host, _, port = self.target.address.rpartition(":")
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                self._reader, self._writer = await asyncio.open_connection(host.strip("[]"), int(port))
                theirs = await self._next()
                if theirs.get("type") != "hello" or theirs.get("protocol") != PROTOCOL_VERSION:
                    raise UpstreamRefused("bad_version", f"{self.target.address} is not a table host of this version")
                nonce = theirs.get("nonce")
                message = {**hello, "type": "hello", "protocol": PROTOCOL_VERSION}
                if isinstance(nonce, str):
                    message["proof"] = proof(secret, nonce)
                self._writer.write(encode(message))
                welcome = await self._next()
                if welcome.get("type") != "welcome":
                    raise UpstreamRefused(str(welcome.get("code", "bad_frame")), str(welcome.get("message", "")))
        except BaseException:
            self._abort()
            raise
        loop = asyncio.get_running_loop()
        self.heard = loop.time()
        self._task = loop.create_task(self._read(), name=f"upstream {self.target.host_id}")

    def send(self, message: ClientMessage) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(encode_message(message))

    async def _next(self) -> dict[str, Any]:
        """The next frame of the handshake (the caller bounds the wait)."""
        assert self._reader is not None
        while True:
            frames = self._frames()
            if frames:
                if len(frames) > 1:  # pushed right behind the welcome: keep for the reader
                    raise UpstreamRefused("bad_frame", "the table host spoke before it was asked")
                return frames[0][0]
            data = await self._reader.read(READ_CHUNK)
            if not data:
                raise UpstreamRefused("closed", f"{self.target.address} closed the connection")
            self._feed(data)

    def _feed(self, data: bytes) -> None:
        self._unpacker.feed(data)
        self._buffer += data

    def _frames(self) -> list[Frame]:
        """Every whole frame received, with its bytes; raises ``ValueError`` for one that is not a map."""
        frames = []
        for message in self._unpacker:
            end = self._unpacker.tell()
            raw = bytes(self._buffer[self._start - self._base : end - self._base])
            self._start = end
            if not isinstance(message, dict):
                raise ValueError("a table host's frame is not a map")
            frames.append((message, raw))
        del self._buffer[: self._start - self._base]
        self._base = self._start
        return frames

    async def _watch(self) -> None:
        """Ping the table host after ``PING_AFTER`` seconds of silence; hang up on it (``silent``) after
        ``ANSWER_WITHIN`` more: the reader then ends, and says the host is lost."""
        loop = asyncio.get_running_loop()
        while not self.closed:
            await asyncio.sleep(PING_AFTER / 2)
            await asyncio.sleep(0)  # the reader takes what came meanwhile first (after a stall of our own)
            quiet = loop.time() - self.heard
            if quiet >= PING_AFTER + ANSWER_WITHIN:
                self.silent = True
                self._abort()
                return
            if quiet >= PING_AFTER:
                self.send(Ping(id=PING_ID))

    async def _read(self) -> None:
        assert self._reader is not None
        loop = asyncio.get_running_loop()
        watch = loop.create_task(self._watch(), name=f"watch {self.target.host_id}")
        try:
            while True:
                data = await self._reader.read(READ_CHUNK)
                if not data:
                    break
                self.heard = loop.time()
                self._feed(data)
                frames = [frame for frame in self._frames() if frame[0].get("re") != PING_ID]
                if frames:
                    await self._deliver(frames)
                if self.restarting:
                    break
        except asyncio.CancelledError:
            raise
        except (ConnectionError, OSError, ValueError, TypeError, msgpack.UnpackException):
            pass
        finally:
            watch.cancel()
        self._abort()
        if not self.closed:
            self.closed = True
            self._lost(self)

    def _abort(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                writer.transport.abort()

    async def close(self) -> None:
        """Hang up (the table host keeps the seat, away, as for any dropped connection); ``lost`` is not called."""
        self.closed = True
        if self._writer is not None:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                self._writer.write(encode({"type": "bye"}))
                self._writer.close()
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            with contextlib.suppress(Exception):
                await stop_task(task)
        self._abort()
