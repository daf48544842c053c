"""Guessing the shared password is slow, bounded and logged: a growing delay after each failure, a connection cut
after ``auth_tries`` failures, an address shut out at the front after ``auth_failures`` of them across
connections and workers; and the front's per-address limits on connections and logins in progress."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import asyncssh
import pytest

from nothanks_server.ssh.server import SHUT_OUT_MESSAGE, TRIES_MESSAGE
from nothanks_server.ssh.settings import failure_delay, printable
from tools.loadgen.terminal_client import TerminalClient

from .conftest import until
from .test_logins import idle_connection, ssh_settings_for

LOOPBACK = "127.0.0.1"


class Guesser(asyncssh.SSHClient):
    """A client that answers every password prompt with the next of its guesses (then gives up)."""

    def __init__(self, guesses: list[str]) -> None:
        self._guesses = iter(guesses)
        self.tried = 0

    def password_auth_requested(self) -> str | None:
        self.tried += 1
        return next(self._guesses, None)

    def kbdint_auth_requested(self) -> str | None:
        return None  # passwords only


async def guess(port: int, guesses: list[str], username: str = "mallory") -> tuple[Guesser, BaseException | None]:
    """Try ``guesses`` on one connection: the client and how the connection ended (None: it logged in)."""
    client = Guesser(guesses)
    try:
        conn = await asyncssh.connect(
            LOOPBACK,
            port,
            username=username,
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            preferred_auth="password",
            client_factory=lambda: client,
        )
    except (asyncssh.Error, OSError) as error:
        return client, error
    conn.close()
    await conn.wait_closed()
    return client, None


class FakeClock:
    """The time a server sees: ``sleep`` records the delay asked for and moves the clock on by it at once."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        self.now += delay
        await asyncio.sleep(0)


def test_the_delay_doubles_from_the_first_and_is_capped():
    assert [failure_delay(n, 0.5) for n in range(0, 8)] == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert failure_delay(3, 0.0) == 0.0
    assert failure_delay(10**6, 0.5) == 8.0


def test_log_text_loses_its_control_characters():
    assert printable("eve\n2026 root logged in\x1b[2J") == "eve?2026 root logged in?[2J"
    assert printable("x" * 100) == "x" * 64 + "..."


async def test_a_connection_is_cut_after_six_failures_each_waiting_longer(start_sessions, caplog):
    sessions = await start_sessions(password="sesame")
    clock = FakeClock()
    sessions.server.clock = clock
    sessions.server.sleep = clock.sleep
    caplog.set_level(logging.WARNING, logger="nothanks_server.ssh.server")

    client, ended = await guess(sessions.port, [f"guess{n}" for n in range(20)], username="eve")

    assert isinstance(ended, asyncssh.DisconnectError) and TRIES_MESSAGE in str(ended)
    assert client.tried == 6  # no seventh guess was looked at
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0, 8.0]  # after each failure but the last, which cuts the connection
    failures = [record.getMessage() for record in caplog.records if "failed SSH login" in record.getMessage()]
    assert len(failures) == 6
    assert all(f"from {LOOPBACK} as eve (password;" in line for line in failures)  # (asyncssh refuses control
    # characters in user names: printable() guards against what it lets through, tested above)
    assert sessions.server.auth_failures == 6

    _, ended = await guess(sessions.port, ["wrong", "sesame"])  # a fresh connection starts its own count
    assert ended is None
    assert clock.sleeps[-1] == 0.5


async def test_keyboard_interactive_guesses_count_too(start_sessions):
    sessions = await start_sessions(password="sesame", auth_tries=2)
    clock = FakeClock()
    sessions.server.clock = clock
    sessions.server.sleep = clock.sleep

    class Answers(asyncssh.SSHClient):
        def kbdint_auth_requested(self) -> str:
            return ""

        def kbdint_challenge_received(self, name: str, instructions: str, lang: str, prompts: Any) -> list[str]:
            return ["wrong"] * len(prompts)

    with pytest.raises(asyncssh.DisconnectError, match=TRIES_MESSAGE):
        await asyncssh.connect(
            LOOPBACK,
            sessions.port,
            username="x",
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            preferred_auth="keyboard-interactive",
            client_factory=Answers,
        )
    assert clock.sleeps == [0.5] and sessions.server.auth_failures == 2


