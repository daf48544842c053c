"""A private table in a cluster (issue 29): not in the shared lobby, joined through any front with its invite code
(the front routes by the table the code names), and kept with its turn clock by the table host that takes it over."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from ..net_helpers import of_type
from .conftest import until
from .gateway_helpers import Cluster, client
from .test_gateway import create, holder_of, joined_or_error


@pytest.fixture
async def cluster(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    made = Cluster(redis_url, f"p-{request.node.name}")
    yield made
    await made.close()


async def test_a_private_table_is_found_by_its_code_through_any_front_and_keeps_it_at_its_next_host(cluster):
    await cluster.table_host("a")
    await cluster.table_host("b")
    one, two = await cluster.gateway(), await cluster.gateway()
    ann = await client(one.port, "ann")
    await ann.send({"type": "create_table", "players": 4, "private": True, "turn_clock": 30, "id": 1})
    table = (await ann.until(joined_or_error))["table"]
    code = next(frame["invite"] for frame in ann.frames if of_type("waiting")(frame) and frame["invite"])
    await create(await client(one.port, "pat"), players=3)  # a public one beside it
    await cluster.beat()
    bob = await client(two.port, "bob")
    await bob.send({"type": "list_tables", "id": 2})
    assert table not in [line["table"] for line in (await bob.until(of_type("tables")))["tables"]]
    await bob.send({"type": "join", "table": table, "id": 3})
    assert (await bob.until(joined_or_error))["code"] == "private_table"
    await bob.send({"type": "join", "table": table, "code": code, "id": 4})
    assert (await bob.until(joined_or_error))["type"] == "joined"
    first = holder_of(cluster, table)
    await cluster.stop_host(first)  # its leases given up: the other table host takes the table over
    other = next(iter(cluster.hosts))
    await until(lambda: table in cluster.hosts[other].lobby._tables)
    moved = cluster.hosts[other].lobby.table(table)
    assert moved.summary().turn_clock == 30 and moved.invite is not None
    cat = await client(two.port, "cat")
    await cat.send({"type": "join", "table": table, "code": code.lower(), "id": 5})
    assert (await cat.until(joined_or_error))["type"] == "joined"
    await cat.send({"type": "leave", "id": 6})
    await cat.until(of_type("left"))
    await cat.send({"type": "spectate", "table": table, "code": "1-2222-2222", "id": 7})
    assert (await cat.until(joined_or_error))["code"] == "private_table"
    for raw in (ann, bob, cat):
        await raw.close()
