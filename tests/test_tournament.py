"""Tournament statistics on known inputs, and tiny tournaments that check the bookkeeping."""

from __future__ import annotations

import json
import math

import pytest

from nothanks_tui.cli import main
from nothanks_tui.tournament import expand_lineup, tournament
from nothanks_tui.tournament.runner import seatings_for
from nothanks_tui.tournament.stats import elo_ratings, mean_ci, percentile, t95


def test_mean_ci_matches_the_textbook_student_t_interval():
    ci = mean_ci([1, 2, 3, 4, 5])
    assert ci.mean == 3
    # sd = sqrt(2.5), se = sqrt(0.5), t(4) = 2.776
    assert ci.half_width == pytest.approx(2.776 * math.sqrt(0.5))
    assert mean_ci([7.0]).half_width is None
    assert mean_ci([2.0] * 10).half_width == 0
    assert t95(1) == 12.706 and t95(1000) == 1.96 and 1.98 <= t95(100) <= 2.0


def test_percentile_interpolates_between_ranks():
    values = list(range(1, 101))
    assert percentile(values, 0.5) == pytest.approx(50.5)
    assert percentile(values, 0.99) == pytest.approx(99.01)
    assert percentile([4.0], 0.99) == 4.0


def test_elo_gap_for_a_75_percent_score_is_191_points():
    ratings = elo_ratings({("a", "b"): (750.0, 1000)}, ["a", "b"], prior=0)
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(3), abs=0.01)
    assert (ratings["a"] + ratings["b"]) / 2 == pytest.approx(1500)


def test_elo_recovers_consistent_strengths_of_three_players():
    # Strengths 4 : 2 : 1 give a 2/3 score between neighbours and 4/5 between the ends.
    results = {("a", "b"): (2 / 3 * 900, 900), ("b", "c"): (2 / 3 * 900, 900), ("a", "c"): (0.8 * 900, 900)}
    ratings = elo_ratings(results, ["a", "b", "c"], prior=0)
    step = 400 * math.log10(2)
    assert ratings["a"] - ratings["b"] == pytest.approx(step, abs=0.01)
    assert ratings["b"] - ratings["c"] == pytest.approx(step, abs=0.01)


def test_elo_of_a_clean_sweep_is_large_but_finite():
    ratings = elo_ratings({("a", "b"): (100.0, 100)}, ["a", "b"])
    assert 500 < ratings["a"] - ratings["b"] < 2000


def test_lineups_and_seatings():
    assert expand_lineup(["hard", "threshold"], 4) == ["hard", "threshold", "threshold", "threshold"]
    with pytest.raises(ValueError):
        expand_lineup(["nobody"], 3)
    assert len(seatings_for(["a", "b", "b"])) == 3
    assert len(seatings_for(["a", "b", "c"])) == 6
    assert seatings_for(list("abcdefg")) == []  # 5040: rotations instead


def test_a_tiny_tournament_adds_up_and_does_not_depend_on_jobs():
    report = tournament(["rules", "threshold"], players=3, games=30, seed=5, jobs=1)
    assert (report.deals, report.seatings_per_deal, report.games) == (10, 3, 30)
    by_name = {bot.name: bot for bot in report.bots}
    assert by_name["rules"].games == 30 and by_name["threshold"].games == 60
    # Every game has exactly one win to share out.
    assert sum(bot.win_share * bot.games for bot in report.bots) == pytest.approx(30)
    assert by_name["rules"].decisions > 0 and by_name["rules"].time_p50_ms is not None
    again = tournament(["rules", "threshold"], players=3, games=30, seed=5, jobs=2)
    strip = lambda r: [(b.name, b.mean_score, b.score_ci, b.win_share, b.elo) for b in r.bots]  # noqa: E731
    assert strip(again) == strip(report)


def test_with_too_many_seatings_every_bot_sits_in_every_seat_once_per_deal(monkeypatch):
    monkeypatch.setattr("nothanks_tui.tournament.runner.MAX_SEATINGS", 100)  # this line-up has 630
    report = tournament(["random", "threshold", "rules", "easy", "random", "threshold", "rules"], 7, 14, seed=1)
    assert report.seatings_per_deal == 7 and report.deals == 2
    assert {bot.name: bot.games for bot in report.bots} == {"random": 28, "threshold": 28, "rules": 28, "easy": 14}


def test_a_search_bot_plays_in_a_tournament(capsys, tmp_path):
    out = tmp_path / "report.json"
    code = main(["tournament", "medium", "random", "--players", "2", "--games", "2", "--jobs", "1", "--json", str(out)])
    assert code == 0
    table = capsys.readouterr().out
    assert "medium" in table and "wall p50" in table and "CPU p50" in table
    assert "only 1 deal:" in table  # 2 games are one deal: the intervals say little, and the table says so
    data = json.loads(out.read_text())
    assert data["games"] == 2 and data["parity"] == 0.5
    assert {bot["name"] for bot in data["bots"]} == {"medium", "random"}
    assert data["bots"][0]["time_p50_ms"] is not None
    medium = next(bot for bot in data["bots"] if bot["name"] == "medium")
    assert 0 < medium["cpu_p50_ms"] <= medium["cpu_max_ms"]


