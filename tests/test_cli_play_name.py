"""``nothanks play``'s name: ``--name``, else the name saved on the start screen, else "you" (issue 29, defect 6:
it ignored the saved name, so the statistics counted one person as two)."""

from __future__ import annotations

import contextvars
from typing import Any

import pytest

from nothanks_tui import cli
from nothanks_tui.client.remembered import Remembered
from nothanks_tui.commands import launchers as play


@pytest.fixture
def played(monkeypatch, tmp_path) -> list[dict[str, Any]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    games: list[dict[str, Any]] = []

    def run_local_game(**options: Any) -> int:  # what the game would be dealt with, instead of the app
        games.append(options)
        return 0

    monkeypatch.setattr(play, "run_local_game", run_local_game)
    return games


def play_command(*arguments: str) -> int:
    return contextvars.copy_context().run(cli.main, ["--lang", "en", "play", *arguments])


def test_play_takes_the_name_saved_on_the_start_screen(played):
    Remembered.of_this_user().remember("dora", "solo", {})
    assert play_command() == 0
    assert played[-1]["name"] == "dora"
    assert play_command("--name", "eve") == 0  # (the command line's name wins, and is not saved)
    assert played[-1]["name"] == "eve" and Remembered.of_this_user().name == "dora"


def test_play_with_no_saved_name_is_you_in_the_players_language(played):
    assert play_command() == 0
    assert played[-1]["name"] == "you"
    assert contextvars.copy_context().run(cli.main, ["--lang", "fr", "play"]) == 0
    assert played[-1]["name"] == "vous"
