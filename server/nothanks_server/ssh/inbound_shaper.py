"""How fast one SSH connection's bytes reach asyncssh: a budget per connection, below the SSH protocol itself.

The input gate budgets keys, but everything else a client sends (SSH_MSG_IGNORE, requests, auth attempts before
login) is decrypted on the worker's loop first: one client sending 43,000 empty IGNORE packets a second held 98 % of
the CPU and put another player's keys at 171 ms p50, 2.1 s p99 (docs/benchmarks.md, eighth pass). So a connection's
bytes pass an ``InboundShaper``: a token bucket (``INBOUND_RATE``, ``INBOUND_BURST``: a login is under 20 kB);
bytes over it are held, never dropped (SSH cannot lose one), the socket unread meanwhile (TCP flow control), and
handed on as the bucket refills, at most ``INBOUND_SLICE`` a loop turn. The hook is in patches.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from .settings import INBOUND_BURST, INBOUND_RATE

log = logging.getLogger(__name__)

INBOUND_SLICE = 4 * 1024  # bytes handed to asyncssh per turn of the loop once over the budget


class InboundShaper:
    """The incoming-byte budget of one SSH connection (see the module docstring)."""

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
        self._rate = float(rate)
        self._burst = float(burst)
        self._slice = slice_size
        self._loop = loop or asyncio.get_running_loop()
        self._clock = clock
        self._on_held = on_held  # called the first time this connection goes over its budget
        self._tokens = float(burst)
        self._last = self.started = clock()  # the budget's bound: delivered <= burst + rate * (now - started)
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
        if not self._pending and self._scheduled is None and len(data) <= self._slice:
            self._refill()
            if self._tokens >= len(data):  # the usual case, a player's keys: straight through, no copy
                self._tokens -= len(data)
                self.delivered += len(data)
                self._deliver(data)
                return
        self._pending += data
        if self._scheduled is None:
            self._pump()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now

    def _pump(self) -> None:
        self._scheduled = None
        if self._transport.is_closing():
            self._pending.clear()  # the connection is going: nobody will read what is left
            return
        self._refill()
        over_budget = False
        while self._pending:
            wanted = min(len(self._pending), self._slice)
            if self._tokens < wanted:
                over_budget = True
                break
            chunk = bytes(self._pending[:wanted])
            del self._pending[:wanted]
            self._tokens -= wanted
            self.delivered += wanted
            self._deliver(chunk)
            if self._transport.is_closing():
                self._pending.clear()
                return
            if self._pending:
                break  # a slice per turn of the loop: the other sessions run in between
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
            wait = (min(len(self._pending), self._slice) - self._tokens) / self._rate
            self._scheduled = self._loop.call_later(wait, self._pump)
        else:
            self._scheduled = self._loop.call_soon(self._pump)

    def close(self) -> None:
        """Forget what is held (the connection is gone)."""
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        self._pending.clear()
