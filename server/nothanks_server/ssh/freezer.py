"""A worker's heap, frozen every second so that no collection walks the players' apps, minus what it need not keep.

Each ``tick`` (every ``FREEZE_INTERVAL`` seconds, worker.py) does three things, in one loop callback:

1. ``gc.collect()``: a collection of what is not frozen yet, that is what the last second made and kept (never the
   rest of the heap: frozen objects are not walked). Without it, cycles that were garbage already but had not met a
   collection yet were frozen with the rest. Textual makes one at every layout (the compositor's recursive
   ``add_widget`` closure, holding the set of the screen's widgets), so a screen's widgets stayed referred to from
   a frozen cycle, and nothing could tell that screen was garbage.
2. ``Reclaimer.tick()`` (reclaimer.py): the screens removed a little while ago are freed (what only reference
   cycles among the objects they reach keep, walked from them alone: subgraph.py).
3. ``gc.freeze()``: everything alive moves to the permanent generation, where automatic collections never look.

``stats`` keeps the ticks and the longest of the first two steps (the pause they add), logged with the reclaimer's
summary when the worker stops.
"""

from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass

from .reclaimer import Reclaimer

FREEZE_INTERVAL = 1.0  # seconds between two ticks


@dataclass
class FreezeStats:
    ticks: int = 0
    longest_collection: float = 0.0  # seconds, step 1
    longest_tick: float = 0.0  # seconds, steps 1-3


class Freezer:
    """Collects what is young, reclaims closed screens, freezes the rest: every ``interval`` seconds once started."""

    def __init__(self, reclaimer: Reclaimer | None = None, interval: float = FREEZE_INTERVAL) -> None:
        self.reclaimer = reclaimer
        self.interval = interval
        self.stats = FreezeStats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        gc.collect()  # what starting up left (imports, the first parse of everything) goes once, before any player
        gc.freeze()
        self._loop = loop
        self._handle = loop.call_later(self.interval, self._again)

    def tick(self, now: float | None = None) -> None:
        """Steps 1-3; ``now`` (``time.monotonic()`` unless given) says which closed screens are due."""
        started = time.perf_counter()
        gc.collect()
        collected = time.perf_counter()
        if self.reclaimer is not None:
            self.reclaimer.tick(now)
        gc.freeze()
        done = time.perf_counter()
        self.stats.ticks += 1
        self.stats.longest_collection = max(self.stats.longest_collection, collected - started)
        self.stats.longest_tick = max(self.stats.longest_tick, done - started)

    def summary(self) -> str:
        s = self.stats
        said = (
            f"{s.ticks} freezes, the collection before each at most {1000 * s.longest_collection:.0f} ms, "
            f"a whole tick at most {1000 * s.longest_tick:.0f} ms"
        )
        return said + (f"; {self.reclaimer.summary()}" if self.reclaimer is not None else "")

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _again(self) -> None:
        self.tick()
        assert self._loop is not None
        self._handle = self._loop.call_later(self.interval, self._again)
