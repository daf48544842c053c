"""``nothanks host --port 0`` and ``nothanks server --port 0``: the ports they print are the ones they listen on.

Both run as real processes (``host`` on a pseudo-terminal, since it draws its own app after printing); the test
connects to the printed ports, so a printed 0 or a stale requested port fails.
"""

from __future__ import annotations

import asyncio
import os
import pty
import re
import shutil
import signal
import subprocess
from pathlib import Path

import asyncssh
import pytest

from nothanks_tui.commands.net import hosting_lines

from .net_helpers import WAIT, RawClient, nothanks_process, of_type

SSH_PORT = re.compile(r"ssh -p (\d+)")  # what scripts/bench_ssh.py looks for


async def _reachable(port: int, ssh_port: int) -> str:
    """Both ports answer; the SSH host key's fingerprint (``SHA256:...``), as a connecting client sees it."""
    client = await RawClient.connect(port, "alice")
    await client.send({"type": "list_tables"})
    await client.until(of_type("tables"))
    client.writer.close()
    async with asyncssh.connect(
        "127.0.0.1", ssh_port, username="x", password="", known_hosts=None, client_keys=None, agent_path=None
    ) as conn:
        key = conn.get_server_host_key()
        assert key is not None
        return key.get_fingerprint("sha256")


def test_hosting_lines_name_the_given_ports():
    lines = hosting_lines("127.0.0.1", 40123, 40124)
    assert lines[0] == "Hosting on 127.0.0.1:40123. Others join with:"
    assert "  nothanks join 127.0.0.1:40123" in lines
    assert SSH_PORT.search(lines[-1]).group(1) == "40124"
    assert not any(SSH_PORT.search(line) for line in hosting_lines("127.0.0.1", 40123, None))


async def test_host_with_port_0_prints_the_ports_it_bound(tmp_path):
    main, secondary = pty.openpty()
    process = await nothanks_process(
        "host",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--ssh-port",
        "0",
        "--data-dir",
        str(tmp_path / "data"),
        "--players",
        "2",
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"},
    )
    os.close(secondary)
    output = bytearray()
    got_output = asyncio.Event()

    def read() -> None:
        try:
            output.extend(os.read(main, 65536))
        except OSError:
            pass
        got_output.set()

    loop = asyncio.get_running_loop()
    loop.add_reader(main, read)
    try:
        # A whole host starting (its app, its SSH front's workers): seconds under a loaded machine, not milliseconds.
        async with asyncio.timeout(WAIT * 3):
            while not SSH_PORT.search(output.decode(errors="replace")):
                got_output.clear()
                await got_output.wait()
        text = output.decode(errors="replace")
        port = int(re.search(r"Hosting on 127\.0\.0\.1:(\d+)\.", text).group(1))
        ssh_port = int(SSH_PORT.search(text).group(1))
        assert port != 0 and ssh_port != 0
        assert f"nothanks join 127.0.0.1:{port}" in text
        await _reachable(port, ssh_port)
    finally:
        loop.remove_reader(main)
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), WAIT)
            except TimeoutError:
                process.kill()
                await process.wait()
        os.close(main)


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _workers(pid: int) -> tuple[list[int], list[int]]:
    """The SSH worker processes of server ``pid`` (the children of its multiprocessing forkserver), and the
    forkserver."""
    forkservers = [child for child in _children(pid) if b"forkserver" in Path(f"/proc/{child}/cmdline").read_bytes()]
    return [worker for server in forkservers for worker in _children(server)], forkservers


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("workers", [1, 2])
async def test_server_with_port_0_prints_the_tcp_port_first_then_the_ssh_port(tmp_path, workers):
    process = await nothanks_process(
        "server",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--ssh-port",
        "0",
        "--data-dir",
        str(tmp_path),
        "--ssh-workers",
        str(workers),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        first = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
        port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", first).group(1))
        line = first
        while not SSH_PORT.search(line):
            line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
            assert line, "the server never printed its SSH port"
        ssh_port = int(SSH_PORT.search(line).group(1))
        assert port != 0 and ssh_port != 0
        assert f"ssh -p {ssh_port} play@127.0.0.1" in line  # the real address and port, no placeholder
        while "fingerprint" not in line:
            line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
            assert line, "the server never printed its host key's fingerprint"
        seen = await _reachable(port, ssh_port)
        assert f"256 {seen} (ED25519)" in line  # what players' ssh shows them, to check
        if shutil.which("ssh-keygen"):
            keygen = subprocess.run(
                ["ssh-keygen", "-lf", str(tmp_path / "ssh_host_ed25519_key.pub")], capture_output=True, text=True
            )
            bits, fingerprint = keygen.stdout.split()[:2]
            assert f"{bits} {fingerprint} (ED25519)" in line
        workers_seen, forkservers = _workers(process.pid)
        assert len(workers_seen) == workers and len(forkservers) == 1
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        assert not [pid for pid in workers_seen if _running(pid)], "a worker outlived the server"
        # The forkserver ends when it reads end of file from the server, which only the server's exit gives it.
        async with asyncio.timeout(WAIT):
            while [pid for pid in forkservers if _running(pid)]:
                await asyncio.sleep(0.05)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
