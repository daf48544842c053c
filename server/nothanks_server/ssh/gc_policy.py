"""Rarer full garbage collections while SSH sessions run: each one stops every player's app at once.

Every SSH player's Textual app lives in the host process, each with some ten thousand objects the cyclic
garbage collector tracks (widgets, styles, cached lines). Python's default thresholds (700, 10, 10) ran a full
collection every few seconds at 50 sessions, and each walked over half a million objects: 0.5-0.8 s during
which no player's screen moved (measured with the play phase of scripts/bench_ssh.py: 8 full collections in
21 s, 5.4 s in total). Nearly all of what a frame allocates dies young and is freed by reference counting, so
the young generations keep their default thresholds and only full collections are made rarer. Cyclic garbage
that reached the old generation (a finished session's app, for one) waits longer to be freed: memory, not
latency, and ``SSHFront.live_apps`` still collects fully when asked.
"""

from __future__ import annotations

import gc

FULL_COLLECTION_THRESHOLD = 1000  # young-generation collections between full ones (Python's default: 10)


def relax_full_collections() -> tuple[int, int, int]:
    """Make full collections rare; returns the thresholds to restore."""
    previous = gc.get_threshold()
    young, middle, _old = previous
    gc.set_threshold(young, middle, max(previous[2], FULL_COLLECTION_THRESHOLD))
    return previous  # type: ignore[return-value]


def restore(thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(*thresholds)
