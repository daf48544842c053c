"""The SSH front with its worker processes (server/nothanks_server/ssh/front.py, worker.py), as ``nothanks server``
runs it: sessions in workers, the cap across them, recycling, a killed worker, a key's seat from any worker, and
two players of different terminals at once."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import socket

import asyncssh
import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.ssh.front import SSHFrontError, loopback_for
from nothanks_server.ssh.game import SSHDoorway
from nothanks_server.ssh.session import SSHPlayer
from nothanks_server.tcp import TcpHost
from tools.loadgen.terminal_client import TerminalClient

from .conftest import PROBE, until
from .test_fair_shares import open_from
from .test_game import sit_at_bot_table
from .test_logins import idle_connection


async def test_the_game_runs_in_a_worker_process(start_host):
    front = await start_host(workers=2)
    assert len(front.worker_pids()) == 2 and os.getpid() not in front.worker_pids()
    client = await TerminalClient().connect(front.port, "alice")
    await sit_at_bot_table(client)
    await client.wait_for("this host over SSH")  # the title bar: not the loopback address the worker uses
    await client.wait_for("Your turn")
    client.send("n")
    await client.wait_for("You: 10 chips")
    (summary,) = front.lobby.tables()  # the table lives in the host process
    assert summary.seats[0].name == "alice"
    await client.close()


async def test_the_session_cap_holds_across_workers(start_host):
    front = await start_host(workers=2, max_sessions=2, app=PROBE)
    clients = []
    for _ in range(2):
        client = await TerminalClient().connect(front.port)
        await client.wait_for("No Thanks!")
        clients.append(client)
    for _ in range(4):  # whichever worker each lands on
        # (once the last refused login is counted out: at a logins cap of 1 it would be refused as a login instead)
        await until(lambda: front.logging_in.total() == 0)
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await TerminalClient().connect(front.port)
        assert "full" in refused.value.reason and "2 players at once" in refused.value.reason
    await clients[0].close()
    await until(lambda: front.sessions == 1)
    again = await TerminalClient().connect(front.port)
    await again.wait_for("No Thanks!")
    await again.close()
    await clients[1].close()


async def test_a_worker_drains_after_its_sessions_and_a_newcomer_lands_on_a_fresh_one(start_host):
    front = await start_host(workers=1, worker_sessions=2, app=PROBE)
    (first_worker,) = front.worker_pids()
    staying = await TerminalClient().connect(front.port, "stays")
    await staying.wait_for("name: stays")
    leaving = await TerminalClient().connect(front.port, "leaves")
    await leaving.wait_for("name: leaves")
    # two sessions taken: a fresh worker starts; once it is ready the first gets no more players
    await front.wait_until(lambda: [worker.state for worker in front.workers()] == ["draining", "taking"])
    newcomer = await TerminalClient().connect(front.port, "new")
    await newcomer.wait_for("name: new")
    fresh = front.workers()[1]
    assert fresh.pid != first_worker and fresh.handed == 1
    await leaving.close()
    assert front.workers()[0].state == "draining"  # one player left there: it stays
    await staying.close()
    await front.wait_until(lambda: front.worker_pids() == [fresh.pid])  # its last player left: it exited
    assert front.recycled == 1 and front.restarts == 0
    newcomer.send("z")
    await newcomer.wait_for("last: z")
    await newcomer.close()


async def test_a_killed_worker_is_replaced_and_its_player_comes_back_to_the_seat(start_host):
    front = await start_host(workers=1)
    key = asyncssh.generate_private_key("ssh-ed25519")
    player = await TerminalClient().connect(front.port, "carol", client_keys=[key])
    await sit_at_bot_table(player)
    await front.wait_until(lambda: front.workers()[0].seated == 1)
    (pid,) = front.worker_pids()  # no spare: nobody floods it
    assert front.open == {"127.0.0.1": 1} and not front.logging_in  # the per-address counts (front.py)
    os.kill(pid, signal.SIGKILL)
    assert await player.wait_closed() is None  # the connection is simply gone
    await front.wait_until(lambda: front.restarts == 1 and len(front.worker_pids()) == 1)
    assert not front.open  # its connections no longer count against their address
    await until(lambda: front.lobby.tables()[0].seats[0].away)
    again = await TerminalClient().connect(front.port, "carol", client_keys=[key])
    await again.wait_for("You: 11 chips")  # straight back to the seat, from a new worker
    assert pid not in front.worker_pids()
    await again.close()


async def test_a_worker_where_a_player_sits_at_a_table_takes_no_newcomer_while_a_spare_can(start_host):
    """A botnet's handshakes land beside no game (issue 31: they made a seated player's keys wait 100-900 ms)."""
    front = await start_host(workers=1, spare_after=2)
    player = await TerminalClient().connect(front.port, "dora")
    await sit_at_bot_table(player)
    await front.wait_until(lambda: front.workers()[0].seated == 1)
    first = await TerminalClient().connect(front.port, "first")  # one newcomer alone is no flood: no spare
    await first.wait_for("Your name at the table")
    assert len(front.workers()) == 1 and front.workers()[0].handed == 2
    await first.close()
    silent = socket.create_connection(("127.0.0.1", front.port))  # two connections never logging in: a flood
    silent_too = socket.create_connection(("127.0.0.1", front.port))
    await front.wait_until(lambda: [worker.state for worker in front.workers()] == ["taking", "taking"])
    silent.close()
    silent_too.close()
    playing, spare = front.workers()
    assert playing.seated == 1 and playing.handed == 4 and spare.seated == 0
    newcomers = [await TerminalClient().connect(front.port, "newcomer") for _ in range(3)]
    for newcomer in newcomers:
        await newcomer.wait_for("Your name at the table")
    assert playing.handed == 4 and spare.handed == 3
    await player.close()  # its last player left: it goes, and the spare takes players alone (no third starts)
    await front.wait_until(lambda: front.workers() == [spare])
    assert front.recycled == 1 and front.restarts == 0 and spare.state == "taking"
    for newcomer in newcomers:
        await newcomer.close()


async def test_a_flood_waits_for_its_spare_and_a_player_back_for_another_game_logs_in_beside_none(start_host):
    """Issue 31: a bystander's keys waited 100-1200 ms for strangers' logins, handed to its worker while the spare
    started, or met in the worker the flood fills when it logged in again for its next game."""
    front = await start_host(workers=1, spare_after=2)
    player = await TerminalClient().connect(front.port, "erin", local_addr=("127.0.14.1", 0))
    await sit_at_bot_table(player)
    playing = front.workers()[0]
    await front.wait_until(lambda: playing.seated == 1)
    flood = [socket.create_connection(("127.0.0.1", front.port), source_address=(f"127.0.15.{n}", 0)) for n in "1234"]
    await front.wait_until(lambda: len(front.workers()) == 2 and front.workers()[1].handed == 2)
    spare = front.workers()[1]
    assert playing.handed == 3  # the two that made it a flood; the next two waited for the spare
    for connection in flood[:2]:
        connection.close()
    await player.close()  # its worker is empty: it goes once another worker is up, the spare being flooded
    await front.wait_until(lambda: playing.state != "taking")
    again = await TerminalClient().connect(front.port, "erin", local_addr=("127.0.14.1", 0))
    await again.wait_for("Your name at the table")
    assert spare.handed == 2  # the player's next login: not where the flood is
    handed = playing.handed
    stranger = await TerminalClient().connect(front.port, "stranger")
    await stranger.wait_for("Your name at the table")
    assert playing.handed == handed  # nor a stranger where a player just left the tables (``SEAT_GRACE``)
    for connection in flood[2:]:
        connection.close()
    for client in (again, stranger):
        await client.close()


async def test_a_spare_left_idle_after_a_flood_exits(start_host, monkeypatch):
    monkeypatch.setattr("nothanks_server.ssh.front.IDLE_LOOKS", 1)
    front = await start_host(workers=1, spare_after=2)
    player = await TerminalClient().connect(front.port, "fay")
    await sit_at_bot_table(player)
    playing = front.workers()[0]
    await front.wait_until(lambda: playing.seated == 1)
    flood = [socket.create_connection(("127.0.0.1", front.port), source_address=(f"127.0.16.{n}", 0)) for n in "12"]
    await front.wait_until(lambda: len(front.workers()) == 2)
    for connection in flood:
        connection.close()
    await front.wait_until(lambda: front.workers() == [playing])  # (none replaces it)
    assert front.recycled == 1 and front.restarts == 0
    await player.close()


async def test_a_key_login_finds_its_seat_from_any_worker(start_host):
    front = await start_host(workers=2)
    key = asyncssh.generate_private_key("ssh-ed25519")
    first = await TerminalClient().connect(front.port, "carol", client_keys=[key])
    await sit_at_bot_table(first)
    await first.close()
    await until(lambda: [seat.away for seat in front.lobby.tables()[0].seats] == [True, False, False])
    for _ in range(2):  # the workers take connections in turn: each lands on the other one
        again = await TerminalClient().connect(front.port, "carol", client_keys=[key])
        await again.wait_for("You: 11 chips")  # straight back to the table
        await again.close()
        await until(lambda: front.lobby.tables()[0].seats[0].away)


TRUECOLOR = re.compile(rb"\x1b\[[0-9;]*[34]8;2;")
EIGHT_BIT = re.compile(rb"\x1b\[[0-9;]*[34]8;5;")


async def test_two_terminals_at_once_each_get_only_their_own_colours(start_host):
    """One worker, a 256-colour player and a 16-colour one at the same time, drawing the same styles: each gets
    only codes its terminal knows (a style's codes were once cached for whichever colour system drew it first)."""
    front = await start_host(workers=1, app=PROBE)
    rich = await TerminalClient().connect(front.port, "rich", term="xterm-256color")
    await rich.wait_for("name: rich")
    plain = await TerminalClient().connect(front.port, "plain", term="xterm")
    await plain.wait_for("name: plain")
    deep = await TerminalClient().connect(front.port, "deep", term="xterm", env={"COLORTERM": "truecolor"})
    await deep.wait_for("name: deep")
    for client in (rich, plain, deep, rich, plain):  # each redraws in turn, after the others drew the same styles
        client.send("x")
        await client.wait_for("last: x")
    assert EIGHT_BIT.search(bytes(rich.raw)) and not TRUECOLOR.search(bytes(rich.raw))
    assert not EIGHT_BIT.search(bytes(plain.raw)) and not TRUECOLOR.search(bytes(plain.raw))
    assert re.search(rb"\x1b\[[0-9;]*(?:3[0-7]|9[0-7])(?:;[0-9]+)*m", bytes(plain.raw))
    assert re.search(rb"\x1b\[[0-9;]*38;2;255;128;0", bytes(deep.raw))  # the probe's #ff8000, exact
    for client in (rich, plain, deep):
        await client.close()


async def test_a_pty_session_whose_input_ends_at_once_ends_cleanly(start_sessions, caplog):
    """``ssh -tt host </dev/null``: a pty, a shell, and end of input before the app has even started."""
    front = await start_sessions()
    async with asyncssh.connect(
        "127.0.0.1", front.port, username="x", password="", known_hosts=None, client_keys=None, agent_path=None
    ) as conn:
        chan, _session = await conn.create_session(asyncssh.SSHClientSession, term_type="xterm", term_size=(0, 0))
        chan.write_eof()
        await asyncio.wait_for(chan.wait_closed(), 10)
    await front.wait_until(lambda: front.running_apps == 0 and front.connections == 0, timeout=10)
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.levelname == "ERROR"]


