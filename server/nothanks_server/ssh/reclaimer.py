"""Gives back the screens a worker's players have left, and the apps of players who have gone, despite the freeze.

A worker freezes its heap every second (worker.py), so that no automatic collection walks the players' apps. A
screen a player passes through (welcome, lobby, the new-table dialog, the waiting room) usually lives longer than
that second: when Textual removes it, its widgets are frozen, and the reference cycles among them (a widget and its
styles, its parent and children, bound methods in its own attributes) keep them until the worker exits. So does a
departed player's whole app.

``Reclaimer`` notices them without touching Textual: the app factory is wrapped to remember each app (weakly), and
at each ``tick`` (the worker's freezer, once a second) it reads each app's public ``screen_stack``. A screen seen
there before, gone from it, and whose message loop has ended (``is_running``) has been removed; an app seen
running that is no longer has ended. Each is then handed to ``subgraph.reclaim``, which frees what only cycles
among the objects it reaches keep, and looks at nothing else (the other players' apps are not walked; another app
is where it stops). What something still uses is never freed: it is simply found alive.

A departed app is also kept alive by Textual's key parser cache (``XTermParser._parse_extended_key``, an
``lru_cache`` whose keys include each session's parser, and through it its app): the cache is emptied when an app
has ended, before its reclaim. It only saves parsing a key sequence seen before; every other session fills it
again as it reads keys.

Each reclaim runs in one go (a pause for this worker's players, as long as the walk of what the root reaches); a
tick does at most ``TICK_BUDGET`` seconds of them and leaves the rest for the next. The worst is logged with a
summary when the worker stops (``summary``), and ``stats`` keeps the counts.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual._xterm_parser import XTermParser
from textual.app import App

from .player import SSHPlayer
from .session import AppFactory
from .subgraph import reclaim

log = logging.getLogger(__name__)

TICK_BUDGET = 0.02  # seconds of reclaiming per tick at most (one reclaim is never cut: it may run over)
APP_TRIES = 3  # ticks an ended app is tried at (its session lets go of it a moment after its app has ended)


@dataclass
class ReclaimStats:
    """What a worker's reclaimer has done so far."""

    screens: int = 0  # closed screens looked at
    screens_freed: int = 0  # ... of which freed
    apps: int = 0  # ended apps looked at
    apps_freed: int = 0  # ... of which freed
    objects: int = 0  # garbage objects emptied
    gave_up: int = 0  # roots that reached more than subgraph.LIMIT objects
    seconds: float = 0.0  # spent reclaiming
    longest: float = 0.0  # the longest single reclaim, in seconds


class _Watched:
    """One app, weakly, with the screens seen on its stack."""

    __slots__ = ("app", "screens", "started")

    def __init__(self, app: App[Any]) -> None:
        self.app = weakref.ref(app)
        self.screens: dict[int, weakref.ref[Any]] = {}
        self.started = False


class Reclaimer:
    """Which screens and apps of this worker are closed, and their cycles freed, a little at each ``tick``."""

    def __init__(self, budget: float = TICK_BUDGET) -> None:
        self.budget = budget
        self.stats = ReclaimStats()
        self._watched: list[_Watched] = []
        self._screens: deque[weakref.ref[Any]] = deque()
        self._apps: deque[tuple[_Watched, int]] = deque()  # (the app, tries left)

    def watching(self, factory: AppFactory) -> AppFactory:
        """``factory``, remembering each app it makes (weakly)."""

        def make(player: SSHPlayer) -> App[Any]:
            app = factory(player)
            self._watched.append(_Watched(app))
            return app

        return make

    def tick(self) -> None:
        """Notice what has closed since the last tick, and reclaim some of it (``budget`` seconds)."""
        self._notice()
        deadline = time.perf_counter() + self.budget
        while (self._screens or self._apps) and time.perf_counter() < deadline:
            if self._screens:
                self._reclaim_screen(self._screens.popleft())
            else:
                self._reclaim_app(*self._apps.popleft())

    @property
    def pending(self) -> int:
        """Closed screens and ended apps waiting for their reclaim."""
        return len(self._screens) + len(self._apps)

    def summary(self) -> str:
        s = self.stats
        return (
            f"reclaimed {s.screens_freed} of {s.screens} closed screens and {s.apps_freed} of {s.apps} ended apps, "
            f"{s.objects} objects, in {1000 * s.seconds:.0f} ms (longest {1000 * s.longest:.0f} ms, "
            f"{s.gave_up} too large)"
        )

    def _notice(self) -> None:
        kept = []
        for watched in self._watched:
            app = watched.app()
            if app is None:
                continue
            if app.is_running:
                watched.started = True
                on_stack = {id(screen) for screen in app.screen_stack}
                for screen in app.screen_stack:
                    watched.screens.setdefault(id(screen), weakref.ref(screen))
                for key, ref in list(watched.screens.items()):
                    seen = ref()
                    if seen is None:
                        del watched.screens[key]
                    elif key not in on_stack and not seen.is_running:
                        del watched.screens[key]
                        self._screens.append(ref)
                seen = None
                kept.append(watched)
            elif watched.started:  # it ran and has ended
                self._apps.append((watched, APP_TRIES))
            else:
                kept.append(watched)  # not started yet
        self._watched = kept

    def _reclaim_screen(self, ref: weakref.ref[Any]) -> None:
        if ref() is None:  # freed already (it was young: the collector had it)
            return
        self.stats.screens += 1
        self._run([ref], lambda item: isinstance(item, App))
        if ref() is None:
            self.stats.screens_freed += 1

    def _reclaim_app(self, watched: _Watched, tries: int) -> None:
        ref = watched.app
        if ref() is None:
            return
        _forget_parsed_keys()
        # Its screens too: one still on its stack when it ended is no longer reachable from it, but refers to it
        self._run([ref, *watched.screens.values()], lambda item: isinstance(item, App) and item is not ref())
        if ref() is None:
            self.stats.apps += 1
            self.stats.apps_freed += 1
        elif tries > 1:
            self._apps.append((watched, tries - 1))
        else:
            self.stats.apps += 1

    def _run(self, roots: list[weakref.ref[Any]], stop: Callable[[object], bool]) -> None:
        started = time.perf_counter()
        result = reclaim(roots, stop)
        took = time.perf_counter() - started
        self.stats.objects += result.garbage
        self.stats.gave_up += result.gave_up
        self.stats.seconds += took
        self.stats.longest = max(self.stats.longest, took)


def _forget_parsed_keys() -> None:
    """Empty Textual's key parser cache, whose keys hold parsers (and, through each, its app)."""
    clear = getattr(XTermParser._parse_extended_key, "cache_clear", None)
    if clear is not None:
        clear()
