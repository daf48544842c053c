"""`nothanks simulate`: records that an independent referee accepts, a summary that adds up, the CLI itself."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nothanks_tui.cli import main
from nothanks_tui.client.replaying import read_record_file
from nothanks_tui.engine import replay
from nothanks_tui.simulate import labels_for, simulate

from .referee import check_record


@pytest.mark.parametrize("players", range(2, 8))
def test_two_hundred_games_per_count_pass_an_independent_referee(tmp_path, players):
    result = simulate(players=players, games=200, seed=7, bot_names=["rules"], records_dir=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 200
    for path in files:
        record = read_record_file(path)
        assert record["format"] == "nothanks-record/1"
        assert check_record(record) == [], path.name
    assert replay(read_record_file(files[0])).finished
    assert sum(tally.games for tally in result.tallies.values()) == 200 * players


def test_the_referee_catches_a_corrupt_record(tmp_path):
    simulate(players=3, games=1, seed=1, bot_names=["rules"], records_dir=tmp_path)
    record = read_record_file(next(tmp_path.glob("*.json")))
    assert check_record(record) == []
    bad_score = json.loads(json.dumps(record))
    bad_score["final"][0]["score"] += 1
    assert any("score" in problem for problem in check_record(bad_score))
    out_of_turn = json.loads(json.dumps(record))
    out_of_turn["moves"][0]["seat"] = (out_of_turn["moves"][0]["seat"] + 1) % 3
    assert any("turn" in problem for problem in check_record(out_of_turn))


def test_seats_rotate_and_win_shares_sum_to_one():
    result = simulate(players=3, games=30, seed=3, bot_names=["rules", "threshold", "random"])
    assert [tally.games for tally in result.tallies.values()] == [30, 30, 30]
    assert sum(tally.wins for tally in result.tallies.values()) == pytest.approx(30)


def test_fast_and_reference_paths_give_the_same_games(tmp_path):
    """Bots play through the fast core in simulate; the records it writes replay through the reference engine
    (each move checked again). The same bots through the reference engine must produce the same records."""
    from nothanks_tui.bots import make_bot
    from nothanks_tui.engine import GameConfig, to_record
    from nothanks_tui.simulate import play_game

    simulate(players=4, games=5, seed=11, bot_names=["rules"], records_dir=tmp_path)
    for game, path in enumerate(sorted(tmp_path.glob("*.json"))):
        reference = play_game(GameConfig(players=4), 11 + game, [make_bot("rules")] * 4)
        assert read_record_file(path)["moves"] == to_record(reference, ["a", "b", "c", "d"])["moves"]


def test_labels_for_repeated_bots():
    assert labels_for(["rules", "rules", "random"]) == ["rules", "rules#2", "random"]


def test_simulate_command_prints_a_summary(capsys, tmp_path):
    assert main(["simulate", "--players", "3", "--games", "12", "--seed", "5", "--records", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "12 games, 3 players" in out
    assert "mean score" in out and "win share" in out
    assert len(list(tmp_path.glob("*.json"))) == 12


def test_simulate_rejects_a_wrong_number_of_bots(capsys):
    assert main(["simulate", "--players", "3", "--games", "1", "--bot", "rules", "--bot", "random"]) == 2
    assert "give one bot name or 3" in capsys.readouterr().err


def test_help_lists_the_subcommands():
    out = subprocess.run(
        [sys.executable, "-m", "nothanks_tui", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for command in ("play", "simulate"):
        assert command in out


def test_play_and_simulate_take_a_bot_with_a_setting_and_refuse_a_bad_one(capsys):
    from nothanks_tui.cli import build_parser

    assert build_parser().parse_args(["play", "--bot", "ismcts:800"]).bot == "ismcts:800"
    assert main(["simulate", "--bot", "ismcts:5", "--games", "2", "--players", "2"]) == 0
    assert "ismcts:5" in capsys.readouterr().out
    for bad in (["play", "--bot", "ismcts:0"], ["simulate", "--bot", "nobody"]):
        try:
            build_parser().parse_args(bad)
        except SystemExit as exit:
            assert exit.code == 2
        else:
            raise AssertionError(f"{bad} was accepted")
    assert "unknown bot 'nobody'" in capsys.readouterr().err


def test_records_at_a_path_that_is_a_file_are_refused_before_any_game(tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("")
    assert main(["simulate", "--games", "1", "--players", "2", "--records", str(taken)]) == 2
    assert f"--records {taken}: not a directory" in capsys.readouterr().err


def test_a_record_missing_a_field_is_refused_in_words_that_name_it():
    from nothanks_tui.engine import IllegalMove
    from nothanks_tui.engine.records import RECORD_FORMAT

    with pytest.raises(IllegalMove) as refused:
        replay({"format": RECORD_FORMAT})
    assert refused.value.code == "bad_record"
    assert "it has no 'players' field" in str(refused.value) and "KeyError" not in str(refused.value)