def test_workers_reach_a_host_bound_to_every_address_on_loopback():
    assert loopback_for("0.0.0.0") == "127.0.0.1"
    assert loopback_for("::") == "::1"
    assert loopback_for("192.168.1.5") == "192.168.1.5"


async def test_workers_log_to_the_hosts_log_file_not_its_terminal(start_host, tmp_path):
    """``nothanks host`` logs to a file because the host player's app has the terminal: so do its workers."""
    log_file = tmp_path / "host.log"
    handler = logging.FileHandler(log_file)
    root = logging.getLogger()
    root.handlers.insert(0, handler)  # before pytest's own file handler (to os.devnull): the host's is the first
    level = root.level
    root.setLevel(logging.INFO)
    try:
        front = await start_host(workers=1, app=PROBE)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    client = await TerminalClient().connect(front.port, "logged")
    await client.wait_for("name: logged")
    await client.close()
    await front.close("the test is over")
    assert "ssh-worker-0" in log_file.read_text()


async def test_a_worker_tells_the_host_which_address_each_player_comes_from():
    """The host's per-address limits count SSH players by their own address, not the workers' loopback one."""
    lobby = Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=5))
    host = TcpHost(lobby, "127.0.0.1", 0, proxy_key="secret")
    await host.start()
    try:
        player = SSHPlayer("carol", None, "192.0.2.7:50000", "xterm", "standard")
        door = SSHDoorway(player, "127.0.0.1", host.port, "secret")
        lobby_connection = door.lobby("carol")
        await lobby_connection.start()
        assert [session.address for session in host.sessions] == ["192.0.2.7"]
        await door.close()
    finally:
        await host.close("the test is over")


