"""PROXY protocol v2: the client's own address, told by a trusted TCP load balancer in front of the host.

Behind a load balancer (HAProxy ``mode tcp``) every connection comes from the balancer's address, so the
per-address limits would count the whole internet as one address and the logs would name nobody. With
``send-proxy-v2`` the balancer opens each connection to the host with a binary header naming the client's
address and port; this module reads it. It is read only on connections from the addresses the host was told
to trust (``--proxy-from``): anyone else could claim any address with it. From those, the header is required
(the protocol forbids guessing whether it is there); a header that is malformed, truncated, too long or late
closes that connection and nothing else.

The header (the balancer's own spec, "proxy-protocol.txt", section 2.2): a 12-byte signature, one byte of
version (2) and command (0 LOCAL: the balancer's own connection, e.g. a health check, whose endpoints are the
real ones; 1 PROXY: a relayed client), one byte of address family and transport, a 2-byte length, then the
addresses (TCP over IPv4: 12 bytes; over IPv6: 36) and optional TLVs, which are checked for shape and ignored.
Only version 2 is read: it is binary, so exactly its length is read and not a byte of the client's own stream.
"""

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
_IPV4_BLOCK = struct.Struct(">4s4sHH")  # source, destination, source port, destination port
_IPV6_BLOCK = struct.Struct(">16s16sHH")


class BadProxyHeader(ValueError):
    """What a trusted connection sent is not a PROXY v2 header we accept: close that connection."""


@dataclass(frozen=True)
class ProxyHeader:
    """What the balancer said: ``source`` is the client's (address, port), None when the connection's own peer
    is the one to use (a LOCAL connection such as a health check, or an address family it did not name)."""

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
    if fixed[12] & 0x0F == LOCAL:
        return ProxyHeader(None)  # the real endpoints count; the address block, whatever it holds, is ignored
    family = fixed[13]
    if family == UNSPEC:
        return ProxyHeader(None)
    if family == TCP_OVER_IPV4:
        block, socket_family = _IPV4_BLOCK, socket.AF_INET
    elif family == TCP_OVER_IPV6:
        block, socket_family = _IPV6_BLOCK, socket.AF_INET6
    else:
        raise BadProxyHeader(f"PROXY address family and transport 0x{family:02x}: only TCP over IPv4 or IPv6")
    if len(body) < block.size:
        raise BadProxyHeader(f"a PROXY address block of {len(body)} bytes, not {block.size}")
    source, destination, source_port, destination_port = block.unpack_from(body)
    _check_tlvs(body[block.size :])
    # inet_ntop: written as the socket would report it (getpeername), at a third of ipaddress's cost
    return ProxyHeader(
        (socket.inet_ntop(socket_family, source), source_port),
        (socket.inet_ntop(socket_family, destination), destination_port),
    )


def _check_tlvs(rest: bytes) -> None:
    """TLVs after the addresses (type, 2-byte length, value) must fill the rest exactly; their values are not used."""
    at = 0
    while at < len(rest):
        if len(rest) - at < 3:
            raise BadProxyHeader("a truncated TLV in the PROXY header")
        (length,) = struct.unpack_from(">H", rest, at + 1)
        at += 3 + length
        if at > len(rest):
            raise BadProxyHeader("a TLV runs past the end of the PROXY header")


def parse(data: bytes) -> ProxyHeader:
    """A whole header, exactly (tests, and anything holding the bytes already)."""
    return parse_body(data[:FIXED_LENGTH], data[FIXED_LENGTH:])


async def read_header(read_exactly: Callable[[int], Awaitable[bytes]], timeout: float | None = None) -> ProxyHeader:
    """Read one header with ``read_exactly(n)`` (which returns n bytes or raises), within ``timeout`` seconds
    (``READ_TIMEOUT`` by default).

    Raises ``BadProxyHeader`` (or ``TimeoutError``, ``asyncio.IncompleteReadError``, ``OSError``): the caller
    closes the connection. Never reads past the header."""
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


def header_bytes(source: tuple[str, int] | None, destination: tuple[str, int] | None = None) -> bytes:
    """A PROXY v2 header naming ``source`` (None: a LOCAL one), as a balancer sends it (tests, the benchmark)."""
    if source is None:
        return SIGNATURE + bytes([0x20, UNSPEC]) + struct.pack(">H", 0)
    ip = ipaddress.ip_address(source[0])
    to = ipaddress.ip_address(destination[0] if destination else ("0.0.0.0" if ip.version == 4 else "::"))
    destination = destination or (str(to), 0)
    if ip.version == 4:
        body = _IPV4_BLOCK.pack(ip.packed, to.packed, source[1], destination[1])
        family = TCP_OVER_IPV4
    else:
        body = _IPV6_BLOCK.pack(ip.packed, to.packed, source[1], destination[1])
        family = TCP_OVER_IPV6
    return SIGNATURE + bytes([0x21, family]) + struct.pack(">H", len(body)) + body
