"""The host's Table and Lobby through the in-process connection: seats, bots, refusals, away and resume, records."""

from __future__ import annotations

import asyncio
import json

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_server.table import Table, TableSettings
from nothanks_tui.client.replaying import read_record_file
from nothanks_tui.engine import Action, replay
from nothanks_tui.link import (
    Closed,
    LobbyError,
    NewTable,
    Rejected,
    TableConnection,
    TableUpdate,
    TableWaiting,
)

WAIT = 10.0  # generous upper bound on waits that normally finish in milliseconds


async def next_matching(conn: TableConnection, predicate, limit: int = 10_000):
    """The first event from ``conn`` that satisfies ``predicate`` (skipping others)."""

    async def scan():
        for _ in range(limit):
            event = await conn.next_event()
            if predicate(event):
                return event
        raise AssertionError("no matching event")

    return await asyncio.wait_for(scan(), WAIT)


def is_update(event) -> bool:
    return isinstance(event, TableUpdate)


async def lobby_player(lobby: Lobby, name: str) -> InProcessLobby:
    player = InProcessLobby(lobby, name)
    await player.start()
    return player


@pytest.fixture
def lobby(tmp_path):
    lobby = Lobby(LobbySettings(data_dir=tmp_path / "records", bot_delay=0, turn_timer=None, seed=7))
    yield lobby
    lobby.close()


async def test_a_hosts_bots_get_first_names_as_local_bots_do_never_their_kind(lobby):
    """Issue 29 #13: a host's bots were called "medium", "medium 2"; they are named as at a local table."""
    ana = await lobby_player(lobby, "Ana")
    conn = await ana.create_table(NewTable(players=4, bots=2, bot="random"))
    await conn.add_bot("threshold")
    full = await next_matching(conn, lambda e: isinstance(e, TableWaiting) and e.can_start)
    assert [seat.name for seat in full.seats] == ["Ana", "bo", "cy", "dee"]  # (the player keeps "Ana")
    assert all(seat.is_bot for seat in full.seats[1:])


async def test_creator_sits_adds_bots_and_starts_and_bots_play_to_the_end(lobby, tmp_path):
    alice = await lobby_player(lobby, "alice")
    conn = await alice.create_table(NewTable(players=3, bots=1))
    waiting = await next_matching(conn, lambda e: isinstance(e, TableWaiting) and e.seats[1].is_bot)
    assert waiting.seats[0].name == "alice" and waiting.seats[1].is_bot
    await conn.add_bot()
    ready = await next_matching(conn, lambda e: isinstance(e, TableWaiting) and e.can_start)
    assert ready.my_seat == 0
    await conn.start_game()
    while True:
        event = await next_matching(conn, is_update)
        if event.view.finished:
            break
        if event.view.my_turn:
            await conn.send_action(Action.TAKE, event.view.state_id)
    records = list((tmp_path / "records").glob("*.json"))
    assert len(records) == 1
    record = read_record_file(records[0])
    assert record["players"][0] == "alice"
    assert replay(record).finished
    await conn.close()


async def test_views_are_filtered_per_seat_and_for_spectators(lobby):
    alice, bob, eve = [await lobby_player(lobby, n) for n in ("alice", "bob", "eve")]
    a = await alice.create_table(NewTable(players=2))
    b = await bob.join(lobby.tables()[0].table_id)
    watcher = await eve.spectate(lobby.tables()[0].table_id)
    await a.start_game()
    ua = await next_matching(a, is_update)
    ub = await next_matching(b, is_update)
    uw = await next_matching(watcher, is_update)
    assert ua.view.chips == (11, None) and ub.view.chips == (None, 11)
    assert uw.view.seat is None and uw.view.chips == (None, None)
    assert ua.can_restart is False


async def test_the_table_refuses_each_member_with_the_code_its_view_gave(lobby):
    """What a view says is not playable, and why, is what the table answers: for the seat out of turn and for a
    spectator (whose ``not_seated`` the host, not the engine, enforces)."""
    alice, bob, eve = [await lobby_player(lobby, n) for n in ("alice", "bob", "eve")]
    a = await alice.create_table(NewTable(players=2))
    b = await bob.join(lobby.tables()[0].table_id)
    watcher = await eve.spectate(lobby.tables()[0].table_id)
    await a.start_game()
    firsts = {member: (await next_matching(member, is_update)).view for member in (a, b, watcher)}
    other = b if firsts[a].to_move == 0 else a
    for member, code in ((other, "not_your_turn"), (watcher, "not_seated")):
        view = firsts[member]
        assert view.legal == () and {view.refusal(action) for action in Action} == {code}
        for action in Action:
            await member.send_action(action, view.state_id)
            refused = await next_matching(member, lambda e: isinstance(e, Rejected))
            assert refused.code == view.refusal(action)


