"""PROXY protocol v2: the client's own address, told by a trusted TCP load balancer in front of the host.

Behind a balancer every connection comes from its address: the per-address limits would count the whole internet
as one. With ``send-proxy-v2`` it opens each connection with a binary header naming the client, read only from
the addresses the host trusts (``--proxy-from``), where it is required; a bad or late header closes that
connection only. The header ("proxy-protocol.txt", 2.2): a signature, version 2 and command (LOCAL: e.g. a
health check; PROXY), family and transport, a length, the addresses and TLVs (checked for shape, ignored)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import struct
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
FIXED_LENGTH = 16  # the signature, version/command, family/transport, and the length of the rest
MAX_BODY = 1024  # bytes after the fixed part we accept (addresses and TLVs); HAProxy sends 12 or 36, or a few more
READ_TIMEOUT = 5.0  # seconds a trusted connection has to send its whole header
LOCAL, PROXY = 0x0, 0x1
TCP_OVER_IPV4, TCP_OVER_IPV6, UNSPEC = 0x11, 0x21, 0x00
BLOCKS = {  # source, destination, source port, destination port
    TCP_OVER_IPV4: (struct.Struct(">4s4sHH"), socket.AF_INET),
    TCP_OVER_IPV6: (struct.Struct(">16s16sHH"), socket.AF_INET6),
}


class BadProxyHeader(ValueError):
    """What a trusted connection sent is not a PROXY v2 header we accept: close that connection."""


@dataclass(frozen=True)
class ProxyHeader:
    """``source``: the client's (address, port); None: the connection's own peer (LOCAL, or no family named)."""

    source: tuple[str, int] | None
    destination: tuple[str, int] | None = None


def body_length(fixed: bytes) -> int:
    """The number of bytes that follow the first ``FIXED_LENGTH`` ones (raises ``BadProxyHeader``)."""
    if len(fixed) != FIXED_LENGTH:
        raise BadProxyHeader(f"a PROXY header starts with {FIXED_LENGTH} bytes, not {len(fixed)}")
    if fixed[:12] != SIGNATURE:
        raise BadProxyHeader("no PROXY v2 signature")
    if fixed[12] >> 4 != 2:
        raise BadProxyHeader(f"PROXY protocol version {fixed[12] >> 4}, not 2")
    if fixed[12] & 0x0F not in (LOCAL, PROXY):
        raise BadProxyHeader(f"unknown PROXY command {fixed[12] & 0x0F}")
    (length,) = struct.unpack_from(">H", fixed, 14)
    if length > MAX_BODY:
        raise BadProxyHeader(f"a PROXY header of {length} more bytes (at most {MAX_BODY})")
    return int(length)


def parse_body(fixed: bytes, body: bytes) -> ProxyHeader:
    """The header whose first ``FIXED_LENGTH`` bytes are ``fixed`` and the rest ``body`` (raises ``BadProxyHeader``)."""
    if len(body) != body_length(fixed):
        raise BadProxyHeader("the PROXY header's length does not match its body")
    family = fixed[13]
    if fixed[12] & 0x0F == LOCAL or family == UNSPEC:
        return ProxyHeader(None)  # the real endpoints count; the address block, whatever it holds, is ignored
    if family not in BLOCKS:
        raise BadProxyHeader(f"PROXY address family and transport 0x{family:02x}: only TCP over IPv4 or IPv6")
    block, socket_family = BLOCKS[family]
    if len(body) < block.size:
        raise BadProxyHeader(f"a PROXY address block of {len(body)} bytes, not {block.size}")
    source, destination, source_port, destination_port = block.unpack_from(body)
    at = block.size  # then TLVs (type, 2-byte length, value), which must fill the rest exactly
    while at < len(body):
        if len(body) - at < 3:
            raise BadProxyHeader("a truncated TLV in the PROXY header")
        at += 3 + struct.unpack_from(">H", body, at + 1)[0]
        if at > len(body):
            raise BadProxyHeader("a TLV runs past the end of the PROXY header")
    # inet_ntop: written as the socket would report it (getpeername), at a third of ipaddress's cost
    return ProxyHeader(
        (socket.inet_ntop(socket_family, source), source_port),
        (socket.inet_ntop(socket_family, destination), destination_port),
    )


def parse(data: bytes) -> ProxyHeader:
    """A whole header, exactly (tests, and anything holding the bytes already)."""
    return parse_body(data[:FIXED_LENGTH], data[FIXED_LENGTH:])


async def read_header(read_exactly: Callable[[int], Awaitable[bytes]], timeout: float | None = None) -> ProxyHeader:
    """Read one header, exactly, with ``read_exactly(n)`` within ``timeout`` seconds (``READ_TIMEOUT``); raises
    ``BadProxyHeader``, ``TimeoutError``, ``IncompleteReadError`` or ``OSError``: close the connection."""
    async with asyncio.timeout(READ_TIMEOUT if timeout is None else timeout):
        fixed = await read_exactly(FIXED_LENGTH)
        length = body_length(fixed)
        body = await read_exactly(length) if length else b""
    return parse_body(fixed, body)


def socket_reader(sock: socket.socket) -> Callable[[int], Awaitable[bytes]]:
    """``read_exactly`` for a non-blocking socket on the running loop (the SSH front reads raw sockets)."""
    loop = asyncio.get_running_loop()

    async def read_exactly(count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = await loop.sock_recv(sock, count - len(data))
            if not chunk:
                raise BadProxyHeader(f"the connection closed {len(data)} bytes into a {count}-byte read")
            data += chunk
        return data

    return read_exactly


class ProxySources:
    """The addresses (or networks) of the load balancers whose PROXY headers are believed: ``--proxy-from``."""

    def __init__(self, networks: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> None:
        self.networks = tuple(networks)

    @classmethod
    def parse(cls, text: str) -> ProxySources:
        """``"ADDR[,ADDR...]"``, each an address or a network (``10.0.0.0/24``); raises ValueError."""
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise ValueError("name at least one load balancer address")
        return cls(ipaddress.ip_network(part, strict=False) for part in parts)

    def trusts(self, address: str) -> bool:
        """Whether a connection from ``address`` (as the socket reports it) comes from a listed balancer."""
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped  # a dual-stack socket reports an IPv4 balancer as ::ffff:a.b.c.d
        return any(ip in network for network in self.networks)

    def __str__(self) -> str:
        return ",".join(str(network) for network in self.networks)
