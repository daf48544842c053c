"""A worker gives back the screens its players left, though its heap is frozen (ssh/subgraph.py, ssh/reclaimer.py,
ssh/freezer.py): what only cycles keep is freed, nothing still in use is touched, and the freezing goes on."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Static

from nothanks_server.ssh.freezer import Freezer
from nothanks_server.ssh.player import SSHPlayer
from nothanks_server.ssh.reclaimer import TRIES, Reclaimer
from nothanks_server.ssh.subgraph import reclaim


@pytest.fixture
def frozen() -> Iterator[None]:
    """The test's process freezes as a worker does (``gc.freeze``); unfrozen and collected after it."""
    gc.collect()
    yield
    gc.unfreeze()
    gc.collect()


class Node:
    """An object with attributes, as most of a screen's are."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.other: Any = None
        self.items: list[Any] = []


def cycle(name: str) -> tuple[Node, Node]:
    first, second = Node(name), Node(name + "'")
    first.other, second.other = second, first
    first.items.append(second.items)
    return first, second


def test_a_frozen_cycle_is_freed_by_its_reclaim_and_not_by_a_collection(frozen: None) -> None:
    first, second = cycle("closed")
    ref = weakref.ref(first)
    gc.freeze()
    del first, second
    gc.collect()
    assert ref() is not None  # frozen: no collection looks at it (the debt)

    result = reclaim([ref])

    assert ref() is None
    assert result.garbage >= 2 and not result.gave_up


def test_what_something_still_refers_to_is_left_whole(frozen: None) -> None:
    first, second = cycle("used")
    ref = weakref.ref(first)
    gc.freeze()
    del first

    result = reclaim([ref])

    assert ref() is not None and second.other is ref()  # kept, through ``second``
    assert second.other.other is second and second.other.name == "used" and second.other.items == [second.items]
    assert result.garbage == 0


def test_garbage_that_refers_to_something_alive_leaves_it_whole(frozen: None) -> None:
    alive = Node("alive")
    alive.items.append("kept")
    first, second = cycle("closed")
    first.items.append(alive)
    ref = weakref.ref(first)
    gc.freeze()
    del first, second

    reclaim([ref])

    assert ref() is None
    assert alive.items == ["kept"] and alive.name == "alive"


def test_what_a_live_weak_set_can_hand_out_is_not_emptied(frozen: None) -> None:
    first, second = cycle("weakly held")
    registry: weakref.WeakSet[Node] = weakref.WeakSet([first])
    ref = weakref.ref(first)
    gc.freeze()
    del first, second

    reclaim([ref])

    (found,) = list(registry)  # it could still be reached: it must still be whole
    assert found.name == "weakly held" and found.other.other is found


class Loud(dict[str, Any]):
    """A dict whose own ``clear`` must not run on garbage (it would run code of ours on half-emptied objects)."""

    def clear(self) -> None:
        raise AssertionError("a subclass's clear ran")


def test_garbage_is_emptied_by_the_built_ins_own_clear(frozen: None) -> None:
    first, second = cycle("loud")
    first.items.append(Loud(back=second))
    ref = weakref.ref(first)
    gc.freeze()
    del first, second

    reclaim([ref])

    assert ref() is None


def test_a_root_reaching_more_than_the_limit_is_left_alone(frozen: None) -> None:
    first, second = cycle("large")
    first.items.extend(Node(str(number)) for number in range(50))
    ref = weakref.ref(first)
    gc.freeze()
    del first, second

    result = reclaim([ref], limit=20)

    assert result.gave_up and result.garbage == 0
    assert ref() is not None and len(ref().items) == 51  # type: ignore[union-attr]


def test_a_tick_collects_young_cycles_before_it_freezes(frozen: None) -> None:
    freezer = Freezer()
    gc.disable()  # only the tick collects here
    try:
        first, second = cycle("young")
        ref = weakref.ref(first)
        del first, second
        kept, kept_ref = cycle("in use")

        freezer.tick()
        unfrozen = len(gc.get_objects())

        assert ref() is None  # garbage already: not frozen with the rest
        assert unfrozen == 0 and kept_ref.other is kept  # the rest is frozen
    finally:
        gc.enable()


# A Textual app in a worker-like setup ------------------------------------------------------------------------------


class Dialog(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Your name")
            yield Input(placeholder="name")
            yield Checkbox("Spectators welcome")
            yield Button("Create")


class Game(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("lobby")


PLAYER = SSHPlayer("tester", None, "-", "xterm-256color", "truecolor")


def worker_like() -> tuple[Freezer, App[Any]]:
    """A worker's freezer and reclaimer (ticked by hand here), and one app made by its factory."""
    freezer = Freezer(Reclaimer(budget=60.0))
    assert freezer.reclaimer is not None
    return freezer, freezer.reclaimer.watching(lambda player: Game())(PLAYER)


async def test_a_screen_left_after_the_freeze_is_freed_and_the_app_plays_on(frozen: None) -> None:
    freezer, app = worker_like()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = Dialog()
        await app.push_screen(dialog)
        await pilot.press("a", "b")
        freezer.tick(now=0.0)  # the worker's tick sees the dialog on the stack, and freezes it with the rest
        ref = weakref.ref(dialog)
        del dialog
        await app.pop_screen()
        await pilot.pause()
        gc.collect()
        assert ref() is not None  # removed by Textual, kept by its frozen cycles (the debt)
        freezer.tick(now=1.0)  # noticed closed: tried TRIES[0] seconds later
        assert ref() is not None and freezer.reclaimer is not None and freezer.reclaimer.pending == 1

        freezer.tick(now=1.0 + TRIES[0])
        unfrozen = len(gc.get_objects())

        assert ref() is None
        assert freezer.reclaimer is not None and freezer.reclaimer.stats.freed == 1
        assert freezer.reclaimer.stats.objects > 100
        assert unfrozen == 0 and gc.get_freeze_count() > 0  # the freezing goes on: every object left is frozen
        again = Dialog()
        await app.push_screen(again)  # the app plays on
        await pilot.press("x")
        assert again.query_one(Input).value == "x"
        assert str(app.screen_stack[0].query_one(Static).render()) == "lobby"


async def test_a_screen_still_on_the_stack_is_left_alone(frozen: None) -> None:
    freezer, app = worker_like()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(Dialog())
        await pilot.press("a")
        freezer.tick(now=0.0)
        await pilot.press("b")
        for now in (1.0, *TRIES, 100.0):
            freezer.tick(now=now)
        assert freezer.reclaimer is not None and freezer.reclaimer.stats.screens == 0
        assert app.screen.query_one(Input).value == "ab"
