"""Joining the wrong kind of port: every failure is one readable sentence, soon, and nothing crashes (issue 17.3)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from nothanks_tui.client import tcp
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import LobbyError, errors
from nothanks_tui.link.wire import encode

from .net_helpers import nothanks_process

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def fake_host(handler: Handler) -> AsyncIterator[int]:
    """A TCP server on a free loopback port that answers every connection with ``handler``; yields its port."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Accepts and never says a word (an HTTP server waiting for a request line it will never get)."""
    await reader.read()


async def http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(1)
    writer.write(b"HTTP/1.0 400 Bad request\r\nContent-Type: text/html\r\n\r\n<html>bad request</html>\r\n")
    await writer.drain()
    writer.close()


def replying(*frames: dict[str, object]) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for frame in frames:
            writer.write(encode(frame))
        await writer.drain()
        await reader.read()

    return handler


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def refusal(port: int) -> LobbyError:
    lobby = TcpLobby("127.0.0.1", port, "bob")
    with pytest.raises(LobbyError) as caught:
        await lobby.start()
    assert "\n" not in caught.value.message
    return caught.value


def test_the_handshake_is_bounded_by_three_seconds():
    assert 0 < tcp.HANDSHAKE_TIMEOUT <= 3


async def test_nothing_listening_is_said_so():
    error = await refusal(free_port())
    assert error.code == errors.UNREACHABLE
    assert "nothing is listening" in error.message


async def test_a_port_that_never_answers_is_said_so(monkeypatch):
    monkeypatch.setattr(tcp, "HANDSHAKE_TIMEOUT", 0.2)
    async with fake_host(silent) as port:
        error = await refusal(port)
    assert error.code == errors.TIMEOUT
    assert f"127.0.0.1:{port} did not answer as a nothanks host" in error.message


async def test_a_web_server_is_not_a_nothanks_host():
    async with fake_host(http) as port:
        error = await refusal(port)
    assert "is not a nothanks host" in error.message


async def test_another_protocol_version_says_which():
    async with fake_host(replying({"type": "hello", "protocol": 99, "server": "future"})) as port:
        error = await refusal(port)
    assert error.code == errors.BAD_VERSION
    assert "speaks protocol 99" in error.message


async def test_a_full_host_says_it_is_full():
    full = {"type": "error", "code": errors.SERVER_CLOSING, "message": "the host is full", "fatal": True}
    async with fake_host(replying(full)) as port:
        error = await refusal(port)
    assert error.message == "the host is full"


async def test_nothanks_join_to_a_silent_port_prints_one_line_and_no_traceback():
    async with fake_host(silent) as port:
        process = await nothanks_process(
            "join", f"127.0.0.1:{port}", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert b"Traceback" not in err, err.decode()
    assert out.decode().strip() == (
        f"nothanks join: 127.0.0.1:{port} did not answer as a nothanks host within 3 s: check the address and port"
    )


async def test_the_join_tab_says_what_went_wrong_and_stays_open(monkeypatch, tmp_path):
    from textual.widgets import Input, TabbedContent

    from nothanks_tui.client.app import NoThanksApp
    from nothanks_tui.client.screens.start import StartScreen
    from nothanks_tui.commands.launchers import LocalLaunchers

    from .client.ui_helpers import wait_until

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setattr(tcp, "HANDSHAKE_TIMEOUT", 0.2)
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
    async with fake_host(silent) as silent_port, fake_host(http) as http_port:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.screen.query_one("#start-modes", TabbedContent).active = "mode-2"
            await pilot.pause()
            form = app.screen.forms[2]
            for port, words in ((silent_port, "did not answer"), (http_port, "not a No Thanks! host")):
                form.query_one("#address", Input).value = f"127.0.0.1:{port}"
                await pilot.press("ctrl+s")
                await wait_until(
                    pilot,
                    lambda w=words: any(w in str(n.message) for n in app._notifications),
                    f"the notice {words!r}",
                )
                assert isinstance(app.screen, StartScreen)
            assert app.is_running
