"""Free a finished session's app by reference counting, so a departure needs no deep garbage collection.

A Textual app is a web of reference cycles (widgets and their parents, styles and their nodes, workers and their
tasks), so when a session ends nothing of it is freed until the cycle collector finds it. In this host its objects
are frozen (collector.py), so only a *deep* collection finds them, and that walks the whole heap: about 1 s with 50
players, during which nobody's key is answered. It used to run after every dozen departures.

``sweep`` instead runs the cycle collector's own algorithm on the small part of the heap that one finished app can
reach (about 4,000 objects for a visitor who left at the welcome screen, 7,500 for a seated player, whatever the
number of sessions):

1. Walk ``gc.get_referents`` from the app and from the tasks that ran in its context (a finished worker's task and
   its context keep the app in a cycle the app itself does not reach), stopping at modules, classes, the host's
   long-lived objects (other apps, sessions, the lobby and tables, the event loop, loggers, threads) and what all
   sessions share (parsed CSS): server.py's ``SWEEP_STOP_TYPES``.
2. Count the references each object gets from inside the walk. An object whose reference count is higher is held
   from outside: it, and everything it reaches, is live. Whatever is left is garbage that only its own cycles
   keep: nothing outside can reach it, so nothing can see it change.
3. Break those cycles (close suspended generators first, then empty weak containers, containers and instance
   dicts) and let reference counting free them, like the collector's own clearing step.

It is conservative by construction: a reference the walk does not see (from a stopped object, or C code that does
not report it) counts as from outside and keeps its target. If an internal count is ever larger than the object's
reference count, something was miscounted: nothing is cleared. If anything outside still holds the app, nothing is
cleared either and the departure is left to the deep collection, as before (``SweepResult.freed`` says which).
The walk and the count run without yielding to the event loop, and with the interpreter's other threads held back:
a 10-20 ms pause for everyone at one departure (25-45 ms when many leave at the same moment), in place of a
whole-heap pause at every dozen departures.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
import types
import weakref
from collections import OrderedDict, defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

MAX_WALK = 100_000  # objects: a walk past this reached something shared it should have stopped at; nothing cleared
HOLD_THREADS = 5.0  # seconds: the interpreter's thread switch interval during a sweep (it takes milliseconds)

_CLOSABLE = (types.GeneratorType, types.CoroutineType)
_WEAK_CONTAINERS = (weakref.WeakKeyDictionary, weakref.WeakValueDictionary, weakref.WeakSet)
_NOT_CLEARED = (types.FunctionType, type, types.ModuleType)


@dataclass(frozen=True)
class SweepResult:
    """What one sweep found and did."""

    walked: int  # objects the walk reached
    garbage: int  # of them, held only by their own cycles (cleared when ``freed``)
    freed: bool  # the app was garbage and its cycles were broken (it is gone once the sweep returns)
    seconds: float
    reason: str = ""  # why nothing was cleared, when ``freed`` is False


def sweep(
    app_ref: weakref.ref[Any],
    related: Iterable[weakref.ref[Any]] = (),
    stop_types: tuple[type, ...] = (),
) -> SweepResult:
    """Free what only the cycles of ``app_ref``'s app (and of ``related`` objects, such as its tasks) keep alive.

    Only weak references come in: a strong one held by the caller would count as a reference from outside.
    Objects of ``stop_types`` (besides the app itself) are not walked into, nor are modules and classes. Other
    Python threads (the bots think in threads) are kept from running while it counts: the count holds only if no
    reference in the walk changes between reading the walk's references and the reference counts.
    """
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(HOLD_THREADS)
    try:
        return _sweep(app_ref, related, stop_types)
    finally:
        sys.setswitchinterval(switch_interval)


def _sweep(
    app_ref: weakref.ref[Any],
    related: Iterable[weakref.ref[Any]],
    stop_types: tuple[type, ...],
) -> SweepResult:
    """``sweep`` itself: walk, count, and break the garbage's cycles."""
    started = time.perf_counter()
    objects: list[Any] = [app_ref()]
    if objects[0] is None:
        return SweepResult(0, 0, True, time.perf_counter() - started, "already freed")
    index: dict[int, int] = {id(objects[0]): 0}
    for ref in related:
        objects.append(ref())
        if objects[-1] is None or id(objects[-1]) in index:
            objects.pop()
        else:
            index[id(objects[-1])] = len(objects) - 1
    stop = (type, types.ModuleType, *stop_types)
    module_dicts = {id(module.__dict__) for module in list(sys.modules.values()) if hasattr(module, "__dict__")}
    get_referents, is_tracked = gc.get_referents, gc.is_tracked
    edges: list[list[int]] = []  # ids of each object's referents, resolved to indices once the walk is done
    position = 0
    while position < len(objects):
        referent_ids = []
        for referent in get_referents(objects[position]):
            key = id(referent)
            referent_ids.append(key)
            if key in index or key in module_dicts or not is_tracked(referent) or isinstance(referent, stop):
                continue
            index[key] = len(objects)
            objects.append(referent)
        edges.append(referent_ids)
        position += 1
        if len(objects) > MAX_WALK:
            return _kept(started, len(objects), "the walk reached too far")
    referent = None  # the walk's last referent: a reference of our own, not to be counted as from outside
    total = len(objects)
    inside = [0] * total
    links: list[list[int]] = []
    for referent_ids in edges:
        targets = [index[key] for key in referent_ids if key in index]
        for target in targets:
            inside[target] += 1
        links.append(targets)
    del edges
    getrefcount = sys.getrefcount
    # the list's slot and getrefcount's own argument are the two references of ours to each object
    outside = [getrefcount(objects[number]) - 2 - inside[number] for number in range(total)]
    if min(outside) < 0:
        return _kept(started, total, "an object had more references from inside than in all")
    live = bytearray(total)
    reached = deque(number for number in range(total) if outside[number] > 0)
    for number in reached:
        live[number] = 1
    while reached:
        for target in links[reached.popleft()]:
            if not live[target]:
                live[target] = 1
                reached.append(target)
    if live[0]:
        return _kept(started, total, "still referenced from outside")
    garbage = [objects[number] for number in range(total) if not live[number]]
    del objects, index, links, live, outside, inside
    if any(isinstance(item, types.AsyncGeneratorType) and item.ag_frame is not None for item in garbage):
        return _kept(started, total, "a suspended async generator (its finalizer would run on cleared objects)")
    _break_cycles(garbage)
    count = len(garbage)
    del garbage  # the last references: reference counting frees it all here
    return SweepResult(total, count, True, time.perf_counter() - started)


