"""Budgets for one SSH session's keys and one connection's bytes, so that one client cannot starve the others.

Every app of a worker shares one event loop, and Textual handles an app's queued events without yielding: 2 MB of
pasted keys would stall every other session for minutes. So a session's input passes an ``InputGate``: a token
bucket (typing, key repeat and clicks stay inside) and a bounded queue, handed to the app a slice at a time once it
handled the last. Input over the budget is dropped (a notice at most every ``NOTICE_INTERVAL``) and the channel
paused ``HOLD_OFF`` seconds: pausing alone would replay stale keys for half an hour after a flood, dropping alone
would leave the host decrypting a ~50 MB/s flood (60 % of a core); together a flood costs about ``INPUT_WINDOW /
HOLD_OFF`` bytes a second. Below the session, a connection's bytes pass an ``InboundShaper`` (patches.py #2):
43,000 empty IGNORE packets a second held 98 % of the CPU and another player's keys at 2.1 s p99. Bytes over its
budget are held, never dropped (SSH cannot lose one), the socket unread meanwhile.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..limits import TokenBucket
from .settings import INBOUND_BURST, INBOUND_RATE, cancel

log = logging.getLogger(__name__)


class InputSink(Protocol):
    """Where a gate's input goes: the Textual driver (driver.py) or the plain lines (session.py's ChannelLines)."""

    def feed(self, data: bytes) -> None: ...
    def call_when_processed(self, callback: Callable[[], None]) -> bool: ...
    def input_dropped(self, notice: str | None) -> None: ...


INPUT_RATE = 1024.0  # bytes a second, sustained
INPUT_BURST = 4096  # bytes at once (a paste, a flurry of keys)
MAX_QUEUED_INPUT = 4096  # bytes accepted but not yet handled by the app
INPUT_SLICE = 64  # bytes handed to the app before waiting for it to handle them
INPUT_WINDOW = 256 * 1024  # bytes the client may send ahead of what the session has taken (asyncssh: 2 MiB)
HOLD_OFF = 0.1  # seconds the channel stays paused after a drop
NOTICE_INTERVAL = 5.0  # seconds between two "input ignored" notices to one player
INBOUND_SLICE = 4 * 1024  # bytes handed to asyncssh per turn of the loop once over the budget
DROP_NOTICE = "Too much input at once: some keys were ignored."


class InputGate:
    """The input budget and queue of one SSH session (see the module docstring)."""

    def __init__(
        self,
        peer: str = "?",
        *,
        rate: float = INPUT_RATE,
        burst: int = INPUT_BURST,
        max_queued: int = MAX_QUEUED_INPUT,
        slice_size: int = INPUT_SLICE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.peer = peer
        self.max_queued = max_queued
        self.slice_size = slice_size
        self._clock = clock
        self._bucket = TokenBucket(rate, burst, None, clock())
        self._backlog = bytearray()  # accepted, not yet handed to the app
        self.in_flight = 0  # handed to the app, not yet handled by it
        self.accepted = 0  # bytes, over the session's life
        self.dropped = 0
        self.queued_peak = 0  # the most bytes ever queued at once: never above max_queued
        self._last_notice: float | None = None
        self._sink: InputSink | None = None  # (tests: anything with its feed, call_when_processed, input_dropped)
        self._pump_handle: asyncio.Handle | None = None

    @property
    def queued(self) -> int:
        """Bytes accepted and not yet handled by the app (waiting here, or handed over)."""
        return len(self._backlog) + self.in_flight

    @property
    def waiting(self) -> bool:
        """Accepted input is waiting to be handed to the app (a pending escape sequence may continue in it)."""
        return bool(self._backlog)

    def receive(self, data: bytes) -> bool:
        """Bytes from the client: queue them if the budget allows, else drop them (and what was still queued) and
        return False: the caller then holds the client off for ``HOLD_OFF`` seconds."""
        if not data:
            return True
        now = self._clock()
        if self.queued + len(data) > self.max_queued or not self._bucket.take(now, len(data)):
            self._drop(len(data), now)
            return False
        self.accepted += len(data)
        self._backlog += data
        self.queued_peak = max(self.queued_peak, self.queued)
        self._pump()
        return True

    def attach(self, sink: InputSink) -> None:
        """The app is ready: input queued until now goes to it."""
        self._sink = sink
        self._pump()

    def detach(self) -> None:
        self._sink = None
        self._backlog.clear()
        self.in_flight = 0
        self._pump_handle = cancel(self._pump_handle)

    def _pump(self) -> None:
        self._pump_handle = None
        sink = self._sink
        while sink is not None and self._backlog and self.in_flight < self.slice_size:
            size = min(len(self._backlog), self.slice_size - self.in_flight)
            chunk = bytes(self._backlog[:size])
            del self._backlog[:size]
            self.in_flight += size
            try:
                sink.feed(chunk)
                waiting = sink.call_when_processed(functools.partial(self._handled, size))
            except Exception:
                log.exception("the input of %s could not be handed to its app", self.peer)
                waiting = False  # one bad chunk must not leave the session's input stuck for good
            if not waiting:
                self.in_flight -= size  # the app is closing: nothing will come back, nothing needs to
            sink = self._sink

    def _handled(self, size: int) -> None:
        self.in_flight = max(0, self.in_flight - size)
        if self._backlog and self._pump_handle is None and self._sink is not None:
            # Not right now, from inside the app's message handling: let the loop run everyone else first.
            self._pump_handle = asyncio.get_running_loop().call_soon(self._pump)

    def _drop(self, size: int, now: float) -> None:
        dropped = size + len(self._backlog)
        self.dropped += dropped
        self._backlog.clear()
        notice = self._last_notice is None or now - self._last_notice >= NOTICE_INTERVAL
        if notice:
            self._last_notice = now
            log.info("dropping input from %s: over its budget (%d bytes dropped so far)", self.peer, self.dropped)
        if self._sink is not None:
            self._sink.input_dropped(DROP_NOTICE if notice else None)


class InboundShaper:
    """The incoming-byte budget of one SSH connection (the module docstring), put in place by patches.py."""

    def __init__(
        self,
        deliver: Callable[[bytes], None],
        transport: asyncio.Transport,
        *,
        rate: float = INBOUND_RATE,
        burst: int = INBOUND_BURST,
        slice_size: int = INBOUND_SLICE,
        loop: asyncio.AbstractEventLoop | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_held: Callable[[], None] | None = None,
    ) -> None:
        if rate <= 0 or burst < slice_size or slice_size < 1:
            raise ValueError("an inbound budget needs rate > 0 and burst >= slice_size >= 1")
        self._deliver = deliver
        self._transport = transport
        self._slice = slice_size
        self._loop = loop or asyncio.get_running_loop()
        self._clock = clock
        self._on_held = on_held  # called the first time this connection goes over its budget
        self.started = clock()  # the budget's bound: delivered <= burst + rate * (now - started)
        self._bucket = TokenBucket(rate, burst, None, self.started)
        self._pending = bytearray()
        self._paused = False
        self._scheduled: asyncio.Handle | None = None
        self.delivered = 0  # bytes handed to asyncssh so far
        self.held_count = 0  # times bytes had to wait for the budget to refill

    @property
    def pending(self) -> int:
        """Bytes read from the socket and not yet handed on."""
        return len(self._pending)

    def data_received(self, data: bytes, datatype: Any = None) -> None:
        """What the transport calls with every read."""
        fits = not self._pending and self._scheduled is None and len(data) <= self._slice
        if fits and self._bucket.take(self._clock(), len(data)):  # the usual case, a player's keys: no copy
            self.delivered += len(data)
            self._deliver(data)
            return
        self._pending += data
        if self._scheduled is None:
            self._pump()

    def _pump(self) -> None:
        self._scheduled = None
        if self._transport.is_closing():
            self._pending.clear()  # the connection is going: nobody will read what is left
            return
        wanted = min(len(self._pending), self._slice)  # a slice per turn of the loop: the other sessions run between
        over_budget = wanted > 0 and not self._bucket.take(self._clock(), wanted)
        if wanted and not over_budget:
            chunk = bytes(self._pending[:wanted])
            del self._pending[:wanted]
            self.delivered += wanted
            self._deliver(chunk)
            if self._transport.is_closing():
                self._pending.clear()
                return
        if not self._pending:
            if self._paused:
                self._paused = False
                self._transport.resume_reading()
            return
        if not self._paused:
            self._paused = True
            self._transport.pause_reading()
        if over_budget:
            self.held_count += 1
            if self.held_count == 1 and self._on_held is not None:
                self._on_held()
            self._scheduled = self._loop.call_later(self._bucket.wait(min(len(self._pending), self._slice)), self._pump)
        else:
            self._scheduled = self._loop.call_soon(self._pump)

    def close(self) -> None:
        """Forget what is held (the connection is gone)."""
        self._scheduled = cancel(self._scheduled)
        self._pending.clear()
