"""The client's msgpack decoder starts small and grows to the largest frame a host may send.

Each connection of each SSH player in a worker has one; msgpack's default first buffer was its whole limit
(1 MiB per connection, docs/benchmarks.md, "What an SSH player's memory is made of").
"""

from __future__ import annotations

import tracemalloc

import msgpack
import pytest

from nothanks_tui.link.wire import CLIENT_READ_SIZE, HOST_MAX_FRAME, HOST_MAX_STR, client_unpacker, encode


def test_a_new_decoder_holds_its_first_buffer_only() -> None:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        unpacker = client_unpacker()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert unpacker is not None
    assert held < 4 * CLIENT_READ_SIZE < HOST_MAX_FRAME // 4


def test_a_frame_near_the_limit_still_decodes_when_it_comes_in_pieces() -> None:
    frame = {"type": "page", "lines": ["x" * (HOST_MAX_STR - 8)] * ((HOST_MAX_FRAME - 4096) // HOST_MAX_STR)}
    data = encode(frame)
    assert len(data) > 16 * CLIENT_READ_SIZE  # far past the first buffer
    unpacker = client_unpacker()
    decoded = []
    for start in range(0, len(data), 65536):
        unpacker.feed(data[start : start + 65536])
        decoded += list(unpacker)
    assert decoded == [frame]


def test_more_waiting_than_any_frame_may_have_is_still_refused() -> None:
    unpacker = client_unpacker()
    unpacker.feed(b"\x91" + b"\xa1x" * (HOST_MAX_FRAME // 4))  # an array's start, then half the limit
    with pytest.raises(msgpack.BufferFull):
        unpacker.feed(b"\xa1x" * (HOST_MAX_FRAME // 2))
