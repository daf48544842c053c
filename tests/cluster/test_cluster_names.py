"""A cluster's names: a key owns its name on every front and table host alike (Redis), a guest is a guest at the
table host too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from nothanks_tui.link import errors
from nothanks_tui.link.identity import Identity
from nothanks_tui.link.wire import PROTOCOL_VERSION

from ..net_helpers import RawClient
from .gateway_helpers import Cluster, client
from .test_gateway import create, joined_or_error


@pytest.fixture
async def cluster(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    made = Cluster(redis_url, f"n-{request.node.name}")
    yield made
    await made.close()


async def hello_with(port: int, name: str, key: Identity) -> tuple[RawClient, dict]:
    raw = await RawClient.connect(port, None)
    proof = key.prove(raw.frames[0]["nonce"])
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "features": ["moving"], **proof})
    return raw, await raw.next_frame()


async def test_a_name_is_its_keys_on_every_front_and_a_guest_is_one_at_the_table_host(cluster, tmp_path):
    alice, mallory = Identity.load(tmp_path / "alice"), Identity.load(tmp_path / "mallory")
    host = await cluster.table_host("a")
    one, two = await cluster.gateway(), await cluster.gateway()
    await cluster.beat()
    ann, welcome = await hello_with(one.port, "alice", alice)
    assert welcome["type"] == "welcome"
    table = (await create(ann, players=3, bots=0))["table"]
    _raw, refused = await hello_with(two.port, "ALICE", mallory)  # the other front knows it too
    assert (refused["code"], refused["name"]) == (errors.NAME_TAKEN, "ALICE2")
    _look, alike = await hello_with(two.port, "～Ａlice", mallory)  # full-width: the owned name all the same
    assert alike["code"] == errors.NAME_TAKEN
    racing = await asyncio.gather(hello_with(one.port, "zed", alice), hello_with(two.port, "Zed", mallory))
    assert sorted(frame["type"] for _raw_client, frame in racing) == ["error", "welcome"]  # one owner, on two fronts
    dan = await client(two.port, "dan")
    await dan.send({"type": "join", "table": table, "id": 3})
    assert (await dan.until(joined_or_error))["seat"] == 1
    seats = host.lobby.table(table).seats
    assert [(seat.name, seat.guest) for seat in seats[:2]] == [("alice", False), ("dan", True)]
    assert host.lobby.store.claim_name("Alice", None) == alice.owner  # the table host's store: the same Redis
    for raw in (ann, dan, _raw, _look, *(raw_client for raw_client, _frame in racing)):
        await raw.close()
