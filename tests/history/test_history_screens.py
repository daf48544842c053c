"""Pilot flows: the replay stepped with its keys, the history list opening a replay, the statistics screen's numbers
against hand-computed ones, "replay this game" from the score screen, and damaged records said, not raised."""

from __future__ import annotations

from rich.text import Text

from nothanks_server.archive import LOCAL
from nothanks_server.history import StoreHistory, history_database
from nothanks_server.store import SqliteStore
from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.replaying import ReplayError, load_replay
from nothanks_tui.client.screens.history import HistoryScreen, StatsScreen
from nothanks_tui.client.screens.replay import MoveNumberScreen, ReplayScreen
from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.widgets.table import PlayersPanel
from nothanks_tui.engine import breakdown, card_points

from ..client.ui_helpers import local_app, my_turn, table_screen, wait_until
from .records import finished_record, scores_of


def panel_text(app) -> str:
    return str(app.screen.query_one("#replay-panel").render())


def fill_history(tmp_path, games):
    store = SqliteStore(history_database(tmp_path), host=False)
    for number, record in enumerate(games, start=1):
        store.add_record("local-x", number, record, LOCAL)
    store.close()
    return StoreHistory(tmp_path)


async def test_the_replay_steps_through_every_move_and_shows_what_was_hidden_at_the_end():
    record = finished_record(["ann", "bob", "cy"], 7, bots=[False, True, True])
    replay = load_replay(record)
    app = HistoryApp(lambda: ReplayScreen(replay))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.step == 0 and screen.table.view.moves == ()
        assert "Move 0 of" in panel_text(app) and "plays first" in panel_text(app)
        for _ in range(3):
            await pilot.press("n")
        assert screen.step == 3 and len(screen.table.view.moves) == 3
        state = replay.states[3]
        assert screen.table.view.chips == state.chips  # every chip count, as it stood
        assert screen.table.view.pot == state.pot and screen.table.view.card == state.card
        expected = [str(card_points(hand) - chips).replace("-", "−") for hand, chips in zip(state.hands, state.chips)]
        assert all(f" {score}" in panel_text(app) for score in expected)
        await pilot.press("p")
        assert screen.step == 2
        await pilot.press("end")
        assert screen.step == replay.moves and screen.table.view.finished
        text = panel_text(app)
        assert "Set aside" in text and " ".join(str(c) for c in record["removed"]).replace(" ", "  ") in text
        assert "Chips at the end" in text
        for seat, entry in enumerate(record["final"]):
            assert f"{record['players'][seat]} {entry['chips']}" in text
        await pilot.press("n")  # nothing after the end
        assert screen.step == replay.moves
        await pilot.press("home")
        assert screen.step == 0
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_history_lists_newest_first_and_opens_the_chosen_game(tmp_path):
    games = [finished_record(["ann", "bob"], seed, finished_at=1_700_000_000.0 + seed * 60) for seed in range(5)]
    source = fill_history(tmp_path, games)
    app = HistoryApp(lambda: HistoryScreen(source))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        await wait_until(pilot, lambda: len(screen.games) == 5, "the games listed")
        assert [game.game_id for game in screen.games] == [f"local-x/{n}" for n in (5, 4, 3, 2, 1)]
        await pilot.press("down")  # the second newest: games[3]
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        replay = app.screen.replay
        assert [list(hand) for hand in replay.final.hands] == [entry["cards"] for entry in games[3]["final"]]
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, StatsScreen) and bool(app.screen.rows), "stats")


async def test_the_statistics_screen_shows_the_hand_computed_numbers(tmp_path):
    games = [finished_record(["ann", "bob", "cy"], seed, finished_at=1000.0 + seed) for seed in range(4)]
    source = fill_history(tmp_path, games)
    ann_scores = [scores_of(record)[0] for record in games]
    ann_wins = sum(1 for record in games if 0 in record["winners"])
    app = HistoryApp(lambda: StatsScreen(source))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_until(pilot, lambda: bool(screen.rows), "the statistics")
        table = screen.query_one("#stats")
        rows = {str(table.get_row_at(index)[0]): table.get_row_at(index) for index in range(table.row_count)}
        ann = [str(cell) for cell in rows["ann"]]
        mean = sum(ann_scores) / 4
        assert ann[1:] == [
            "4",
            str(ann_wins),
            f"{ann_wins / 4:.0%}",
            f"{abs(mean):.1f}" if mean >= 0 else f"−{abs(mean):.1f}",
            str(min(ann_scores)).replace("-", "−"),
        ]


