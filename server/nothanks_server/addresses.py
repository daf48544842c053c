"""This machine's LAN addresses, for the ``nothanks join ADDRESS`` lines a host prints and shows.

Read from the interfaces (Linux) and the resolver; no packet is sent.
"""

from __future__ import annotations

import contextlib
import socket


def lan_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses: each interface's (Linux), then the resolver's. No packets sent."""
    found: list[str] = []
    for address in _interface_addresses() + _resolver_addresses():
        if not address.startswith("127.") and address not in found:
            found.append(address)
    return found


def _interface_addresses() -> list[str]:
    addresses: list[str] = []
    try:
        import fcntl
        import struct

        names = [name for _, name in socket.if_nameindex()]
    except (ImportError, OSError, AttributeError):
        return addresses
    siocgifaddr = 0x8915  # Linux: read an interface's IPv4 address
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            with contextlib.suppress(OSError):
                packed = fcntl.ioctl(probe.fileno(), siocgifaddr, struct.pack("256s", name.encode()[:15]))
                addresses.append(socket.inet_ntoa(packed[20:24]))
    return addresses


def _resolver_addresses() -> list[str]:
    with contextlib.suppress(OSError):
        return [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    return []
