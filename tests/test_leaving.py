"""Leaving on purpose is not dropping out (issue 17.2, 17.11): what the host does with the seat, and tells everyone.

A ``leave`` after the game frees the seat for good; during it a bot plays the seat at once until the player takes
it back. A connection that just ends leaves the seat away (the turn timer runs, and each update counts it down);
the table's creator may let a bot play for an away player at once. Every update lists the game's comings and goings.
"""

from __future__ import annotations

import asyncio

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_tui.engine import Action
from nothanks_tui.link import LobbyError, NewTable, SeatEvent, TableConnection, TableUpdate, errors

from .net_helpers import RawClient, live_host, of_type
from .test_host_table import lobby_player, next_matching

WAIT = 10.0


def is_update(event) -> bool:
    return isinstance(event, TableUpdate)


async def take_on_my_turns(connection: TableConnection, until_finished: bool = True) -> TableUpdate:
    """Read ``connection``, taking the card whenever it is its turn, until the game is over; the last update."""
    while True:
        event = await asyncio.wait_for(connection.next_event(), WAIT)
        if not is_update(event):
            continue
        if event.view.finished:
            return event
        if event.view.my_turn:
            await connection.send_action(Action.TAKE, event.view.state_id)


@pytest.fixture
def lobby(tmp_path):
    lobby = Lobby(LobbySettings(data_dir=tmp_path / "data", bot_delay=0, turn_timer=None, seed=5))
    yield lobby
    lobby.close()


async def seated_pair(lobby: Lobby):
    """alice (creator, seat 0) and bob at a three-seat table with a bot; the game started. (alice, bob, table id)"""
    alice = await (await lobby_player(lobby, "alice")).create_table(NewTable(players=3, bots=1))
    table_id = lobby.tables()[0].table_id
    bob = await (await lobby_player(lobby, "bob")).join(table_id)
    await alice.start_game()
    return alice, bob, table_id


async def test_leaving_after_the_game_is_in_everyones_log(lobby):
    """Issue 29 #16: a player who left once the game was over ("carol left") was not in the log."""
    alice, bob, table_id = await seated_pair(lobby)
    bob_seat = lobby.table(table_id).members[bob]
    await asyncio.gather(take_on_my_turns(alice), take_on_my_turns(bob))
    await bob.close()  # on the score screen: q
    freed = await next_matching(alice, lambda e: is_update(e) and e.seats[bob_seat].empty)
    assert freed.seat_events[-1] == SeatEvent(at=len(freed.view.moves), seat=bob_seat, kind="left")


async def test_leaving_a_finished_game_frees_the_seat_for_good(lobby):
    alice, bob, table_id = await seated_pair(lobby)
    bob_seat = lobby.table(table_id).members[bob]
    await asyncio.gather(take_on_my_turns(alice), take_on_my_turns(bob))
    token = bob.seat_token
    await bob.close()  # on the score screen: q
    freed = await next_matching(alice, lambda e: is_update(e) and e.seats[bob_seat].empty)
    assert freed.view.finished and lobby.tables()[0].seats[bob_seat].empty
    assert freed.seats[bob_seat].left and freed.seats[bob_seat].name == "bob"  # who left, until the next deal
    with pytest.raises(LobbyError) as refused:
        await (await lobby_player(lobby, "bob")).resume(token)
    assert refused.value.code == "bad_token"  # the token no longer seats him
    await alice.play_again()  # the next game does not wait for bob: a bot sits in his seat
    fresh = await next_matching(alice, lambda e: is_update(e) and not e.view.finished)
    assert fresh.view.state_id == 0 and fresh.seats[bob_seat].is_bot and not fresh.seats[bob_seat].away


async def test_a_freed_seat_of_a_finished_game_can_be_taken_for_the_next_one(lobby):
    alice, bob, table_id = await seated_pair(lobby)
    bob_seat = lobby.table(table_id).members[bob]
    await asyncio.gather(take_on_my_turns(alice), take_on_my_turns(bob))
    await bob.close()
    carol = await (await lobby_player(lobby, "carol")).join(table_id)
    seen = await next_matching(carol, is_update)
    assert seen.view.seat == bob_seat and seen.view.finished and seen.can_restart