async def test_stale_state_id_and_out_of_turn_and_no_chips_are_refused_with_codes(lobby):
    alice, bob = [await lobby_player(lobby, n) for n in ("alice", "bob")]
    a = await alice.create_table(NewTable(players=2))
    b = await bob.join(lobby.tables()[0].table_id)
    await a.start_game()
    first = await next_matching(a, is_update)
    mover, other = (a, b) if first.view.to_move == 0 else (b, a)
    await other.send_action(Action.TAKE, first.view.state_id)
    assert (await next_matching(other, lambda e: isinstance(e, Rejected))).code == "not_your_turn"
    await mover.send_action(Action.TAKE, first.view.state_id)
    after = await next_matching(mover, lambda e: is_update(e) and e.view.state_id == 1)
    # The same key pressed twice: the second intent names the old state and is refused, nothing changes.
    await mover.send_action(Action.TAKE, first.view.state_id)
    assert (await next_matching(mover, lambda e: isinstance(e, Rejected))).code == "stale_state"
    assert lobby.table(lobby.tables()[0].table_id).state.state_id == after.view.state_id == 1


async def test_only_the_creator_starts_and_only_when_every_seat_is_filled(lobby):
    alice, bob = [await lobby_player(lobby, n) for n in ("alice", "bob")]
    a = await alice.create_table(NewTable(players=3))
    await a.start_game()
    assert (await next_matching(a, lambda e: isinstance(e, Rejected))).code == "seats_empty"
    b = await bob.join(lobby.tables()[0].table_id)
    await b.add_bot()
    assert (await next_matching(b, lambda e: isinstance(e, Rejected))).code == "not_creator"
    with pytest.raises(LobbyError) as refused:
        await bob.join(lobby.tables()[0].table_id, seat=0)
    assert refused.value.code == "seat_taken"


async def test_a_dropped_player_is_away_and_resumes_the_exact_view_with_the_token(lobby):
    alice, bob = [await lobby_player(lobby, n) for n in ("alice", "bob")]
    a = await alice.create_table(NewTable(players=3, bots=1))
    b = await bob.join(lobby.tables()[0].table_id)
    await a.start_game()
    seen = await next_matching(b, is_update)
    token = b.seat_token
    await b.close()
    mine = seen.view.seat
    away = await next_matching(a, lambda e: is_update(e) and e.seats[mine].away)
    assert away.seats[mine].name == "bob"
    bob_again = await lobby_player(lobby, "bob")
    b2 = await bob_again.resume(token)
    back = await next_matching(b2, is_update)
    state = lobby.table(back.table_id).state
    assert back.view.seat == mine and back.view.state_id == state.state_id and back.view.hands == state.hands
    assert not back.seats[mine].away
    with pytest.raises(LobbyError) as refused:
        await bob_again.resume("not-a-token")
    assert refused.value.code == "bad_token"


async def test_the_turn_timer_lets_a_stand_in_play_for_an_away_player():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=0, seed=3))
    try:
        alice, bob = [await lobby_player(lobby, n) for n in ("alice", "bob")]
        a = await alice.create_table(NewTable(players=2))
        table_id = lobby.tables()[0].table_id
        b = await bob.join(table_id)
        await b.close()
        with pytest.raises(LobbyError):  # before the start a leaver's seat frees up, so the token is void
            await (await lobby_player(lobby, "bob")).resume(b.seat_token)
        b = await (await lobby_player(lobby, "bob")).join(table_id)
        watcher = await (await lobby_player(lobby, "eve")).spectate(table_id)
        await a.start_game()
        await next_matching(b, is_update)
        await b.close()
        await a.close()
        # Both players away, timer 0: stand-ins play every turn to the end.
        final = await next_matching(watcher, lambda e: is_update(e) and e.view.finished)
        assert all(seat.away for seat in final.seats)
        assert sum(len(hand) for hand in final.view.hands) == 24
    finally:
        lobby.close()


async def test_names_are_cleaned_and_bad_names_refused(lobby):
    player = await lobby_player(lobby, "\x1b[31mmal\x07lory[/]\x1b]0;pwned\x07")
    assert player.name == "mallory[/]"
    for bad in ("", "\x1b[2J", "x" * 21, "   "):
        with pytest.raises(LobbyError) as refused:
            await lobby_player(lobby, bad)
        assert refused.value.code == "bad_name"


async def test_closing_the_lobby_tells_every_member(lobby):
    alice = await lobby_player(lobby, "alice")
    a = await alice.create_table(NewTable(players=2, bots=1))
    lobby.close("maintenance")
    closed = await next_matching(a, lambda e: isinstance(e, Closed))
    assert closed.reason == "maintenance"


async def test_play_again_deals_a_new_game_at_the_same_seats(lobby):
    alice = await lobby_player(lobby, "alice")
    a = await alice.create_table(NewTable(players=2, bots=1))
    await a.start_game()
    while True:
        event = await next_matching(a, is_update)
        if event.view.finished:
            assert event.can_restart
            break
        if event.view.my_turn:
            await a.send_action(Action.TAKE, event.view.state_id)
    await a.play_again()
    fresh = await next_matching(a, lambda e: is_update(e) and not e.view.finished)
    assert fresh.view.state_id == 0 and fresh.seats[0].name == "alice"
    json.dumps(lobby.tables()[0].table_id)


