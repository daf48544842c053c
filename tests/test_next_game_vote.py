"""Another game at the same seats is dealt when every player still at the table has asked (``play_again``): one
quick player no longer deals it for everyone and takes the others' score screens away. Who has asked travels in
every update of the finished game (``again``), over the wire too."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from nothanks_server.errors import HostError
from nothanks_server.table import Table, TableSettings
from nothanks_tui.engine import Action, view_for
from nothanks_tui.link import SeatInfo, TableUpdate, errors
from nothanks_tui.link.wire import decode_host, encode_event

from .net_helpers import WAIT
from .test_match_and_timeline import played_out


class Player:
    """A member that keeps what it hears, and wakes whoever waits for the table's next change."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.events: list[object] = []
        self.changed = asyncio.Event()

    def deliver(self, event: object) -> None:
        self.events.append(event)
        self.changed.set()

    @property
    def last(self) -> TableUpdate:
        return next(event for event in reversed(self.events) if isinstance(event, TableUpdate))


async def finished_table(players: int = 3, humans: int = 2) -> tuple[Table, list[Player]]:
    """A table of ``humans`` players (seats 0..) and bots, its first game played to the end (everyone takes)."""
    table = Table("t", TableSettings(players=players, bot_delay=0, turn_timer=None))
    people = [Player(f"p{index}") for index in range(humans)]
    for person in people:
        table.join(person)
    table.add_bots(players - humans)
    table.start(people[0])
    while not table.finished:
        state = table.state
        assert state is not None
        people[0].changed.clear()
        if state.to_move < humans:
            table.submit(people[state.to_move], Action.TAKE, state.state_id)
        else:  # a bot's turn: it moves from a task on the loop, and everyone hears of it
            await asyncio.wait_for(people[0].changed.wait(), WAIT)
    return table, people


async def test_one_players_ask_waits_for_the_other_and_everyone_hears_who_asked():
    table, (alice, bob) = await finished_table()
    games = table.games_played
    table.play_again(bob)
    assert table.finished and table.games_played == games  # not dealt: alice has not asked
    assert alice.last.again == (1,) and bob.last.again == (1,)
    table.play_again(bob)  # a second press changes nothing
    assert table.finished and table.games_played == games
    table.play_again(alice)
    assert not table.finished and table.games_played == games + 1
    assert alice.last.again == () and not alice.last.view.finished


async def test_a_lone_player_with_bots_gets_the_next_game_at_once():
    table, (alice,) = await finished_table(humans=1)
    games = table.games_played
    table.play_again(alice)
    assert table.games_played == games + 1 and not table.finished


async def test_the_last_player_who_had_not_asked_leaving_deals_the_game_with_a_bot_in_their_seat():
    table, (alice, bob) = await finished_table()
    table.play_again(alice)
    table.part(bob, on_purpose=True)
    assert not table.finished and table.seats[1].bot is not None
    assert alice.last.view.seat == 0 and not alice.last.view.finished


async def test_a_player_who_dropped_out_is_not_waited_for():
    table, (alice, bob) = await finished_table()
    table.part(bob, on_purpose=False)  # away: the seat waits for bob, but the next game does not
    table.play_again(alice)
    assert not table.finished and table.seats[1].away


async def test_a_returning_player_must_ask_too():
    table, (alice, bob) = await finished_table()
    table.part(bob, on_purpose=False)
    back = Player("bob")
    table.resume_seat(1, back)
    table.play_again(alice)
    assert table.finished and back.last.again == (0,)
    table.play_again(back)
    assert not table.finished


async def test_an_ask_is_forgotten_when_its_player_drops_out():
    table, (alice, bob, carol) = await finished_table(players=4, humans=3)
    table.play_again(bob)
    table.part(bob, on_purpose=False)  # bob's ask goes with bob; alice and carol are still to ask
    assert alice.last.again == ()
    table.play_again(alice)
    assert table.finished
    table.play_again(carol)
    assert not table.finished


async def test_spectators_cannot_ask_and_nobody_asks_before_the_end():
    table, (alice, bob) = await finished_table()
    watcher = Player("w")
    table.spectate(watcher)
    with pytest.raises(HostError) as refused:
        table.play_again(watcher)
    assert refused.value.code == errors.NOT_SEATED
    table.play_again(alice)
    assert watcher.last.again == (0,)
    table.play_again(bob)
    with pytest.raises(HostError) as refused:
        table.play_again(alice)
    assert refused.value.code == errors.NOT_FINISHED


def test_again_round_trips_on_the_wire_and_a_bad_seat_is_refused():
    state = played_out(3)
    update = TableUpdate(view_for(state, 0), (SeatInfo("a"), SeatInfo("b"), SeatInfo("c")), "t1", again=(0, 2))
    frame = msgpack.unpackb(encode_event(update), raw=False)
    assert frame["again"] == [0, 2]
    assert decode_host(frame).event() == update
    frame.pop("again")
    assert decode_host(frame).event().again == ()  # an older host: nobody asked
    for bad in ([3], [-1], ["0"], 5):
        frame["again"] = bad
        with pytest.raises((ValueError, TypeError)):
            decode_host(frame).event()
