"""End to end through a real HAProxy (``send-proxy-v2``, the configuration of docs/haproxy.cfg): players
on different machines (loopback addresses 127.0.0.3-5) behind one balancer (127.0.0.2) are each held to their
own per-address limits on the TCP port and the SSH front, the logs name them, and the health checks pass."""

from __future__ import annotations

import asyncio
import logging
import os

import pytest

from nothanks_tui.link import errors
from nothanks_tui.link.wire import PROTOCOL_VERSION
from tools.loadgen.terminal_client import TerminalClient

from ..net_helpers import RawClient
from . import haproxy
from .conftest import WAIT


def require_haproxy() -> None:
    """Skip without haproxy, except in CI (``CI`` set), whose .ci/run must have installed it."""
    if haproxy.binary() is None:
        missing = "haproxy is not installed (apt-get install haproxy; .ci/run installs it when missing)"
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: CI must run these tests")
        pytest.skip(missing)


@pytest.fixture
async def balanced(proxied_host, tmp_path):
    """A host allowing 2 TCP connections and 1 SSH connection per address, behind a started HAProxy.
    Without haproxy the test is skipped, except in CI (``CI`` set), whose .ci/run must have installed it."""
    require_haproxy()
    host = await proxied_host(per_address_connections=2, ssh={"per_address": 1})
    balancer = await haproxy.start_haproxy(tmp_path, [(host.port, host.ssh_port)])
    try:
        await balancer.wait_checked()
        yield host, balancer
    finally:
        await balancer.stop()


async def join_through(port: int, source: str, name: str) -> tuple[RawClient, dict]:
    """A TCP client at ``source`` through the balancer: the client and the host's answer to its hello."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    client = RawClient(reader, writer)
    hello = await client.next_frame()
    assert hello is not None and hello["type"] == "hello", hello
    await client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name})
    return client, await client.next_frame()


def addresses(host) -> list[str]:
    return sorted(session.address for session in host.tcp.sessions if session.name)


async def test_tcp_clients_behind_haproxy_are_counted_by_their_own_address(balanced):
    host, balancer = balanced
    joined = [await join_through(balancer.game_port, "127.0.0.3", f"c{n}") for n in range(2)]
    assert [answer["type"] for _, answer in joined] == ["welcome", "welcome"]
    third, answer = await join_through_refused(balancer.game_port, "127.0.0.3")
    assert answer["code"] == errors.TOO_MANY  # its own address's limit, not the balancer's
    other, answer = await join_through(balancer.game_port, "127.0.0.4", "d")
    assert answer["type"] == "welcome"  # a fourth connection from the balancer: let in, another client's
    assert addresses(host) == ["127.0.0.3", "127.0.0.3", "127.0.0.4"]
    for client in [client for client, _ in joined] + [third, other]:
        await client.close()


async def join_through_refused(port: int, source: str) -> tuple[RawClient, dict]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    client = RawClient(reader, writer)
    return client, await client.next_frame()  # refused before the host's hello


async def test_an_ssh_player_behind_haproxy_reaches_the_host_as_themselves(balanced, caplog):
    host, balancer = balanced
    front = host.ssh_front
    player = await TerminalClient().connect(balancer.ssh_port, "ann", local_addr=("127.0.0.5", 0))
    await player.wait_for("Your name at the table", timeout=WAIT)
    player.send("\r")
    await player.wait_for("No tables yet", timeout=WAIT)
    assert front.open["127.0.0.5"] == 1 and "127.0.0.1" not in front.open
    assert "127.0.0.5" in addresses(host)  # the app's lobby connection speaks for the player's own address

    with caplog.at_level(logging.WARNING, "nothanks_server.ssh.front"):
        reader, writer = await asyncio.open_connection("127.0.0.1", balancer.ssh_port, local_addr=("127.0.0.5", 0))
        async with asyncio.timeout(WAIT):
            refused = await reader.read()
    assert b"too many connections from your address" in refused
    assert "turned away 127.0.0.5: too many connections" in caplog.text  # the log names the player
    writer.close()

    other = await TerminalClient().connect(balancer.ssh_port, "bea", local_addr=("127.0.0.6", 0))
    await other.wait_for("Your name at the table", timeout=WAIT)  # one per address: someone else still gets in
    await player.close()
    await other.close()


async def test_haproxys_health_checks_speak_each_protocol_through_the_proxy_header(balanced):
    _host, balancer = balanced
    rows = {(row["pxname"], row["svname"]): row for row in await balancer.show_stat()}
    for server in (("nothanks_ssh", "game1"), ("nothanks_tcp", "game1")):  # the SSH banner; the host's hello
        assert rows[server]["status"] == "UP" and rows[server]["check_status"] == "L7OK", rows[server]
        assert rows[server]["chkfail"] == "0"  # not one check failed since HAProxy started


def test_the_configuration_in_the_guide_is_the_one_tested():
    guide = (haproxy.DOCUMENTED.parent / "load-balancer.md").read_text()
    documented = haproxy.DOCUMENTED.read_text().split("\n", 2)[2]  # without its two lines of comment
    assert f"```\n{documented}```" in guide


async def test_a_drained_front_takes_no_newcomers_and_keeps_its_players(proxied_host, tmp_path):
    """The restart procedure of docs/load-balancer.md: drain a front at the balancer, newcomers go to the other,
    its own players play on. Both fronts present the one host key they were given."""
    require_haproxy()
    hosts = [await proxied_host(ssh={}) for _ in range(2)]  # both read the same host key file (conftest)
    balancer = await haproxy.start_haproxy(tmp_path, [(host.port, host.ssh_port) for host in hosts])
    players: list[TerminalClient] = []
    try:
        await balancer.wait_checked()
        first = await TerminalClient().connect(balancer.ssh_port, "ann", local_addr=("127.0.0.5", 0))
        players.append(first)
        await first.wait_for("Your name at the table", timeout=WAIT)
        holding = next(n for n, host in enumerate(hosts) if host.ssh_front.open["127.0.0.5"])
        assert await balancer.command(f"set server nothanks_ssh/game{holding + 1} state drain") == "\n"

        # leastconn alone would send one of three newcomers to each front in turn; drained, all go to the other.
        for n in range(3):
            newcomer = await TerminalClient().connect(balancer.ssh_port, f"p{n}", local_addr=(f"127.0.0.{6 + n}", 0))
            players.append(newcomer)
            await newcomer.wait_for("Your name at the table", timeout=WAIT)
        assert {"127.0.0.6", "127.0.0.7", "127.0.0.8"} <= set(hosts[1 - holding].ssh_front.open)
        assert not any(hosts[holding].ssh_front.open[f"127.0.0.{6 + n}"] for n in range(3))

        first.send("\r")  # the drained front's player is still served
        await first.wait_for("No tables yet", timeout=WAIT)
        fingerprints = {player.conn.get_server_host_key().get_fingerprint() for player in players}
        assert len(fingerprints) == 1
    finally:
        for player in players:
            await player.close()
        await balancer.stop()
