"""The review on the client's screens (issue 30): ``v`` on the score screen grades the player's own decisions from
their own view, in a thread; the replay shows each of their moves' grade beside it; no grader, no ``v`` key."""

from __future__ import annotations

import pytest

from nothanks_tui.bots import review
from nothanks_tui.bots.review import review_view
from nothanks_tui.client.app import NetApp
from nothanks_tui.client.replaying import load_replay
from nothanks_tui.client.screens.replay import ReplayScreen
from nothanks_tui.client.screens.score import ReviewScreen, ScoreScreen
from nothanks_tui.client.widgets.keybar import KeyBar

from ..history.records import finished_record
from ..test_extras_snapshots import take_to_the_end
from .ui_helpers import local_app, wait_until


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    monkeypatch.setattr(review, "BUDGETS", {True: (300, 3_000, 1_000), False: (100, 1_000, 300)})


def footer(app) -> str:
    return app.screen.query_one(KeyBar).render().plain


@pytest.mark.parametrize("language", ["en", "fr"])
async def test_v_on_the_score_screen_grades_your_own_decisions(language):
    app, _ = local_app(players=3, seed=2, language=language)
    app.reviewer = review_view
    async with app.run_test(size=(80, 24)) as pilot:
        await take_to_the_end(pilot, app)
        final = app.screen.table.view
        assert ("v Review" if language == "en" else "v Analyse") in footer(app)
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        body = app.screen.query_one("#review-body")
        graded = "decisions graded" if language == "en" else "décisions notées"
        await wait_until(pilot, lambda: graded in str(body.render()), "the grades")
        expected = review_view(final)  # from the player's own final view: the same review
        text = str(body.render())
        for decision in expected["decisions"]:
            assert (f"Move {decision['move']} ·" if language == "en" else f"Coup {decision['move']} ·") in text
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, ScoreScreen), "back to the scores")


async def test_no_grader_no_v_key():
    app, _ = local_app(players=3, seed=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await take_to_the_end(pilot, app)
        assert "Review" not in footer(app)
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ScoreScreen)


async def test_the_replay_shows_the_grade_beside_each_of_your_moves():
    record = finished_record(["ann", "bob", "cy"], 7, bots=[False, True, True])
    replay = load_replay(record)
    app = NetApp(lambda: ReplayScreen(replay), reviewer=review_view)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await wait_until(pilot, lambda: screen.grades is not None, "the grades")
        assert screen.grades
        panel = lambda: str(screen.query_one("#replay-panel").render())  # noqa: E731
        for step in range(1, 12):
            screen.step = step
            await pilot.pause()
            move = replay.move(step)
            graded = move.seat == 0 and step in screen.grades
            assert ("Review:" in panel()) == graded
            if graded:
                assert f"take ≈{screen.grades[step]['take']:.1f}".replace("-", "−") in panel()
        assert any(replay.move(step).seat == 0 for step in range(1, 12))
