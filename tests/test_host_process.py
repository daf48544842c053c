"""``nothanks host`` as a real process on a pseudo-terminal, as its player runs it: where it keeps its log, and
what a restart on the same data dir gives back (issue 29's defects 1 and 24)."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from nothanks_tui.client.seat_tokens import SeatTokens, remember_and_resume
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable

from .net_helpers import WAIT, RawClient, nothanks_process, of_type


class HostOnPty:
    """One ``nothanks host`` process with a pseudo-terminal of 80x24; ``text`` is everything it has drawn."""

    def __init__(self, process: asyncio.subprocess.Process, main: int) -> None:
        self.process = process
        self.main = main
        self.output = bytearray()
        self._more = asyncio.Event()
        asyncio.get_running_loop().add_reader(main, self._read)

    def _read(self) -> None:
        try:
            self.output.extend(os.read(self.main, 65536))
        except OSError:
            asyncio.get_running_loop().remove_reader(self.main)
        self._more.set()

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")

    async def until(self, pattern: str) -> re.Match[str]:
        """The first match of ``pattern`` in what it printed, once it is there (a whole host starting: seconds)."""
        async with asyncio.timeout(WAIT * 3):
            while (found := re.search(pattern, self.text)) is None:
                self._more.clear()
                await self._more.wait()
        return found

    def send(self, keys: str) -> None:
        os.write(self.main, keys.encode())

    async def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.returncode is None:
            self.process.send_signal(signum)
            try:
                await asyncio.wait_for(self.process.wait(), WAIT * 2)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        return self.process.returncode


@asynccontextmanager
async def host_on_pty(*arguments: str, env: dict[str, str] | None = None) -> AsyncIterator[HostOnPty]:
    main, secondary = pty.openpty()
    process = await nothanks_process(
        "host",
        "--bind",
        "127.0.0.1",
        "--no-advertise",
        "--bot-processes",
        "0",
        *arguments,
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24", **(env or {})},
    )
    os.close(secondary)
    host = HostOnPty(process, main)
    try:
        yield host
    finally:
        await host.stop()
        asyncio.get_running_loop().remove_reader(main)
        os.close(main)


async def test_the_host_log_is_in_the_data_dir_and_the_host_says_where(tmp_path):
    """Defect 24: ``--data-dir D`` wrote ``host.log`` beside D, and nothing said where it was."""
    data = tmp_path / "data"
    async with host_on_pty("--port", "0", "--data-dir", str(data), "--players", "2") as host:
        await host.until(r"nothanks join 127\.0\.0\.1:\d+")
        said = await host.until(r"log[^\n]*?(/\S+host\.log)")
        assert Path(said.group(1)) == data / "host.log"
        assert "listening on 127.0.0.1" in (data / "host.log").read_text()
        assert not (tmp_path / "host.log").exists()


def _home(tmp_path: Path) -> dict[str, str]:
    """One user account's directories (its seats.json, its start screen's choices), for every run of the test."""
    return {f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("STATE", "CONFIG", "DATA")}


async def _tables(port: int) -> list[dict]:
    client = await RawClient.connect(port, "eve")
    try:
        await client.send({"type": "list_tables", "id": 1})
        return (await client.until(of_type("tables")))["tables"]
    finally:
        await client.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_after_a_restart_the_hosting_player_is_back_in_their_seat(tmp_path, signum):
    """Defect 1: after SIGTERM or SIGHUP and a restart on the same data dir, the hosting player was put at a new
    empty table while a bot played their seat of the game in progress."""
    data, home = str(tmp_path / "data"), _home(tmp_path)
    arguments = ("--port", "0", "--data-dir", data, "--players", "2", "--bots", "1", "--name", "alice")
    async with host_on_pty(*arguments, "--bot-pace", "0", "--turn-timer", "1", env=home) as host:
        port = int((await host.until(r"nothanks join 127\.0\.0\.1:(\d+)")).group(1))
        await host.until("press s to start")
        host.send("s")
        await host.until("Your turn")
        assert await host.stop(signum) == 0
    async with host_on_pty(*arguments, "--turn-timer", "1", env=home) as host:
        port = int((await host.until(r"nothanks join 127\.0\.0\.1:(\d+)")).group(1))
        await host.until("Your turn")  # back at the game, not in a new table's waiting room
        tables = await _tables(port)
        assert [table["table"] for table in tables] == ["t1"], tables
        alice = tables[0]["seats"][0]
        assert alice["name"] == "alice" and not alice["away"] and not alice.get("stand_in"), alice
        # A join from the same computer and account (its seats.json) works, and leaves the host's seat alone.
        tokens = SeatTokens(Path(home["XDG_STATE_HOME"]) / "nothanks" / "seats.json")
        assert tokens.get(f"host {Path(data).resolve()}", "alice") is not None  # (where the host keeps its own)
        bob = TcpLobby("127.0.0.1", port, "bob")
        await bob.start()
        assert await remember_and_resume(bob, tokens, f"127.0.0.1:{port}") is None
        assert (await bob.create_table(NewTable(players=2))).seat == 0
        await bob.close()
        (alice_table,) = [table for table in await _tables(port) if table["table"] == "t1"]
        assert not alice_table["seats"][0]["away"]
