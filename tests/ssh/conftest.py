"""Fixtures for SSH front tests: a front on 127.0.0.1, any free port, with a fresh host key in a temp dir."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from nothanks_server.ssh import AppFactory, SSHFront, SSHPlayer, SSHSettings

from .probe_app import ProbeApp


@pytest.fixture
async def start_front(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    fronts: list[SSHFront] = []

    async def start(app_factory: AppFactory | None = None, **settings: Any) -> SSHFront:
        settings.setdefault("host_key_path", tmp_path / "ssh_host_ed25519_key")
        settings.setdefault("port", 0)
        factory = app_factory or (lambda player: ProbeApp(player, tmp_path))
        front = SSHFront(SSHSettings(**settings), factory)
        await front.start()
        fronts.append(front)
        return front

    yield start
    for front in fronts:
        await front.close()


@pytest.fixture
def players() -> list[SSHPlayer]:
    return []
