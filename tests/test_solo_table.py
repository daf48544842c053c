"""A solo table (``nothanks play``): the host's Table with one human seat, through the in-process connection.

It checks intents, paces bots off the event loop, takes the card for a bot that fails, and sends only the seat's
view: the same code as a network host's table, so these hold there too.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from nothanks_server.inprocess import SoloGame, solo_table
from nothanks_tui.bots import make_bot
from nothanks_tui.engine import Action, PlayerView
from nothanks_tui.link import Closed, Rejected, TableConnection, TableUpdate
from nothanks_tui.link.errors import NO_CHIPS, NOT_FINISHED, NOT_YOUR_TURN, STALE_STATE


async def next_event(connection: TableConnection):
    return await asyncio.wait_for(connection.next_event(), 5)


async def next_update(connection: TableConnection) -> TableUpdate:
    event = await next_event(connection)
    assert isinstance(event, TableUpdate), event
    return event


def state_id(connection) -> int:
    """The table's current state number, read on the host side (the state itself never reaches the seat)."""
    return connection.table.state.state_id


async def until_my_turn_or_end(connection: TableConnection) -> TableUpdate:
    while True:
        update = await next_update(connection)
        if update.view.my_turn or update.view.finished:
            return update


def table(players: int = 3, seed: int = 5, chips: int | None = None, bots=None):
    game = SoloGame(players=players, seed=seed, bot_pace=0, chips_per_player=chips)
    return solo_table(game, bots if bots is not None else [make_bot("rules", seed + i) for i in range(players - 1)])


async def test_the_human_gets_only_their_view_with_others_chips_hidden():
    connection = table()
    await connection.start()
    update = await next_update(connection)
    assert isinstance(update.view, PlayerView)
    assert update.view.seat == 0
    assert update.view.chips[0] == 11
    assert update.view.chips[1:] == (None, None)
    assert not hasattr(update, "state") and "deck" not in update.view.to_dict()
    assert [seat.is_bot for seat in update.seats] == [False, True, True]
    await connection.close()


async def test_a_take_and_a_pass_are_applied_and_a_repeated_intent_is_refused_as_stale():
    connection = table()
    await connection.start()
    update = await until_my_turn_or_end(connection)
    seen = update.view.state_id
    card = update.view.card
    await connection.send_action(Action.TAKE, seen)
    await connection.send_action(Action.TAKE, seen)  # the same key again, sent from the same picture
    taken = await next_update(connection)
    assert card in taken.view.my_hand
    refused = await next_event(connection)
    assert refused == Rejected(STALE_STATE, refused.message)
    assert state_id(connection) == taken.view.state_id  # the repeat changed nothing

    chips_before = taken.view.my_chips
    await connection.send_action(Action.PASS, taken.view.state_id)  # the taker decides again: pass this one
    passed = await next_update(connection)
    assert passed.view.my_chips == chips_before - 1
    assert passed.view.moves[-1].action is Action.PASS
    await connection.close()


async def first_to_move_with_no_chips() -> tuple[TableConnection, TableUpdate]:
    """A table where nobody has chips and the human moves first (so must take every card)."""
    for seed in range(50):
        connection = table(chips=0, seed=seed)
        await connection.start()
        update = await next_update(connection)
        if update.view.my_turn:
            return connection, update
        await connection.close()
    raise AssertionError("no seed in 0..49 lets seat 0 start")


async def next_rejection(connection: TableConnection) -> Rejected:
    while True:
        event = await asyncio.wait_for(connection.next_event(), 5)
        if isinstance(event, Rejected):
            return event


async def test_pass_with_no_chips_is_refused_with_the_engines_code():
    connection, update = await first_to_move_with_no_chips()
    await connection.send_action(Action.PASS, update.view.state_id)
    refused = await next_event(connection)
    assert isinstance(refused, Rejected) and refused.code == NO_CHIPS
    assert "no chips" in refused.message
    assert state_id(connection) == update.view.state_id
    await connection.close()


