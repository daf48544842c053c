"""The input budget of one SSH session, on a fake clock and a fake app: what passes, what is dropped, what queues."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from nothanks_server.ssh.input_gate import DROP_NOTICE, NOTICE_INTERVAL, InputGate

KITTY_SHIFT_A = b"\x1b[97:65;2;65u"  # one key press as the kitty keyboard protocol reports it (13 bytes)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeApp:
    """Takes fed bytes; handles them only when the test says so (``handle_all``)."""

    def __init__(self) -> None:
        self.fed = bytearray()
        self.feeds: list[int] = []
        self.waiting: list[Callable[[], None]] = []
        self.drops: list[str | None] = []

    def feed(self, data: bytes) -> None:
        self.fed += data
        self.feeds.append(len(data))

    def call_when_processed(self, callback: Callable[[], None]) -> bool:
        self.waiting.append(callback)
        return True

    def input_dropped(self, notice: str | None) -> None:
        self.drops.append(notice)

    async def handle_all(self) -> None:
        """The app handles everything posted so far; the gate then hands over the next slice (on the next turn)."""
        waiting, self.waiting = self.waiting, []
        for callback in waiting:
            callback()
        await asyncio.sleep(0)


async def test_fast_key_repeat_is_never_dropped_nor_held_back():
    clock, app = FakeClock(), FakeApp()
    gate = InputGate(clock=clock)
    gate.attach(app)
    for _ in range(50 * 60):  # a minute of 50 keys a second, each a 13-byte kitty sequence
        clock.now += 0.02
        gate.receive(KITTY_SHIFT_A)
        assert app.fed.endswith(KITTY_SHIFT_A)  # handed over at once, before the app handled the earlier ones
        await app.handle_all()
    assert gate.dropped == 0 and app.drops == []
    assert len(app.fed) == 50 * 60 * len(KITTY_SHIFT_A)


async def test_a_flood_is_dropped_beyond_the_burst_and_the_queue_stays_bounded():
    clock, app = FakeClock(), FakeApp()
    gate = InputGate(clock=clock, rate=1000, burst=4000, max_queued=4000, slice_size=64)
    gate.attach(app)
    for _ in range(1000):  # 100 kB at once, in 100-byte packets, while the app handles nothing
        gate.receive(b"a" * 100)
        assert gate.queued <= 4000
        assert gate.in_flight <= 64
    assert gate.queued_peak == 4000
    assert gate.accepted == 4000 and gate.dropped == 100_000 - 4000 + 4000 - 64  # the queue went with the drop
    assert app.drops[0] == DROP_NOTICE and all(notice is None for notice in app.drops[1:])  # one notice
    assert max(app.feeds) <= 64
    # The flood is over: the app catches up, and a key typed now goes through.
    await app.handle_all()
    clock.now += 1
    gate.receive(b"z")
    assert app.fed.endswith(b"z")


async def test_a_queue_is_handed_over_one_slice_per_handled_slice():
    clock, app = FakeClock(), FakeApp()
    gate = InputGate(clock=clock, burst=1000, max_queued=1000, slice_size=64)
    gate.receive(b"x" * 1000)  # before the app is up: everything waits
    assert app.fed == b""
    gate.attach(app)
    assert len(app.fed) == 64 and gate.waiting
    while gate.waiting:
        before = len(app.fed)
        await app.handle_all()
        assert len(app.fed) - before <= 64
    assert app.fed == b"x" * 1000
    assert gate.queued == 1000 % 64 and len(app.waiting) == 1  # the last slice, not yet handled
    await app.handle_all()
    assert gate.queued == 0


async def test_drop_notices_come_at_most_every_few_seconds():
    clock, app = FakeClock(), FakeApp()
    gate = InputGate(clock=clock, rate=10, burst=10)
    gate.attach(app)
    for _ in range(100):
        clock.now += NOTICE_INTERVAL / 10
        gate.receive(b"b" * 50)  # always over the budget
    notices = [notice for notice in app.drops if notice is not None]
    assert len(app.drops) == 100
    assert len(notices) == 10  # 50 seconds of flood, one notice per NOTICE_INTERVAL


async def test_an_app_that_fails_on_some_input_still_gets_the_next(caplog):
    clock, app = FakeClock(), FakeApp()
    failing = [True]
    real_feed = app.feed

    def feed(data: bytes) -> None:
        if failing.pop() if failing else False:
            raise RuntimeError("parser broke")
        real_feed(data)

    app.feed = feed  # type: ignore[method-assign]
    gate = InputGate(clock=clock)
    gate.attach(app)
    gate.receive(b"a")
    assert gate.queued == 0 and "could not be handed" in caplog.text
    gate.receive(b"b")
    assert app.fed == b"b"
