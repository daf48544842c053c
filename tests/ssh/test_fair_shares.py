"""A public host under a botnet (issue 31): what strangers hold open gives way to a newcomer from another network,
the biggest holder first and what it uses least first; a login and the session after it each have a deadline;
passwords are looked at a bounded number of times a second over every address."""

from __future__ import annotations

import asyncio
import contextlib

import asyncssh
import pytest

from nothanks_server.ssh.server import NO_SESSION_MESSAGE, ROOM_MESSAGE
from nothanks_server.ssh.settings import SSHSettings, network_of
from tools.loadgen.terminal_client import TerminalClient

from .test_auth_limits import FakeClock, Guesser, guess
from .test_logins import ssh_settings_for


class Watching(asyncssh.SSHClient):
    """A client that keeps how its connection ended."""

    def __init__(self) -> None:
        self.ended: Exception | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = exc


class Stalled(asyncssh.SSHClient):
    """A client that reaches the password prompt and never answers it."""

    def __init__(self) -> None:
        self.never = asyncio.Event()

    def kbdint_auth_requested(self) -> None:
        return None

    async def password_auth_requested(self) -> str:
        await self.never.wait()
        return ""


async def open_from(source: str, port: int, **options: object) -> asyncssh.SSHClientConnection:
    options.setdefault("known_hosts", None)
    options.setdefault("client_keys", None)
    options.setdefault("agent_path", None)
    return await asyncssh.connect("127.0.0.1", port, username="x", local_addr=(source, 0), **options)


async def stall_from(source: str, port: int) -> asyncio.Task[object]:
    """A connection from ``source`` that waits at the password prompt for ever (the task ends when it is closed)."""
    task = asyncio.get_running_loop().create_task(
        open_from(source, port, password=None, preferred_auth="password", client_factory=Stalled)
    )
    await asyncio.sleep(0)
    return task


