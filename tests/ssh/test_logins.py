"""Connections that never log in cannot keep players out: logins in progress are capped below the sessions, the
oldest of the biggest holder gives way."""

from __future__ import annotations

import argparse
import asyncio

from nothanks_server.ssh.server import BUSY_MESSAGE
from nothanks_server.ssh.settings import SSHSettings
from nothanks_tui.commands.ssh_options import add_ssh_options, ssh_settings_from
from tools.loadgen.terminal_client import TerminalClient


async def idle_connection(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection that says it speaks SSH and then sends nothing more (each one costs the host a socket)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"SSH-2.0-idle\r\n")
    await writer.drain()
    await reader.readline()  # the host's version line: the host has this connection's gate by now
    return reader, writer


async def test_idle_connections_give_way_to_a_player_oldest_first(start_sessions):
    front = await start_sessions(max_logins=3, max_sessions=4)
    idle = [await idle_connection(front.port) for _ in range(5)]
    for reader, _ in idle[:2]:  # the two oldest were closed when the fourth and fifth came
        async with asyncio.timeout(10):
            said = await reader.read()  # to the end: the host closed it
        assert BUSY_MESSAGE.encode() in said
    assert front.logins_evicted == 2

    player = await TerminalClient().connect(front.port)  # one more: the oldest idle one makes room again
    await player.wait_for("No Thanks!")
    async with asyncio.timeout(10):
        assert BUSY_MESSAGE.encode() in await idle[2][0].read()
    assert front.logins_evicted == 3
    assert not idle[3][0].at_eof() and not idle[4][0].at_eof()  # the newer ones wait for their login timeout
    assert front.logins_in_progress == 2  # the player counts as logged in, not as a login in progress

    for _, writer in idle:
        writer.close()
    await front.wait_until(lambda: front.logins_in_progress == 0, timeout=10)
    player.send("z")
    await player.wait_for("last: z")  # the player was never disturbed
    await player.close()


def test_the_login_cap_stays_below_the_session_cap_so_that_it_fires(tmp_path):
    assert SSHSettings(host_key_path=tmp_path / "key").login_limit == 64
    assert SSHSettings(host_key_path=tmp_path / "key", max_sessions=1000).login_limit == 64
    assert SSHSettings(host_key_path=tmp_path / "key", max_logins=128, max_sessions=100).login_limit == 99
    assert SSHSettings(host_key_path=tmp_path / "key", max_logins=0, max_sessions=1).login_limit == 1


def test_the_command_line_sets_the_login_cap():
    default = ssh_settings_for(["--ssh-port", "2222"])
    chosen = ssh_settings_for(["--ssh-port", "2222", "--max-logins", "16", "--max-sessions", "32"])
    assert default is not None and default.login_limit == 64
    assert chosen is not None and chosen.login_limit == 16


def ssh_settings_for(arguments: list[str]) -> SSHSettings | None:
    """The SSH front's settings as the command line would make them (``nothanks server``'s SSH options only)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--data-dir", default="/tmp/nothanks-test")
    add_ssh_options(parser)
    return ssh_settings_from(parser.parse_args(arguments))


def test_the_command_line_sets_the_workers_and_their_recycling():
    settings = ssh_settings_for(
        ["--ssh-port", "0", "--ssh-workers", "2", "--ssh-worker-sessions", "50", "--ssh-worker-mib", "300"]
    )
    assert settings is not None and (settings.workers, settings.worker_sessions, settings.worker_mib) == (2, 50, 300)
