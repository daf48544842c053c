"""A player who logged in with a key finds their seat again after the host process was killed and started again:
the seat is bound to the key's fingerprint in the host's store (no seat token is kept by the SSH front); their name
stays the key's too."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import asyncssh

from nothanks_server import Lobby, LobbySettings
from nothanks_server.tcp import TcpHost
from nothanks_tui.link import errors
from nothanks_tui.link.wire import PROTOCOL_VERSION
from tools.loadgen.terminal_client import TerminalClient

from ..net_helpers import WAIT, RawClient, nothanks_process, of_type
from .conftest import PROXY_KEY
from .test_game import sit_at_bot_table


async def start_server(data_dir: Path) -> tuple[asyncio.subprocess.Process, int]:
    """``nothanks server`` with an SSH port, as a real process on ``data_dir``; returns it and its SSH port."""
    process = await nothanks_process(
        "server", "--bind", "127.0.0.1", "--port", "0", "--ssh-port", "0", "--data-dir", str(data_dir),
        "--bot-pace", "0", "--turn-timer", "off",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    seen = []
    async with asyncio.timeout(WAIT * 3):
        while True:
            line = (await process.stdout.readline()).decode()
            seen.append(line)
            match = re.search(r"ssh -p (\d+)", line)
            if match:
                return process, int(match.group(1))
            assert line, "".join(seen)


async def test_a_key_seat_survives_the_host_being_killed_and_started_again(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    process, port = await start_server(tmp_path)
    try:
        first = await TerminalClient().connect(port, "carol", client_keys=[key])
        await sit_at_bot_table(first)
        process.send_signal(signal.SIGKILL)  # no goodbye: the store is all that is left
        await process.wait()
        await first.wait_closed()

        process, port = await start_server(tmp_path)
        again = await TerminalClient().connect(port, "carol", client_keys=[key])
        await again.wait_for("You: 11 chips", timeout=30)  # straight back to the table, no name asked
        assert "Your name at the table" not in again.text()
        await again.close()

        other_key = asyncssh.generate_private_key("ssh-ed25519")
        stranger = await TerminalClient().connect(port, "carol", client_keys=[other_key])
        await stranger.wait_for("Your name at the table")  # another key: no seat held for it
        stranger.send("\r")  # ...nor the name, which carol's key owns since before the SIGKILL
        await stranger.wait_for("about carol2?")
        await stranger.close()
    finally:
        if process.returncode is None:
            process.terminate()
            await process.wait()


async def test_only_the_hosts_own_fronts_may_name_a_key():
    """``key`` in hello takes ``via`` with the host's proxy key; ``resume_key`` takes such a hello."""
    lobby = Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=5))
    host = TcpHost(lobby, "127.0.0.1", 0, proxy_key=PROXY_KEY)
    await host.start()
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "mallory", "key": "SHA256:carol"}
    try:
        for extra in ({}, {"via": "192.0.2.7", "proxy_key": "a guess"}):
            client = await RawClient.connect(host.port, name=None)
            await client.send(hello | extra)
            refused = await client.next_frame()
            assert refused["type"] == "error" and refused["code"] == errors.BAD_FIELD
            await client.close()

        plain = await RawClient.connect(host.port, "plain")
        await plain.send({"type": "resume_key", "id": 1})
        refused = await plain.next_frame()
        assert refused["type"] == "error" and refused["code"] == errors.BAD_FIELD
        await plain.close()

        front = await RawClient.connect(host.port, name=None)
        await front.send(hello | {"via": "192.0.2.7", "proxy_key": PROXY_KEY})
        assert "held" not in await front.next_frame()  # a welcome, and no seat held for this key yet
        await front.send({"type": "create_table", "players": 3, "id": 1})
        joined = await front.until(of_type("joined"))
        assert lobby.key_seat("SHA256:carol") is not None

        again = await RawClient.connect(host.port, name=None)  # (a seat left before its game starts is given up)
        await again.send(hello | {"via": "192.0.2.7", "proxy_key": PROXY_KEY})
        welcome = await again.next_frame()
        assert welcome["held"] == {"table": joined["table"], "seat": 0, "name": "mallory"}
        await again.send({"type": "resume_key", "id": 2})
        resumed = await again.until(of_type("joined"))
        assert (resumed["table"], resumed["seat"], resumed["token"]) == (joined["table"], 0, None)
        await again.close()
        await front.close()
    finally:
        await host.close("the test is over")
