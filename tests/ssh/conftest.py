"""Fixtures for the SSH front's tests.

- ``start_sessions``: one worker's ``SessionServer`` in the test's own process, fed the connections of a listening
  socket as the front would hand them over (the session's behaviour, with its counts and logs at hand);
- ``start_host``: a whole host (lobby, TCP port, SSH front with its worker processes), as ``nothanks server`` runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.ssh.front import SSHFront
from nothanks_server.ssh.game import make_app_factory
from nothanks_server.ssh.server import SessionServer
from nothanks_server.ssh.session import AppFactory, SSHPlayer
from nothanks_server.ssh.settings import SSHSettings, WorkerPlan
from nothanks_server.tcp import TcpHost
from tools.loadgen.probe_app import ProbeApp

PROBE = "tools.loadgen.probe_app:make_probe_factory"
PROXY_KEY = "the host's secret for its own fronts"


class ListeningSessions:
    """A ``SessionServer`` and the socket whose connections it is handed; ``port`` is where clients connect.
    ``apps``: the session apps made (weakly held)."""

    def __init__(self, server: SessionServer, apps: weakref.WeakSet[Any]) -> None:
        self.server = server
        self.apps = apps
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self._task = asyncio.get_running_loop().create_task(self._accept())

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            connection, _ = await loop.sock_accept(self.listener)
            self.server.serve(connection)

    async def close(self, reason: str = "the test is over") -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self.listener.close()
        await self.server.close(reason)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.server, name)


@pytest.fixture
async def start_sessions(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    started: list[ListeningSessions] = []
    streams = sys.stdout, sys.stderr  # overlapping apps may leave Textual's print capture of one behind

    async def start(app_factory: AppFactory | None = None, **settings: Any) -> ListeningSessions:
        settings.setdefault("host_key_path", tmp_path / "ssh_host_ed25519_key")
        factory = app_factory or (lambda player: ProbeApp(player, tmp_path))
        apps: weakref.WeakSet[Any] = weakref.WeakSet()

        def tracked(player: SSHPlayer) -> Any:
            app = factory(player)
            apps.add(app)
            return app

        if hasattr(factory, "plain"):  # the game's plain front, for TERM=dumb and sessions without a pty
            tracked.plain = factory.plain  # type: ignore[attr-defined]

        sessions = ListeningSessions(SessionServer(SSHSettings(**settings), tracked), apps)
        started.append(sessions)
        return sessions

    yield start
    for sessions in started:
        await sessions.close()
    sys.stdout, sys.stderr = streams


@pytest.fixture
async def start_game_sessions(start_sessions: Any, tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """``await start_game_sessions(**ssh_settings)``: the game's sessions in this process, at the tables of a TCP
    host in this process (bots move at once)."""
    hosts: list[TcpHost] = []

    async def start(**options: Any) -> ListeningSessions:
        lobby = Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=11))
        host = TcpHost(lobby, "127.0.0.1", 0, proxy_key=PROXY_KEY)
        await host.start()
        hosts.append(host)
        settings = SSHSettings(host_key_path=tmp_path / "ssh_host_ed25519_key")
        plan = WorkerPlan(0, settings, "127.0.0.1", host.port, tmp_path, logging.INFO, proxy_key=PROXY_KEY)
        sessions = await start_sessions(make_app_factory(plan), **options)
        sessions.lobby = lobby
        sessions.host = host  # its TCP port, for a raw client beside the SSH players
        return sessions

    yield start
    for host in hosts:
        await host.close("the test is over")


@pytest.fixture
async def game_sessions(start_game_sessions: Any) -> AsyncIterator[ListeningSessions]:
    """The game's sessions (``start_game_sessions`` with the default settings)."""
    sessions = await start_game_sessions()
    yield sessions
    await sessions.close()


@pytest.fixture
async def start_host(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """``await start_host(**ssh_settings)`` -> the ``SSHFront``, with ``.lobby`` (the host's) set on it."""
    started: list[tuple[TcpHost, SSHFront]] = []

    async def start(**settings: Any) -> SSHFront:
        lobby = Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=5))
        host = TcpHost(lobby, "127.0.0.1", 0, proxy_key=PROXY_KEY)
        await host.start()
        settings.setdefault("host_key_path", tmp_path / "ssh_host_ed25519_key")
        settings.setdefault("port", 0)
        front = SSHFront(SSHSettings(**settings), "127.0.0.1", host.port, PROXY_KEY)
        await front.start()
        front.lobby = lobby  # type: ignore[attr-defined]
        started.append((host, front))
        return front

    yield start
    for host, front in started:
        await front.close("the test is over")
        await host.close("the test is over")


@pytest.fixture(autouse=True)
def _quiet_asyncssh() -> None:
    logging.getLogger("asyncssh").setLevel(logging.WARNING)


async def until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll ``condition``: state in another process (a worker, the host's TCP side) has no event to wait on here."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)