def _kept(started: float, walked: int, reason: str) -> SweepResult:
    return SweepResult(walked, 0, False, time.perf_counter() - started, reason)


def _break_cycles(garbage: list[Any]) -> None:
    """Clear every container in ``garbage`` (all of it unreachable), in an order that keeps finalizers sound.

    Suspended generators and coroutines are closed first, while what their ``finally`` blocks use is intact. Weak
    containers are emptied through their own methods before any instance dict is cleared, so that no weak
    reference callback of theirs runs on a half-cleared container. Objects with a ``__del__`` keep their dicts.
    """
    plans: dict[type, int] = {}
    emptying: list[Any] = []  # the .clear of each weak container, run once every generator is closed
    clearing: list[Any] = []  # then the .clear of each container and instance dict, in the order found
    for item in garbage:
        kind = type(item)
        plan = plans.get(kind)
        if plan is None:
            plan = plans[kind] = _plan_for(kind)
        if not plan:
            continue
        if plan & _CLOSE:
            try:
                item.close()
            except BaseException:  # a finalizer's own failure: the real collector ignores it too
                log.debug("closing a generator of a finished app failed", exc_info=True)
        elif plan & _WEAK:
            emptying.append(item.clear)
        elif plan & _CELL:
            try:
                del item.cell_contents
            except ValueError:
                pass  # already empty
        elif plan & _FRAME:
            try:
                item.clear()
            except RuntimeError:
                pass  # still running (cannot be, for garbage)
        if plan & _CONTAINER:
            clearing.append(item.clear)
        if plan & _DICT:
            clearing.append(vars(item).clear)
    for clear in emptying:
        clear()
    for clear in clearing:
        clear()


_CLOSE, _WEAK, _CELL, _FRAME, _CONTAINER, _DICT = 1, 2, 4, 8, 16, 32
_CONTAINERS = (dict, list, set, deque, OrderedDict, defaultdict)


def _plan_for(kind: type) -> int:
    """What ``_break_cycles`` does to an object of this type (flags above; 0: leave it to reference counting)."""
    if issubclass(kind, _CLOSABLE):
        return _CLOSE
    if issubclass(kind, _WEAK_CONTAINERS):
        return _WEAK
    if kind is types.CellType:
        return _CELL
    if kind is types.FrameType:
        return _FRAME
    plan = _CONTAINER if kind in _CONTAINERS else 0
    if kind.__dictoffset__ and not issubclass(kind, _NOT_CLEARED) and getattr(kind, "__del__", None) is None:
        plan |= _DICT
    return plan


class SessionTasks:
    """Remembers, for each running session app, the tasks created in its context (a task factory on the loop).

    A finished worker's task and its context are in a cycle with the worker that the app no longer reaches; the
    sweep needs them as starting points to see that the whole app is garbage.
    """

    PRUNE_EVERY = 256  # the dead among a session's tasks are dropped from its list at every this many

    def __init__(self, context_app: Any) -> None:
        self._context_app = context_app  # the ContextVar that holds the app a task runs for
        self._tasks: dict[int, list[weakref.ref[asyncio.Task[Any]]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: Any = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop, self._previous = loop, loop.get_task_factory()
        loop.set_task_factory(self._create_task)

    def uninstall(self) -> None:
        """Put back the factory found at ``install``, leaving out any other ``SessionTasks`` that was uninstalled
        meanwhile (two fronts in one loop may stop in any order)."""
        loop, self._loop = self._loop, None
        self._tasks.clear()
        if loop is not None and loop.get_task_factory() == self._create_task:
            loop.set_task_factory(self._live_previous())

    def _live_previous(self) -> Any:
        previous = self._previous
        while isinstance(getattr(previous, "__self__", None), SessionTasks) and previous.__self__._loop is None:
            previous = previous.__self__._previous
        return previous

    def watch(self, app: Any) -> None:
        self._tasks[id(app)] = []

    def alive(self, app_id: int) -> list[weakref.ref[asyncio.Task[Any]]]:
        """The tasks of the app with this ``id`` that are still in memory."""
        return [ref for ref in self._tasks.get(app_id, ()) if ref() is not None]

    def forget(self, app_id: int) -> None:
        self._tasks.pop(app_id, None)

    def watched(self) -> int:
        return len(self._tasks)

    def _create_task(self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Task[Any]:
        # A stopped SessionTasks still on the chain records nothing (its lists are cleared) and passes tasks on.
        if self._previous is not None:
            task = self._previous(loop, coro, **options)
        else:
            task = asyncio.Task(coro, loop=loop, **options)
        context = options.get("context")
        app = context.get(self._context_app) if context is not None else self._context_app.get(None)
        if app is not None:
            tasks = self._tasks.get(id(app))
            if tasks is not None:
                tasks.append(weakref.ref(task))
                if len(tasks) % self.PRUNE_EVERY == 0:
                    tasks[:] = [ref for ref in tasks if ref() is not None]
        return task
