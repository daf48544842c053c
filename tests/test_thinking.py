"""The bots' searches and the coach may run in worker processes (server/nothanks_server/thinking.py): the same
moves as in the host's own threads, at a lower priority, and a worker that dies costs no move."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from nothanks_server import thinking
from nothanks_server.thinking import advise, advise_now
from nothanks_tui.bots import make_bot
from nothanks_tui.engine import Action, GameConfig, PlayerView, apply, legal_actions, new_game, view_for


def some_views(count: int) -> list[PlayerView]:
    views = []
    state = new_game(GameConfig(players=3), seed=5)
    move = 0
    while not state.finished and len(views) < count:
        if move % 5 == 2:
            views.append(view_for(state, state.to_move))
        take = move % 3 == 0 or Action.PASS not in legal_actions(state)
        state = apply(state, Action.TAKE if take else Action.PASS)
        move += 1
    return views


def niceness(_: object) -> int:
    return os.nice(0)


@pytest.fixture
def processes():
    thinking.use_processes(1)
    yield
    thinking.use_processes(0)


async def test_a_search_plays_the_same_move_in_a_worker_process_as_here(processes):
    bot = make_bot("hard", 7)
    views = some_views(6)
    assert [await thinking.choose(bot, view) for view in views] == [bot.choose(view) for view in views]
    assert thinking._pool is not None  # (they did run in the pool)
    view = views[0]
    assert await advise(view) == advise_now(view)  # the coach too


async def test_the_workers_run_below_the_host_and_quick_bots_stay_in_threads(processes):
    assert await thinking.run_search(niceness, None) == min(19, os.nice(0) + thinking.WORKER_NICENESS)
    thinking.stop()
    rules = make_bot("rules", 1)
    view = some_views(1)[0]
    assert await thinking.choose(rules, view) == rules.choose(view)
    assert thinking._pool is None  # a quick bot never starts the pool


async def test_a_worker_that_dies_costs_no_move(processes):
    bot = make_bot("hard", 3)
    view = some_views(1)[0]
    expected = bot.choose(view)
    assert await thinking.choose(bot, view) == expected
    pool = thinking._pool
    assert pool is not None
    for process in list(pool._processes.values()):  # the test's way to kill a worker (no public handle)
        os.kill(process.pid, signal.SIGKILL)
    assert await thinking.choose(bot, view) == expected  # the pool broke: this search ran in a thread
    assert await thinking.choose(bot, view) == expected  # and a new pool serves the next one
    assert thinking._pool is not None and thinking._pool is not pool


async def test_without_processes_everything_runs_in_threads():
    thinking.use_processes(0)
    bot = make_bot("hard", 2)
    view = some_views(1)[0]
    assert await thinking.choose(bot, view) == bot.choose(view)
    assert thinking._pool is None


HOST_SCRIPT = """
import asyncio, os, sys
from nothanks_server import thinking

def worker_pid(_):
    return os.getpid()

async def main():
    thinking.use_processes(1)
    print(await thinking.run_search(worker_pid, None), flush=True)
    await asyncio.sleep(60)

if __name__ == "__main__":
    asyncio.run(main())
"""


async def test_a_worker_ends_when_its_host_is_killed(tmp_path):
    """A host killed with SIGKILL cannot stop its pool: its workers must notice and end by themselves."""
    script = tmp_path / "host.py"
    script.write_text(HOST_SCRIPT)
    host = await asyncio.create_subprocess_exec(sys.executable, str(script), stdout=asyncio.subprocess.PIPE)
    line = await asyncio.wait_for(host.stdout.readline(), 60)
    worker = int(line)
    assert running(worker)
    host.kill()
    await host.wait()
    deadline = time.monotonic() + 30
    while running(worker):
        assert time.monotonic() < deadline, "the worker outlived its host"
        await asyncio.sleep(0.1)  # (polling for the process to go: it checks for its host every second)


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that runs (an ended one that nobody has reaped yet, a zombie, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_a_pool_that_cannot_start_leaves_the_bots_thinking_in_threads(processes, monkeypatch):
    """Where worker processes cannot start (as under an app that replaced stderr, before the resource tracker was
    started), every move is still the bot's own, and the host stops trying: a bot must never fall back to taking
    every card."""

    def cannot_start() -> None:
        raise ValueError("bad value(s) in fds_to_keep")

    monkeypatch.setattr(thinking, "_executor", cannot_start)
    bot = make_bot("hard", 4)
    views = some_views(3)
    assert [await thinking.choose(bot, view) for view in views] == [bot.choose(view) for view in views]
    assert thinking._processes == 0


def worker_pid(_: object) -> int:
    return os.getpid()


async def test_a_host_started_inside_a_running_app_searches_in_worker_processes(tmp_path, monkeypatch):
    """The start screen's "Host a game" starts its host while the app runs, when ``sys.stderr`` is Textual's
    capture (no file descriptor): the resource tracker did not start, and the bots thought in the app's threads."""
    from textual.app import App

    from nothanks_tui.client.launchers import HostChoice
    from nothanks_tui.commands.launchers import LocalLaunchers
    from nothanks_tui.link import NewTable

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    launchers = LocalLaunchers(bot_pace=0, bot_processes=1, advertise=False)
    seen: dict[str, object] = {}
    done = asyncio.Event()

    class Hosting(App):
        async def on_mount(self) -> None:
            seen["stderr has a descriptor"] = _has_descriptor(sys.stderr)
            hosting = await launchers.host_game(HostChoice("zoe", 0, NewTable(players=3), bind="127.0.0.1"))
            try:
                seen["processes"] = thinking._processes
                seen["searched in"] = await thinking.run_search(worker_pid, None)
            finally:
                await hosting.close()
                done.set()

    try:
        async with Hosting().run_test():
            await asyncio.wait_for(done.wait(), 60)
    finally:
        thinking.use_processes(0)
    assert seen["stderr has a descriptor"] is False  # (so this is the case that failed)
    assert seen["processes"] == 1
    assert seen["searched in"] != os.getpid()


def _has_descriptor(stream: object) -> bool:
    try:
        return stream.fileno() >= 0  # type: ignore[attr-defined]
    except Exception:
        return False
