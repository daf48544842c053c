"""The coach at the host: what the ``hard`` bot would play in a player's place, worked out off the event loop.

A player at a table that allows it may ask (the ``coach`` message; in-process, ``InProcessTable.ask_coach``). The
``Table`` checks the request and hands over the asking seat's own view, never the game's state: the bot sees
exactly what the player sees. The search runs in this module's small pool of threads, like the bots' own moves,
so the table goes on while it thinks; the answer goes to the asker only. A few searches at a time at most for the
whole host: beyond that a request is refused (``slow_down``) rather than left to queue behind others.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from nothanks_tui.bots.coaching import coach
from nothanks_tui.engine import PlayerView
from nothanks_tui.link import CoachAdvice, errors

from . import thinking
from .errors import HostError

COACH_THREADS = 2  # searches running at once, host-wide (a search is 1-35 ms of one core: C or Python loop)
COACH_QUEUE = 16  # searches waiting or running, host-wide, before a request is refused

_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_in_flight = 0


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=COACH_THREADS, thread_name_prefix="coach")
        return _pool


def advise_now(view: PlayerView) -> CoachAdvice:
    """The coach's answer for ``view``'s seat (blocking: call it in a worker thread)."""
    advice = coach(view)
    return CoachAdvice(
        state_id=view.state_id,
        action=advice.action.value,
        take_score=advice.take_score,
        pass_score=advice.pass_score,
    )


async def advise(view: PlayerView) -> CoachAdvice:
    """``advise_now(view)`` in the coach's threads; ``HostError(slow_down)`` when the host has too many waiting."""
    global _in_flight
    if _in_flight >= COACH_QUEUE:
        raise HostError(errors.SLOW_DOWN, "the coach is busy with other players: ask again in a moment")
    _in_flight += 1
    try:
        if thinking.processes() > 0:  # the host's worker processes (thinking.py): not the loop's interpreter
            return await thinking.run_search(advise_now, view)
        return await asyncio.get_running_loop().run_in_executor(_executor(), advise_now, view)
    finally:
        _in_flight -= 1
