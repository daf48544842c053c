"""The gateway of a front (cluster/gateway.py) with real Redis and two table hosts: the same lobby on every
front, tables made where there is room, seats found wherever they are, a whole game through it, a table that
moves to another host while its player waits, and nothing a hostile client sends harms anyone else."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import msgpack
import pytest

from nothanks_server.cluster.membership import proof
from nothanks_tui.link.identity import Identity
from nothanks_tui.link.wire import PROTOCOL_VERSION

from ..net_helpers import RawClient, of_type
from .conftest import until
from .gateway_helpers import SECRET, Cluster, client, crash


@pytest.fixture
async def cluster(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    made = Cluster(redis_url, f"g-{request.node.name}")
    yield made
    await made.close()


def joined_or_error(frame):
    return isinstance(frame, dict) and frame.get("type") in ("joined", "error") and frame.get("re") is not None


async def create(raw: RawClient, players: int = 3, bots: int = 1, request_id: int = 1) -> dict:
    await raw.send({"type": "create_table", "players": players, "bots": bots, "id": request_id})
    reply = await raw.until(joined_or_error)
    assert reply["type"] == "joined", reply
    assert reply["re"] == request_id
    return reply


def holder_of(running: Cluster, table_id: str) -> str:
    return next(host_id for host_id, host in running.hosts.items() if table_id in host.lobby._tables)


async def test_the_lobby_is_the_same_on_two_gateways_and_tables_go_where_there_is_room(cluster):
    await cluster.table_host("a")
    await cluster.table_host("b")
    one, two = await cluster.gateway(), await cluster.gateway()
    ann = await client(one.port, "ann")
    first = await create(ann)
    assert holder_of(cluster, first["table"]) == "a"  # a tie: the first id
    await cluster.beat()
    bob = await client(two.port, "bob")
    second = await create(bob)
    assert holder_of(cluster, second["table"]) == "b"  # a holds a table: b has fewer
    assert first["table"] != second["table"]  # table ids are the cluster's
    await cluster.beat()
    listings = []
    for gateway in (one, two):
        raw = await client(gateway.port, "cat")
        await raw.send({"type": "list_tables", "id": 7})
        listings.append(await raw.until(of_type("tables")))
        await raw.close()
    assert listings[0] == listings[1]
    assert listings[0]["re"] == 7 and listings[0]["total"] == 2
    assert sorted(t["table"] for t in listings[0]["tables"]) == sorted([first["table"], second["table"]])
    for raw in (ann, bob):
        await raw.close()


async def test_join_resume_and_resume_key_reach_the_tables_host_through_either_gateway(cluster):
    await cluster.table_host("a")
    await cluster.table_host("b")
    one = await cluster.gateway(proxy_key="workers' key")
    two = await cluster.gateway(proxy_key="workers' key")
    await cluster.beat()
    ann = await client(one.port, "ann")
    await create(ann)  # to a
    await cluster.beat()
    bob = await client(one.port, "bob")
    table = (await create(bob, players=4, bots=1))["table"]  # to b
    assert holder_of(cluster, table) == "b"
    cat = await client(two.port, "cat")
    await cat.send({"type": "join", "table": table, "id": 4})
    joined = await cat.until(joined_or_error)
    assert joined["type"] == "joined" and joined["seat"] == 2, joined  # (the bot sits at 1)
    # An SSH player (the front's own worker vouches for the key) sits down too.
    ssh = {"via": "203.0.113.9", "proxy_key": "workers' key", "key": "SHA256:dee"}
    dee = await client(one.port, "dee", **ssh)
    await dee.send({"type": "join", "table": table, "id": 7})
    assert (await dee.until(joined_or_error))["seat"] == 3
    assert [seat.name for seat in cluster.hosts["b"].lobby.table(table).seats][2:] == ["cat", "dee"]
    await bob.send({"type": "start"})
    await bob.until(of_type("update"))

    # cat and dee drop out; their seats wait, and the token or the key finds them through the other gateway.
    await cat.close()
    await dee.close()
    seats = cluster.hosts["b"].lobby.table(table).seats
    await until(lambda: seats[2].member is None and seats[3].member is None)
    again = await client(one.port, "cat")
    await again.send({"type": "resume", "token": joined["token"], "id": 5})
    resumed = await again.until(joined_or_error)
    assert resumed["type"] == "joined" and (resumed["table"], resumed["seat"]) == (table, 2), resumed
    await again.send({"type": "resume", "token": "not a token", "id": 6})
    assert (await again.until(joined_or_error))["code"] == "already_at_table"
    await cluster.beat()
    back = await client(two.port, "dee", **ssh)
    assert back.welcome["held"] == {"table": table, "seat": 3, "name": "dee"}
    await back.send({"type": "resume_key", "id": 8})
    assert (await back.until(joined_or_error))["seat"] == 3
    for raw in (ann, bob, again, back):
        await raw.close()


async def test_a_gateway_refuses_what_a_host_refuses(cluster):
    await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    for message, code in (
        ({"type": "join", "table": "t999", "id": 1}, "no_table"),
        ({"type": "resume", "token": "nobody's", "id": 2}, "bad_token"),
        ({"type": "resume_key", "id": 3}, "bad_field"),
        ({"type": "action", "action": "take", "state_id": 0, "id": 4}, "not_at_table"),
        ({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "again", "id": 5}, "bad_field"),
        ({"type": "no_such_thing", "id": 6}, "unknown_type"),
    ):
        await ann.send(message)
        reply = await ann.until(lambda frame: frame.get("re") is not None)
        assert (reply["type"], reply["code"], reply["re"]) == ("error", code, message["id"])
    # An SSH key without the front's own worker's secret is refused, as on a host.
    raw = await RawClient.connect(gateway.port, None)
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve", "via": "1.2.3.4", "key": "k"})
    assert (await raw.next_frame())["code"] == "bad_field" and await raw.closed()
    await ann.close()


async def test_a_client_of_the_gateway_plays_a_whole_game(cluster, tmp_path):
    await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann", features=("chat", "moving"), identity=Identity.load(tmp_path / "ann.key"))
    await create(ann, players=2, bots=1)
    await ann.send({"type": "start"})
    await ann.send({"type": "chat", "text": "good luck"})
    assert (await ann.until(of_type("chat")))["text"] == "good luck"
    while True:
        update = await ann.until(of_type("update"))
        view = update["view"]
        if view["finished"]:
            break
        if view["legal"]:
            await ann.send({"type": "action", "action": view["legal"][0], "state_id": view["state_id"]})
    assert len(view["moves"]) >= 24 and update["match"]["games"] == 1
    assert all(chips is not None for chips in view["chips"])  # shown at the end, as the host sends them
    await ann.send({"type": "leave", "id": 9})
    assert (await ann.until(of_type("left")))["re"] == 9
    await ann.send({"type": "history", "id": 10})
    assert (await ann.until(of_type("history")))["re"] == 10
    mine = update["seats"][view["seat"]]  # her rating after the game, and the cluster's leaderboard (in Redis)
    await ann.send({"type": "leaderboard", "id": 11})
    board = (await ann.until(of_type("leaderboard")))["players"]
    assert {"name": "ann", "rating": mine["rating"], "games": 1, "bot": False} in board and "change" in mine
    await ann.close()


async def test_a_table_port_refuses_a_hello_without_the_members_proof(cluster):
    host = await cluster.table_host("a")
    raw = await RawClient.connect(host.port, None)
    nonce = raw.frames[0]["nonce"]
    assert len(nonce) == 32 and int(nonce, 16) >= 0
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve"})
    refusal = await raw.next_frame()
    assert (refusal["code"], refusal.get("fatal")) == ("not_member", True)
    assert await raw.closed()
    # A proof of another connection's nonce, or under another secret, is no proof.
    other = await RawClient.connect(host.port, None)
    await other.send(
        {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve", "proof": proof(SECRET, nonce), "via": "9.9.9.9"}
    )
    assert (await other.next_frame())["code"] == "not_member"
    wrong = await RawClient.connect(host.port, None)
    not_ours = proof("x" * 20, wrong.frames[0]["nonce"])
    await wrong.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve", "proof": not_ours})
    assert (await wrong.next_frame())["code"] == "not_member"
    member = await RawClient.connect(host.port, None)
    ours = proof(SECRET, member.frames[0]["nonce"])
    await member.send(
        {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "ann", "proof": ours, "via": "198.51.100.7",
         "key": "SHA256:ann"}
    )  # fmt: skip
    assert (await member.next_frame())["type"] == "welcome"
    session = next(iter(host.tcp.sessions))
    assert (session.address, session.key) == ("198.51.100.7", "SHA256:ann")
    await member.close()


async def test_hostile_frames_to_the_gateway_harm_nobody_else(cluster):
    await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    await create(ann, players=2, bots=1)
    await ann.send({"type": "start"})
    await ann.until(of_type("update"))

    garbage = await RawClient.connect(gateway.port, "garbage")
    await garbage.send_bytes(b"\xc1\xc1\xc1")
    assert (await garbage.next_frame())["code"] == "bad_frame" and await garbage.closed()

    big = await RawClient.connect(gateway.port, None)
    await big.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "x" * 10_000})
    assert (await big.next_frame())["code"] in ("too_big", "bad_frame") and await big.closed()

    escapes = await RawClient.connect(gateway.port, None)
    await escapes.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "\x1b[2J[b]x\x07"})
    welcome = await escapes.next_frame()
    assert welcome["type"] == "welcome" and "\x1b" not in welcome["name"] and "\x07" not in welcome["name"]

    flood = await RawClient.connect(gateway.port, "flood")
    await flood.send_bytes(msgpack.packb({"type": "ping"}) * 400)
    frames = []
    while (frame := await flood.next_frame()) is not None:
        frames.append(frame)
    assert frames[-1]["code"] == "flood"

    deep = await RawClient.connect(gateway.port, "deep")
    await deep.send({"type": "chat", "text": [[["deep"]]]})
    assert (await deep.next_frame())["code"] == "bad_frame" and await deep.closed()

    # ann's game went on all along.
    await ann.send({"type": "ping", "id": 3})
    assert (await ann.until(of_type("pong")))["re"] == 3
    assert len(gateway.sessions) == 2  # ann and escapes
    await ann.close()
    await escapes.close()


async def test_a_table_whose_host_stops_moves_and_its_player_plays_on(cluster):
    await cluster.table_host("a")
    await cluster.table_host("b")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    old = await client(gateway.port, "old", features=())  # a client that predates the feature
    table = (await create(ann, players=2, bots=1))["table"]
    await old.send({"type": "spectate", "table": table, "id": 2})
    assert (await old.until(joined_or_error))["type"] == "joined"
    assert holder_of(cluster, table) == "a"
    await ann.send({"type": "start"})
    first = await ann.until(lambda f: f.get("type") == "update" and f["view"]["legal"])
    await ann.send({"type": "action", "action": "pass", "state_id": first["view"]["state_id"]})
    played = first["view"]["state_id"]
    # ann's turn again (the bot plays at once): the move she decides on is sent while the table moves
    moved_on = await ann.until(lambda f: f.get("type") == "update" and f["view"]["state_id"] > played)
    while not moved_on["view"]["legal"]:
        moved_on = await ann.until(of_type("update"))

    await cluster.stop_host("a")  # as SIGTERM: its leases given up, its members told to come back
    moving = await ann.until(lambda f: f.get("type") in ("table_moving", "closing", "table_closed"))
    assert moving == {"type": "table_moving", "table": table}  # the host's `closing` is the gateway's, not ann's
    await ann.send({"type": "stats", "id": 10})  # asked while the table moves: kept, and asked of the new host
    decided = moved_on["view"]["state_id"]
    await ann.send({"type": "action", "action": "take", "state_id": decided})  # kept, and played once, on b
    assert (await ann.until(lambda f: f.get("re") == 10))["type"] == "stats"  # (sent first: answered first)
    after = await ann.until(lambda f: f.get("type") == "update" and f["view"]["state_id"] > decided)
    assert holder_of(cluster, table) == "b"
    assert after["view"]["moves"][: len(moved_on["view"]["moves"])] == moved_on["view"]["moves"]
    assert after["view"]["moves"][len(moved_on["view"]["moves"])][:2] == [moved_on["view"]["seat"], "take"]
    # the client's own frames go on to the new host
    await ann.send({"type": "ping", "id": 11})
    assert (await ann.until(of_type("pong")))["re"] == 11
    await ann.send({"type": "chat", "text": "still here", "id": 12})
    stale = {"type": "action", "action": "take", "state_id": first["view"]["state_id"], "id": 13}
    await ann.send(stale)  # an old move sent again is not applied twice
    assert (await ann.until(lambda f: f.get("re") == 13))["code"] == "stale_state"
    assert not any(frame.get("type") == "table_moving" for frame in old.frames)
    assert not any(frame.get("type") in ("closing", "table_closed") for frame in ann.frames + old.frames)
    await old.until(lambda f: f.get("type") == "update" and f["view"]["state_id"] >= after["view"]["state_id"])
    # (the old client watches on from the new host: it saw a pause)
    for raw in (ann, old):
        await raw.close()


async def test_a_move_refused_not_saved_is_never_played_later_at_the_tables_new_host(cluster):
    """Issue 32, point 25: the table's host, cut off, lost its lease; ann's move there is refused `not_saved` (its
    store refused it: nothing was kept) and the table moves. The front does not send that move again at the new
    host: ann, who chose differently, gets her new move played."""
    await cluster.table_host("a")
    await cluster.table_host("b")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    table = (await create(ann, players=2, bots=1))["table"]
    old = cluster.hosts[holder_of(cluster, table)]
    new = next(host for host in cluster.hosts.values() if host is not old)
    await ann.send({"type": "start"})
    turn = await ann.until(lambda f: f.get("type") == "update" and f["view"]["legal"])
    decided = turn["view"]["state_id"]
    crash(old)  # it stops renewing: its lease runs out, and the other host takes the table over
    await until(lambda: table in new.lobby._tables)
    await ann.send({"type": "action", "action": "take", "state_id": decided})
    refused = await ann.until(of_type("error"))
    assert refused["code"] == "not_saved" and "re" not in refused
    await ann.until(of_type("table_moving"))
    back = await ann.until(of_type("update"))  # at the new host: the same state, her turn still
    assert back["view"]["state_id"] == decided and back["view"]["legal"]
    await ann.send({"type": "action", "action": "pass", "state_id": decided, "id": 5})
    after = await ann.until(lambda f: f.get("type") == "update" and f["view"]["state_id"] > decided)
    assert after["view"]["moves"][decided][:2] == [turn["view"]["seat"], "pass"]
    assert not any(frame.get("re") == 5 for frame in ann.frames)  # (not refused stale: played)
    await ann.close()


async def test_a_moving_table_that_finds_no_host_is_given_up_with_a_reason(cluster):
    await cluster.table_host("a")
    gateway = await cluster.gateway(move_for=1.0)
    ann = await client(gateway.port, "ann")
    await create(ann, players=2, bots=1)
    await cluster.stop_host("a")  # no other table host: nobody takes it over
    assert (await ann.until(of_type("table_moving")))["type"] == "table_moving"
    closed = await ann.until(of_type("table_closed"))
    assert "could not be moved" in closed["reason"]
    await ann.send({"type": "ping", "id": 2})  # the connection to the front stays
    assert (await ann.until(of_type("pong")))["re"] == 2
    await ann.close()


async def test_the_front_says_closing_with_restart_and_the_table_host_keeps_the_seat(cluster):
    host = await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    reply = await create(ann, players=2, bots=1)
    await ann.send({"type": "start"})
    await ann.until(of_type("update"))
    await gateway.close("restarting")
    cluster.gateways.remove(gateway)
    closing = await ann.until(of_type("closing"))
    assert closing["restart"] is True
    await until(lambda: host.lobby.table(reply["table"]).seats[0].member is None)  # away, kept
    again = await cluster.gateway()
    back = await client(again.port, "ann")
    await back.send({"type": "resume", "token": reply["token"], "id": 3})
    assert (await back.until(joined_or_error))["type"] == "joined"
    await asyncio.gather(ann.close(), back.close())


async def test_a_table_connection_lost_without_a_word_is_taken_back_at_the_same_host(cluster):
    host = await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    reply = await create(ann, players=2, bots=1)
    await ann.send({"type": "start"})
    await ann.until(of_type("update"))
    (upstream,) = host.tcp.sessions
    upstream.abort()  # the connection between the front and the table host breaks; the host holds the table still
    assert (await ann.until(of_type("table_moving")))["table"] == reply["table"]
    await ann.until(of_type("update"))  # resumed on a new connection to the same host
    await until(lambda: len(host.tcp.sessions) == 1 and next(iter(host.tcp.sessions)) is not upstream)
    await ann.close()


async def test_a_balancers_header_names_the_client_the_table_host_counts(cluster, caplog):
    from nothanks_server.proxy_protocol import ProxySources
    from tools.proxy_header import header_bytes

    from .conftest import BALANCER

    caplog.set_level(logging.INFO, logger="nothanks_server.cluster.gateway")
    host = await cluster.table_host("a")
    gateway = await cluster.gateway(proxy_from=ProxySources.parse(BALANCER))
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway.port, local_addr=(BALANCER, 0))
    writer.write(header_bytes(("203.0.113.5", 40000), ("127.0.0.1", gateway.port)))
    raw = RawClient(reader, writer)
    assert (await raw.next_frame())["type"] == "hello"
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "ann"})
    assert (await raw.next_frame())["type"] == "welcome"
    assert {session.address for session in gateway.sessions} == {"203.0.113.5"}
    assert f"connection from 203.0.113.5:40000 through load balancer {BALANCER}" in caplog.text  # the front's log
    await create(raw, players=2, bots=1)
    assert {session.address for session in host.tcp.sessions} == {"203.0.113.5"}  # via, proven
    await raw.close()


async def test_an_owner_that_stops_answering_is_left_and_the_seat_taken_back(cluster):
    """The table host stops reading its front's connection (as a frozen one does, its socket open): the front's
    ping goes unanswered, it takes the owner for lost and moves the seat; the directory still names that host,
    which renewed its lease since it went quiet (it is alive), so the seat is taken back there at once, on a new
    connection, and the move the player sent meanwhile is played, once."""
    host = await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann")
    await create(ann, players=2, bots=1)
    await ann.send({"type": "start"})
    first = await ann.until(lambda f: f.get("type") == "update" and f["view"]["legal"])
    (upstream,) = host.tcp.sessions
    upstream.writer.transport.pause_reading()  # deaf: nothing the front sends reaches the host's session
    await ann.send({"type": "action", "action": "take", "state_id": first["view"]["state_id"]})
    assert (await ann.until(of_type("table_moving")))["type"] == "table_moving"
    after = await ann.until(lambda f: f.get("type") == "update" and f["view"]["state_id"] > first["view"]["state_id"])
    assert after["view"]["moves"][len(first["view"]["moves"])][:2] == [first["view"]["seat"], "take"]
    takes = [move for move in after["view"]["moves"] if move[0] == first["view"]["seat"]]
    assert len(takes) == 1
    seat = host.lobby.table(after["table"]).seats[first["view"]["seat"]]
    assert seat.member is not None and seat.member is not upstream  # taken back on a new connection
    await ann.close()


async def test_refusals_of_the_fronts_own_count_as_refused_messages(cluster):
    """Each join of a table nobody holds costs the front a look-up in Redis: past 20 refusals, `flood` and closed."""
    await cluster.table_host("a")
    gateway = await cluster.gateway()
    spammer = await client(gateway.port, "spam")
    for n in range(21):
        await spammer.send({"type": "join", "table": f"t{900 + n}", "id": n})
    refusals = [await spammer.until(of_type("error")) for _ in range(22)]
    assert [frame["code"] for frame in refusals[:21]] == ["no_table"] * 21
    assert refusals[21]["code"] == "flood" and refusals[21]["fatal"] is True
    assert await spammer.closed()


async def test_a_front_has_no_lobby_chat_it_refuses_a_line_at_no_table_even_back_from_one(cluster):
    await cluster.table_host("a")
    gateway = await cluster.gateway()
    ann = await client(gateway.port, "ann", ("chat", "lobby_chat"))
    assert "lobby_chat" not in ann.frames[0]["features"]  # (its hello: not offered)
    for request_id in (1, 3):  # before any table, and after leaving one (its table host still connected)
        await ann.send({"type": "chat", "text": "anyone?", "id": request_id})
        reply = await ann.until(lambda frame, asked=request_id: frame.get("re") == asked)
        assert (reply["type"], reply["code"]) == ("error", "not_at_table")
        await ann.send({"type": "create_table", "players": 2, "id": request_id + 1})
        await ann.until(of_type("joined"))
        await ann.send({"type": "leave", "id": 10 + request_id})
        await ann.until(of_type("left"))
    await ann.close()


async def test_the_daily_deal_through_either_front_is_the_same_deal_once_a_day_and_ranked_for_the_cluster(
    cluster, tmp_path
):
    await cluster.table_host("a")
    await cluster.table_host("b")
    fronts = [await cluster.gateway(), await cluster.gateway()]
    tables, holders, players = [], set(), []
    for number, name in enumerate(("ann", "bob")):
        raw = await client(fronts[number].port, name, identity=Identity.load(tmp_path / name))  # (guests: none)
        players.append(raw)  # (connected to the end: its table stays, the next goes to the other host)
        await raw.send({"type": "daily", "id": 1})
        joined = await raw.until(joined_or_error)
        assert joined["type"] == "joined" and joined["seat"] == 0, joined
        await cluster.beat()  # (the next table goes to the host with fewer)
        holders.add(holder := holder_of(cluster, joined["table"]))
        tables.append(cluster.hosts[holder].lobby._tables[joined["table"]])
        first = [frame for frame in raw.frames if frame.get("type") == "update"][-1:]  # (the deal may come first)
        while not (view := (first.pop() if first else await raw.until(of_type("update")))["view"])["finished"]:
            if view["legal"] and view["to_move"] == view["seat"]:
                await raw.send({"type": "action", "action": view["legal"][0], "state_id": view["state_id"]})
    assert holders == {"a", "b"}  # dealt by both table hosts
    await players[1].send({"type": "list_tables", "id": 4})
    assert (await players[1].until(of_type("tables")))["tables"] == []  # (counted for the load, never listed)
    assert tables[0].state.deck == tables[1].state.deck and tables[0].state.removed == tables[1].state.removed
    again = await client(fronts[1].port, "ann", identity=Identity.load(tmp_path / "ann"))
    await again.send({"type": "daily", "id": 2})
    assert (await again.until(joined_or_error))["code"] == "daily_played"
    await again.send({"type": "daily_ranking", "id": 3})
    ranking = await again.until(of_type("daily_ranking"))
    assert ranking["count"] == 2 and ranking["you"][2] == "ann" and ranking["re"] == 3
    for raw in (*players, again):
        await raw.close()
