"""A public host under a botnet (issue 31), its TCP port: at a total a newcomer is not refused, the host closes the
least used thing of the network holding the most; deadlines for the hello and for each frame; addresses count by
network. Loopback addresses (127.0.0.2, .3...) stand for machines, a front's ``via`` for IPv6 ones."""

from __future__ import annotations

import asyncio

from nothanks_server.limits import ClientLimits
from nothanks_tui.link import errors
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

from .net_helpers import RawClient, live_host, of_type
from .test_host_limits import eventually


async def bare(port: int, source: str) -> RawClient:
    """A connection that never says hello (the host's own hello read)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    client = RawClient(reader, writer)
    assert (await client.next_frame())["type"] == "hello"
    return client


async def closed_for_room(client: RawClient) -> None:
    said = await client.until(of_type("error"))
    assert said["code"] == errors.SERVER_CLOSING and "least used" in said["message"]
    assert await client.closed()


async def test_at_the_connection_total_the_biggest_network_gives_way_least_used_first_never_a_seated_player():
    async with live_host(limits=ClientLimits(max_connections=5)) as host:
        owner = await RawClient.connect(host.port, source="127.0.0.3")
        await owner.send({"type": "create_table", "players": 3, "id": 1})
        table = (await owner.until(of_type("joined")))["table"]
        seated = await RawClient.connect(host.port, source="127.0.0.2")  # the big network's one real player
        await seated.send({"type": "join", "table": table, "id": 1})
        await seated.until(of_type("joined"))
        watcher = await RawClient.connect(host.port, source="127.0.0.2")
        await watcher.send({"type": "spectate", "table": table, "id": 1})
        await watcher.until(of_type("joined"))
        idle = await RawClient.connect(host.port, source="127.0.0.2")
        silent = await bare(host.port, "127.0.0.2")
        assert len(host.sessions) == 5
        newcomers = []
        for newcomer, gives_way in (("127.0.0.4", silent), ("127.0.0.5", idle), ("127.0.0.6", watcher)):
            newcomers.append(await RawClient.connect(host.port, source=newcomer))  # welcomed, never refused
            await closed_for_room(gives_way)
            await newcomers[-1].send({"type": "ping", "id": 1})
            await newcomers[-1].until(of_type("pong"))
        await eventually(lambda: host.connections["127.0.0.2"] == 1)
        await seated.send({"type": "ping", "id": 2})  # the seated player, alone of their network now, stays
        assert (await seated.until(of_type("pong")))["re"] == 2


async def test_a_newcomer_from_the_biggest_network_is_let_in_and_an_older_connection_of_it_gives_way():
    async with live_host(limits=ClientLimits(max_connections=2)) as host:
        idle = await RawClient.connect(host.port, source="127.0.0.2")
        other = await RawClient.connect(host.port, source="127.0.0.3")
        newcomer = await RawClient.connect(host.port, source="127.0.0.2")  # not the one closed, though the least used
        await closed_for_room(idle)
        for client in (newcomer, other):
            await client.send({"type": "ping", "id": 1})
            await client.until(of_type("pong"))


async def test_a_network_whose_connection_was_closed_for_room_waits_before_its_next_one_a_fresh_network_does_not():
    async with live_host(limits=ClientLimits(max_connections=2, connects_per_minute=6)) as host:
        held = [await RawClient.connect(host.port, source="127.0.0.2") for _ in range(2)]
        held.append(await RawClient.connect(host.port, source="127.0.0.2"))  # its third: an older one of it gives way
        await eventually(lambda: len(host.sessions) == 2)  # one of the two held gave way
        again = RawClient(*await asyncio.open_connection("127.0.0.1", host.port, local_addr=("127.0.0.2", 0)))
        refused = await again.until(of_type("error"))
        assert refused["code"] == errors.TOO_MANY  # 3 of 6 spent, 30 owed: nothing left for a fourth
        fresh = await RawClient.connect(host.port, source="127.0.0.3")  # welcomed: another of 127.0.0.2's gives way
        await fresh.send({"type": "ping", "id": 1})
        await fresh.until(of_type("pong"))


async def test_a_player_with_a_seat_token_gets_back_in_when_strangers_hold_every_connection():
    async with live_host(limits=ClientLimits(max_connections=4)) as host:
        alice = await RawClient.connect(host.port, source="127.0.0.2")
        await alice.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
        token = (await alice.until(of_type("joined")))["token"]
        await alice.send({"type": "start", "id": 2})
        await alice.until(lambda f: f.get("type") == "update")
        await alice.close()
        strangers = [await RawClient.connect(host.port, source=f"127.0.1.{n}") for n in range(1, 5)]
        assert len(host.sessions) == 4
        back = await RawClient.connect(host.port, source="127.0.0.2")
        await back.send({"type": "resume", "token": token, "id": 3})
        assert (await back.until(of_type("joined")))["re"] == 3
        await eventually(lambda: len(host.sessions) == 4)  # a stranger gave way
        assert host.connections["127.0.0.2"] == 1 and sum(host.connections[f"127.0.1.{n}"] for n in range(1, 5)) == 3
        assert len(strangers) == 4


async def played_table(port: int, source: str) -> tuple[RawClient, str]:
    """A two-seat table with a bot where its creator has made a move: the creator, the table."""
    player = await RawClient.connect(port, source=source)
    await player.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
    table = (await player.until(of_type("joined")))["table"]
    await player.send({"type": "start", "id": 2})
    update = await player.until(lambda f: f.get("type") == "update" and f["view"]["to_move"] == f["view"]["seat"])
    await player.send({"type": "action", "action": "take", "state_id": update["view"]["state_id"]})
    await player.until(lambda f: f.get("type") == "update" and f["view"]["state_id"] > update["view"]["state_id"])
    return player, table


async def test_at_the_table_total_the_oldest_unplayed_table_of_the_biggest_network_closes_for_a_newcomer():
    async with live_host(max_tables=3, max_tables_per_address=10) as host:
        played, table = await played_table(host.port, "127.0.0.3")
        unplayed = []
        for _ in range(2):  # one network's tables of bots whose creator never moves
            client = await RawClient.connect(host.port, source="127.0.0.2")
            await client.send({"type": "create_table", "players": 7, "bots": 6, "id": 1})
            await client.until(of_type("joined"))
            unplayed.append(client)
        newcomers = []
        for newcomer, gives_way in (("127.0.0.4", unplayed[0]), ("127.0.0.5", unplayed[1])):
            newcomers.append(await RawClient.connect(host.port, source=newcomer))
            await newcomers[-1].send({"type": "create_table", "players": 3, "id": 2})
            assert (await newcomers[-1].until(of_type("joined")))["re"] == 2
            assert "full" in (await gives_way.until(of_type("table_closed")))["reason"]
        await played.send({"type": "ping", "id": 3})
        await played.until(of_type("pong"))
        assert len(host.lobby.all_tables()) == 3 and host.lobby.table(table).members
        assert not any(frame.get("type") == "table_closed" for frame in played.frames)


async def test_at_the_table_total_a_table_where_a_person_played_never_gives_way():
    async with live_host(max_tables=1) as host:
        await played_table(host.port, "127.0.0.3")
        newcomer = await RawClient.connect(host.port, source="127.0.0.4")
        await newcomer.send({"type": "create_table", "players": 3, "id": 1})
        assert (await newcomer.until(of_type("error")))["code"] == errors.TOO_MANY_TABLES


async def test_at_the_table_total_a_table_where_a_person_played_an_earlier_game_keeps_its_place():
    async with live_host(max_tables=2) as host:
        player = await RawClient.connect(host.port, source="127.0.0.3")
        await player.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
        table = (await player.until(of_type("joined")))["table"]
        await player.send({"type": "start", "id": 2})
        while True:  # the person takes every card: the game ends
            update = await player.until(lambda f: f.get("type") == "update" and not f.get("re"))
            view = update["view"]
            if view["finished"]:
                break
            if view["to_move"] == view["seat"]:
                await player.send({"type": "action", "action": "take", "state_id": view["state_id"]})
        await player.send({"type": "play_again", "id": 3})
        await player.until(lambda f: f.get("type") == "update" and not f["view"]["finished"])  # nobody moved yet
        for newcomer in ("127.0.0.4", "127.0.0.5"):
            client = await RawClient.connect(host.port, source=newcomer)
            await client.send({"type": "create_table", "players": 3, "id": 4})
            assert (await client.until(of_type("joined")))["re"] == 4
        assert host.lobby.table(table).members
        assert not any(frame.get("type") == "table_closed" for frame in player.frames)


async def test_at_the_table_total_a_network_whose_tables_were_closed_for_room_goes_before_a_newcomers_older_table():
    """A botnet of many addresses holds a table each: the oldest waiting table, a newcomer's, is not the one to go."""
    async with live_host(max_tables=2, max_tables_per_address=10) as host:
        waiting = await RawClient.connect(host.port, source="127.0.0.3")
        await waiting.send({"type": "create_table", "players": 3, "id": 1})
        table = (await waiting.until(of_type("joined")))["table"]
        churners = []
        for _ in range(2):  # its second table closes its first (it holds the most): closed for room once
            churners.append(await RawClient.connect(host.port, source="127.0.0.2"))
            await churners[-1].send({"type": "create_table", "players": 7, "bots": 6, "id": 2})
            await churners[-1].until(of_type("joined"))
        assert "full" in (await churners[0].until(of_type("table_closed")))["reason"]
        other = await RawClient.connect(host.port, source="127.0.0.4")
        await other.send({"type": "create_table", "players": 3, "id": 4})
        assert (await other.until(of_type("joined")))["re"] == 4
        assert "full" in (await churners[1].until(of_type("table_closed")))["reason"]
        assert host.lobby.table(table).members
        assert not any(frame.get("type") == "table_closed" for frame in waiting.frames)


