"""The host's TCP port and SSH front read a PROXY v2 header from the load balancer's address, and only from it:
the client's own address is then what the per-address limits count and the logs name; a bad, truncated or late
header closes that one connection and nobody else notices; a header from anyone else is not believed."""

from __future__ import annotations

import asyncio
import logging
import socket

import asyncssh
import pytest

from nothanks_server import proxy_protocol
from nothanks_server.proxy_protocol import SIGNATURE
from nothanks_tui.link import errors
from nothanks_tui.link.wire import PROTOCOL_VERSION
from tools.loadgen.terminal_client import TerminalClient
from tools.proxy_header import header_bytes

from ..net_helpers import RawClient, of_type
from .conftest import BALANCER, WAIT, until


async def from_balancer(port: int, header: bytes) -> RawClient:
    """A connection from the balancer's address that opens with ``header``, as HAProxy's would."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(BALANCER, 0))
    writer.write(header)
    await writer.drain()
    return RawClient(reader, writer)


async def say_hello(client: RawClient, name: str = "ann") -> dict:
    hello = await client.next_frame()
    assert hello is not None and hello["type"] == "hello"
    await client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name})
    return await client.next_frame()


def addresses(host) -> list[str]:
    return sorted(session.address for session in host.tcp.sessions)


async def test_the_client_named_by_the_header_is_who_the_tcp_limits_count(proxied_host):
    host = await proxied_host(per_address_connections=1)
    first = await from_balancer(host.port, header_bytes(("192.0.2.7", 51000)))
    assert (await say_hello(first))["type"] == "welcome"
    assert addresses(host) == ["192.0.2.7"]
    assert [session.peer for session in host.tcp.sessions] == [("192.0.2.7", 51000)]

    # The same client again is over its limit of one; another client through the same balancer is not.
    again = await from_balancer(host.port, header_bytes(("192.0.2.7", 51001)))
    refused = await again.next_frame()
    assert refused["type"] == "error" and refused["code"] == errors.TOO_MANY
    other = await from_balancer(host.port, header_bytes(("2001:db8::8", 443)))
    assert (await say_hello(other, "bea"))["type"] == "welcome"
    assert addresses(host) == ["192.0.2.7", "2001:db8::8"]
    for client in (first, again, other):
        await client.close()


async def test_a_local_header_is_the_balancers_own_connection(proxied_host):
    host = await proxied_host()
    check = await from_balancer(host.port, header_bytes(None))
    assert (await say_hello(check))["type"] == "welcome"
    assert addresses(host) == [BALANCER]
    await check.close()


@pytest.mark.parametrize(
    "garbage",
    [
        b"\x82\xa4type\xa5hello",  # a client talking msgpack straight to the port from the balancer's address
        SIGNATURE + b"\x21\x11\xff\xff",  # announces 64 kB
        SIGNATURE + b"\x21\x22\x00\x0c" + bytes(12),  # UDP
        SIGNATURE + b"\x21\x11\x00\x0c" + bytes(4),  # closes half way through
    ],
)
async def test_a_bad_header_closes_that_connection_with_nothing_sent(proxied_host, garbage, caplog):
    host = await proxied_host()
    bystander = await from_balancer(host.port, header_bytes(("192.0.2.50", 1)))
    assert (await say_hello(bystander, "bystander"))["type"] == "welcome"
    hostile = await from_balancer(host.port, garbage)
    if garbage.endswith(bytes(4)):
        hostile.writer.write_eof()
    with caplog.at_level(logging.WARNING, "nothanks_server.tcp"):
        assert await hostile.closed()
    assert hostile.received == b""  # not even the host's hello: a balancer gets nothing it could relay
    assert "closed a connection from load balancer" in caplog.text
    await bystander.send({"type": "ping"})
    assert await bystander.until(of_type("pong"))
    assert addresses(host) == ["192.0.2.50"]
    await bystander.close()


async def test_a_balancer_that_sends_part_of_a_header_is_closed_at_the_deadline(proxied_host, monkeypatch):
    monkeypatch.setattr(proxy_protocol, "READ_TIMEOUT", 0.2)
    host = await proxied_host()
    stalled = await from_balancer(host.port, SIGNATURE[:7])
    async with asyncio.timeout(WAIT):
        assert await stalled.closed()
    assert stalled.received == b"" and not host.tcp.sessions


async def test_a_header_from_anyone_else_is_not_believed(proxied_host):
    host = await proxied_host()
    reader, writer = await asyncio.open_connection("127.0.0.1", host.port, local_addr=("127.0.0.3", 0))
    forger = RawClient(reader, writer)
    assert (await forger.next_frame())["type"] == "hello"  # no header expected: the host speaks first
    assert addresses(host) == ["127.0.0.3"]
    await forger.send_bytes(header_bytes(("192.0.2.99", 1)))
    await forger.until(of_type("error"))  # its bytes are read as frames, and refused as such
    assert addresses(host) == ["127.0.0.3"]
    await forger.close()


# The SSH front ---------------------------------------------------------------------------------------------------


def balancer_socket(port: int, header: bytes) -> socket.socket:
    sock = socket.socket()
    sock.bind((BALANCER, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(header)
    sock.setblocking(False)
    return sock


async def first_bytes(sock: socket.socket) -> bytes:
    """What the front or its worker says first (or b"" once it closed)."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(WAIT):
        data = b""
        while b"\n" not in data:
            try:
                chunk = await loop.sock_recv(sock, 4096)
            except ConnectionResetError:  # closed with what we sent unread
                chunk = b""
            if not chunk:
                break
            data += chunk
        return data