async def test_leaving_mid_game_hands_the_seat_to_a_bot_at_once_until_the_player_is_back(lobby):
    """No turn timer at this host: only a leave on purpose makes a bot play bob's turns."""
    alice, bob, table_id = await seated_pair(lobby)
    bob_seat = lobby.table(table_id).members[bob]
    first = await next_matching(alice, is_update)
    token = bob.seat_token
    await bob.close()
    left = await next_matching(alice, lambda e: is_update(e) and e.seats[bob_seat].left)
    assert left.seats[bob_seat].stand_in and left.seats[bob_seat].away
    assert left.seat_events[-1] == SeatEvent(at=len(left.view.moves), seat=bob_seat, kind="left")
    summary = lobby.tables()[0].seats[bob_seat]
    assert summary.left and summary.stand_in  # the lobby shows it too

    async def alice_plays_until_bob_s_seat_moved() -> TableUpdate:
        while True:
            event = await asyncio.wait_for(alice.next_event(), WAIT)
            if not is_update(event):
                continue
            if any(move.seat == bob_seat for move in event.view.moves[len(first.view.moves) :]):
                return event
            if event.view.my_turn:
                await alice.send_action(Action.TAKE, event.view.state_id)

    moved = await alice_plays_until_bob_s_seat_moved()
    assert not moved.view.finished or moved.seats[bob_seat].stand_in
    bob_again = await (await lobby_player(lobby, "bob")).resume(token)
    back = await next_matching(alice, lambda e: is_update(e) and not e.seats[bob_seat].away)
    assert not back.seats[bob_seat].stand_in and not back.seats[bob_seat].left
    assert back.seat_events[-1].kind == "back" and back.seat_events[-1].seat == bob_seat
    mine = await next_matching(bob_again, is_update)
    assert mine.view.seat == bob_seat and [e.kind for e in mine.seat_events] == ["left", "back"]


async def test_a_dropped_player_s_turn_counts_down_and_the_creator_may_let_a_bot_play_at_once():
    async with live_host(turn_timer=600) as host:
        alice = await RawClient.connect(host.port, "alice")
        await alice.send({"type": "create_table", "players": 3, "id": 1})
        table_id = (await alice.until(of_type("joined")))["table"]
        bob = await RawClient.connect(host.port, "bob")
        await bob.send({"type": "join", "table": table_id, "id": 2})
        bob_seat = (await bob.until(of_type("joined")))["seat"]
        carol = await RawClient.connect(host.port, "carol")
        await carol.send({"type": "join", "table": table_id, "id": 3})
        carol_seat = (await carol.until(of_type("joined")))["seat"]
        await alice.until(lambda f: of_type("waiting")(f) and f["can_start"])
        await alice.send({"type": "start"})
        start = await alice.until(of_type("update"))
        assert start["creator"] is True and "bot_in_ms" not in start and "seat_events" not in start
        bob.writer.transport.abort()  # his connection drops: no leave
        dropped = await alice.until(lambda f: of_type("update")(f) and f["seats"][bob_seat]["away"])
        assert "left" not in dropped["seats"][bob_seat] and "stand_in" not in dropped["seats"][bob_seat]
        assert dropped["seat_events"] == [[len(dropped["view"]["moves"]), bob_seat, "away"]]
        update = dropped
        while update["view"]["to_move"] != bob_seat:  # alice and carol take until it is bob's turn
            view = update["view"]
            mover = alice if view["to_move"] == 0 else carol
            await mover.send({"type": "action", "action": "take", "state_id": view["state_id"]})
            update = await alice.until(lambda f, n=view["state_id"]: of_type("update")(f) and f["view"]["state_id"] > n)
        assert 0 < update["bot_in_ms"] <= 600_000  # bob's turn waits for the timer, and everyone sees how long
        await carol.send({"type": "stand_in", "seat": bob_seat, "id": 4})
        assert (await carol.until(of_type("error")))["code"] == "not_creator"
        await alice.send({"type": "stand_in", "seat": carol_seat, "id": 5})
        assert (await alice.until(of_type("error")))["code"] == "not_away"
        await alice.send({"type": "stand_in", "seat": bob_seat, "id": 6})
        played = await alice.until(
            lambda f: of_type("update")(f) and f["view"]["state_id"] > update["view"]["state_id"]
        )
        assert played["view"]["moves"][-1][0] == bob_seat  # the bot played bob's turn at once
        assert played["seats"][bob_seat].get("stand_in") is True and "bot_in_ms" not in played
        assert played["seat_events"][-1] == [len(update["view"]["moves"]), bob_seat, "stand_in"]
        assert "creator" not in await carol.until(of_type("update"))


