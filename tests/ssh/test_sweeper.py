"""The sweeper frees a finished app's cycles by reference counting, and never touches anything still in use.

Unit tests build small object graphs with known owners; the end-to-end tests run real game sessions over SSH and
check that a departure is freed without any deep garbage collection.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from nothanks_server.ssh import sweeper
from nothanks_server.ssh.collector import PROCESS_COLLECTOR
from nothanks_server.ssh.sweeper import SessionTasks, sweep

from .cli_settings import ssh_settings_for
from .terminal_client import TerminalClient
from .test_game import game_front, sit_at_bot_table  # noqa: F401 - the fixture is used by name


class Node:
    """Stands in for a widget: a parent, children, and whatever else it holds."""

    def __init__(self, parent: Node | None = None) -> None:
        self.parent = parent
        self.children: list[Node] = []
        self.extra: Any = None
        if parent is not None:
            parent.children.append(self)


class LongLived:
    """Stands in for the host's own objects (a lobby): a stop type."""

    def __init__(self) -> None:
        self.held: list[Any] = []


def finished_app(children: int = 3) -> tuple[weakref.ref[Node], list[weakref.ref[Node]]]:
    """A tree in cycles that nothing else holds: weak references to its root and to each child."""
    root = Node()
    kids = [Node(root) for _ in range(children)]
    return weakref.ref(root), [weakref.ref(kid) for kid in kids]


@pytest.fixture(autouse=True)
def no_automatic_collection() -> Iterator[None]:
    """What the sweep frees must be freed by the sweep, not by a collection that happens to run meanwhile."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def test_an_app_held_only_by_its_own_cycles_is_freed_by_the_sweep():
    app, kids = finished_app()
    assert app() is not None, "in cycles: reference counting alone does not free it"
    result = sweep(app)
    assert result.freed and result.reason == ""
    assert app() is None and all(kid() is None for kid in kids)
    assert result.garbage >= 8  # 4 nodes, their 4 instance dicts or values, and the list of children


def test_an_app_still_held_from_outside_is_left_untouched():
    app, kids = finished_app()
    holder = [app()]  # e.g. a task that has not finished yet
    result = sweep(app)
    assert not result.freed and result.reason == "still referenced from outside"
    assert holder[0].children and all(kid() is not None and kid().parent is holder[0] for kid in kids)


def test_what_the_app_shares_with_live_objects_stays_intact():
    shared = {"rules": [1, 2, 3]}  # e.g. the parsed CSS every session uses
    app, _kids = finished_app()
    app().extra = shared
    app().children[0].extra = shared["rules"]
    result = sweep(app)
    assert result.freed and app() is None
    assert shared == {"rules": [1, 2, 3]}


def test_a_child_still_held_from_outside_keeps_the_app_it_reaches():
    app, kids = finished_app()
    held = kids[1]()  # e.g. a widget a live object still refers to: its parent link reaches the root
    result = sweep(app)
    assert not result.freed
    assert held.parent is app() and len(held.parent.children) == 3


def test_the_walk_stops_at_the_hosts_long_lived_objects():
    lobby = LongLived()
    app, _kids = finished_app()
    lobby.held.append(app().children[0])  # the lobby still refers to one of the app's objects
    app().extra = lobby
    result = sweep(app, stop_types=(LongLived,))
    assert not result.freed, "held from a stopped object: that counts as from outside"
    assert lobby.held[0].parent is app()
    lobby.held.clear()
    result = sweep(app, stop_types=(LongLived,))
    assert result.freed and app() is None
    assert lobby.held == [] and isinstance(lobby, LongLived)  # walked around, not into


def test_related_objects_that_hold_the_app_are_swept_with_it():
    """A finished worker's task in a cycle with its context refers to the app; the app does not reach it."""
    app, _kids = finished_app()
    worker = Node()
    worker.extra = [app(), worker]  # the worker's cycle, and its reference to the app
    worker_ref = weakref.ref(worker)
    del worker
    assert not sweep(app).freed, "seen only from the app, the worker is a reference from outside"
    result = sweep(app, related=[worker_ref])
    assert result.freed and app() is None and worker_ref() is None


def test_a_suspended_generator_is_closed_while_what_it_uses_is_intact():
    seen: list[Any] = []

    def reader(node: Node) -> Iterator[None]:
        try:
            while True:
                yield
        finally:
            seen.append(len(node.children))  # the finally block runs on an app not yet cleared

    app, _kids = finished_app()
    generator = reader(app())
    next(generator)
    app().extra = generator
    del generator
    result = sweep(app)
    assert result.freed and app() is None
    assert seen == [3]


def test_weak_containers_in_the_garbage_raise_nothing_as_they_go(monkeypatch):
    unraisable: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: unraisable.append(repr(info.exc_value)))
    app, kids = finished_app()
    registry: weakref.WeakKeyDictionary[Node, int] = weakref.WeakKeyDictionary()
    watchers: weakref.WeakSet[Node] = weakref.WeakSet()
    for number, kid in enumerate(kids):
        registry[kid()] = number  # type: ignore[index]
        watchers.add(kid())  # type: ignore[arg-type]
    app().extra = (registry, watchers)
    del registry, watchers
    result = sweep(app)
    assert result.freed and app() is None
    assert unraisable == []