def test_addresses_share_by_network():
    assert network_of("127.0.3.4") == "127.0.3.4"
    assert network_of("127.0.3.4", v4_prefix=24) == "127.0.3.0/24"
    assert network_of("2001:db8:1:2:3:4:5:6") == network_of("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert network_of("::ffff:127.0.0.9") == "127.0.0.9"
    assert network_of("not an address") == "not an address"


def test_the_logins_cap_sits_below_the_sessions_cap(tmp_path):
    assert SSHSettings(host_key_path=tmp_path / "key").login_limit < SSHSettings.max_sessions
    assert SSHSettings(host_key_path=tmp_path / "key", max_sessions=8, max_logins=128).login_limit == 7


async def test_logins_stalled_from_one_address_give_way_to_a_newcomer_from_another(start_sessions):
    sessions = await start_sessions(max_sessions=8)
    stalled = [await stall_from("127.0.0.2", sessions.port) for _ in range(8)]
    await sessions.wait_until(lambda: sessions.logins_in_progress == 7 and sessions.admitted == 7, timeout=10)
    player = await TerminalClient().connect(sessions.port, local_addr=("127.0.0.3", 0))
    await player.wait_for("No Thanks!")
    assert sessions.logins_evicted >= 2
    await player.close()
    for task in stalled:
        task.cancel()
    await asyncio.gather(*stalled, return_exceptions=True)


async def test_between_networks_holding_as_few_logins_the_one_that_churned_gives_way_not_the_oldest(start_sessions):
    """A botnet of many addresses holds one login each: a newcomer's slow login from a fresh address, the oldest, is
    not the one closed; the login of a network whose connections closed before logging in is."""
    sessions = await start_sessions(max_sessions=4)
    churned = [await stall_from("127.0.0.5", sessions.port) for _ in range(2)]
    await sessions.wait_until(lambda: sessions.logins_in_progress == 2, timeout=10)
    for task in churned:  # closed before logging in: two strikes against 127.0.0.5
        task.cancel()
    await asyncio.gather(*churned, return_exceptions=True)
    await sessions.wait_until(lambda: sessions.logins_in_progress == 0, timeout=10)
    oldest = await stall_from("127.0.0.6", sessions.port)  # a slow login from a fresh address, first in line
    await sessions.wait_until(lambda: sessions.logins_in_progress == 1, timeout=10)
    struck = [await stall_from(source, sessions.port) for source in ("127.0.0.5", "127.0.0.7")]
    await sessions.wait_until(lambda: sessions.logins_in_progress == 3, timeout=10)  # the logins cap: 3

    player = await TerminalClient().connect(sessions.port, local_addr=("127.0.0.3", 0))
    await player.wait_for("No Thanks!")
    assert sessions.logins_evicted == 1
    async with asyncio.timeout(10):
        await asyncio.gather(struck[0], return_exceptions=True)  # 127.0.0.5's login was closed
    assert not oldest.done() and not struck[1].done()
    await player.close()
    for task in (oldest, struck[1]):
        task.cancel()
    await asyncio.gather(oldest, struck[1], return_exceptions=True)


async def test_logged_in_connections_without_a_session_give_way_at_the_sessions_cap(start_sessions):
    sessions = await start_sessions(max_sessions=4, session_timeout=60)
    watching = [Watching() for _ in range(3)]
    idle = [await open_from("127.0.0.2", sessions.port, password="", client_factory=lambda w=w: w) for w in watching]
    other = await open_from("127.0.0.4", sessions.port, password="")
    await sessions.wait_until(lambda: sessions.admitted == 4 and sessions.logins_in_progress == 0, timeout=10)

    player = await TerminalClient().connect(sessions.port, local_addr=("127.0.0.3", 0))
    await player.wait_for("No Thanks!")
    assert sessions.made_room == 1
    async with asyncio.timeout(10):
        await idle[0].wait_closed()  # the oldest of the biggest holder's
    assert ROOM_MESSAGE in str(watching[0].ended)
    assert not other.is_closed() and not idle[1].is_closed()  # the lone other address kept its place
    await player.close()
    for conn in [*idle, other]:
        conn.close()


async def test_a_login_idle_without_a_session_gives_way_to_a_network_holding_none(start_sessions):
    sessions = await start_sessions(max_sessions=2, session_timeout=60)
    sessions.server.clock = clock = FakeClock()
    watching = [Watching() for _ in range(2)]
    idle = [
        await open_from(f"127.0.0.{n}", sessions.port, password="", client_factory=lambda w=w: w)
        for n, w in zip((2, 4), watching, strict=True)
    ]  # a botnet of many addresses: each holds one place
    await sessions.wait_until(lambda: sessions.admitted == 2 and sessions.logins_in_progress == 0, timeout=10)
    with pytest.raises(asyncssh.DisconnectError, match="full"):  # logged in just now: on their way to a session
        await TerminalClient().connect(sessions.port, local_addr=("127.0.0.3", 0))
    assert sessions.made_room == 0
    clock.now += 1.0  # no session asked for within a second: idle
    player = await TerminalClient().connect(sessions.port, local_addr=("127.0.0.3", 0))
    await player.wait_for("No Thanks!")
    assert sessions.made_room == 1
    await sessions.wait_until(lambda: any(w.ended is not None for w in watching), timeout=10)
    assert sum(ROOM_MESSAGE in str(w.ended) for w in watching) == 1
    await player.close()
    for conn in idle:
        conn.close()


async def test_players_in_a_session_are_never_closed_for_a_newcomer(start_sessions):
    sessions = await start_sessions(max_sessions=2)
    players = [await TerminalClient().connect(sessions.port, local_addr=("127.0.0.2", 0)) for _ in range(2)]
    for player in players:
        await player.wait_for("No Thanks!")
    try:
        await TerminalClient().connect(sessions.port, local_addr=("127.0.0.3", 0))
    except asyncssh.DisconnectError as error:
        assert "full" in str(error)
    else:
        raise AssertionError("a third player got in past a cap of 2")
    assert sessions.made_room == 0
    for player in players:
        player.send("z")
        await player.wait_for("last: z")
        await player.close()


async def test_a_login_without_a_session_is_closed_after_the_session_timeout(start_sessions):
    sessions = await start_sessions(session_timeout=0.3)
    watching = Watching()
    conn = await open_from("127.0.0.2", sessions.port, password="", client_factory=lambda: watching)
    async with asyncio.timeout(10):
        await conn.wait_closed()
    assert NO_SESSION_MESSAGE in str(watching.ended)
    await sessions.wait_until(lambda: sessions.admitted == 0, timeout=10)
    player = await TerminalClient().connect(sessions.port)  # one that asks for its session in time stays
    await player.wait_for("No Thanks!")
    await asyncio.sleep(0.5)  # past the session timeout: the player is still served
    player.send("z")
    await player.wait_for("last: z")
    await player.close()


async def test_a_stalled_login_is_closed_after_the_login_grace_time(start_sessions):
    sessions = await start_sessions(login_timeout=0.5)
    task = await stall_from("127.0.0.2", sessions.port)
    async with asyncio.timeout(10):
        ended = await asyncio.gather(task, return_exceptions=True)
    assert isinstance(ended[0], (asyncssh.Error, OSError))
    await sessions.wait_until(lambda: sessions.admitted == 0 and sessions.logins_in_progress == 0, timeout=10)


async def test_passwords_are_looked_at_at_most_password_rate_a_second_over_every_connection(start_sessions):
    sessions = await start_sessions(password="sesame", auth_delay=0.0, password_rate=4)
    clock = FakeClock()
    sessions.server.clock = clock
    sessions.server.sleep = clock.sleep
    start = clock.now
    results = await asyncio.gather(*(guess(sessions.port, ["a", "b"]) for _ in range(6)))
    assert sessions.server.auth_failures == 12 and all(ended is not None for _, ended in results)
    # 12 passwords at 4 a second, 4 of them at once: at least 2 seconds of waits on the server's clock
    assert clock.now - start >= 2.0 - 1e-9
    assert all(abs(delay - 0.25) < 1e-9 for delay in clock.sleeps)


def test_the_command_line_sets_the_deadlines_rate_shares_and_worker_cap():
    settings = ssh_settings_for(
        ["--ssh-port", "0", "--ssh-login-grace", "20", "--ssh-session-grace", "5", "--ssh-password-rate", "3"]
        + ["--ssh-ipv4-prefix", "24", "--ssh-ipv6-prefix", "56", "--ssh-max-workers", "4", "--ssh-connect-rate", "1.5"]
        + ["--ssh-max-connections", "500", "--ssh-memory-mib", "512"]
    )
    assert settings is not None
    assert (settings.login_timeout, settings.session_timeout, settings.password_rate) == (20, 5, 3)
    assert (settings.v4_prefix, settings.v6_prefix, settings.max_workers) == (24, 56, 4)
    assert settings.network("10.1.2.3") == "10.1.2.0/24" and settings.connect_rate == 1.5
    assert (settings.max_connections, settings.memory_mib, settings.worker_limit_mib) == (500, 512, 128)


async def test_the_fronts_per_address_limits_count_a_network_as_one(start_host):
    front = await start_host(logins_per_address=2, v4_prefix=24)
    held = []
    for source in ("127.0.5.1", "127.0.5.2"):
        reader, writer = await asyncio.open_connection("127.0.0.1", front.port, local_addr=(source, 0))
        await reader.readline()
        held.append(writer)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port, local_addr=("127.0.5.3", 0))
    async with asyncio.timeout(10):
        said = await reader.read()  # a third login in progress from the same /24: turned away
    assert b"too many logins in progress from your address" in said
    assert front.logging_in["127.0.5.0/24"] == 2
    player = await TerminalClient().connect(front.port, local_addr=("127.0.6.1", 0))  # another /24 gets in
    await player.wait_for("No Thanks!")
    await player.close()
    writer.close()
    for other in held:
        other.close()


