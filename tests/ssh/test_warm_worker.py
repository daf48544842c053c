"""A worker draws the game's first screen once before it says it is ready (``GameAppFactory.warm_up``, awaited by
``SessionServer.prepare``), so its first player does not pay for the pages that first app copies; and it leaves
nothing behind: no app, task or thread, and the sessions after it are served as before."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from pathlib import Path
from typing import Any

from nothanks_server.ssh.game import GameAppFactory, SSHGameApp, make_app_factory
from nothanks_server.ssh.server import SessionServer
from nothanks_server.ssh.session import SSHPlayer
from nothanks_server.ssh.settings import SSHSettings, WorkerPlan
from tools.loadgen.terminal_client import TerminalClient


def plan(tmp_path: Path) -> WorkerPlan:
    settings = SSHSettings(host_key_path=tmp_path / "ssh_host_ed25519_key")
    return WorkerPlan(0, settings, "127.0.0.1", 9, tmp_path, logging.INFO)


def live_apps() -> list[SSHGameApp]:
    gc.collect()
    return [thing for thing in gc.get_objects() if isinstance(thing, SSHGameApp)]


async def test_the_warm_up_draws_the_welcome_screen_and_leaves_nothing_behind(tmp_path: Path) -> None:
    factory = make_app_factory(plan(tmp_path))
    assert isinstance(factory, GameAppFactory)
    before = live_apps()
    tasks = asyncio.all_tasks()
    threads = threading.active_count()
    assert await factory.warm_up() == "WelcomeScreen"
    assert live_apps() == before  # the warm-up's app is gone (what it filled in the process stays: the point)
    assert asyncio.all_tasks() == tasks
    assert threading.active_count() == threads


async def test_prepare_awaits_the_app_factory_warm_up_once_and_does_without_one(tmp_path: Path) -> None:
    class Counting:
        warmed = 0

        def __call__(self, player: SSHPlayer) -> Any:
            raise AssertionError("no session in this test")

        async def warm_up(self) -> None:
            self.warmed += 1

    settings = SSHSettings(host_key_path=tmp_path / "ssh_host_ed25519_key")
    counting = Counting()
    await SessionServer(settings, counting).prepare()
    assert counting.warmed == 1
    await SessionServer(settings, lambda player: counting(player)).prepare()  # a plain function: nothing to warm


async def test_a_warmed_worker_serves_the_welcome_screen(tmp_path: Path, start_sessions: Any) -> None:
    factory = make_app_factory(plan(tmp_path))
    await factory.warm_up()  # type: ignore[attr-defined]  (what prepare() does in a worker)
    sessions = await start_sessions(factory)
    client = TerminalClient()
    await client.connect(sessions.port, "ann")
    await client.wait_for("Go to the tables")
    assert "ann" in client.text()  # the session's own player, not the warm-up's
    await client.close()
