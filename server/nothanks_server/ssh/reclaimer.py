"""Gives back the screens a worker's players have left, though the worker froze them while they were in use.

A worker freezes its heap every second (worker.py, freezer.py), so that no automatic collection walks the players'
apps. A screen a player passes through (welcome, lobby, the new-table dialog, the waiting room) may live longer
than that second: when Textual removes it, its widgets are frozen, and the reference cycles among them (a widget
and its styles, its parent and children, bound methods in its own attributes) keep them until the worker exits.

``Reclaimer`` notices closed screens without touching Textual: the app factory is wrapped to remember each app
(weakly), and at each ``tick`` (the worker's freezer, once a second) it reads each app's public ``screen_stack``. A
screen seen there before, gone from it, and whose message loop has ended (``is_running``) has been removed. It is
then handed to ``subgraph.reclaim`` (``TRIES`` seconds later, and again if something still referred to it), which
frees what only cycles among the objects it reaches keep, and looks at nothing else: the other players' apps are
not walked, the screen's own app is where it stops. What something still uses is never freed: it is found alive.

Not the apps of players who have gone: tried the same way (their screens as roots too, Textual's key parser cache
emptied first: it holds each session's parser and through it the app), they were still referred to from live
objects after 40 s (contexts of handles in the event loop, the driver), and each try walked 8,000-10,000 objects
(130-200 ms on the loaded test machine): docs/benchmarks.md, "Closed screens given back in a frozen heap". The
worker gives their memory back by ending (front.py's recycling).

Each reclaim runs in one go (a pause for this worker's players, as long as the walk of what the screen reaches); a
tick does at most ``TICK_BUDGET`` seconds of them and leaves the rest for the next. ``stats`` keeps the counts and
the longest, and ``summary`` says them (logged when the worker stops).
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import Any

from textual.app import App

from .player import SSHPlayer
from .session import AppFactory
from .subgraph import reclaim

TICK_BUDGET = 0.02  # seconds of reclaiming per tick at most (one reclaim is never cut: it may run over)
# When a closed screen is tried, in seconds after it was noticed: something alive may still refer to it for a while
# (a cancelled timer waits in the event loop until its time, with the context it was made in; Textual's
# ``App._compose_screen`` keeps the last screen composed), and each try costs a walk of what it reaches.
TRIES = (2.0, 10.0, 40.0)


@dataclass
class ReclaimStats:
    """What a worker's reclaimer has done so far."""

    screens: int = 0  # closed screens tried
    freed: int = 0  # ... of which freed
    tries: int = 0  # reclaims run
    objects: int = 0  # garbage objects emptied
    gave_up: int = 0  # screens that reached more than subgraph.LIMIT objects
    seconds: float = 0.0  # spent reclaiming
    longest: float = 0.0  # the longest single reclaim, in seconds


class _Watched:
    """One app, weakly, with the screens seen on its stack."""

    __slots__ = ("app", "screens", "started")

    def __init__(self, app: App[Any]) -> None:
        self.app = weakref.ref(app)
        self.screens: dict[int, weakref.ref[Any]] = {}
        self.started = False


class _Closed:
    """A closed screen waiting for its next try."""

    __slots__ = ("due", "screen", "tries")

    def __init__(self, due: float, screen: weakref.ref[Any]) -> None:
        self.due = due
        self.screen = screen
        self.tries = 0


class _WatchingFactory:
    """An app factory that remembers each app it makes, weakly (``Reclaimer.watching``). ``SessionServer.prepare``
    awaits a factory's ``warm_up`` (game.py draws the first screen once): this one passes it on."""

    def __init__(self, factory: AppFactory, watched: list[_Watched]) -> None:
        self.factory = factory
        self.watched = watched

    def __call__(self, player: SSHPlayer) -> App[Any]:
        app = self.factory(player)
        self.watched.append(_Watched(app))
        return app

    async def warm_up(self) -> object:
        warm_up = getattr(self.factory, "warm_up", None)
        return None if warm_up is None else await warm_up()


class Reclaimer:
    """Which screens of this worker's apps have closed, and their cycles freed, a little at each ``tick``."""

    def __init__(self, budget: float = TICK_BUDGET) -> None:
        self.budget = budget
        self.stats = ReclaimStats()
        self._watched: list[_Watched] = []
        self._closed: list[_Closed] = []

    def watching(self, factory: AppFactory) -> AppFactory:
        """``factory``, remembering each app it makes (weakly); its ``warm_up``, if it has one, is kept."""
        return _WatchingFactory(factory, self._watched)

    def tick(self, now: float | None = None) -> None:
        """Notice what has closed since the last tick, and try what is due (``budget`` seconds at most)."""
        now = time.monotonic() if now is None else now
        self._notice(now)
        deadline = time.perf_counter() + self.budget
        for closed in [closed for closed in self._closed if closed.due <= now]:
            if time.perf_counter() >= deadline:
                break
            self._closed.remove(closed)
            self._try(closed, now)

    @property
    def pending(self) -> int:
        """Closed screens still to be tried."""
        return len(self._closed)

    def summary(self) -> str:
        s = self.stats
        return (
            f"reclaimed {s.freed} of {s.screens} closed screens, {s.objects} objects, in {s.tries} tries, "
            f"{1000 * s.seconds:.0f} ms (longest {1000 * s.longest:.0f} ms, {s.gave_up} too large)"
        )

    def _notice(self, now: float) -> None:
        kept = []
        for watched in self._watched:
            app = watched.app()
            if app is None:
                continue
            if app.is_running:
                watched.started = True
                stack = app.screen_stack
                on_stack = {id(screen) for screen in stack}
                for screen in stack:
                    watched.screens.setdefault(id(screen), weakref.ref(screen))
                for key, ref in list(watched.screens.items()):
                    seen = ref()
                    if seen is None:
                        del watched.screens[key]
                    elif key not in on_stack and not seen.is_running:
                        del watched.screens[key]
                        self._closed.append(_Closed(now + TRIES[0], ref))
                seen = screen = stack = None  # type: ignore[assignment]
                kept.append(watched)
            elif not watched.started:
                kept.append(watched)  # not started yet (one that has ended is forgotten)
        self._watched = kept

    def _try(self, closed: _Closed, now: float) -> None:
        ref = closed.screen
        if ref() is None:  # freed already (young: the collector had it)
            return
        self.stats.screens += closed.tries == 0
        closed.tries += 1
        started = time.perf_counter()
        result = reclaim([ref], lambda item: isinstance(item, App))
        took = time.perf_counter() - started
        self.stats.tries += 1
        self.stats.objects += result.garbage
        self.stats.gave_up += result.gave_up
        self.stats.seconds += took
        self.stats.longest = max(self.stats.longest, took)
        if ref() is None:
            self.stats.freed += 1
        elif closed.tries < len(TRIES):
            closed.due = now + TRIES[closed.tries] - TRIES[closed.tries - 1]
            self._closed.append(closed)