async def test_while_the_creator_is_away_the_first_player_at_the_table_may_let_a_bot_play():
    """A game never waits on an absent creator: the first player still at the table gets the creator's key."""
    async with live_host(turn_timer=600) as host:
        alice = await RawClient.connect(host.port, "alice")
        await alice.send({"type": "create_table", "players": 3, "id": 1})
        table_id = (await alice.until(of_type("joined")))["table"]
        bob = await RawClient.connect(host.port, "bob")
        await bob.send({"type": "join", "table": table_id, "id": 2})
        await bob.until(of_type("joined"))
        carol = await RawClient.connect(host.port, "carol")
        await carol.send({"type": "join", "table": table_id, "id": 3})
        await carol.until(of_type("joined"))
        await alice.until(lambda f: of_type("waiting")(f) and f["can_start"])
        await alice.send({"type": "start"})
        first = await bob.until(of_type("update"))
        assert "creator" not in first
        await bob.send({"type": "stand_in", "seat": 0, "id": 4})
        assert (await bob.until(of_type("error")))["code"] == "not_creator"  # alice is there: hers to decide
        alice.writer.transport.abort()  # the creator drops out
        acting = await bob.until(lambda f: of_type("update")(f) and f["seats"][0]["away"])
        assert acting["creator"] is True  # bob, the first player still at the table, acts for her
        assert "creator" not in await carol.until(lambda f: of_type("update")(f) and f["seats"][0]["away"])
        await carol.send({"type": "stand_in", "seat": 0, "id": 5})
        assert (await carol.until(of_type("error")))["code"] == "not_creator"
        await bob.send({"type": "stand_in", "seat": 0, "id": 6})
        helped = await bob.until(lambda f: of_type("update")(f) and f["seats"][0].get("stand_in") is True)
        assert helped["seat_events"][-1][1:] == [0, "stand_in"]


async def test_a_player_the_host_drops_itself_shows_as_away_to_the_others():
    """The host aborting a connection (a slow reader, an idle one) is a drop like any other: the seat shows away."""
    async with live_host(turn_timer=600) as host:
        alice = await RawClient.connect(host.port, "alice")
        await alice.send({"type": "create_table", "players": 2, "id": 1})
        table_id = (await alice.until(of_type("joined")))["table"]
        bob = await RawClient.connect(host.port, "bob")
        await bob.send({"type": "join", "table": table_id, "id": 2})
        bob_seat = (await bob.until(of_type("joined")))["seat"]
        await alice.until(lambda f: of_type("waiting")(f) and f["can_start"])
        await alice.send({"type": "start"})
        await alice.until(of_type("update"))
        session = next(s for s in host.sessions if s.name == "bob")
        session._drop_slow_reader()  # what the host does to a client that left its updates unread too long
        dropped = await alice.until(lambda f: of_type("update")(f) and f["seats"][bob_seat]["away"])
        assert dropped["seat_events"] == [[len(dropped["view"]["moves"]), bob_seat, "away"]]
        assert (await bob.until(of_type("error")))["code"] == errors.SLOW_READER