async def test_ssh_players_through_the_balancer_are_their_own_address_at_the_front_and_the_host(proxied_host):
    host = await proxied_host(ssh={"per_address": 1})
    front = host.ssh_front
    sock = balancer_socket(host.ssh_port, header_bytes(("192.0.2.9", 40000)))
    client = await TerminalClient().connect(0, "ann", sock=sock)
    await client.wait_for("Your name at the table", timeout=WAIT)
    assert dict(front.open) == {"192.0.2.9": 1}
    client.send("\r")
    await client.wait_for("No tables yet", timeout=WAIT)
    # The app's lobby connection to the host says whom it carries: the client, not the balancer or loopback.
    assert addresses(host) == ["192.0.2.9"]

    # One connection per address: the same client again is turned away at the front, another is let in.
    again = balancer_socket(host.ssh_port, header_bytes(("192.0.2.9", 40001)))
    assert b"too many connections" in await first_bytes(again)
    other = balancer_socket(host.ssh_port, header_bytes(("192.0.2.10", 40000)))
    assert (await first_bytes(other)).startswith(b"SSH-2.0-")
    assert front.refused["too many connections"] == 1
    for extra in (again, other):
        extra.close()
    await client.close()
    await until(lambda: not front.open)


async def test_a_bad_header_at_the_ssh_front_closes_that_connection_only(proxied_host, monkeypatch):
    monkeypatch.setattr(proxy_protocol, "READ_TIMEOUT", 0.2)
    host = await proxied_host(ssh={})
    for garbage in (b"SSH-2.0-OpenSSH_9.2\r\n" + bytes(8), SIGNATURE[:5]):
        sock = balancer_socket(host.ssh_port, garbage)
        assert await first_bytes(sock) == b""  # closed, and no worker ever saw it
        sock.close()
    assert not host.ssh_front.open
    health_check = balancer_socket(host.ssh_port, header_bytes(None))
    assert (await first_bytes(health_check)).startswith(b"SSH-2.0-")
    health_check.close()


async def test_the_front_refuses_to_take_its_own_workers_for_a_balancer(tmp_path):
    from nothanks_server.proxy_protocol import ProxySources
    from nothanks_server.ssh.front import SSHFront
    from nothanks_server.ssh.settings import SSHSettings

    with pytest.raises(ValueError, match="not a load balancer"):
        SSHFront(SSHSettings(host_key_path=tmp_path / "key"), "0.0.0.0", 7777, None, ProxySources.parse("127.0.0.0/8"))
    assert asyncssh  # the SSH tests above log in with it