async def test_a_connection_must_say_hello_in_time_and_then_send_each_frame_whole_in_time():
    limits = ClientLimits(hello_timeout=0.3, frame_timeout=0.3)
    async with live_host(limits=limits) as host:
        mute = await bare(host.port, "127.0.0.2")
        assert (await mute.until(of_type("error")))["code"] == errors.HELLO_FIRST
        trickler = await RawClient.connect(host.port, source="127.0.0.3")
        frame = encode({"type": "ping", "id": 1})
        started = asyncio.get_running_loop().time()

        async def trickle() -> None:
            for byte in frame[:-1]:  # a byte every 0.1 s: each read is on time, the frame never is
                await trickler.send_bytes(bytes([byte]))
                await asyncio.sleep(0.1)

        task = asyncio.create_task(trickle())
        said = await trickler.until(of_type("error"))
        assert said["code"] == errors.BAD_FRAME and "whole" in said["message"]
        assert asyncio.get_running_loop().time() - started < 2.0
        task.cancel()
        steady = await RawClient.connect(host.port, source="127.0.0.4")
        for n in range(5):  # whole frames, however far apart, are fine
            await steady.send({"type": "ping", "id": n})
            await steady.until(of_type("pong"))
            await asyncio.sleep(0.1)


async def test_addresses_count_by_network_an_ipv6_64_is_one_holder():
    limits = ClientLimits(per_address_connections=1)
    assert limits.network("2001:db8:1:2::1") == limits.network("2001:db8:1:2:ffff::9") != limits.network("2001:db8::1")
    assert limits.network("192.0.2.1") != limits.network("192.0.2.2")
    assert ClientLimits(v4_prefix=24).network("192.0.2.1") == ClientLimits(v4_prefix=24).network("192.0.2.2")
    async with live_host(proxy_key="k", limits=limits) as host:
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "p", "proxy_key": "k"}
        first = await RawClient.connect(host.port, name=None, source="127.0.0.5")
        await first.send(hello | {"via": "2001:db8:1:2::1"})
        await first.until(of_type("welcome"))
        second = await RawClient.connect(host.port, name=None, source="127.0.0.6")
        await second.send(hello | {"via": "2001:db8:1:2::2"})  # another address of the same /64
        assert (await second.until(of_type("error")))["code"] == errors.TOO_MANY


async def test_one_network_creates_at_most_its_tables_a_minute():
    async with live_host(tables_per_minute=2, max_tables_per_address=1) as host:
        client = await RawClient.connect(host.port, source="127.0.0.2")
        for n in range(2):  # each closes as its only player leaves: the open-table limit is not what refuses
            await client.send({"type": "create_table", "players": 3, "id": n})
            await client.until(of_type("joined"))
            await client.send({"type": "leave", "id": 10 + n})
            await client.until(of_type("left"))
        await client.send({"type": "create_table", "players": 3, "id": 3})
        refused = await client.until(of_type("error"))
        assert refused["code"] == errors.TOO_MANY and "a minute" in refused["message"]
        other = await RawClient.connect(host.port, source="127.0.0.3")
        await other.send({"type": "create_table", "players": 3, "id": 4})
        await other.until(of_type("joined"))
