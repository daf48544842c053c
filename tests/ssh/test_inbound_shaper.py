"""A connection's incoming bytes reach asyncssh at most at its budget's pace, whole and in order (input_gate.py)."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from asyncssh.constants import MSG_IGNORE
from asyncssh.packet import String

from nothanks_server.ssh import patches, server
from nothanks_server.ssh.input_gate import InboundShaper
from tools.loadgen.terminal_client import TerminalClient

from .test_input_limits import RESPONSIVE, Flooder


class FakeTransport:
    def __init__(self) -> None:
        self.paused = False
        self.pauses = 0
        self.closing = False

    def pause_reading(self) -> None:
        assert not self.paused, "paused twice"
        self.paused = True
        self.pauses += 1

    def resume_reading(self) -> None:
        assert self.paused, "resumed while reading"
        self.paused = False

    def is_closing(self) -> bool:
        return self.closing


class FakeLoop:
    """call_soon and call_later, run by hand against a clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls: list[tuple[float, object]] = []

    def call_soon(self, callback):  # type: ignore[no-untyped-def]
        return self.call_later(0.0, callback)

    def call_later(self, delay, callback):  # type: ignore[no-untyped-def]
        handle = asyncio.Handle(callback, (), asyncio.new_event_loop())
        self.calls.append((self.now + delay, handle))
        return handle

    def run_due(self) -> int:
        """Run what is due now, one turn of the loop (what those calls schedule waits for the next turn)."""
        due = [(when, handle) for when, handle in self.calls if when <= self.now]
        self.calls = [(when, handle) for when, handle in self.calls if when > self.now]
        for _, handle in due:
            if not handle.cancelled():
                handle._run()
        return len(due)

    def next_due(self) -> float | None:
        times = [when for when, handle in self.calls if not handle.cancelled()]
        return min(times) if times else None


def shaper_under_test(rate: float = 1000.0, burst: int = 4000, slice_size: int = 1000):
    loop, transport, delivered = FakeLoop(), FakeTransport(), bytearray()
    held: list[bool] = []
    chunks: list[int] = []

    def deliver(data: bytes) -> None:
        delivered.extend(data)
        chunks.append(len(data))

    shaper = InboundShaper(
        deliver,
        transport,
        rate=rate,
        burst=burst,
        slice_size=slice_size,
        loop=loop,  # type: ignore[arg-type]
        clock=lambda: loop.now,
        on_held=lambda: held.append(True),
    )
    return shaper, loop, transport, delivered, chunks, held


def test_what_fits_the_burst_goes_straight_through():
    shaper, loop, transport, delivered, _, held = shaper_under_test(slice_size=4000)
    shaper.data_received(b"a" * 1500)
    shaper.data_received(b"b" * 2500)
    assert bytes(delivered) == b"a" * 1500 + b"b" * 2500
    assert not transport.paused and not held and loop.calls == [] and shaper.pending == 0


def test_a_flood_is_held_then_handed_on_at_the_rate_whole_and_in_order():
    shaper, loop, transport, delivered, chunks, held = shaper_under_test(rate=1000.0, burst=4000, slice_size=1000)
    sent = random.Random(7).randbytes(20_000)
    shaper.data_received(sent)
    assert len(delivered) == 1000 and transport.paused  # a slice now, the socket unread while anything is held
    assert shaper.pending == len(sent) - len(delivered)
    while loop.calls:
        loop.now = max(loop.now, loop.next_due() or loop.now)
        loop.run_due()
        assert len(delivered) <= 4000 + 1000 * loop.now + 1e-6  # never ahead of the budget
    assert bytes(delivered) == sent  # nothing lost, nothing reordered
    assert not transport.paused and transport.pauses == 1 and held == [True]
    assert loop.now == pytest.approx((len(sent) - 4000) / 1000, abs=1.0)  # and not much behind it either
    assert max(chunks) <= 1000


