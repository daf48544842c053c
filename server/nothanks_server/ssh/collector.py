"""Short garbage collections in a host full of session apps: long-lived objects are frozen out of the collector's way.

Python's full collection walks every tracked object in the process, and while it runs no session moves. A host
with 50 SSH sessions holds about 500,000 objects (their widgets, styles and rendered lines), so each full
collection stopped every player for 0.25 to 0.75 s, several times a minute. Those objects are long-lived: a
session's app lives as long as the player stays.

``FreezingCollector`` therefore moves everything that exists into Python's permanent generation (``gc.freeze``,
which costs nothing: it splices lists) every ``freeze_interval`` seconds. The automatic collections then walk only
what is newer than the last freeze, so they stay short. There is no young collection before a freeze: at play it
found nothing (a session at its table makes no garbage in cycles, only garbage that reference counting frees), yet
it walked everything made in the interval, 10 to 30 ms at 50 sessions every 2 s. What a freeze catches young and
dying in a cycle waits for the next deep collection like the rest, and the estimate below counts it.

What dies in a reference cycle after being frozen (a finished session's app, a dismissed dialog) is not freed until
a *deep* collection (``gc.unfreeze``, a full collection, freeze again). A deep collection pauses as long as a
full one used to (about 1 s at 50 sessions), so it runs only when it is free or needed:

- when no session is running (nobody waits), if anything was frozen since the last one;
- when sessions have ended since the last one, as many as a quarter of those running now and at least
  ``ended_sessions`` (a finished session's app is garbage in cycles, about 2.5 MiB of it for a player who sat at
  a table; the pause grows with the sessions running, so a busy host waits for more garbage before paying it).
  Only the apps that the front's sweep (sweeper.py) could not free count here: the sweep frees nearly every
  departure on its own, so with it this rule rarely fires;
- when the process's allocated memory blocks (``sys.getallocatedblocks``, cheap to read, unlike the frozen count)
  have grown, beyond what the sessions that arrived since account for, by ``growth`` (three quarters) of the
  expected live heap, and by at least ``min_growth`` blocks: a backstop for garbage of any other kind, so it
  stays a bounded share of the heap. A session accounts for at least ``session_blocks`` (a seated player's live
  blocks), or what the last deep collection measured per session if more: a host filling up with players is not
  mistaken for one making garbage, even when its last deep collection found the players still in the lobby.

The main garbage of the second kind is what a player leaves on the way to a table (the welcome screen, the
new-table dialog: about 8,000 blocks, 60 % of a seated player's live blocks). Three quarters of the heap lets a full
house that has just arrived start playing without a deep collection; that garbage goes at the next one that is due
anyway. (An earlier version guessed a session's size from its first deep collection, made while players were
still in the lobby, and collected every few seconds as they sat down: docs/benchmarks.md, "SSH front, fourth
pass".)

One collector serves the whole process (the heap is process-wide): every SSH front ``acquire``s it on start and
``release``s it on close; the last release unfreezes everything.
"""

from __future__ import annotations

import asyncio
import contextvars
import ctypes
import ctypes.util
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
    freeze_interval: float = 0.5  # seconds between freezes while sessions run
    growth: float = 0.75  # deep collection once allocated blocks grew beyond arrivals by this share of the heap ...
    min_growth: int = 100_000  # ... and by at least this many blocks (about seven seated players)
    ended_sessions: int = 8  # deep collection once this many sessions (or a quarter of those running) ended
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
    """Freezes everything periodically while sessions run; collects deeply when idle, after departures, or grown."""

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
            self._ended_since_deep = 0
            self._frozen_since_deep = False

    def session_started(self) -> None:
        self._sessions += 1

    def session_ended(self, left_garbage: bool = True) -> None:
        """A session's app finished; ``left_garbage=False`` when its garbage will be swept (sweeper.py) instead,
        and ``garbage_left`` is called later only if that fails."""
        self._sessions = max(0, self._sessions - 1)
        if left_garbage:
            self.garbage_left()

    def garbage_left(self) -> None:
        """A finished session's app is garbage in frozen cycles: it counts towards the next deep collection."""
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

    def unexplained_growth(self) -> tuple[int, int]:
        """(growth, expected) in allocated blocks: how far the heap grew beyond the live heap expected, and that
        (what the last deep collection left, plus a session's share for each session that arrived since)."""
        arrived = max(0, self._sessions - self._sessions_at_deep) * self._blocks_per_session
        expected = round(self._blocks_after_deep + arrived)
        return self._allocated_blocks() - expected, expected

    # Policy --------------------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One step of the policy (run every ``freeze_interval`` seconds)."""
        if self._sessions == 0:
            if self._frozen_since_deep:
                self.collect_everything("idle")
                give_back_free_memory()
            return
        if self._enough_ended():
            self.collect_everything("sessions ended")
            return
        growth, expected = self.unexplained_growth()
        if growth >= max(self.settings.min_growth, self.settings.growth * expected):
            self.collect_everything("grown")
            return
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
        self._ended_since_deep = 0
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


def _libc_malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None  # not glibc: the allocator keeps what it keeps


_MALLOC_TRIM = _libc_malloc_trim()


def give_back_free_memory() -> None:
    """Hand the C allocator's free pages back to the system (glibc's ``malloc_trim``), once a host has emptied:
    without it, the memory of every session that has left stays in the process's RSS for good."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


PROCESS_COLLECTOR = FreezingCollector()
"""The one collector of this process, shared by every SSH front in it."""