async def test_out_of_turn_is_refused_with_the_engines_code():
    bots = [make_bot("rules", 1 + i) for i in range(2)]
    connection = table(seed=1, bots=bots)
    await connection.start()
    # Pass until the game is at a bot's seat, then the human's intent for the current state is out of turn.
    update = await until_my_turn_or_end(connection)
    await connection.send_action(Action.PASS, update.view.state_id)
    # Block the bots so the state stays at the bot's turn while we ask.
    gate = threading.Event()
    for bot in bots:
        original = bot.choose

        def slow(view, original=original):
            gate.wait(5)
            return original(view)

        bot.choose = slow  # type: ignore[method-assign]
    after = await next_update(connection)
    assert not after.view.my_turn
    await connection.send_action(Action.TAKE, after.view.state_id)
    refused = await next_event(connection)
    gate.set()
    assert isinstance(refused, Rejected) and refused.code == NOT_YOUR_TURN
    await connection.close()


async def test_bots_think_in_a_thread_so_the_event_loop_stays_free():
    main_thread = threading.get_ident()
    thinking = threading.Event()
    release = threading.Event()
    threads: list[int] = []

    class SlowBot:
        name = "slow"

        def choose(self, view):
            threads.append(threading.get_ident())
            thinking.set()
            release.wait(5)
            return Action.TAKE

    connection = table(players=2, seed=2, bots=[SlowBot()])
    await connection.start()
    update = await next_update(connection)
    if update.view.my_turn:
        await connection.send_action(Action.PASS, update.view.state_id)
        await next_update(connection)
    # The bot is now blocked inside choose(); the loop must still run other coroutines.
    await asyncio.wait_for(asyncio.to_thread(thinking.wait, 5), 5)
    ticks = 0
    for _ in range(3):
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 3
    release.set()
    moved = await next_update(connection)
    assert moved.view.moves[-1].seat == 1
    assert threads and all(ident != main_thread for ident in threads)
    await connection.close()


async def test_a_game_plays_to_the_end_and_play_again_deals_a_new_game_at_the_same_table():
    connection = table(players=3, seed=11)
    await connection.start()
    await connection.play_again()  # too early: refused, the game goes on
    rejections: list[Rejected] = []
    update: TableUpdate | None = None
    while update is None or not update.view.finished:
        event = await next_event(connection)
        if isinstance(event, Rejected):
            rejections.append(event)
            continue
        assert isinstance(event, TableUpdate)
        update = event
        if update.view.my_turn:
            await connection.send_action(Action.TAKE, update.view.state_id)
    assert [r.code for r in rejections] == [NOT_FINISHED]
    assert update.can_restart
    assert all(chips is not None for chips in update.view.chips)  # counted in the open at the end
    await connection.play_again()
    again = await next_update(connection)
    assert again.view.state_id == 0 and not again.view.finished
    assert again.seats == update.seats
    assert connection.table.games_played == 2
    await connection.close()


async def test_a_seeded_table_deals_the_same_games():
    async def first_cards(seed: int) -> list[int | None]:
        connection = table(seed=seed)
        await connection.start()
        update = await next_update(connection)
        await connection.close()
        return [update.view.card]

    assert await first_cards(9) == await first_cards(9)


async def test_close_ends_the_stream_and_refuses_later_intents():
    connection = table()
    await connection.start()
    await connection.close()
    await connection.close()  # twice is safe
    events = []
    while True:
        event = await next_event(connection)
        events.append(event)
        if isinstance(event, Closed):
            break
    await connection.send_action(Action.TAKE, 0)
    late = await next_event(connection)
    assert isinstance(late, Rejected)


async def test_a_bot_that_breaks_the_rules_takes_instead_of_stalling_the_table():
    class CheatBot:
        name = "cheat"

        def choose(self, view):
            return Action.PASS  # even with no chips

    connection = table(players=2, seed=4, chips=0, bots=[CheatBot()])
    await connection.start()
    update = await next_update(connection)
    while not update.view.finished:
        if update.view.my_turn:
            await connection.send_action(Action.TAKE, update.view.state_id)
        update = await next_update(connection)
    assert len(update.view.hands[1]) > 0


def test_a_table_needs_one_bot_per_other_seat():
    with pytest.raises(ValueError):
        table(players=3, seed=1, bots=[make_bot("random")])