def test_a_backlog_is_handed_on_one_slice_per_turn_of_the_loop():
    shaper, loop, transport, _, chunks, held = shaper_under_test(rate=1000.0, burst=4000, slice_size=1000)
    shaper.data_received(b"x" * 3500)  # within the budget, but more than a slice ...
    assert chunks == [1000] and transport.paused  # ... so one slice now, the socket unread until the rest is through
    turns = 0
    while loop.run_due():
        turns += 1
    assert chunks == [1000, 1000, 1000, 500] and turns == 3 and not transport.paused
    assert held == [] and shaper.held_count == 0  # sliced, never held back: it was within the budget


def test_bytes_that_arrive_while_held_queue_behind_the_backlog():
    shaper, loop, _, delivered, _, _ = shaper_under_test(rate=1000.0, burst=1000, slice_size=1000)
    shaper.data_received(b"1" * 1500)
    shaper.data_received(b"2" * 10)  # a read already under way when reading paused
    loop.now = 10.0
    while loop.run_due():
        pass
    assert bytes(delivered) == b"1" * 1500 + b"2" * 10


def test_nothing_is_handed_on_once_the_connection_closes():
    shaper, loop, transport, delivered, _, _ = shaper_under_test(rate=1000.0, burst=1000, slice_size=1000)
    shaper.data_received(b"x" * 5000)
    transport.closing = True
    loop.now = 100.0
    loop.run_due()
    assert len(delivered) == 1000 and shaper.pending == 0
    shaper.close()
    assert loop.next_due() is None


def test_a_budget_needs_a_rate_and_room_for_a_slice():
    with pytest.raises(ValueError):
        InboundShaper(lambda data: None, FakeTransport(), rate=0, loop=FakeLoop())  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        InboundShaper(lambda data: None, FakeTransport(), burst=10, slice_size=100, loop=FakeLoop())  # type: ignore[arg-type]


IGNORED = 3000  # empty SSH_MSG_IGNORE packets: about 100 kB on the wire
RATE, BURST = 32 * 1024, 16 * 1024


async def test_an_ssh_ignore_flood_is_paced_and_the_others_play_on(start_sessions, monkeypatch):
    shapers: list[InboundShaper] = []

    def recording(conn, **options):  # type: ignore[no-untyped-def]
        shaper = server_shape_inbound(conn, **options)
        shapers.append(shaper)
        return shaper

    server_shape_inbound = server.shape_inbound
    monkeypatch.setattr(server, "shape_inbound", recording)
    front = await start_sessions(inbound_rate=RATE, inbound_burst=BURST)
    flooder = await Flooder().connect(front.port)
    await flooder.wait_for("No Thanks!")
    player = await TerminalClient().connect(front.port)
    await player.wait_for("No Thanks!")
    flooded = shapers[0]
    before = flooded.delivered

    started = time.monotonic()
    for _ in range(IGNORED):
        flooder.conn.send_packet(MSG_IGNORE, String(b""))
    mark = len(flooder.output)
    await flooder.send(b"z")  # behind the flood on the same connection: it shows once the flood got through
    for key in "bcdefgh":  # meanwhile the other player's keys keep showing up
        player.send(key)
        await player.wait_for(f"last: {key}", timeout=RESPONSIVE)
    async with asyncio.timeout(30):
        while b"last: z" not in flooder.output[mark:]:
            flooder.changed.clear()
            await flooder.changed.wait()
    took = time.monotonic() - started

    flood_bytes = flooded.delivered - before
    assert flood_bytes > IGNORED * 20  # every packet reached asyncssh (about 32 bytes each, encrypted)
    assert front.connections_held == 1 and flooded.held_count >= 1  # held back ...
    assert took >= (flood_bytes - BURST) / RATE * 0.95  # ... at the budget's pace
    assert flooded.delivered <= BURST + RATE * (time.monotonic() - flooded.started)
    assert shapers[1].held_count == 0  # the other player never came near it
    assert front.running_apps == 2
    await flooder.close()
    await player.close()


async def test_a_login_and_a_paste_fit_the_default_budget(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port, env={f"V{index}": "x" * 100 for index in range(50)})
    await client.wait_for("No Thanks!")
    client.send("y" * 2000)
    await client.wait_for("last: y")
    assert front.connections_held == 0
    await client.close()


def test_a_connection_without_a_socket_is_left_alone():
    class NoTransport:
        _transport = None

    assert patches.shape_inbound(NoTransport()) is None  # type: ignore[arg-type]
