"""What the others see when a player leaves, drops out or comes back (issue 17.2, 17.11), from the host's facts.

The host sends seat events and the seconds left before a bot plays an away player's turn; the app words them:
log lines, "(bot playing)" by the name, the stand-in's moves as a bot's, a countdown driven by the widget's clock.
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import pytest

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.seat_log import log_entries
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.client.widgets.table import MoveLog, PlayersPanel, TableStatus
from nothanks_tui.engine import Action, GameConfig, apply, new_game, view_for
from nothanks_tui.link import SeatEvent, SeatInfo, TableUpdate

from .test_any_connection import ScriptedConnection
from .ui_helpers import table_screen, wait_until

ANA, BO = SeatInfo("ana"), SeatInfo("bo")


class CreatorConnection(ScriptedConnection):
    """Also records the creator's requests for a bot to play for an away player."""

    def __init__(self) -> None:
        super().__init__()
        self.stand_ins: list[int] = []

    async def stand_in_for(self, seat: int) -> None:
        self.stand_ins.append(seat)


def game_after(moves: int, seed: int = 4):
    """A two-player game (ana is seat 0, bo seat 1) after ``moves`` moves: each takes a card once it carries a
    chip or two (both take cards)."""
    state = new_game(GameConfig(players=2), seed=seed)
    for index in range(moves):
        take = state.pot >= 1 + (index // 7) % 2 or not state.chips[state.to_move]
        state = apply(state, Action.TAKE if take else Action.PASS)
    return state


def text_of(widget) -> str:
    return widget.render().plain


async def test_the_log_says_who_left_shows_the_stand_in_s_moves_as_a_bot_s_and_who_is_back():
    state = game_after(9)
    bo_takes = [index for index, move in enumerate(state.moves) if move.seat == 1 and move.action is Action.TAKE]
    left_at = bo_takes[1]  # bo left before his second take: from then on a bot played his turns
    back_at = len(state.moves)
    events = (SeatEvent(left_at, 1, "left"), SeatEvent(back_at, 1, "back"))
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(100, 30)) as pilot:
        during = TableUpdate(
            view_for(state, 0), (ANA, SeatInfo("bo", away=True, left=True, stand_in=True)), "t1", seat_events=events[:1]
        )
        connection.events.put_nowait(during)
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        await pilot.pause()
        log = text_of(table_screen(app).query_one("#log", MoveLog))
        assert "bo left: a bot plays for them" in log
        assert "bo (bot playing)" in text_of(table_screen(app).query_one(PlayersPanel))
        later = [m for m in state.moves[left_at:] if m.action is Action.TAKE and m.seat == 1]
        before = [m for m in state.moves[:left_at] if m.action is Action.TAKE and m.seat == 1]
        assert later and before
        for move in later:
            assert f"bot for bo took {move.card}" in log
        for move in before:
            assert f"bo took {move.card}" in log and f"bot for bo took {move.card}" not in log
        connection.events.put_nowait(TableUpdate(view_for(state, 0), (ANA, BO), "t1", seat_events=events))
        await wait_until(pilot, lambda: "bo is back" in text_of(table_screen(app).query_one("#log", MoveLog)))
        assert "(bot playing)" not in text_of(table_screen(app).query_one(PlayersPanel))


def test_log_entries_keep_every_seat_event_in_order_among_the_takes():
    state = game_after(30)
    take = next(i for i, m in enumerate(state.moves) if i >= 5 and m.seat == 1 and m.action is Action.TAKE)
    start, end = take - 2, take + 3  # a bot played for bo around one of his takes
    events = (SeatEvent(start - 1, 1, "away"), SeatEvent(start, 1, "stand_in"), SeatEvent(end, 1, "back"))
    entries = log_entries(state.moves, events, 40)
    order = [entry.event.kind if entry.event else entry.move for entry in entries]
    assert [item for item in order if isinstance(item, str)] == ["away", "stand_in", "back"]
    assert order[-1] == state.moves[-1]  # the newest entry is the last move (a pass too)
    moves = [entry for entry in entries if entry.move is not None]
    assert any(entry.by_bot for entry in moves)
    for entry in moves:  # a bot played bo's moves between the stand-in and his return, and nobody else's
        index = state.moves.index(entry.move)
        assert entry.by_bot == (entry.move.seat == 1 and start <= index < end), (index, entry)