def test_a_players_address_is_its_peer_without_the_port():
    assert SSHPlayer("a", None, "192.0.2.7:50000", "xterm", "standard").address == "192.0.2.7"
    assert SSHPlayer("a", None, "::1:50000", "xterm", "standard").address == "::1"


async def test_a_host_key_the_workers_cannot_use_stops_the_front_with_one_sentence(start_host, tmp_path, capfd):
    bad = tmp_path / "not-a-key"
    bad.write_text("garbage")
    with pytest.raises(SSHFrontError) as failed:
        await start_host(workers=1, host_key_path=bad)
    assert str(failed.value).startswith(f"cannot use the SSH host key {bad}:")
    assert "Traceback" not in capfd.readouterr().err  # the worker said why to the front, not to the terminal


async def test_connection_churn_never_keeps_more_than_max_workers_alive(start_host, caplog):
    front = await start_host(workers=1, worker_sessions=2, max_workers=2, session_timeout=60, app=PROBE)
    held = []
    for _ in range(8):  # logged in without a session: each worker drains only once these close
        held.append(await open_from("127.0.0.2", front.port, password=""))
        await until(lambda: sum(worker.logins for worker in front.workers()) >= len(held), timeout=10)
        await front.wait_until(lambda: all(worker.state != "starting" for worker in front.workers()))
    assert len(front.workers()) <= 2
    player = await TerminalClient().connect(front.port, "still", local_addr=("127.0.0.9", 0))  # gets in all the same
    await player.wait_for("name: still")
    assert len(front.workers()) <= 2
    assert not [record for record in caplog.records if record.exc_info]  # no traceback in the log
    for conn in held:
        conn.close()
    await player.close()
    # every connection gone: the workers that took them exit, replaced by one taking players (memory given back)
    await front.wait_until(lambda: [worker.state for worker in front.workers()] == ["taking"], timeout=30)
    again = await TerminalClient().connect(front.port, "again")
    await again.wait_for("name: again")
    await again.close()


async def test_connections_closed_before_logging_in_do_not_recycle_a_worker(start_host):
    front = await start_host(workers=1, worker_sessions=2, app=PROBE)
    (first,) = front.worker_pids()
    for _ in range(6):  # a port scan, churn from a botnet: nothing of theirs stays in the worker's heap
        reader, writer = await idle_connection(front.port)
        writer.close()
        async with asyncio.timeout(10):
            await reader.read()
    await until(lambda: sum(worker.handed for worker in front.workers()) == 6, timeout=10)
    assert front.worker_pids() == [first] and front.workers()[0].state == "taking"
    player = await TerminalClient().connect(front.port, "one")
    await player.wait_for("name: one")
    await player.close()
