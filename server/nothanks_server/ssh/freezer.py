"""A worker's heap, frozen every second so that no automatic collection walks the players' apps.

Each tick (``FREEZE_INTERVAL``, worker.py): ``gc.collect()`` of what is not frozen yet (the last second's survivors:
without it, cycles already garbage, as Textual makes at every layout, were frozen with a screen's widgets), then
``gc.freeze()``. What dies in a frozen cycle stays until the worker exits (the front recycles workers); walking the
heap for it saved about 4 % of a player's PSS for pauses of 51-137 ms (docs/benchmarks.md, "Closed screens given
back in a frozen heap"). The longest tick is logged when the worker stops.
"""

from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass

FREEZE_INTERVAL = 1.0  # seconds between two ticks


@dataclass
class FreezeStats:
    ticks: int = 0
    longest_tick: float = 0.0  # seconds, steps 1-2


class Freezer:
    """Collects what is young and freezes the rest: every ``interval`` seconds once started."""

    def __init__(self, interval: float = FREEZE_INTERVAL) -> None:
        self.interval = interval
        self.stats = FreezeStats()
        self._handle: asyncio.TimerHandle | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        gc.collect()  # what starting up left (imports, the first parse of everything) goes once, before any player
        gc.freeze()
        self._handle = loop.call_later(self.interval, self._again, loop)

    def tick(self) -> None:
        started = time.perf_counter()
        gc.collect()
        gc.freeze()
        self.stats.ticks += 1
        self.stats.longest_tick = max(self.stats.longest_tick, time.perf_counter() - started)

    def summary(self) -> str:
        return f"{self.stats.ticks} freezes, each with its collection at most {1000 * self.stats.longest_tick:.0f} ms"

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()

    def _again(self, loop: asyncio.AbstractEventLoop) -> None:
        self.tick()
        self._handle = loop.call_later(self.interval, self._again, loop)
