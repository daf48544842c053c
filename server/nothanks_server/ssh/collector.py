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
full one used to (about 1 s at 50 sessions), so it runs only when it is free or needed:

- when no session is running (nobody waits), if anything was frozen since the last one;
- when the estimated garbage has grown as large as the live heap (``garbage_share``), and at least
  ``min_garbage`` blocks. The estimate is cheap: the process's allocated memory blocks
  (``sys.getallocatedblocks``; the frozen count would walk the list) less the live heap expected, which is what
  the last deep collection left, plus ``session_blocks`` per session that arrived since, less as much per
  session that ended since (a finished session's app is garbage in cycles: about 2.5 MiB of it for a player who
  sat at a table). A host filling up with players is therefore not mistaken for one making garbage, and the
  players who leave are counted as garbage without waiting for anything else to grow.

Garbage as large as the live heap keeps a session's share of memory within twice its live size (2.4 MiB measured
at 50 sessions: under 5 MiB either way), and makes a deep collection rare: at 50 sessions, once about 45 players
have left (each also left the dialogs of its way to a table), or 60 arrived in a burst. An earlier policy that
collected after a quarter of the sessions had ended, or after growth by half, paused every session for about a
second in the middle of play (docs/benchmarks.md, "SSH front, fourth pass").

One collector serves the whole process (the heap is process-wide): every SSH front ``acquire``s it on start and
``release``s it on close; the last release unfreezes everything.
"""

from __future__ import annotations

import asyncio
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
    garbage_share: float = 1.0  # deep collection once the estimated garbage is this share of the live heap ...
    min_garbage: int = 100_000  # ... and at least this many blocks (about seven sessions, 15 MiB)
    # Live blocks a session is assumed to hold: the larger of this (a seated player, about 14,000 measured at 50
    # sessions) and what the last deep collection measured (less when it found the sessions still in the lobby).
    session_blocks: int = 14_000


@dataclass
class DeepCollection:
    """What the last deep collection did (for logs and the profiling script)."""

    reason: str
    blocks_before: int  # memory blocks allocated by Python's allocator
    blocks_after: int
    seconds: float
    sessions: int  # running when it ran


class FreezingCollector:
    """Freezes survivors periodically while sessions run; collects deeply when idle or when garbage has piled up."""

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
        self._blocks_after_deep = 0
        self._blocks_at_start = 0  # allocated blocks when the first user acquired the collector
        self._sessions_at_deep = 0
        self._blocks_per_session = float(self.settings.session_blocks)  # see CollectorSettings.session_blocks
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
            self._frozen_since_deep = False

    def session_started(self) -> None:
        self._sessions += 1

    def session_ended(self) -> None:
        self._sessions = max(0, self._sessions - 1)

    def estimated_garbage(self) -> tuple[int, int]:
        """(garbage, live) in allocated blocks: what the process holds beyond the live heap expected, and that."""
        arrived = (self._sessions - self._sessions_at_deep) * self._blocks_per_session  # negative once they leave
        live = max(self._blocks_at_start, round(self._blocks_after_deep + arrived))
        return self._allocated_blocks() - live, live

    # Policy --------------------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One step of the policy (run every ``freeze_interval`` seconds)."""
        if self._sessions == 0:
            if self._frozen_since_deep:
                self.collect_everything("idle")
            return
        garbage, live = self.estimated_garbage()
        if garbage >= max(self.settings.min_garbage, self.settings.garbage_share * live):
            self.collect_everything("garbage")
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
            measured = (self._blocks_after_deep - self._blocks_at_start) / self._sessions
            self._blocks_per_session = max(float(self.settings.session_blocks), measured)
        self._frozen_since_deep = False
        done = DeepCollection(reason, before, self._blocks_after_deep, time.perf_counter() - started, self._sessions)
        self.deep_collections.append(done)
        del self.deep_collections[:-20]
        self.deep_collection_count += 1
        log.info(
            "deep garbage collection (%s): %d allocated blocks before, %d after, %.0f ms",
            reason,
            done.blocks_before,
            done.blocks_after,
            1000 * done.seconds,
        )
        return done

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.freeze_interval)
            self.tick()


PROCESS_COLLECTOR = FreezingCollector()
"""The one collector of this process, shared by every SSH front in it."""
