#!/usr/bin/env python3
"""What the PROXY v2 header costs a host behind a load balancer (docs/scaling.md quotes the numbers).

Three figures: parsing one header (TCP over IPv4 and IPv6) in a loop; reading one from an asyncio stream as the
TCP port does (``read_header(reader.readexactly)``); and a whole connection to a ``TcpHost`` on loopback, from
connect to ``welcome``, with and without the header (from the balancer's address 127.0.0.2 / directly), one at a
time, so the header's share of a new connection shows against everything else a connection costs.

    .venv/bin/python scripts/bench_proxy.py [--parses 200000] [--connections 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import msgpack

from nothanks_server import Lobby, LobbySettings
from nothanks_server.proxy_protocol import ProxySources, parse, read_header
from nothanks_server.tcp import TcpHost
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/ (a balancer's header) is not installed
from tools.proxy_header import header_bytes

BALANCER = "127.0.0.2"


def parse_cost(count: int) -> dict[str, float]:
    """Microseconds per ``parse`` of each kind of header."""
    costs = {}
    for name, header in (
        ("ipv4", header_bytes(("192.0.2.7", 51000), ("198.51.100.1", 2222))),
        ("ipv6", header_bytes(("2001:db8::7", 51000), ("2001:db8::1", 2222))),
        ("local", header_bytes(None)),
    ):
        start = time.perf_counter()
        for _ in range(count):
            parse(header)
        costs[name] = (time.perf_counter() - start) / count * 1e6
    return costs


async def stream_read_cost(count: int) -> float:
    """Microseconds per header read from a StreamReader already holding it (the TCP port's way)."""
    header = header_bytes(("192.0.2.7", 51000))
    start = time.perf_counter()
    for _ in range(count):
        reader = asyncio.StreamReader()
        reader.feed_data(header + b"\x80")
        await read_header(reader.readexactly)
    return (time.perf_counter() - start) / count * 1e6


async def connection_times(port: int, count: int, proxied: bool) -> list[float]:
    """Seconds from connect to ``welcome`` for ``count`` connections one after another."""
    times = []
    for n in range(count):
        start = time.perf_counter()
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(BALANCER if proxied else "127.0.0.3", 0)
        )
        if proxied:
            writer.write(header_bytes((f"192.0.2.{n % 250 + 1}", 40000 + n)))
        unpacker = msgpack.Unpacker(raw=False)
        writer.write(encode({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "bench"}))
        frames = 0
        while frames < 2:  # the host's hello, then welcome
            unpacker.feed(await reader.read(4096))
            frames += sum(1 for _ in unpacker)
        times.append(time.perf_counter() - start)
        writer.close()
        await writer.wait_closed()
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parses", type=int, default=200_000)
    parser.add_argument("--connections", type=int, default=500)
    args = parser.parse_args()
    for name, micros in parse_cost(args.parses).items():
        print(f"parse {name:5}: {micros:.2f} us per header")
    print(f"read from a StreamReader (ipv4): {await stream_read_cost(args.parses // 4):.2f} us per header")
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    host = TcpHost(lobby, "127.0.0.1", 0, proxy_from=ProxySources.parse(BALANCER))
    host.limits = type(host.limits)(per_address_connections=10_000, connects_per_minute=10**6)
    await host.start()
    try:
        for proxied in (False, True):  # a warm-up of each, not shown
            await connection_times(host.port, args.connections // 5, proxied)
        direct = await connection_times(host.port, args.connections, False)
        behind = await connection_times(host.port, args.connections, True)
    finally:
        await host.close("benchmark over")
    for name, values in (("direct", direct), ("with a PROXY header", behind)):
        ordered = sorted(values)
        print(
            f"connect to welcome, {name:20}: median {statistics.median(ordered) * 1e3:.3f} ms, "
            f"p99 {ordered[int(len(ordered) * 0.99) - 1] * 1e3:.3f} ms ({len(ordered)} connections)"
        )


if __name__ == "__main__":
    asyncio.run(main())