async def test_a_returning_player_takes_over_from_the_stand_in_and_spectators_cannot_play():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=0, seed=9))
    try:
        alice, bob, eve = [await lobby_player(lobby, n) for n in ("alice", "bob", "eve")]
        a = await alice.create_table(NewTable(players=2))
        table_id = lobby.tables()[0].table_id
        b = await bob.join(table_id)
        watcher = await eve.spectate(table_id)
        await a.start_game()
        first = await next_matching(watcher, is_update)
        await watcher.send_action(Action.TAKE, first.view.state_id)
        assert (await next_matching(watcher, lambda e: isinstance(e, Rejected))).code == "not_seated"
        token = b.seat_token
        await b.close()
        # alice plays whenever it is her turn; bob's stand-in answers at once (timer 0) until bob is back.
        stand_in_moved = False
        while not stand_in_moved:
            event = await next_matching(a, is_update)
            if event.view.my_turn:
                await a.send_action(Action.PASS if event.view.my_chips else Action.TAKE, event.view.state_id)
            stand_in_moved = any(m.seat == 1 for m in event.view.moves)
        b2 = await (await lobby_player(lobby, "bob")).resume(token)
        table = lobby.table(table_id)
        assert table.seats[1].stand_in is None and not table.seats[1].away
        back = await next_matching(b2, is_update)
        assert back.view.seat == 1
    finally:
        lobby.close()


async def test_a_bot_that_crashes_or_cheats_still_moves_and_the_game_ends(monkeypatch):
    from nothanks_tui import bots

    class Broken:
        name = "broken"

        def __init__(self, seed=None) -> None:
            self.calls = 0

        def choose(self, view):
            self.calls += 1
            if self.calls % 2:
                raise RuntimeError("bug in a bot")
            return "pass" if not view.my_chips else "steal"

    monkeypatch.setitem(bots._REGISTRY, "broken-test-bot", (Broken, "raises or answers nonsense"))
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=2))
    try:
        alice = await lobby_player(lobby, "alice")
        a = await alice.create_table(NewTable(players=3, bots=2, bot="broken-test-bot"))
        await a.start_game()
        while True:
            event = await next_matching(a, is_update)
            if event.view.finished:
                break
            if event.view.my_turn:
                await a.send_action(Action.TAKE, event.view.state_id)
        assert sum(len(hand) for hand in event.view.hands) == 24
    finally:
        lobby.close()


def test_bots_think_for_the_set_delay_give_or_take_its_spread():
    """Tables that start together drift apart: each bot move waits 0.8 s +- 25 %, drawn afresh each time."""
    table = Table("t1", TableSettings(players=3, bot_delay=0.8))
    waits = [table.driver.wait() for _ in range(200)]
    assert all(0.6 <= wait <= 1.0 for wait in waits)
    assert max(waits) - min(waits) > 0.2  # spread over the range, not one value
    assert abs(sum(waits) / len(waits) - 0.8) < 0.05
    steady = Table("t2", TableSettings(players=3, bot_delay=0.5, bot_delay_spread=0))
    assert {steady.driver.wait() for _ in range(20)} == {0.5}
    assert Table("t3", TableSettings(players=3, bot_delay=0)).driver.wait() == 0


async def test_the_bots_play_on_without_holding_anything_of_the_player_who_called():
    """A Textual app keeps itself in context variables: a table task made in a player's context would keep the
    player's app alive for as long as the bots play on, long after the player left (the SSH sweep found this)."""
    import contextvars
    import gc
    import weakref

    class Held:
        pass

    caller_thing: contextvars.ContextVar[Held] = contextvars.ContextVar("caller_thing")
    lobby = Lobby(LobbySettings(bot_delay=30.0, turn_timer=None, seed=3))  # the bot thinks long: its task waits
    try:
        alice = await lobby_player(lobby, "alice")
        conn = await alice.create_table(NewTable(players=2, bots=1))
        held = Held()
        gone = weakref.ref(held)

        async def start_as_the_player(thing: Held) -> None:
            caller_thing.set(thing)
            await conn.start_game()
            update = await next_matching(conn, is_update)
            if update.view.to_move == 0:  # the player moves first: pass, so the bot's turn begins
                await conn.send_action(Action.PASS, update.view.state_id)

        await asyncio.get_running_loop().create_task(start_as_the_player(held), context=contextvars.Context())
        await asyncio.sleep(0)  # the loop's handle that woke this test up holds the finished task until it returns
        table = lobby.table(lobby.tables()[0].table_id)
        assert table.driver.task is not None and not table.driver.task.done(), "the bot's turn is being driven"
        del held
        gc.collect()
        assert gone() is None, "the table's task holds the caller's context"
    finally:
        lobby.close()