async def test_names_from_records_are_drawn_as_text_never_as_markup_or_escapes(tmp_path):
    hostile = ["[b]x[/]", "\x1b[31mev\x07il"]
    source = fill_history(tmp_path, [finished_record(hostile, 3)])
    app = HistoryApp(lambda: HistoryScreen(source))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_until(pilot, lambda: len(screen.games) == 1, "the game")
        cell = screen.query_one("#games").get_row_at(0)[2]  # (date, winner, players and scores)
        assert isinstance(cell, Text) and "[b]x[/]" in cell.plain and "\x1b" not in cell.plain
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await pilot.press("end")
        assert "\x1b" not in panel_text(app) and "[b]x[/]" in panel_text(app)


async def test_a_damaged_record_in_the_history_is_said_in_a_sentence(tmp_path):
    record = finished_record(["ann", "bob"], 2)
    record["final"][0]["score"] += 1  # a hand-edited score: the replay disagrees
    source = fill_history(tmp_path, [record])
    app = HistoryApp(lambda: HistoryScreen(source))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_until(pilot, lambda: len(screen.games) == 1, "the game")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app._notifications), "the refusal")
        [notice] = list(app._notifications)
        assert "does not replay" in notice.message and app.screen is screen


def test_every_kind_of_broken_record_is_one_readable_replay_error():
    good = finished_record(["ann", "bob"], 1)
    broken = [
        None,
        [],
        {"format": "nope"},
        {**good, "players": 7},
        {**good, "deck": good["deck"][:-1]},
        {**good, "moves": [{"seat": "x", "action": "take"}]},
        {**good, "moves": good["moves"][:-3], "final": None},  # unfinished
        {**good, "chips_per_player": "many"},
        {**good, "moves": [None]},
    ]
    for record in broken:
        try:
            load_replay(record)
        except ReplayError as error:
            assert str(error) and "Traceback" not in str(error)
        else:
            raise AssertionError(f"accepted {record!r:.60}")


async def test_the_score_screen_replays_the_game_just_played():
    app, _ = local_app(players=3, seed=2)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, ScoreScreen):
            await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "turn or end")
            if my_turn(app):
                before = table_screen(app).table.view.state_id
                await pilot.press("t")
                await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the take")
        final = table_screen(app).table.view
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        replay = app.screen.replay
        assert replay.final.hands == final.hands and replay.moves == final.state_id
        scores = [breakdown(hand, chips).score for hand, chips in zip(replay.final.hands, replay.final.chips)]
        assert scores == [breakdown(h, c or 0).score for h, c in zip(final.hands, final.chips)]
        await pilot.press("q")
        assert isinstance(app.screen, ScoreScreen)


def players_text(app) -> str:
    return "\n".join(line.plain for line in app.screen.query_one(PlayersPanel).draw_lines())


async def test_the_replay_marks_you_and_jumps_to_a_typed_move_number():
    """Issue 29, defect 17: the replay said nobody was you, and reached move 40 only by 40 presses."""
    record = finished_record(["ann", "bob", "cy"], 7, bots=[False, True, True])
    replay = load_replay(record)
    app = HistoryApp(lambda: ReplayScreen(replay))  # (this machine's game: its one player is you)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert "ann (you)" in players_text(app) and "bob (you)" not in players_text(app)
        assert "ann (you)" in panel_text(app)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, MoveNumberScreen), "the move number")
        await pilot.press("2", "0", "enter")
        await wait_until(pilot, lambda: app.screen is screen, "back in the replay")
        assert screen.step == 20 and len(screen.table.view.moves) == 20 and "Move 20 of" in panel_text(app)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, MoveNumberScreen), "the move number")
        await pilot.press("9", "9", "9", "enter")  # past the end: the end
        await wait_until(pilot, lambda: app.screen is screen, "back in the replay")
        assert screen.step == replay.moves
        await pilot.press("g", "escape")
        assert app.screen is screen and screen.step == replay.moves
    # A host's history: the player named so; a spectator's score screen: nobody.
    people = load_replay(finished_record(["ann", "bob"], 7))
    assert ReplayScreen(people, you="bob").you == 1 and ReplayScreen(replay, you=None).you is None
    assert ReplayScreen(people).you is None  # two people, and no name: not known