def test_a_suspended_async_generator_keeps_everything_for_the_deep_collection():
    async def stream(node: Node) -> Any:
        try:
            while True:
                yield node
        finally:
            pass

    app, _kids = finished_app()
    generator = stream(app())
    app().extra = generator
    with pytest.raises(StopIteration):
        generator.__anext__().send(None)  # runs it to its first yield, where it stays suspended
    del generator
    result = sweep(app)
    assert not result.freed and "async generator" in result.reason
    assert len(app().children) == 3


def test_a_walk_that_reaches_too_far_clears_nothing(monkeypatch):
    monkeypatch.setattr(sweeper, "MAX_WALK", 3)
    app, _kids = finished_app(children=5)
    result = sweep(app)
    assert not result.freed and result.reason == "the walk reached too far"
    assert len(app().children) == 5


def test_an_app_already_gone_is_reported_freed():
    dead = weakref.ref(Node())  # no cycle: reference counting freed it at once
    result = sweep(dead)
    assert result.freed and result.reason == "already freed" and result.walked == 0


async def test_the_task_factory_remembers_the_tasks_made_in_a_watched_apps_context():
    from textual._context import active_app

    tasks = SessionTasks(active_app)
    loop = asyncio.get_running_loop()
    tasks.install(loop)
    try:
        app = Node()
        tasks.watch(app)

        async def work() -> None:
            return None

        def start_in_the_apps_context() -> asyncio.Task[None]:
            active_app.set(app)  # type: ignore[arg-type]
            return loop.create_task(work())

        import contextvars

        task = contextvars.Context().run(start_in_the_apps_context)
        other = loop.create_task(work())  # no app in its context: not remembered
        await asyncio.gather(task, other)
        [remembered] = tasks.alive(id(app))
        assert isinstance(remembered, weakref.ref) and remembered() is task  # weak: it keeps no task alive
        tasks.forget(id(app))
        assert tasks.watched() == 0
    finally:
        tasks.uninstall()
    assert loop.get_task_factory() is None


# End to end: real sessions over SSH ----------------------------------------------------------------------------


def deep_reasons_since(count: int) -> list[str]:
    new = PROCESS_COLLECTOR.deep_collection_count - count
    return [item.reason for item in PROCESS_COLLECTOR.deep_collections[-new:]] if new else []


async def test_a_player_who_played_and_left_is_freed_without_a_deep_collection(game_front):  # noqa: F811
    gc.enable()  # the host as it runs: its own freezing collector and the ordinary one
    deep_before = PROCESS_COLLECTOR.deep_collection_count
    client = await TerminalClient().connect(game_front.port, "leaver")
    await sit_at_bot_table(client)
    client.send("n")
    await client.wait_for("You: 10 chips")
    client.send("t")
    await client.wait_for("You: ")
    [app] = list(game_front._running_apps)
    gone = weakref.ref(app)
    del app
    PROCESS_COLLECTOR.tick()  # its objects are frozen, out of the ordinary collector's reach
    await client.close()
    await game_front.wait_until(lambda: sum(game_front.sweep_counts.values()) == 1, timeout=30)
    assert game_front.sweep_counts == {"freed": 1, "kept": 0}, game_front.sweeps[-1]
    assert gone() is None
    assert "sessions ended" not in deep_reasons_since(deep_before)  # an idle host's collection may run: nobody waits
    assert game_front.sweeps[-1].garbage > 1000
    [table] = game_front.test_lobby.tables()
    assert table.started  # the table the player left plays on with its bots


async def test_sessions_that_come_and_go_leave_nothing_for_the_deep_collection(game_front):  # noqa: F811
    gc.enable()
    deep_before = PROCESS_COLLECTOR.deep_collection_count
    staying = await TerminalClient().connect(game_front.port, "stays")
    await sit_at_bot_table(staying)
    for number in range(3):
        visitor = await TerminalClient().connect(game_front.port, f"visitor{number}")
        await visitor.wait_for("Your name at the table")
        await visitor.close()
    await game_front.wait_until(lambda: sum(game_front.sweep_counts.values()) == 3, timeout=30)
    assert game_front.sweep_counts == {"freed": 3, "kept": 0}
    assert deep_reasons_since(deep_before) == []
    staying.send("n")  # the player still at the table was not disturbed
    await staying.wait_for("You: 10 chips")
    assert game_front.running_apps == 1
    await staying.close()


def test_the_server_sweeps_unless_told_not_to():
    swept = ssh_settings_for(["--ssh-port", "2222"])
    kept = ssh_settings_for(["--ssh-port", "2222", "--no-ssh-sweep"])
    assert swept is not None and swept.sweep_finished_apps
    assert kept is not None and not kept.sweep_finished_apps


def test_other_threads_are_held_back_only_while_a_sweep_counts(monkeypatch):
    seen: list[float] = []
    real = sweeper._sweep

    def spy(*args: Any) -> Any:
        seen.append(sys.getswitchinterval())
        return real(*args)

    monkeypatch.setattr(sweeper, "_sweep", spy)
    before = sys.getswitchinterval()
    app, _kids = finished_app()
    assert sweep(app).freed
    assert seen == [sweeper.HOLD_THREADS] and sys.getswitchinterval() == before


async def test_two_fronts_task_factories_come_off_in_any_order():
    from textual._context import active_app

    loop = asyncio.get_running_loop()
    first, second = SessionTasks(active_app), SessionTasks(active_app)
    first.install(loop)
    second.install(loop)
    first.uninstall()  # the first front stops first: the second's factory stays, and passes over the first's
    task = loop.create_task(asyncio.sleep(0))
    await task
    second.uninstall()
    assert loop.get_task_factory() is None, "nothing of either front is left on the loop"