async def test_an_address_past_its_failure_budget_is_shut_out_across_connections_and_workers(start_host, caplog):
    front = await start_host(password="sesame", auth_delay=0.0, auth_tries=3, auth_failures=8, workers=2)
    caplog.set_level(logging.WARNING, logger="nothanks_server.ssh.front")
    waiting = [await idle_connection(front.port) for _ in range(2)]  # logins under way (the workers take them in turn)
    for attempt in range(3):  # 9 failures over three connections, handed to both workers in turn
        _, ended = await guess(front.port, ["a", "b", "c", "d"])
        if attempt < 2:
            assert isinstance(ended, asyncssh.DisconnectError)  # cut after its 3 tries, saying why
        else:  # the 8th failure, in this connection, shuts the address out: that may close it before its 3rd try
            assert isinstance(ended, asyncssh.DisconnectError | ConnectionError)
    assert len({worker.slot for worker in front.workers()}) == 2
    await until(lambda: sum(len(failures) for failures in front._failures.values()) >= 8, timeout=10)
    for reader, writer in waiting:  # the logins under way from that address are ended as it is shut out
        async with asyncio.timeout(10):
            assert SHUT_OUT_MESSAGE.encode() in await reader.read()
        writer.close()

    for _ in range(3):  # even the right password: the address gets no SSH at all for a while
        with pytest.raises((asyncssh.Error, OSError)):
            await TerminalClient().connect(front.port, password="sesame")
    assert front.refused["too many failed passwords"] == 3
    messages = [record.getMessage() for record in caplog.records]
    assert sum("is shut out" in message for message in messages) == 1
    assert sum("turned away" in message for message in messages) == 1  # once per interval, not per connection

    front.clock = lambda: 10**9  # ten minutes later (and more): the failures have aged out
    player = await TerminalClient().connect(front.port, password="sesame")
    await player.wait_for("No Thanks!")
    await player.close()


async def test_connections_and_logins_per_address(start_host, caplog):
    front = await start_host(per_address=3, logins_per_address=2)
    caplog.set_level(logging.WARNING, logger="nothanks_server.ssh.front")
    idle = [await idle_connection(front.port) for _ in range(2)]
    reader, writer = await asyncio.open_connection(LOOPBACK, front.port)  # a third login in progress: closed
    async with asyncio.timeout(10):
        said = await reader.read()
    assert said.startswith(b"SSH-2.0-") and b"too many logins in progress from your address" in said
    writer.close()

    idle[0][1].close()
    await until(lambda: front.logging_in[LOOPBACK] == 1, timeout=10)
    player = await TerminalClient().connect(front.port)  # logs in: an open connection, no longer logging in
    await player.wait_for("No Thanks!")
    await until(lambda: front.logging_in[LOOPBACK] == 1 and front.open[LOOPBACK] == 2, timeout=10)
    idle.append(await idle_connection(front.port))  # three open now
    with pytest.raises(asyncssh.DisconnectError, match="too many connections from your address"):
        await TerminalClient().connect(front.port)  # an SSH client is told why
    refused = await asyncio.create_subprocess_exec(  # and so is OpenSSH's
        "ssh", "-p", str(front.port), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", f"play@{LOOPBACK}", "true",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(30):
        _, said = await refused.communicate()
    assert refused.returncode == 255 and b"too many connections from your address" in said, said
    reader, writer = await asyncio.open_connection(LOOPBACK, front.port)
    async with asyncio.timeout(10):
        assert b"too many connections" in await reader.read()
    writer.close()
    assert front.refused == {"too many logins in progress": 1, "too many connections": 3}
    assert sum("turned away" in record.getMessage() for record in caplog.records) == 2  # one per reason

    await player.close()
    for _, idle_writer in idle:
        idle_writer.close()
    await until(lambda: not front.open and not front.logging_in, timeout=10)


def test_the_command_line_sets_the_ssh_limits():
    default = ssh_settings_for(["--ssh-port", "2222"])
    assert default is not None
    assert (default.per_address, default.logins_per_address, default.auth_tries, default.auth_failures) == (
        16,
        8,
        6,
        30,
    )
    chosen = ssh_settings_for(
        [
            "--ssh-port",
            "2222",
            "--ssh-per-address",
            "4",
            "--ssh-logins-per-address",
            "2",
            "--ssh-auth-tries",
            "3",
            "--ssh-auth-failures",
            "10",
        ]
    )
    assert chosen is not None
    assert (chosen.per_address, chosen.logins_per_address, chosen.auth_tries, chosen.auth_failures) == (4, 2, 3, 10)