def test_unknown_bot_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as refused:  # argparse's, as for every other argument
        main(["tournament", "nobody", "--games", "1"])
    assert refused.value.code == 2
    assert "argument BOT: unknown bot 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tournament", "hard", "ismcts:0", "--games", "1"])
    assert "'ismcts:0': ismcts:N takes N iterations, from 1 to 1000000" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tournament", "hard", "pubmcts:0", "--games", "1"])
    assert "'pubmcts:0': pubmcts:N takes N iterations, from 1 to 1000000" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tournament", "hard", "expert:5", "--games", "1"])
    assert "'expert:5': only ismcts, pubmcts take a setting" in capsys.readouterr().err


def test_head_to_head_counts_every_meeting_of_two_different_bots():
    from nothanks_tui.tournament.report import summarize
    from nothanks_tui.tournament.runner import DealResult

    deals = [
        DealResult(0, [(("a", "b", "b"), (10, 20, 5)), (("b", "a", "b"), (30, 30, 40))]),
        DealResult(1, [(("b", "b", "a"), (1, 2, 3))]),
    ]
    report = summarize(["a", "b", "b"], 3, deals, {}, seed=0, jobs=1, seconds=0.0)
    # a meets two b's per game: game 1 beats one and loses to one, game 2 ties one and beats one, game 3 loses both.
    assert report.head_to_head == (("a", "b", 2.5, 6),)
    assert report.ahead_share("a", "b") == pytest.approx(2.5 / 6)
    assert report.ahead_share("b", "a") == pytest.approx(3.5 / 6)
    assert report.bot("a").win_share == pytest.approx((0 + 0.5 + 0) / 3)  # shares the win of game 2 with a b
    assert report.bot("b").win_share == pytest.approx((1 + 0.5 + 1) / 6)


def test_mixed_tournament_plays_every_mix_and_tabulates_it(capsys, tmp_path):
    out = tmp_path / "mixed.json"
    code = main(
        ["tournament", "rules", "threshold", "--mixed", "--players", "4", "--games", "8", "--jobs", "1",
         "--open-chips", "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    table = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert [mix["lineup"].count("rules") for mix in data["mixes"]] == [1, 2, 3]
    for mix, line in zip(data["mixes"], ("1A 3B", "2A 2B", "3A 1B")):
        assert line in table
        assert mix["open_chips"] is True
        seats = {bot["name"]: bot for bot in mix["bots"]}
        # Each game has exactly one win to share out, and A's share of meetings matches its head-to-head entry.
        assert sum(bot["win_share"] * bot["games"] for bot in mix["bots"]) == pytest.approx(mix["games"])
        [(first, second, points, meetings)] = mix["head_to_head"]
        assert (first, second) == ("rules", "threshold")
        assert meetings == mix["games"] * seats["rules"]["seats"] * seats["threshold"]["seats"]
        assert f"{points / meetings:.1%}" in table
    assert main(["tournament", "rules", "threshold", "easy", "--mixed", "--games", "1"]) == 2
    assert "exactly two" in capsys.readouterr().err


def test_the_tables_fit_80_columns_with_long_names_and_wide_intervals():
    from nothanks_tui.tournament.report import MixedReport, summarize
    from nothanks_tui.tournament.runner import DealResult

    long_a, long_b = "expert-noread", "ismcts:1000000"
    deals = [
        DealResult(n, [((long_a, long_b, long_b), (100 - n, 3 + 40 * n, -11)), ((long_b, long_a, long_b), (99, 0, 7))])
        for n in range(3)
    ]
    times = {long_a: [1.234567, 0.5], long_b: [0.001, 12.5]}
    one = summarize([long_a, long_b, long_b], 3, deals, times, seed=12345678, jobs=16, seconds=9876.5, cpu_times=times)
    two = summarize([long_a, long_a, long_b], 3, deals, times, seed=123456789, jobs=16, seconds=98765.4)
    for table in (one.table(), MixedReport(long_a, long_b, (one, two)).table()):
        assert max(len(line) for line in table.splitlines()) <= 80, table
        assert long_a in table and "only 3 deals:" in table
    many = [DealResult(n, deals[0].games) for n in range(12)]
    assert "deals:" not in summarize([long_a, long_b], 2, many, {}, seed=1, jobs=1, seconds=1.0).table()


def test_a_json_path_that_cannot_be_written_is_refused_before_any_game_is_played(tmp_path, capsys, monkeypatch):
    import nothanks_tui.tournament as tournament_package

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(tournament_package, "tournament", no_games)
    monkeypatch.setattr(tournament_package, "mixed_tournament", no_games)
    for path, why in [(tmp_path / "missing" / "out.json", "no such directory"), (tmp_path, "is a directory")]:
        assert main(["tournament", "rules", "random", "--players", "2", "--games", "1", "--json", str(path)]) == 2
        assert why in capsys.readouterr().err
        assert main(["tournament", "rules", "random", "--mixed", "--games", "1", "--json", str(path)]) == 2
        assert why in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()
