"""``nothanks server --redis --role ...`` as real processes: a table host prints its table port, a front its
client port first (the line harnesses parse); a client of the front plays at the table host's table; a table
port refuses a plain client; SIGTERM stops each cleanly."""

from __future__ import annotations

import asyncio
import signal

from nothanks_tui.link.wire import PROTOCOL_VERSION

from ..net_helpers import RawClient, local_server_process, of_type
from .conftest import WAIT


async def lines_until_ready(process: asyncio.subprocess.Process) -> list[str]:
    assert process.stdout is not None
    lines: list[str] = []
    while not lines or not lines[-1].startswith("Ctrl-C"):
        line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
        assert line, f"the server exited: {lines} {(await process.stderr.read()).decode() if process.stderr else ''}"
        lines.append(line.rstrip("\n"))
    return lines


def port_of(line: str) -> int:
    return int(line.split(";")[0].rsplit(":", 1)[1])


async def test_a_front_and_a_table_host_as_processes(redis_url, tmp_path):
    # (the processes use the default key prefix: this module's Redis serves this test alone)
    secret = tmp_path / "secret"
    secret.write_text("the members' secret, long enough\n")
    cluster = ("--redis", redis_url, "--cluster-secret-file", str(secret), "--no-advertise")
    table = await local_server_process(tmp_path / "t", *cluster, "--role", "table", "--host-id", "t-1")
    front = None
    try:
        table_lines = await lines_until_ready(table)
        assert table_lines[0].startswith("nothanks server listening on 127.0.0.1:")
        assert table_lines[1] == f"table port 127.0.0.1:{port_of(table_lines[0])}"
        front = await local_server_process(tmp_path / "f", *cluster, "--role", "front")
        front_lines = await lines_until_ready(front)
        assert front_lines[0].startswith("nothanks server listening on 127.0.0.1:")
        assert not any(line.startswith("table port") for line in front_lines)

        stranger = await RawClient.connect(port_of(table_lines[0]), None)
        await stranger.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve"})
        assert (await stranger.next_frame())["code"] == "not_member"

        ann = await RawClient.connect(port_of(front_lines[0]), "ann")
        await ann.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
        joined = await ann.until(of_type("joined"))
        assert joined["re"] == 1 and joined["table"].startswith("t")
        await ann.send({"type": "start"})
        assert (await ann.until(of_type("update")))["view"]["players"] == 2
        front.send_signal(signal.SIGTERM)
        closing = await ann.until(of_type("closing"))
        assert closing["restart"] is True
        assert await asyncio.wait_for(front.wait(), WAIT) == 0
    finally:
        for process in (front, table):
            if process is not None and process.returncode is None:
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.wait(), WAIT)
    assert table.returncode == 0
