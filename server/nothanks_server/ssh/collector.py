"""Short garbage collections in a host full of session apps: long-lived objects are frozen out of the collector's way.

Python's full collection walks every tracked object in the process, and while it runs no session moves. A host
with 50 SSH sessions holds about 500,000 objects (their widgets, styles and rendered lines), so each full
collection stopped every player for 0.25 to 0.75 s, several times a minute. Those objects are long-lived: a
session's app lives as long as the player stays.

``FreezingCollector`` therefore moves everything that has survived into Python's permanent generation
(``gc.freeze``) every ``freeze_interval`` seconds, after a young collection. The automatic collections then walk
only what is newer than the last freeze, which stays small, so they stay short.

What dies in a reference cycle after being frozen (a finished session's app, a dismissed dialog) is not freed until
a *deep* collection (``gc.unfreeze``, a full collection, freeze again). A deep collection pauses as long as a
full one used to, so it runs only when it is cheap or needed:

- when no session is running (nobody waits), if anything was frozen since the last one;
- when sessions have ended since the last one, as many as a quarter of those running now and at least
  ``ended_sessions`` (a finished session's app is garbage in cycles, about 2.5 MiB of it for a player who sat at
  a table; the pause grows with the sessions running, so a busy host waits for more garbage before paying it);
- when the process's allocated memory blocks (``sys.getallocatedblocks``, cheap to read, unlike the frozen count)
  have grown, beyond what the sessions that arrived since account for, by half of the expected live heap (and by
  at least ``min_growth`` blocks): a backstop for garbage of any other kind (dismissed dialogs, screens left),
  so it stays a bounded share of the heap. What a session accounts for is measured at each deep collection (the
  live blocks per running session), so a host filling up with players is not mistaken for one making garbage.

One collector serves the whole process (the heap is process-wide): every SSH front ``acquire``s it on start and
``release``s it on close; the last release unfreezes everything.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)


class GarbageCollector(Protocol):
    """The part of the ``gc`` module used here (a fake in tests)."""

    def collect(self, generation: int = 2) -> int: ...
    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...


@dataclass(frozen=True)
class CollectorSettings:
    freeze_interval: float = 2.0  # seconds between freezes while sessions run
    growth: float = 0.5  # deep collection once allocated blocks grew by this share since the last one
    min_growth: int = 100_000  # ... and by at least this many blocks (about four sessions, 10 MiB)
    ended_sessions: int = 8  # deep collection once this many sessions (or a quarter of those running) ended


@dataclass
class DeepCollection:
    """What the last deep collection did (for logs and the profiling script)."""

    reason: str
    blocks_before: int  # memory blocks allocated by Python's allocator
    blocks_after: int
    seconds: float


class FreezingCollector:
    """Freezes survivors periodically while sessions run; collects deeply when idle or grown."""

    def __init__(
        self,
        settings: CollectorSettings | None = None,
        collector: GarbageCollector = gc,
        allocated_blocks: Callable[[], int] = sys.getallocatedblocks,
    ) -> None:
        self.settings = settings or CollectorSettings()
        self._gc = collector
        self._allocated_blocks = allocated_blocks
        self._users = 0
        self._sessions = 0
        self._ended_since_deep = 0
        self._deep_soon = False  # a deep collection is scheduled to run as soon as the loop is free
        self._blocks_after_deep = 0
        self._blocks_at_start = 0  # allocated blocks when the first user acquired the collector
        self._sessions_at_deep = 0
        self._blocks_per_session = 0.0  # live blocks per running session, measured at the last deep collection
        self._frozen_since_deep = False
        self._task: asyncio.Task[None] | None = None
        self.deep_collections: list[DeepCollection] = []  # the last 20
        self.deep_collection_count = 0  # since the process started

    # Who uses it ---------------------------------------------------------------------------------------------

    def acquire(self) -> None:
        """A front starts: begin freezing (the first user starts the periodic task on the running loop)."""
        self._users += 1
        if self._users == 1:
            self._gc.freeze()  # what exists before any session (imports, the lobby) never needs walking again
            self._blocks_after_deep = self._blocks_at_start = self._allocated_blocks()
            self._sessions_at_deep = self._sessions
            self._frozen_since_deep = False
            if self.settings.freeze_interval > 0:
                self._task = asyncio.get_running_loop().create_task(self._run(), name="freezing collector")

    def release(self) -> None:
        """A front closes: the last one stops the task and hands every object back to the ordinary collector."""
        self._users = max(0, self._users - 1)
        if self._users == 0:
            if self._task is not None:
                self._task.cancel()
                self._task = None
            self._gc.unfreeze()
            self._sessions = 0
            self._ended_since_deep = 0
            self._frozen_since_deep = False

    def session_started(self) -> None:
        self._sessions += 1

    def session_ended(self) -> None:
        self._sessions = max(0, self._sessions - 1)
        self._ended_since_deep += 1
        if self._enough_ended() and self._task is not None and not self._deep_soon:
            # soon, not at the next tick: sessions can come and go faster than the ticks
            self._deep_soon = True
            asyncio.get_running_loop().call_soon(self._collect_if_still_due, context=contextvars.Context())

    def _enough_ended(self) -> bool:
        return self._ended_since_deep >= max(self.settings.ended_sessions, self._sessions // 4)

    def _collect_if_still_due(self) -> None:
        self._deep_soon = False
        if self._users and self._enough_ended():
            self.collect_everything("sessions ended")

    # Policy --------------------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One step of the policy (run every ``freeze_interval`` seconds)."""
        if self._sessions == 0:
            if self._frozen_since_deep:
                self.collect_everything("idle")
            return
        if self._enough_ended():
            self.collect_everything("sessions ended")
            return
        arrived = max(0, self._sessions - self._sessions_at_deep) * self._blocks_per_session
        unexplained = self._allocated_blocks() - self._blocks_after_deep - arrived
        expected = self._blocks_after_deep + arrived
        if unexplained >= max(self.settings.min_growth, self.settings.growth * expected):
            self.collect_everything("grown")
            return
        self._gc.collect(1)  # young garbage is found cheaply now rather than frozen
        self._gc.freeze()
        self._frozen_since_deep = True

    def collect_everything(self, reason: str = "asked") -> DeepCollection:
        """A deep collection: every object, frozen or not, is walked once; the survivors are frozen again."""
        started = time.perf_counter()
        before = self._allocated_blocks()
        self._gc.unfreeze()
        self._gc.collect()
        if self._users:
            self._gc.freeze()
        self._blocks_after_deep = self._allocated_blocks()
        self._sessions_at_deep = self._sessions
        if self._sessions:
            self._blocks_per_session = max(0, self._blocks_after_deep - self._blocks_at_start) / self._sessions
        self._frozen_since_deep = False
        self._ended_since_deep = 0
        done = DeepCollection(reason, before, self._blocks_after_deep, time.perf_counter() - started)
        self.deep_collections.append(done)
        del self.deep_collections[:-20]
        self.deep_collection_count += 1
        log.info(
            "deep garbage collection (%s): %d allocated blocks before, %d after, %.0f ms",
            reason, done.blocks_before, done.blocks_after, 1000 * done.seconds,
        )
        return done

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.freeze_interval)
            self.tick()


PROCESS_COLLECTOR = FreezingCollector()
"""The one collector of this process, shared by every SSH front in it."""
