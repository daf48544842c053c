"""SSH sessions in worker processes (server/nothanks_server/ssh/workers.py): the game through a worker, the cap
across workers, a key's seat found again from any worker, a dead worker started again; and their parts."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import stat

import asyncssh
import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.ssh import SSHSettings
from nothanks_server.ssh.game import SeatFiles
from nothanks_server.ssh.workers import SharedAdmission, SSHWorkers, loopback_for
from nothanks_server.tcp import TcpHost

from .terminal_client import TerminalClient
from .test_game import sit_at_bot_table


@pytest.fixture
async def start_workers(tmp_path):
    started: list[tuple[TcpHost, SSHWorkers]] = []

    async def start(workers: int = 2, **settings) -> SSHWorkers:
        lobby = Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=5))
        host = TcpHost(lobby, "127.0.0.1", 0)
        await host.start()
        front = SSHWorkers(
            SSHSettings(host_key_path=tmp_path / "ssh_host_ed25519_key", port=0, workers=workers, **settings),
            "127.0.0.1",
            host.port,
        )
        await front.start()
        front.test_lobby = lobby
        started.append((host, front))
        return front

    yield start
    for host, front in started:
        await front.close("the test is over")
        await host.close("the test is over")


async def until(condition, timeout: float = 30.0) -> None:
    """Poll ``condition`` (state in another process has no event to wait on here)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


async def test_the_game_through_a_worker_process(start_workers):
    front = await start_workers(workers=2)
    assert len(front.worker_pids()) == 2 and os.getpid() not in front.worker_pids()
    client = await TerminalClient().connect(front.port, "alice")
    await sit_at_bot_table(client)
    await client.wait_for("this host over SSH")  # the title bar: not the loopback address the worker uses
    await client.wait_for("Your turn")
    client.send("n")
    await client.wait_for("You: 10 chips")
    (summary,) = front.test_lobby.tables()  # the table lives in the host process
    assert summary.seats[0].name == "alice"
    await client.close()


async def test_the_session_cap_holds_across_workers(start_workers):
    front = await start_workers(workers=2, max_sessions=2)
    clients = []
    for _ in range(2):
        client = await TerminalClient().connect(front.port)
        await client.wait_for("No Thanks!")
        clients.append(client)
    for _ in range(4):  # whichever worker each lands on
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await TerminalClient().connect(front.port)
        assert "full" in refused.value.reason and "2 players at once" in refused.value.reason
    await clients[0].close()
    await until(lambda: sum(front._counts) == 1)
    again = await TerminalClient().connect(front.port)
    await again.wait_for("No Thanks!")
    await again.close()
    await clients[1].close()


async def test_a_key_login_finds_its_seat_from_any_worker(start_workers):
    front = await start_workers(workers=2)
    key = asyncssh.generate_private_key("ssh-ed25519")
    first = await TerminalClient().connect(front.port, "carol", client_keys=[key])
    await sit_at_bot_table(first)
    await first.close()
    await until(lambda: [seat.away for seat in front.test_lobby.tables()[0].seats] == [True, False, False])
    for _ in range(3):  # each connection may land on either worker
        again = await TerminalClient().connect(front.port, "carol", client_keys=[key])
        await again.wait_for("You: 11 chips")  # straight back to the table
        await again.close()
        await until(lambda: front.test_lobby.tables()[0].seats[0].away)


async def test_a_worker_that_dies_is_started_again(start_workers):
    front = await start_workers(workers=1)
    (pid,) = front.worker_pids()
    os.kill(pid, signal.SIGKILL)
    await until(lambda: front.restarts == 1 and front.worker_pids() and front.worker_pids()[0] != pid)
    client = await TerminalClient().connect(front.port, "erin")
    await client.wait_for("Your name at the table")
    await client.close()


def test_shared_admission_counts_every_worker_against_one_limit():
    counts = multiprocessing.get_context("spawn").Array("i", 2)
    first, second = SharedAdmission(counts, 0, 3), SharedAdmission(counts, 1, 3)
    assert [first.admit(), second.admit(), second.admit()] == [True, True, True]
    assert not first.admit() and not second.admit()
    second.release()
    assert first.admit()
    assert list(counts) == [2, 1]
    first.release()
    first.release()
    first.release()  # never below zero
    assert list(counts) == [0, 1]


def test_seat_files_are_private_and_start_empty(tmp_path):
    seats = SeatFiles(tmp_path / "seats")
    seats.clear()
    seats.put("SHA256:abc", "carol", "token-1")
    assert seats.get("SHA256:abc").token == "token-1"
    assert seats.get("SHA256:other") is None and seats.get(None) is None
    assert stat.S_IMODE(os.stat(tmp_path / "seats").st_mode) == 0o700
    (written,) = (tmp_path / "seats").glob("*.json")
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert "SHA256:abc" not in written.name and "carol" in written.read_text()
    SeatFiles(tmp_path / "seats").clear()  # a new host process
    assert seats.get("SHA256:abc") is None
    seats.put("SHA256:abc", "carol", "token-2")
    seats.forget("SHA256:abc")
    assert seats.get("SHA256:abc") is None


def test_workers_reach_a_host_bound_to_every_address_on_loopback():
    assert loopback_for("0.0.0.0") == "127.0.0.1"
    assert loopback_for("::") == "::1"
    assert loopback_for("192.168.1.5") == "192.168.1.5"