@contextlib.asynccontextmanager
async def counting_down(monkeypatch, size, seat: int, seats, bot_in: float):
    """An app at a game whose turn is ``seat``'s, told a bot plays it in ``bot_in`` s; its status widget's clock
    at 1000 (``now``: the test moves it)."""
    now = [1000.0]
    monkeypatch.setattr(TableStatus, "clock", staticmethod(lambda: now[0]))
    state = game_after(0)
    if state.to_move != seat:
        state = apply(state, Action.PASS)
    assert state.to_move == seat
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=size) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(state, 0), seats, "t1", bot_in=bot_in))
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        status = table_screen(app).query_one(TableStatus)
        yield SimpleNamespace(now=now, state=state, connection=connection, pilot=pilot, app=app, status=status)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_an_away_player_s_turn_counts_down_from_the_host_s_seconds(monkeypatch, size):
    async with counting_down(monkeypatch, size, 1, (ANA, SeatInfo("bo", away=True)), 41.6) as at:
        now, pilot, status = at.now, at.pilot, at.status
        await wait_until(pilot, lambda: "bo is away: a bot plays for them in 42 s" in " ".join(text_of(status).split()))
        assert any(line.strip().endswith("42\u00a0s") for line in text_of(status).splitlines())  # never cut
        now[0] += 10
        status.tick()  # what the widget's timer does every second
        await wait_until(pilot, lambda: "in 32 s" in " ".join(text_of(status).split()), "the countdown")
        now[0] += 40
        status.tick()
        await wait_until(pilot, lambda: "plays for them now" in " ".join(text_of(status).split()), "the end")


async def test_only_the_creator_gets_the_key_that_lets_a_bot_play_for_an_away_player():
    state = game_after(2)
    away = (ANA, SeatInfo("bo", away=True))
    connection = CreatorConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(state, 0), away, "t1"))
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        await pilot.pause()
        assert "b Bot plays" not in app.screen.query_one(KeyBar).render().plain
        await pilot.press("b")
        await pilot.pause()
        assert connection.stand_ins == []  # not the creator: the key does nothing
        connection.events.put_nowait(TableUpdate(view_for(state, 0), away, "t1", creator=True))
        # (every key at once: the bar squeezes the longest words, "Bot plays" among them, to keep every key)
        await wait_until(pilot, lambda: "b Bot" in app.screen.query_one(KeyBar).render().plain, "the key")
        await pilot.press("b")
        await wait_until(pilot, lambda: connection.stand_ins == [1], "the request for seat 1")
        stand_in = (ANA, SeatInfo("bo", away=True, stand_in=True))
        connection.events.put_nowait(TableUpdate(view_for(state, 0), stand_in, "t1", creator=True))
        await wait_until(pilot, lambda: "b Bot plays" not in app.screen.query_one(KeyBar).render().plain, "gone")


async def test_a_player_who_leaves_after_the_game_is_shown_as_gone_under_their_name():
    state = game_after(0)
    while not state.finished:
        state = apply(state, Action.TAKE)
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(state, 0), (ANA, BO), "t1", can_restart=True))
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        gone = SeatInfo("bo", empty=True, left=True)
        connection.events.put_nowait(TableUpdate(view_for(state, 0), (ANA, gone), "t1", can_restart=True))
        notices = lambda: [str(n.message) for n in app._notifications]  # noqa: E731
        await wait_until(pilot, lambda: any("bo left the table: their seat is free" in n for n in notices()), "told")
        assert "bo (left)" in text_of(table_screen(app).query_one(PlayersPanel))


def test_chat_lines_sit_among_moves_and_seat_events_in_the_order_things_happened():
    from nothanks_tui.client.seat_log import LoggedChat, log_items
    from nothanks_tui.link import ChatLine

    state = game_after(6)
    events = (SeatEvent(2, 1, "left"), SeatEvent(4, 1, "back"))
    said = LoggedChat(ChatLine("ana", "see you", 0), game=0, after=2)
    later = LoggedChat(ChatLine("bo", "back!", 1), game=0, after=5)
    entries = log_entries(state.moves, events, 40)
    items = log_items(entries, state.moves, (said, later), 0, 40, (1, 1))

    def where(item):
        if isinstance(item, LoggedChat):
            return ("chat", item.after)
        if item.event is not None:
            return ("event", item.event.at)
        return ("move", state.moves.index(item.move) + 1)

    order = [where(item) for item in items]
    assert ("event", 2) in order and ("chat", 2) in order and ("event", 4) in order and ("chat", 5) in order
    # Each event and line comes after the moves made before it and before the moves made after it.
    positions = [at if kind == "move" else at + 0.5 for kind, at in order]
    assert positions == sorted(positions), order


class ChattyCreatorConnection(CreatorConnection):
    """A host's table with chat, for its creator."""

    @property
    def can_chat(self) -> bool:
        return True


