"""``nothanks server`` as a real process: it prints how to join, serves, and on SIGTERM/SIGINT tells clients it is
restarting (what it keeps: tests/test_store_restart.py)."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from pathlib import Path

import pytest

from .net_helpers import WAIT, RawClient, nothanks_process, of_type


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_server_process_shuts_down_cleanly_and_tells_its_clients(tmp_path, signum):
    process = await nothanks_process(
        "server",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--bot-pace",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
        port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
        client = await RawClient.connect(port, "alice")
        await client.send({"type": "create_table", "players": 2, "bots": 1})
        await client.until(of_type("joined"))
        process.send_signal(signum)
        closing = await client.until(of_type("closing"))
        assert "restarting" in closing["reason"] and closing["restart"] is True  # come back: the game is kept
        assert await client.closed()
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        rest = (await process.stdout.read()).decode()
        assert "stopped" in rest
        assert b"Traceback" not in await process.stderr.read()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def start_server(tmp_path):
    process = await nothanks_process(
        "server",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--bot-pace",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
    return process, int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))


async def test_the_minimal_client_in_docs_protocol_md_plays_a_game_to_the_end(tmp_path):
    doc = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()
    snippet = doc.split("## A minimal client (Python)")[1].split("```python")[1].split("```")[0]
    process, port = await start_server(tmp_path)
    try:
        code = snippet.replace("7777", str(port)) + "\nprint('finished', view['finished'])\n"
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(client.communicate(), WAIT)
        assert client.returncode == 0, err.decode()
        assert out.decode().strip() == "finished True"
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        assert len(list(tmp_path.glob("*.json"))) == 1
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_join_reports_an_unreachable_host_and_a_bad_address(capsys):
    import socket

    from nothanks_tui.cli import main

    with socket.socket() as probe:  # a port nobody listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        assert main(["join", f"127.0.0.1:{port}", "--name", "x"]) == 1
    assert "cannot reach" in capsys.readouterr().out
    assert main(["join", "127.0.0.1:notaport"]) == 2


def test_host_refuses_more_bots_than_free_seats(capsys):
    from nothanks_tui.cli import main

    assert main(["host", "--bind", "127.0.0.1", "--port", "0", "--players", "3", "--bots", "3"]) == 2
    assert "--bots must be 0..2" in capsys.readouterr().err


def test_lan_addresses_are_ipv4_and_never_loopback():
    import ipaddress

    from nothanks_tui.commands.addresses import lan_addresses

    for address in lan_addresses():
        parsed = ipaddress.IPv4Address(address)
        assert not parsed.is_loopback
