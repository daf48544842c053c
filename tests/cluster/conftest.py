"""A whole host (TCP port and SSH front) that believes PROXY headers from 127.0.0.2, the load balancer's
address in these tests; clients stand for other machines by connecting from other loopback addresses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from nothanks_server import LobbySettings
from nothanks_server.host import Host
from nothanks_server.limits import ClientLimits
from nothanks_server.proxy_protocol import ProxySources
from nothanks_server.ssh.settings import SSHSettings

BALANCER = "127.0.0.2"  # the load balancer's address: the one --proxy-from names
WAIT = 20.0  # upper bound on waits that normally finish in well under a second


@pytest.fixture
async def proxied_host(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """``await proxied_host(per_address_connections=N, ssh=False | dict of SSHSettings)`` -> a started ``Host``."""
    started: list[Host] = []

    async def start(per_address_connections: int = 32, ssh: dict[str, Any] | None = None) -> Host:
        settings = LobbySettings(data_dir=None, bot_delay=0.0, turn_timer=None, seed=3)
        ssh_settings = None
        if ssh is not None:
            ssh_settings = SSHSettings(
                **({"port": 0, "host_key_path": tmp_path / "ssh_host_ed25519_key", "bind": "127.0.0.1"} | ssh)
            )
        host = Host(
            settings,
            "127.0.0.1",
            0,
            ssh=ssh_settings,
            limits=ClientLimits(per_address_connections=per_address_connections),
            proxy_from=ProxySources.parse(BALANCER),
        )
        await host.start()
        started.append(host)
        return host

    yield start
    for host in started:
        await host.close("the test is over")


async def until(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    """Poll ``condition``: what a worker process or another program did has no event to wait on here."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server for this module's tests (each test uses its own key prefix): its URL."""
    from .redis_server import running_redis

    with running_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
async def directory(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A ``Directory`` on that server under a prefix of this test's own."""
    from nothanks_server.cluster.directory import Directory

    opened = await Directory.connect(redis_url, prefix=f"t-{request.node.name}")
    yield opened
    await opened.close()
