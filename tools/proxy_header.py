"""A PROXY v2 header as a load balancer sends it, for tests and benchmarks of the host's reader
(server/nothanks_server/proxy_protocol.py)."""

from __future__ import annotations

import ipaddress
import struct

from nothanks_server.proxy_protocol import BLOCKS, SIGNATURE, TCP_OVER_IPV4, TCP_OVER_IPV6, UNSPEC


def header_bytes(source: tuple[str, int] | None, destination: tuple[str, int] | None = None) -> bytes:
    """A PROXY v2 header naming ``source`` (None: a LOCAL one)."""
    if source is None:
        return SIGNATURE + bytes([0x20, UNSPEC]) + struct.pack(">H", 0)
    ip = ipaddress.ip_address(source[0])
    to = ipaddress.ip_address(destination[0] if destination else ("0.0.0.0" if ip.version == 4 else "::"))
    destination = destination or (str(to), 0)
    family = TCP_OVER_IPV4 if ip.version == 4 else TCP_OVER_IPV6
    body = BLOCKS[family][0].pack(ip.packed, to.packed, source[1], destination[1])
    return SIGNATURE + bytes([0x21, family]) + struct.pack(">H", len(body)) + body
