"""The cluster directory against a real redis-server: hosts listed while they beat and gone when they stop, the
lobby the same from every client, the fewest-tables host chosen for a new table, and leases that one owner
holds at a time, each new owner under a higher epoch, an old owner unable to renew or release."""

from __future__ import annotations

from nothanks_server.cluster.directory import Directory, HostInfo, Lease
from nothanks_tui.link import SeatInfo, TableSummary
from tools.cluster_log import acquire, release, renew

from .directory_helpers import eventually


def summary(table_id: str, *names: str, started: bool = False) -> TableSummary:
    return TableSummary(
        table_id=table_id,
        players=3,
        seats=tuple(SeatInfo(name) for name in names) + (SeatInfo("", empty=True),) * (3 - len(names)),
        started=started,
        finished=False,
        open_chips=False,
        variant="standard",
    )


async def test_hosts_are_listed_while_they_beat_and_the_fewest_tables_get_the_next(directory):
    await directory.announce(HostInfo("a", "10.0.0.1:7777", tables=3))
    await directory.announce(HostInfo("b", "10.0.0.2:7777", tables=1))
    await directory.announce(HostInfo("c", "10.0.0.3:7777", tables=1))
    assert [host.host_id for host in await directory.hosts()] == ["a", "b", "c"]
    assert (await directory.least_loaded()) == HostInfo("b", "10.0.0.2:7777", 1)
    await directory.announce(HostInfo("b", "10.0.0.2:7777", tables=4))  # a beat brings the new count
    assert (await directory.least_loaded()).host_id == "c"


async def test_a_host_that_stops_beating_leaves_the_hosts_and_the_lobby_by_itself(directory):
    await directory.publish_tables("dies", [summary("t1", "ann")], ttl=0.3)
    await directory.announce(HostInfo("dies", "10.0.0.9:7777", 1), ttl=0.3)
    await directory.publish_tables("lives", [summary("t1", "bob")])
    await directory.announce(HostInfo("lives", "10.0.0.8:7777", 1))
    assert [line.host_id for line in await directory.lobby()] == ["dies", "lives"]

    async def only_the_living() -> bool:
        return [host.host_id for host in await directory.hosts()] == ["lives"]

    await eventually(only_the_living)
    assert [(line.host_id, line.summary.seats[0].name) for line in await directory.lobby()] == [("lives", "bob")]
    assert await directory.client.smembers(f"{directory.prefix}:hosts") == {b"lives"}  # forgotten, not kept


async def test_a_host_that_stops_on_purpose_withdraws_at_once(directory):
    await directory.publish_tables("a", [summary("t1", "ann")])
    await directory.announce(HostInfo("a", "10.0.0.1:7777", 1))
    await directory.withdraw("a")
    assert await directory.hosts() == [] and await directory.lobby() == []
    assert await directory.least_loaded() is None


async def test_every_front_reads_the_same_lobby(directory, redis_url):
    await directory.publish_tables("a", [summary("t2", "ann", "bob", started=True), summary("t1", "cy")])
    await directory.announce(HostInfo("a", "10.0.0.1:7777", 2))
    await directory.publish_tables("b", [summary("t1", "dee")])
    await directory.announce(HostInfo("b", "10.0.0.2:7777", 1))
    other = await Directory.connect(redis_url, prefix=directory.prefix)  # another front's own connection
    try:
        mine, theirs = await directory.lobby(), await other.lobby()
    finally:
        await other.close()
    assert mine == theirs
    assert [(line.host_id, line.summary.table_id) for line in mine] == [("a", "t1"), ("a", "t2"), ("b", "t1")]
    assert mine[1].summary == summary("t2", "ann", "bob", started=True)  # the whole line, as the wire has it
    await directory.publish_tables("a", [])  # a host whose tables all ended
    assert [line.host_id for line in await directory.lobby()] == ["b"]


async def test_one_owner_at_a_time_each_under_a_higher_epoch(directory):
    first = await acquire(directory, "t1", "host-a")
    assert first == Lease("t1", "host-a", 1)
    assert await acquire(directory, "t1", "host-b") is None  # held: refused, and no epoch spent on it
    assert await renew(directory, first)
    assert await directory.holder("t1") == first
    assert await release(directory, first)
    second = await acquire(directory, "t1", "host-b")
    assert second == Lease("t1", "host-b", 2)
    # The old owner's lease is gone: it can neither keep the table alive nor free it from under the new one.
    assert not await renew(directory, first)
    assert not await release(directory, first)
    assert not await renew(directory, Lease("t1", "host-b", 1))  # the right owner with a stale epoch: fenced too
    assert await directory.holder("t1") == second
    assert await acquire(directory, "t2", "host-a") == Lease("t2", "host-a", 1)  # epochs are per table


async def test_a_lease_its_owner_stops_renewing_is_taken_over_under_the_next_epoch(directory):
    lost = await acquire(directory, "t1", "killed", ttl=0.3)
    assert lost is not None

    async def free() -> bool:
        return await directory.holder("t1") is None

    await eventually(free)
    taken = await acquire(directory, "t1", "survivor")
    assert taken == Lease("t1", "survivor", lost.epoch + 1)
    assert not await renew(directory, lost)
