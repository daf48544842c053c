"""A worker's heap, frozen every second so that no automatic collection walks the players' apps.

Each ``tick`` (every ``FREEZE_INTERVAL`` seconds, worker.py) does two things, in one loop callback:

1. ``gc.collect()``: a collection of what is not frozen yet, that is what the last second made and kept (never the
   rest of the heap: frozen objects are not walked). Without it, cycles that were garbage already but had not met a
   collection yet were frozen with the rest. Textual makes one at every layout (the compositor's recursive
   ``add_widget`` closure, holding the set of the screen's widgets), so a screen's widgets stayed referred to from
   a frozen cycle.
2. ``gc.freeze()``: everything alive moves to the permanent generation, where automatic collections never look.

What dies in a cycle after it was frozen (a screen a player has left, the app of a player who has gone) stays until
the worker exits: the front recycles workers (front.py, ``SSHSettings.worker_sessions`` / ``worker_mib``) and the
system gets the memory back then. Nothing walks the heap to find it (docs/benchmarks.md, "Closed screens given back
in a frozen heap": a walk from each closed screen saved about 4 % of a player's PSS for pauses of 51-137 ms).

``stats`` keeps the ticks and the longest collection (the pause it adds), logged when the worker stops.
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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        gc.collect()  # what starting up left (imports, the first parse of everything) goes once, before any player
        gc.freeze()
        self._loop = loop
        self._handle = loop.call_later(self.interval, self._again)

    def tick(self) -> None:
        """Steps 1-2."""
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
            self._handle = None

    def _again(self) -> None:
        self.tick()
        assert self._loop is not None
        self._handle = self._loop.call_later(self.interval, self._again)
