"""The PROXY v2 parser: what HAProxy sends is read exactly (TCP over IPv4 and IPv6, LOCAL health checks, TLVs),
and everything else a connection could send is refused with ``BadProxyHeader``, never read past its end."""

from __future__ import annotations

import asyncio
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nothanks_server.proxy_protocol import (
    FIXED_LENGTH,
    MAX_BODY,
    SIGNATURE,
    BadProxyHeader,
    ProxyHeader,
    ProxySources,
    parse,
    read_header,
)
from tools.proxy_header import header_bytes

# HAProxy's header for a client 192.0.2.7:51000 reaching 198.51.100.1:2222, byte by byte (spec, section 2.2).
IPV4 = (
    b"\r\n\r\n\x00\r\nQUIT\n"  # signature
    b"\x21"  # version 2, command PROXY
    b"\x11"  # AF_INET, STREAM
    b"\x00\x0c"  # 12 bytes follow
    b"\xc0\x00\x02\x07"  # 192.0.2.7
    b"\xc6\x33\x64\x01"  # 198.51.100.1
    b"\xc7\x38"  # 51000
    b"\x08\xae"  # 2222
)


def test_tcp_over_ipv4_names_the_client_and_the_address_it_reached():
    assert parse(IPV4) == ProxyHeader(("192.0.2.7", 51000), ("198.51.100.1", 2222))


def test_tcp_over_ipv6():
    header = header_bytes(("2001:db8::7", 40000), ("2001:db8::1", 7777))
    assert header[13] == 0x21 and struct.unpack(">H", header[14:16]) == (36,)
    assert parse(header) == ProxyHeader(("2001:db8::7", 40000), ("2001:db8::1", 7777))


def test_local_is_the_balancers_own_connection_whatever_its_address_block_says():
    assert parse(header_bytes(None)) == ProxyHeader(None)
    local_with_addresses = IPV4[:12] + b"\x20" + IPV4[13:]  # LOCAL: the block is ignored (spec: use the endpoints)
    assert parse(local_with_addresses) == ProxyHeader(None)


def test_proxy_with_an_unspecified_family_keeps_the_connections_own_address():
    assert parse(SIGNATURE + b"\x21\x00\x00\x00") == ProxyHeader(None)


def test_tlvs_after_the_addresses_are_checked_for_shape_and_ignored():
    tlvs = b"\x04\x00\x02ok" + b"\x05\x00\x00"  # a NOOP with two bytes, a unique id of none
    body = IPV4[16:] + tlvs
    header = IPV4[:14] + struct.pack(">H", len(body)) + body
    assert parse(header).source == ("192.0.2.7", 51000)
    for bad in (b"\x04\x00", b"\x04\x00\x05ab"):  # truncated TLV header; a value running past the end
        body = IPV4[16:] + bad
        with pytest.raises(BadProxyHeader, match="TLV"):
            parse(IPV4[:14] + struct.pack(">H", len(body)) + body)


@pytest.mark.parametrize(
    ("header", "why"),
    [
        (b"SSH-2.0-OpenSSH_9.2\r\n" + bytes(8), "signature"),  # a client that skipped the balancer
        (b"PROXY TCP4 192.0.2.7 198.51.100.1 51000 2222\r\n", "signature"),  # version 1: not read
        (IPV4[:12] + b"\x11" + IPV4[13:], "version 1"),
        (IPV4[:12] + b"\x31" + IPV4[13:], "version 3"),
        (IPV4[:12] + b"\x22" + IPV4[13:], "command 2"),
        (IPV4[:13] + b"\x12" + IPV4[14:], "0x12"),  # UDP over IPv4
        (IPV4[:13] + b"\x31" + IPV4[14:], "0x31"),  # a UNIX socket
        (IPV4[:14] + b"\x00\x08" + IPV4[16:24], "address block"),  # too short for IPv4
        (IPV4[:14] + struct.pack(">H", MAX_BODY + 1) + bytes(MAX_BODY + 1), "at most"),
        (IPV4[:-1], "length"),  # one byte short
        (IPV4 + b"x", "length"),  # one byte long
        (IPV4[:10], "16 bytes"),
    ],
)
def test_anything_else_is_refused(header, why):
    with pytest.raises(BadProxyHeader, match=why):
        parse(header)


@given(st.binary(max_size=80))
def test_random_bytes_never_raise_anything_but_a_refusal(data):
    try:
        parse(data)
    except BadProxyHeader:
        pass


@given(st.binary(min_size=1, max_size=40))
def test_random_bytes_after_a_good_start_are_refused_or_read_as_addresses(tail):
    start = SIGNATURE + b"\x21\x11" + struct.pack(">H", len(tail))
    try:
        header = parse(start + tail)
    except BadProxyHeader:
        return
    assert header.source is not None and len(tail) >= 12


class Stream:
    """``read_exactly`` over bytes that arrive in pieces; records how much was asked for."""

    def __init__(self, data: bytes, then_wait: bool = False) -> None:
        self.data = data
        self.then_wait = then_wait
        self.taken = 0

    async def read_exactly(self, count: int) -> bytes:
        if self.taken + count > len(self.data):
            if self.then_wait:
                await asyncio.Event().wait()  # a balancer that stopped sending: only the deadline ends it
            raise asyncio.IncompleteReadError(self.data[self.taken :], count)
        piece = self.data[self.taken : self.taken + count]
        self.taken += count
        return piece


async def test_reading_takes_the_header_and_not_a_byte_of_what_follows():
    stream = Stream(IPV4 + b"SSH-2.0-OpenSSH_9.2\r\n")
    header = await read_header(stream.read_exactly)
    assert header.source == ("192.0.2.7", 51000)
    assert stream.taken == len(IPV4)


async def test_a_bad_start_is_refused_before_its_announced_length_is_read():
    huge = IPV4[:14] + b"\xff\xff"
    stream = Stream(huge + bytes(65535))
    with pytest.raises(BadProxyHeader):
        await read_header(stream.read_exactly)
    assert stream.taken == FIXED_LENGTH


async def test_a_truncated_header_ends_the_read():
    with pytest.raises(asyncio.IncompleteReadError):
        await read_header(Stream(IPV4[:20]).read_exactly)


async def test_a_balancer_that_stops_sending_is_given_up_on_at_the_deadline():
    with pytest.raises(TimeoutError):
        await read_header(Stream(IPV4[:20], then_wait=True).read_exactly, timeout=0.05)


def test_sources_are_addresses_or_networks_and_see_through_ipv4_mapped_addresses():
    sources = ProxySources.parse("10.0.0.5, 192.168.1.0/24,2001:db8::/32")
    assert sources.trusts("10.0.0.5") and not sources.trusts("10.0.0.6")
    assert sources.trusts("192.168.1.200") and not sources.trusts("192.168.2.1")
    assert sources.trusts("2001:db8::99") and not sources.trusts("2001:db9::1")
    assert sources.trusts("::ffff:10.0.0.5")  # an IPv4 balancer on a dual-stack socket
    assert not sources.trusts("not an address") and not sources.trusts("?")
    for bad in ("", " , ", "10.0.0.300", "example.org"):
        with pytest.raises(ValueError):
            ProxySources.parse(bad)
