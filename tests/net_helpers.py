"""Shared pieces for the networking tests: a live host on a loopback port, and a raw frame-level client."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

import msgpack

from nothanks_server import Lobby, LobbySettings
from nothanks_server.limits import ClientLimits
from nothanks_server.tcp import TcpHost
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

WAIT = 10.0  # upper bound on waits that normally finish in milliseconds


@contextlib.asynccontextmanager
async def live_host(limits: ClientLimits | None = None, proxy_key: str | None = None, **settings: Any):
    """A Lobby served on 127.0.0.1 at a free port (``settings`` for the lobby); yields the ``TcpHost``."""
    options = {"bot_delay": 0, "turn_timer": None, "seed": 11} | settings
    lobby = Lobby(LobbySettings(**options))
    host = TcpHost(lobby, "127.0.0.1", 0, limits=limits, proxy_key=proxy_key)
    await host.start()
    try:
        yield host
    finally:
        await host.close("test over")


class RawClient:
    """Speaks frames directly and keeps every byte the host sent, to inspect what went over the wire."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.received = bytearray()
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=1 << 22)
        self.frames: list[Any] = []

    @classmethod
    async def connect(
        cls,
        port: int,
        name: str | None = "raw",
        request_id: int | None = None,
        source: str | None = None,
        key: Any = None,
    ) -> RawClient:
        """Connect (from the loopback address ``source``, e.g. 127.0.0.2, to stand for another machine); with
        ``key`` (a link.identity ``Identity``) the hello proves it, else the player is a guest."""
        local = None if source is None else (source, 0)
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=local)
        client = cls(reader, writer)
        hello = await client.next_frame()
        assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL_VERSION
        if name is not None:
            proof = key.prove(hello["nonce"]) if key is not None else {}
            await client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name} | proof)
            welcome = await client.next_frame()
            assert welcome["type"] == "welcome", welcome
        return client

    async def send(self, message: Any) -> None:
        self.writer.write(encode(message))
        await self.writer.drain()

    async def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def next_frame(self) -> Any:
        """The next frame, or None when the host closed the connection."""

        async def read() -> Any:
            while True:
                for frame in self.unpacker:
                    self.frames.append(frame)
                    return frame
                try:
                    data = await self.reader.read(65536)
                except ConnectionError:
                    data = b""
                if not data:
                    return None
                self.received += data
                self.unpacker.feed(data)

        return await asyncio.wait_for(read(), WAIT)

    async def until(self, predicate) -> Any:
        while True:
            frame = await self.next_frame()
            if frame is None:
                raise AssertionError("connection closed while waiting")
            if predicate(frame):
                return frame

    async def closed(self) -> bool:
        """Read to the end; True once the host has closed the connection."""
        while await self.next_frame() is not None:
            pass
        return True

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


def of_type(kind: str):
    return lambda frame: isinstance(frame, dict) and frame.get("type") == kind


async def nothanks_process(*arguments: str, **options: Any) -> asyncio.subprocess.Process:
    """``python -m nothanks_tui ARGUMENTS...`` as a real process (``options`` go to create_subprocess_exec)."""
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "nothanks_tui", *arguments, **options)


async def local_server_process(data_dir: Path, *arguments: str, **options: Any) -> asyncio.subprocess.Process:
    """``nothanks server`` on 127.0.0.1, any free TCP port, ``data_dir``; its first stdout line names the port."""
    return await nothanks_process(
        "server",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        **options,
    )