async def test_a_newcomers_password_goes_before_the_guesses_of_a_network_that_failed(start_sessions):
    sessions = await start_sessions(password="sesame", auth_delay=0.0, password_rate=20, per_address=16)
    server = sessions.server

    async def guesses_from(source: str) -> None:
        with contextlib.suppress(asyncssh.Error, OSError):
            await open_from(source, sessions.port, preferred_auth="password", client_factory=lambda: Guesser(["x"] * 6))

    guessing = [asyncio.create_task(guesses_from("127.0.0.2")) for _ in range(6)]  # 36 guesses: 1.8 s at 20/s
    await sessions.wait_until(lambda: len(server._password_queue) >= 3, timeout=10)
    failed_before = server.auth_failures
    conn = await open_from("127.0.0.3", sessions.port, password="sesame")  # the right one, from another network
    assert server.auth_failures - failed_before <= 1  # at most the guess already let through as it arrived
    conn.close()
    await asyncio.gather(*guessing)
    assert server.auth_failures == 36 and server.password_failures == {"127.0.0.2": 36}


async def test_connection_churn_from_one_address_is_turned_away_at_the_front(start_host):
    front = await start_host(connect_rate=0.5, connect_burst=3)
    for _ in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", front.port, local_addr=("127.0.7.1", 0))
        assert (await reader.readline()).startswith(b"SSH-2.0-")
        writer.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port, local_addr=("127.0.7.1", 0))
    async with asyncio.timeout(10):
        said = await reader.read()
    assert b"too many new connections from your address" in said
    writer.close()
    assert front.refused == {"too many new connections": 1}
    player = await TerminalClient().connect(front.port, local_addr=("127.0.7.2", 0))  # another address: in
    await player.wait_for("No Thanks!")
    await player.close()
