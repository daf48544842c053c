"""Hypothesis throws random bytes and random well-formed-but-wrong messages at a live host on loopback.

The host runs in its own thread and event loop; each example is one fresh TCP connection that ends with our
half-close, so the host has read everything before we check on it. After every example a game at another
table is untouched and the host still answers.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_server.limits import ClientLimits
from nothanks_server.tcp import TcpHost
from nothanks_tui.link import NewTable
from nothanks_tui.link.messages import CLIENT_MESSAGES
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

TIMEOUT = 10.0


class ErrorsOf(logging.Handler):
    """The messages ``thread`` logs at ERROR or above."""

    def __init__(self, thread: threading.Thread) -> None:
        super().__init__(logging.ERROR)
        self.thread = thread
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread.ident:
            self.messages.append(record.getMessage())


class HostThread:
    """A host with one game in progress (a seated in-process player and a bot), served from another thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self._logged = ErrorsOf(self.thread)  # what the host logged at ERROR: input errors never are
        self.errors = self._logged.messages
        logging.getLogger().addHandler(self._logged)
        self.thread.start()
        assert self.ready.wait(TIMEOUT)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._setup())
        self.ready.set()
        self.loop.run_forever()

    async def _setup(self) -> None:
        self.lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=5))
        # Hypothesis opens hundreds of connections a minute from one address: lift the connect rate (tested in
        # test_host_limits.py), the fuzz is about what those connections send.
        self.host = TcpHost(self.lobby, "127.0.0.1", 0, limits=ClientLimits(connects_per_minute=10**9))
        await self.host.start()
        player = InProcessLobby(self.lobby, "keeper")
        await player.start()
        self.keeper = await player.create_table(NewTable(players=2, bots=1))
        await self.keeper.start_game()
        while True:  # wait until the bot has moved and the table waits for the keeper, who never moves
            event = await self.keeper.next_event()
            if getattr(event, "view", None) is not None and event.view.my_turn:
                break
        self.table = self.lobby.table("t1")

    def snapshot(self):
        async def read():
            return self.table.state

        return asyncio.run_coroutine_threadsafe(read(), self.loop).result(TIMEOUT)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.host.close("done"), self.loop).result(TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(TIMEOUT)
        logging.getLogger().removeHandler(self._logged)


@pytest.fixture(scope="module")
def host_thread():
    host = HostThread()
    yield host
    host.stop()


def exchange(port: int, payload: bytes, say_hello: bool) -> list:
    """Connect, (hello,) send ``payload``, half-close, and return every frame the host sent before closing."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        if say_hello:
            sock.sendall(encode({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "fuzz"}))
        try:
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the host may already have closed on us: that is a fine answer
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        frames = []
        while True:
            try:
                data = sock.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            unpacker.feed(data)
            frames.extend(unpacker)
    return frames


def check_host(host_thread: HostThread, before) -> None:
    assert host_thread.snapshot() is before, "the game at another table changed"
    frames = exchange(host_thread.host.port, encode({"type": "ping", "id": 1}), say_hello=True)
    assert {"type": "pong", "re": 1} in frames
    assert not host_thread.errors, host_thread.errors


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.binary(max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(
    sorted({name for message in CLIENT_MESSAGES.values() for name in message.__struct_fields__} | {"id", "x"})
)
wrong_messages = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.one_of(st.sampled_from(sorted(CLIENT_MESSAGES)), st.text(max_size=12), st.integers()),
    st.dictionaries(field_names, values, max_size=5),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.binary(max_size=300), say_hello=st.booleans())
def test_random_bytes_never_harm_the_host(host_thread, payload, say_hello):
    before = host_thread.snapshot()
    frames = exchange(host_thread.host.port, payload, say_hello)
    assert all(
        isinstance(f, dict)
        and f.get("type") in {"hello", "welcome", "error", "pong", "tables", "joined", "left", "waiting", "update"}
        for f in frames
    )
    check_host(host_thread, before)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(wrong_messages, min_size=1, max_size=6))
def test_random_wellformed_messages_get_answers_not_crashes(host_thread, messages):
    before = host_thread.snapshot()
    try:
        payload = b"".join(msgpack.packb(m, use_bin_type=True) for m in messages)
    except (OverflowError, ValueError):
        return
    frames = exchange(host_thread.host.port, payload, say_hello=True)
    assert frames[0]["type"] == "hello" and frames[1]["type"] == "welcome"
    for frame in frames[2:]:
        assert frame["type"] != "error" or (isinstance(frame["code"], str) and frame["message"])
    check_host(host_thread, before)
