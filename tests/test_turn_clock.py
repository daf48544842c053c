"""The turn clock (issue 29): a connected player who does not move in time has the table's stand-in bot play that
one move, the log says so, and the player keeps the seat; every view says how long the move has left."""

from __future__ import annotations

import dataclasses

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_tui.engine import Action
from nothanks_tui.link import NewTable, SeatEvent

from .net_helpers import RawClient, live_host, of_type
from .test_host_table import is_update, lobby_player, next_matching


async def test_a_present_player_out_of_time_has_a_bot_play_that_move_and_plays_the_next_one_themselves():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, turn_clock=0.05, seed=3))
    try:
        alice = await lobby_player(lobby, "alice")
        conn = await alice.create_table(NewTable(players=2, bots=1, bot="rules"))
        await conn.start_game()
        mine = await next_matching(conn, lambda e: is_update(e) and e.view.my_turn)
        assert mine.bot_in is not None and 0 <= mine.bot_in <= 0.05  # the seconds left, at send time
        at = len(mine.view.moves)
        played = await next_matching(conn, lambda e: is_update(e) and len(e.view.moves) > at)
        assert played.view.moves[at].seat == 0  # a bot played alice's move...
        assert SeatEvent(at, 0, "clock") in played.seat_events  # ...and the log says so, before that move
        assert not played.seats[0].stand_in and not played.seats[0].away  # she keeps her seat
        table = lobby.table(lobby.tables()[0].table_id)
        table.settings = dataclasses.replace(table.settings, turn_clock=600)  # her next move is hers to make
        again = await next_matching(conn, lambda e: is_update(e) and e.view.my_turn and not e.view.finished)
        await conn.send_action(Action.TAKE, again.view.state_id)
        taken = await next_matching(conn, lambda e: is_update(e) and len(e.view.moves) > len(again.view.moves))
        assert taken.view.moves[len(again.view.moves)].seat == 0
        assert [e for e in taken.seat_events if e.kind == "clock"] == [SeatEvent(at, 0, "clock")]  # no new one
    finally:
        lobby.close()


async def test_without_a_clock_a_present_player_s_turn_has_no_countdown():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=3))
    try:
        conn = await (await lobby_player(lobby, "alice")).create_table(NewTable(players=2, bots=1, bot="rules"))
        await conn.start_game()
        assert (await next_matching(conn, lambda e: is_update(e) and e.view.my_turn)).bot_in is None
    finally:
        lobby.close()


@pytest.mark.parametrize("clock", [4, 601, -5, 30.0, "30", True])
async def test_a_turn_clock_out_of_range_or_not_whole_seconds_is_bad_field(clock):
    async with live_host() as host:
        client = await RawClient.connect(host.port, "c")
        await client.send({"type": "create_table", "players": 2, "turn_clock": clock, "id": 1})
        frame = await client.until(of_type("error"))
        assert (frame["code"], frame["re"]) == ("bad_field", 1)
        await client.close()


@pytest.mark.parametrize(("clock", "counts_down"), [(30, True), (0, False), (None, True)])
async def test_create_table_s_turn_clock_reaches_every_view_as_milliseconds_left(clock, counts_down):
    async with live_host(turn_clock=45) as host:  # the host's default: for a table that does not choose
        client = await RawClient.connect(host.port, "c")
        await client.send({"type": "create_table", "players": 2, "bots": 1, "turn_clock": clock})
        await client.until(of_type("joined"))
        await client.send({"type": "start"})
        while (update := await client.until(of_type("update")))["view"]["to_move"] != 0:
            pass
        if counts_down:
            assert 0 < update["bot_in_ms"] <= (clock or 45) * 1000
        else:
            assert "bot_in_ms" not in update
        await client.close()


async def test_a_restored_game_nobody_came_back_to_is_finished_by_bots_past_the_grace_and_recorded(tmp_path):
    """Issue 31: without a turn timer, a game whose humans are all away held its table for ever."""
    settings = LobbySettings(data_dir=tmp_path, bot_delay=0, turn_timer=None, seed=5, restored_waiting_grace=3600)
    first = Lobby(settings)
    alice = await (await lobby_player(first, "alice")).create_table(NewTable(players=3, bots=1, bot="rules"))
    bob = await (await lobby_player(first, "bob")).join(first.tables()[0].table_id)
    await alice.start_game()
    await next_matching(bob, is_update)
    first.close()
    second = Lobby(settings)
    second.start()
    try:
        [summary] = second.tables()
        watcher = await (await lobby_player(second, "eve")).spectate(summary.table_id)
        second.table(summary.table_id).release_away_seats()  # the grace is over: nobody came back
        final = await next_matching(watcher, lambda e: is_update(e) and e.view.finished)
        humans = {index for index, seat in enumerate(final.seats) if not seat.is_bot}
        assert {e.seat for e in final.seat_events if e.kind == "stand_in"} == humans == {0, 2}  # the log says so
        assert len(list(tmp_path.glob("*.json"))) == 1  # its record is kept
    finally:
        second.close()
