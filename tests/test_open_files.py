"""The host lifts its open-file limit to what its connection caps need, within what the system allows."""

from __future__ import annotations

import asyncio
import logging
import re
import resource
from pathlib import Path

import pytest

from nothanks_server.host import SPARE_FILES, raise_open_file_limit
from nothanks_server.tcp import MAX_CONNECTIONS

from .net_helpers import WAIT, local_server_process


@pytest.fixture
def soft_limit():
    """Run with a lowered soft limit (as systemd's 1,024 would be), and put the original back afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"this system's hard limit ({hard}) leaves no room to test")
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
    yield hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_soft_limit_is_raised_to_what_the_caps_need(soft_limit, caplog):
    with caplog.at_level(logging.WARNING):
        assert raise_open_file_limit(1500) == 1500 + SPARE_FILES
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (1500 + SPARE_FILES, soft_limit)
    assert not caplog.records


def test_a_limit_already_high_enough_is_left_alone(soft_limit):
    assert raise_open_file_limit(100) == 512
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 512


def test_never_above_the_hard_limit_and_the_log_says_so(soft_limit, caplog):
    if soft_limit == resource.RLIM_INFINITY:
        pytest.skip("no hard limit here")
    with caplog.at_level(logging.WARNING):
        assert raise_open_file_limit(soft_limit) == soft_limit
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == soft_limit
    assert "ulimit -n" in caplog.text and "LimitNOFILE" in caplog.text


async def test_a_server_started_with_a_low_limit_raises_it(tmp_path):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < MAX_CONNECTIONS + SPARE_FILES:
        pytest.skip(f"this system's hard limit ({hard}) is below what the server asks for")

    def systemd_like() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))

    process = await local_server_process(tmp_path, preexec_fn=systemd_like)
    try:
        await asyncio.wait_for(process.stdout.readline(), WAIT)  # serving by now
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        soft = int(re.search(r"Max open files\s+(\d+)", limits).group(1))
        assert soft >= MAX_CONNECTIONS + SPARE_FILES
    finally:
        process.terminate()
        await process.wait()


async def test_the_limit_covers_every_connection_the_ssh_front_may_hold(tmp_path):
    """Not only its sessions and logins: up to ``--ssh-max-connections`` connections, which its workers hold."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    wanted = MAX_CONNECTIONS + 3000 + SPARE_FILES
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this system's hard limit ({hard}) is below what the server asks for")
    arguments = ("--ssh-port", "0", "--ssh-max-connections", "3000", "--ssh-host-key", str(tmp_path / "key"))
    process = await local_server_process(
        tmp_path, *arguments, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    )
    try:
        await asyncio.wait_for(process.stdout.readline(), WAIT)  # serving by now
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        assert int(re.search(r"Max open files\s+(\d+)", limits).group(1)) >= wanted
    finally:
        process.terminate()
        await process.wait()
