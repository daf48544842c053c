"""The client reads a host's frames as types (link/wire.py): a malformed reply fails only its request, a malformed
pushed frame ends the connection, and the bytes of a well-formed one become the same events as before."""

from __future__ import annotations

import asyncio

import pytest

from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import LobbyError, errors
from nothanks_tui.link.wire import PROTOCOL_VERSION, FrameReader, client_unpacker, encode


async def a_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Hellos, then a malformed answer to the first request and a malformed update after the second."""
    writer.write(encode({"type": "hello", "protocol": PROTOCOL_VERSION, "features": ["chat", 7]}))
    writer.write(encode({"type": "welcome", "name": "ana"}))
    frames = FrameReader(client_unpacker(), 4096)
    answered = 0
    while data := await reader.read(4096):
        frames.feed(data)
        while (frame := frames.next_frame()) is not None:
            if isinstance(frame, dict) and frame.get("id") is not None:
                answered += 1
                seats = "three" if answered == 1 else []  # the table list's entries are maps
                writer.write(encode({"type": "tables", "re": frame["id"], "tables": seats}))
                if answered == 2:
                    writer.write(encode({"type": "update", "table": "t1", "seats": [], "can_restart": 1}))
    writer.close()


async def test_a_malformed_reply_fails_its_request_and_a_malformed_push_ends_the_connection():
    server = await asyncio.start_server(a_host, "127.0.0.1", 0)
    lobby = TcpLobby("127.0.0.1", server.sockets[0].getsockname()[1], "ana")
    try:
        await lobby.start()
        assert lobby.features == frozenset({"chat"}) and lobby.name == "ana"
        with pytest.raises(LobbyError) as refused:
            await lobby.list_tables()
        assert refused.value.code == errors.BAD_FRAME and lobby.online
        assert await lobby.list_tables() == []
        assert lobby._read_task is not None
        await asyncio.wait_for(lobby._read_task, 5)  # the reader ends with the connection
        assert lobby.closed_reason == "the host sent a malformed message"
    finally:
        await lobby.close()
        server.close()
