"""Where the bots' searches and the coach run: in worker processes when the host asks for them, else in threads.

A table's bots decide off the event loop, in threads (``asyncio.to_thread``). But a thread holds Python's one
interpreter while it searches, and the loop that serves every player of the host waits for it: about 5 ms a wake-up
per searching thread, p99 100-165 ms with four (scripts/bench_bot_gil.py, docs/benchmarks.md). So ``nothanks
server`` and ``nothanks host`` send the searches (``PubMctsBot``: ``hard``, ``expert``, ``pubmcts:N``;
``IsmctsBot``: ``ismcts:N``; and the coach, which asks ``hard``) to a pool of worker processes at a lower priority
than the host (nice +10): players are served first, the bots take the CPU that is left. A search is a pure function
of (seed, view), so it plays the same move in any process (tests/test_thinking.py). The quick bots stay in threads:
a process would cost them more than they cost, and ``easy`` and ``random`` keep their random state in the bot object
itself.

The pool starts with the first search, in processes started afresh (``spawn``: none of the host's threads,
sockets or event loop is inherited; as Python's spawn does, a worker runs the host's main script as
``__mp_main__``, so an entry point must keep its work under ``if __name__ == "__main__"``, as the ``nothanks``
command does; a package's ``__main__``, ``python -m nothanks_tui``'s, is not run again). A worker ends when the
host does, however it ends. If the pool breaks (a worker killed), a new one is started for the next search, and
the search that saw it break runs in a thread instead. ``use_processes(0)``, the default, keeps everything in
threads: tests, and ``nothanks play``, where nobody else waits for the loop.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker
from typing import TypeVar

from nothanks_tui.bots import Bot
from nothanks_tui.bots.ismcts import IsmctsBot
from nothanks_tui.bots.pubmcts import PubMctsBot
from nothanks_tui.engine import Action, PlayerView

log = logging.getLogger(__name__)

DEFAULT_PROCESSES = min(max(1, (os.cpu_count() or 1) // 2), 8)  # half the cores: SSH workers need some
WORKER_NICENESS = 10  # below the host: a player's message is read before a bot's search goes on
PARENT_CHECK = 1.0  # seconds between a worker's looks at whether the host is still there
Argument = TypeVar("Argument")
Result = TypeVar("Result")

_processes = 0
_pool: ProcessPoolExecutor | None = None


def use_processes(processes: int) -> None:
    """Searches run in ``processes`` worker processes from now on (0: in threads). The pool starts when needed;
    multiprocessing's resource tracker starts now (``_start_resource_tracker``: also from inside a running app,
    the start screen's "Host a game")."""
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
    """Start multiprocessing's resource tracker (the pool needs it) with a standard error of its own: under a
    running Textual app ``sys.stderr`` has no file descriptor, and the tracker would not start (the start screen's
    "Host a game" thought in threads because of it); and a terminal that an app draws on must get nothing of it."""
    try:
        descriptor = sys.stderr.fileno()  # -1 from Textual's capture of standard error
        own = descriptor >= 0 and not os.isatty(descriptor) and os.fstat(descriptor) is not None
    except (AttributeError, OSError, ValueError):
        own = False
    if own:  # a log file or a pipe (``nothanks server``): the tracker's rare warnings go there
        resource_tracker.ensure_running()
        return
    own_stderr = sys.stderr
    with open(os.devnull, "w") as quiet:
        sys.stderr = quiet
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = own_stderr


def processes() -> int:
    """How many worker processes searches may use (0: they run in threads)."""
    return _processes


def stop() -> None:
    """End the worker processes (a search still running there is given up): the host is closing."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def _start_worker() -> None:
    """In each worker as it starts: below the host's priority, and gone when the host is (a host killed with
    SIGKILL cannot stop its pool, and a worker waiting for work would wait forever)."""
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # (not allowed here: the search runs at the host's priority)
        pass
    if os.isatty(2):  # the terminal an app draws on (``nothanks host``): nothing of a worker's may land there
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


def _executor() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        context = multiprocessing.get_context("spawn")
        _pool = ProcessPoolExecutor(max_workers=_processes, mp_context=context, initializer=_start_worker)
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
    """``bot.choose(view)`` off the event loop: a search in the worker processes (if used), a quick bot in a
    thread."""
    if isinstance(bot, (IsmctsBot, PubMctsBot)):
        return await run_search(bot.choose, view)
    return await asyncio.to_thread(bot.choose, view)