async def test_quit_stays_in_the_footer_at_80_columns_with_chat_and_the_creators_key():
    state = game_after(2)
    connection = ChattyCreatorConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        away = (ANA, SeatInfo("bo", away=True))
        connection.events.put_nowait(TableUpdate(view_for(state, 0), away, "t1", creator=True, coach=True))
        # (every key at once: the bar squeezes the longest words, "Bot plays" among them, to keep every key)
        await wait_until(pilot, lambda: "b Bot" in app.screen.query_one(KeyBar).render().plain, "the key")
        footer = app.screen.query_one(KeyBar).render().plain
        assert "q Quit" in footer and footer.index("q Quit") + len("q Quit") <= 80, footer  # within the screen


def test_a_line_said_between_two_seat_events_of_one_move_count_sits_between_them():
    from nothanks_tui.client.seat_log import LoggedChat, log_items
    from nothanks_tui.link import ChatLine

    state = game_after(4)
    events = (SeatEvent(3, 1, "away"), SeatEvent(3, 2, "left"))
    before = LoggedChat(ChatLine("ana", "hi", 0), game=0, after=3, events=0)  # said before bo went away
    between = LoggedChat(ChatLine("ana", "bo?", 0), game=0, after=3, events=1)  # after bo, before cy left
    entries = log_entries(state.moves, events, 40)
    items = log_items(entries, state.moves, (between, before), 0, 40, (1, 1), events)
    around_3 = [
        item.line.text if isinstance(item, LoggedChat) else item.event.kind
        for item in items
        if isinstance(item, LoggedChat) or item.event is not None
    ]
    assert around_3 == ["hi", "away", "bo?", "left"]


def test_a_player_who_left_after_the_game_is_in_the_log_with_their_seat_free():
    """Issue 29 #16: leaving once the game is over is logged ("carol left"), in the words of a freed seat."""
    from nothanks_tui.client.seat_log import entry_line

    state = game_after(9)
    events = (SeatEvent(len(state.moves), 1, "left"),)
    freed = (ANA, SeatInfo("bo", empty=True, left=True))
    [entry] = [entry for entry in log_entries(state.moves, events, 40) if entry.event is not None]
    assert entry_line(entry, freed).plain == "bo left the table: their seat is free for the next game."


def test_a_stand_in_s_pass_stays_in_the_log_when_a_seat_event_comes_right_after_it():
    """Issue 29 #23: a bot's move for an away player went missing from the log (the pot went 3 -> 5): the log
    showed the newest entry, and when a seat event (the player back, another one away) came right after the
    bot's "No thanks!", that event was the newest and the pass was in no line at all."""
    state = game_after(0)
    while state.pot < 2 or state.to_move != 1:  # chips on the card, and bo to play: a bot passes for him
        state = apply(state, Action.PASS)
    state = apply(state, Action.PASS)
    bot_pass = state.moves[-1]
    events = (SeatEvent(len(state.moves) - 1, 1, "stand_in"), SeatEvent(len(state.moves), 1, "back"))
    entries = log_entries(state.moves, events, 40)
    assert any(entry.move == bot_pass and entry.by_bot for entry in entries)
    assert entries[-1].event == events[-1]  # (the return still comes after it)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_player_to_move_sees_their_turn_clock_count_down_and_the_log_says_when_it_ran_out(monkeypatch, size):
    async with counting_down(monkeypatch, size, 0, (ANA, BO), 11.6) as at:
        now, state, connection, pilot, app, status = at.now, at.state, at.connection, at.pilot, at.app, at.status
        await wait_until(pilot, lambda: "12\u00a0s left" in text_of(status), "the countdown")
        assert "Your turn" in text_of(status) and "on the card" in text_of(status)  # (nothing pushed off)
        assert len(status.draw_lines()) <= status.content_region.height  # the countdown fits the status
        now[0] += 5
        status.tick()
        await wait_until(pilot, lambda: "7\u00a0s left" in text_of(status), "the countdown going down")
        played = apply(state, Action.TAKE)  # the clock ran out: a bot took for ana
        update = TableUpdate(view_for(played, 0), (ANA, BO), "t1", seat_events=(SeatEvent(0, 0, "clock"),))
        connection.events.put_nowait(update)
        log = table_screen(app).query_one(MoveLog)
        await wait_until(pilot, lambda: "ana's clock ran out" in " ".join(text_of(log).split()), "the log")
        assert "bot for ana took" in " ".join(text_of(log).split())
        assert "\u00a0s left" not in text_of(status)  # (no bot_in: the clock does not run now)
