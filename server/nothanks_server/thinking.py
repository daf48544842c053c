"""Where the bots' searches and the coach run: in worker processes when the host asks for them, else in threads.

A searching thread holds Python's one interpreter while the loop serving every player waits (p99 100-165 ms with
four: scripts/bench_bot_gil.py). So a host sends the searches (``PubMctsBot``, ``IsmctsBot``, the coach) to
workers below its priority; a search is a pure function of (seed, view), the same move in any process. Workers
are spawned afresh (an entry point keeps its work under ``if __name__ == "__main__"``), end with the host, and a
broken pool is replaced at the next search. ``use_processes(0)``, the default, keeps all in threads."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker
from typing import TypeVar

from nothanks_tui.bots import Bot
from nothanks_tui.bots.coaching import coach
from nothanks_tui.bots.ismcts import IsmctsBot
from nothanks_tui.bots.pubmcts import PubMctsBot
from nothanks_tui.engine import Action, PlayerView
from nothanks_tui.link import CoachAdvice, errors

from .errors import HostError

log = logging.getLogger(__name__)

DEFAULT_PROCESSES = min(max(1, (os.cpu_count() or 1) // 2), 8)  # half the cores: SSH workers need some
WORKER_NICENESS = 10  # below the host: a player's message is read before a bot's search goes on
PARENT_CHECK = 1.0  # seconds between a worker's looks at whether the host is still there
COACH_THREADS = 2  # coach searches running at once in threads, host-wide (one is 1-35 ms of one core)
COACH_QUEUE = 16  # coach searches waiting or running, host-wide, before a request is refused
Argument = TypeVar("Argument")
Result = TypeVar("Result")

_processes = 0
_pool: concurrent.futures.ProcessPoolExecutor | None = None
_coach_threads: concurrent.futures.ThreadPoolExecutor | None = None
_coach_lock = threading.Lock()
_coaching = 0


def use_processes(processes: int) -> None:
    """Searches run in ``processes`` worker processes from now on (0: in threads). The pool starts when needed;
    multiprocessing's resource tracker starts now (also from inside a running app: the start screen's "Host")."""
    global _processes
    if processes != _processes:
        stop()
    _processes = max(0, processes)
    if _processes:
        try:
            _start_resource_tracker()
        except Exception:
            log.exception("bot worker processes cannot start here: the bots think in threads")
            _processes = 0


def _start_resource_tracker() -> None:
    """Start the pool's resource tracker with a standard error of its own: under a Textual app ``sys.stderr`` has
    no file descriptor (the tracker would not start), and the terminal an app draws on must get nothing of it."""
    try:
        descriptor = sys.stderr.fileno()  # -1 from Textual's capture of standard error
        own = descriptor >= 0 and not os.isatty(descriptor) and os.fstat(descriptor) is not None
    except (AttributeError, OSError, ValueError):
        own = False
    # Own: a log file or a pipe (``nothanks server``), where the tracker's rare warnings go.
    with open(os.devnull, "w") as quiet, contextlib.redirect_stderr(sys.stderr if own else quiet):
        resource_tracker.ensure_running()


def stop() -> None:
    """End the worker processes (a search still running there is given up): the host is closing."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def _start_worker() -> None:
    """In each worker: below the host's priority, silent on the host's terminal, and gone when the host is (a
    host killed with SIGKILL cannot stop its pool)."""
    with contextlib.suppress(OSError):  # (not allowed here: the search runs at the host's priority)
        os.nice(WORKER_NICENESS)
    if os.isatty(2):  # the terminal an app draws on (``nothanks host``)
        quiet = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1, 2):
            os.dup2(quiet, descriptor)
        os.close(quiet)
    host = os.getppid()

    def end_with_the_host() -> None:
        while os.getppid() == host:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=end_with_the_host, name="end-with-the-host", daemon=True).start()


def _executor() -> concurrent.futures.ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ProcessPoolExecutor(_processes, multiprocessing.get_context("spawn"), _start_worker)
    return _pool


async def run_search(search: Callable[[Argument], Result], argument: Argument) -> Result:
    """``search(argument)`` in the worker processes if the host uses them, else in a thread. ``search`` and
    ``argument`` must pickle (a module-level function or a bound method of a plain object; frozen dataclasses)."""
    global _processes
    if _processes > 0:
        try:
            future = asyncio.get_running_loop().run_in_executor(_executor(), search, argument)
        except Exception:  # the pool cannot start workers here (it never could, or can no longer)
            log.exception("bot worker processes cannot start: from now on the bots think in threads")
            stop()
            _processes = 0
        else:
            try:
                return await future
            except BrokenProcessPool:
                log.warning("a bot worker process ended: new ones start with the next search; this one runs here")
                stop()
    return await asyncio.to_thread(search, argument)


async def choose(bot: Bot, view: PlayerView) -> Action:
    """``bot.choose(view)`` off the event loop: a search in the workers (if used), a quick bot in a thread."""
    if isinstance(bot, (IsmctsBot, PubMctsBot)):
        return await run_search(bot.choose, view)
    return await asyncio.to_thread(bot.choose, view)


def advise_now(view: PlayerView) -> CoachAdvice:
    """The coach's answer for ``view``'s seat (blocking: call it off the loop)."""
    advice = coach(view)
    return CoachAdvice(view.state_id, advice.action.value, advice.take_score, advice.pass_score)


async def advise(view: PlayerView) -> CoachAdvice:
    """What ``hard`` would play in the seat of ``view`` (``Table.ask_coach``), in the workers or the coach's few
    threads; ``HostError(slow_down)`` when too many wait, host-wide."""
    global _coaching, _coach_threads
    if _coaching >= COACH_QUEUE:
        raise HostError(errors.SLOW_DOWN, "the coach is busy with other players: ask again in a moment")
    _coaching += 1
    try:
        if _processes > 0:
            return await run_search(advise_now, view)
        with _coach_lock:
            if _coach_threads is None:
                _coach_threads = concurrent.futures.ThreadPoolExecutor(COACH_THREADS, "coach")
        return await asyncio.get_running_loop().run_in_executor(_coach_threads, advise_now, view)
    finally:
        _coaching -= 1
