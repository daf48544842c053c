"""What a hostile SSH client can send without harming the host: env requests by the thousand, keys by the megabyte."""

from __future__ import annotations

import asyncio
import re
import time

import asyncssh

from nothanks_server.ssh import patches, server, session
from nothanks_server.ssh.driver import MAX_UNFINISHED_INPUT
from nothanks_server.ssh.input_gate import INPUT_WINDOW, InputGate
from nothanks_server.ssh.patches import KEPT_VARIABLES, MAX_VALUE, SessionEnvironment
from tools.loadgen.terminal_client import TerminalClient

FLOOD = 2 * 1024 * 1024  # bytes of keys
RESPONSIVE = 15.0  # seconds: a deadline for "it shows at all", never a performance figure (bench_ssh.py has those)


async def test_thousands_of_env_requests_keep_only_the_games_variables(start_sessions, monkeypatch):
    kept: list[SessionEnvironment] = []

    def recording(chan, peer="?"):
        kept.append(patches.limit_environment(chan, peer))
        return kept[-1]

    monkeypatch.setattr(server, "limit_environment", recording)
    front = await start_sessions(inbound_rate=0)  # 3 MB of requests: the connection's own budget would pace them
    junk = {f"JUNK_{index}": "x" * 1000 for index in range(3000)}
    env = junk | {"COLORTERM": "truecolor", "LANG": "en_US.UTF-8", "LC_ALL": "y" * (MAX_VALUE + 1)}
    client = await TerminalClient().connect(front.port, env=env)
    await client.wait_for("No Thanks!")
    assert re.search(rb"\x1b\[[0-9;]*38;2;255;128;0", bytes(client.raw))  # COLORTERM=truecolor still counted
    client.send("z")
    await client.wait_for("last: z")
    [session_env] = kept
    assert session_env.requests == len(env)
    assert dict(session_env) == {b"COLORTERM": b"truecolor", b"LANG": b"en_US.UTF-8"}
    assert set(session_env) <= KEPT_VARIABLES
    await client.close()


def test_the_patched_libraries_are_still_as_checked():
    patches.check_patches()  # raises PatchedInternalsChanged otherwise


class Flooder:
    """An SSH client with a pty that sends keys as fast as the host's flow control lets it, and keeps the output."""

    async def connect(self, port: int) -> Flooder:
        self.output = bytearray()
        self.changed = asyncio.Event()
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username="flood", password="", known_hosts=None, client_keys=None, agent_path=None
        )
        self.stdin, stdout, _ = await self.conn.open_session(
            term_type="xterm-256color", term_size=(80, 24), encoding=None
        )
        self.stdin.channel.set_write_buffer_limits(high=1, low=0)  # drain() returns once everything was sent
        self.reading = asyncio.create_task(self._read(stdout))
        return self

    async def _read(self, stdout: asyncssh.SSHReader[bytes]) -> None:
        while data := await stdout.read(65536):
            self.output += data
            self.changed.set()

    async def send(self, data: bytes) -> None:
        self.stdin.write(data)
        await self.stdin.drain()

    async def wait_for(self, text: str, since: int = 0) -> None:
        async with asyncio.timeout(RESPONSIVE):
            while text.encode() not in self.output[since:]:
                self.changed.clear()
                await self.changed.wait()

    async def close(self) -> None:
        self.conn.close()
        await self.conn.wait_closed()
        await self.reading


async def test_a_key_flood_starves_no_one_and_queues_a_bounded_amount(start_sessions, monkeypatch):
    gates: list[InputGate] = []
    later = [0.0]  # seconds added to the gates' clock: "the player types again a while after the flood"

    class RecordingGate(InputGate):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, clock=lambda: time.monotonic() + later[0], **kwargs)
            gates.append(self)

    monkeypatch.setattr(session, "InputGate", RecordingGate)
    front = await start_sessions(inbound_rate=0)  # the keys' gate alone: test_inbound_shaper.py paces whole connections
    flooder = await Flooder().connect(front.port)
    await flooder.wait_for("No Thanks!")
    player = await TerminalClient().connect(front.port)
    await player.wait_for("No Thanks!")
    flooded, _ = gates

    async def flood() -> None:
        # Small packets, many of which fit the budget (the hardest case for the queue), between packets of 32 KiB
        # (a paste, or a flood as a remote client's data arrives: in one piece, however busy the host is).
        chunks = (b"a" * 512, b"a" * 32768)
        sent = writes = 0
        while sent < FLOOD:
            chunk = chunks[writes % 2]
            await flooder.send(chunk)
            sent += len(chunk)
            writes += 1

    flooding = asyncio.create_task(flood())
    presses = 0
    while not flooding.done() or presses < 5:
        key = "bcdefghijk"[presses % 10]
        player.send(key)
        await player.wait_for(f"last: {key}", timeout=RESPONSIVE)  # the other player's keys keep showing up
        presses += 1
        assert flooded.queued <= flooded.max_queued
    await flooding  # every byte of it was sent: the host took it (or holds at most a channel window of it)
    assert flooded.accepted > 0 and flooded.dropped > FLOOD - INPUT_WINDOW - flooded.accepted
    assert flooded.queued_peak <= flooded.max_queued  # the host held no more than the cap, whatever was sent
    await flooder.wait_for("Too much input at once")  # the flooder was told
    # The flooded session works on: a key typed a little later shows up.
    later[0] = 1.0
    mark = len(flooder.output)
    await flooder.send(b"z")
    await flooder.wait_for("last: z", since=mark)
    assert front.running_apps == 2
    await flooder.close()
    await player.close()


async def test_a_paste_that_never_ends_is_dropped_before_it_grows_large(start_sessions, monkeypatch):
    # A generous budget, so that this test does not wait a minute for 64 KiB to get through the default one.
    monkeypatch.setattr(session, "InputGate", lambda peer: InputGate(peer, rate=1e9, burst=1 << 20, max_queued=1 << 20))
    front = await start_sessions(inbound_rate=0)
    client = await Flooder().connect(front.port)
    await client.wait_for("No Thanks!")
    await client.send(b"\x1b[200~")  # a bracketed paste starts ...
    for _ in range(MAX_UNFINISHED_INPUT // 4096 + 2):
        await client.send(b"x" * 4096)  # ... and never ends
    await client.wait_for("Pasted text too long")
    mark = len(client.output)
    await client.send(b"z")  # a key again, not more of the paste
    await client.wait_for("last: z", since=mark)
    await client.close()
