"""``nothanks replay`` and ``nothanks history`` from the command line, and local games kept where they read them:
a game played from the start screen is in its history; bad files and empty histories are one sentence."""

from __future__ import annotations

import json

import pytest

from nothanks_server.history import history_database
from nothanks_server.store import SqliteStore
from nothanks_tui.cli import main
from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.history import HistoryScreen, StatsScreen
from nothanks_tui.client.screens.replay import ReplayScreen
from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.screens.start import StartScreen
from nothanks_tui.commands.launchers import LocalLaunchers

from ..client.ui_helpers import my_turn, table_screen, wait_until
from .records import finished_record


@pytest.fixture
def opened(monkeypatch):
    """Instead of running the app, note the screen it would open on."""
    screens = []

    def run(app):
        screens.append(app.get_default_screen())
        return 0

    monkeypatch.setattr(HistoryApp, "run", run)
    return screens


def test_replay_needs_a_file_or_last(capsys, opened):
    assert main(["replay"]) == 2
    assert "--last" in capsys.readouterr().out and not opened


def test_replay_of_a_broken_file_is_one_sentence(tmp_path, capsys, opened):
    path = tmp_path / "game.json"
    path.write_text("{not json")
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("nothanks replay: ") and "it is not JSON" in out and "Traceback" not in out
    record = finished_record(["ann", "bob"], 4)
    record["moves"] = record["moves"][:5]
    record.pop("final")
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 1
    assert "not finished" in capsys.readouterr().out
    assert main(["replay", str(tmp_path / "missing.json")]) == 1
    assert "Cannot read" in capsys.readouterr().out
    assert not opened


def test_replay_of_a_record_file_opens_the_replay(tmp_path, opened):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished_record(["ann", "bob", "cy"], 4)))
    assert main(["replay", str(path)]) == 0
    [screen] = opened
    assert isinstance(screen, ReplayScreen) and screen.replay.moves > 24


def test_replay_last_with_no_game_yet_says_so(tmp_path, capsys, opened):
    assert main(["replay", "--last", "--data-dir", str(tmp_path)]) == 1
    assert "no finished game yet" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())  # reading an empty history makes no file


def test_a_data_dir_that_does_not_exist_is_said_and_not_made(tmp_path, capsys, opened):
    missing = tmp_path / "typo"
    for command in (["history"], ["history", "--stats"], ["replay", "--last"]):
        assert main([*command, "--data-dir", str(missing)]) == 2
        assert f"--data-dir {missing}: no such directory" in capsys.readouterr().out
    assert not missing.exists() and not opened


def test_history_opens_the_list_or_the_statistics(tmp_path, opened):
    assert main(["history", "--data-dir", str(tmp_path)]) == 0
    assert main(["history", "--stats", "--data-dir", str(tmp_path)]) == 0
    assert isinstance(opened[0], HistoryScreen) and isinstance(opened[1], StatsScreen)


async def test_a_local_game_from_the_start_screen_is_kept_and_replayed_from_its_history(tmp_path):
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0, seed=5, records_dir=tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+s")  # play against bots with the default choices
        await wait_until(pilot, lambda: app.table_screen is not None, "the table")
        while not isinstance(app.screen, ScoreScreen):
            await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "turn or end")
            if my_turn(app):
                before = table_screen(app).table.view.state_id
                await pilot.press("t")
                await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the take")
        final = table_screen(app).table.view
        await pilot.press("q")  # leave the table: back to the start screen
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await pilot.press("ctrl+t")  # the statistics, then back
        await wait_until(pilot, lambda: isinstance(app.screen, StatsScreen) and bool(app.screen.rows), "statistics")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen again")
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen) and bool(app.screen.games), "history")
        [game] = app.screen.games
        assert game.game_id.startswith("local-") and game.bots[1:] == (True,) * (len(game.players) - 1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        assert app.screen.replay.final.hands == final.hands
    assert len(list(tmp_path.glob("*.json"))) == 1  # and its JSON file, as a host writes
    store = SqliteStore(history_database(tmp_path), host=False)
    assert store.records(pending_only=True) == []  # a host started on this data dir has no file left to write
    store.close()


def test_a_store_that_is_not_a_database_is_one_sentence_and_never_stops_a_game(tmp_path, capsys, opened):
    from nothanks_server.history import LocalRecords

    history_database(tmp_path).write_bytes(b"this is not SQLite" * 100)
    assert main(["replay", "--last", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("nothanks replay: the history cannot be read") and "Traceback" not in out
    recorder = LocalRecords(tmp_path)
    path = recorder.save(finished_record(["ann", "bob"], 1), "local", 1)  # logged, not raised: the JSON still comes
    assert path is not None and path.exists()
