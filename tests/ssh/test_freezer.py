"""A worker's tick (ssh/worker.py) collects the cycles that died young, then freezes what is alive, so automatic
collections never walk the players' apps."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from nothanks_server.ssh.worker import Freezer


@pytest.fixture
def frozen() -> Iterator[None]:
    """The test's process freezes as a worker does (``gc.freeze``); unfrozen and collected after it."""
    gc.collect()
    yield
    gc.unfreeze()
    gc.collect()


class Node:
    def __init__(self) -> None:
        self.other: Any = None


def cycle() -> tuple[Node, Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, second


def test_a_tick_collects_young_cycles_before_it_freezes(frozen: None) -> None:
    freezer = Freezer()
    gc.disable()  # only the tick collects here
    try:
        first, second = cycle()
        ref = weakref.ref(first)
        del first, second
        kept, _ = cycle()

        freezer.tick()
        unfrozen = len(gc.get_objects())

        assert ref() is None  # garbage already: not frozen with the rest
        assert unfrozen == 0 and kept.other.other is kept  # the rest is frozen, and whole
        assert freezer.ticks == 1 and "1 freezes" in freezer.summary()
    finally:
        gc.enable()


def test_a_cycle_that_dies_once_frozen_stays_until_the_process_ends(frozen: None) -> None:
    """What the worker leaves to its recycling (front.py): no collection of the young generations frees it."""
    freezer = Freezer()
    first, _ = cycle()
    ref = weakref.ref(first)
    freezer.tick()
    del first, _
    freezer.tick()
    assert ref() is not None
