"""Leaving a game against bots (``nothanks play``, the start screen's first tab) ends it: nobody keeps the seat.

The leave question there once spoke of a host's table (a bot playing the seat until the player comes back, the
lobby, joining the host again): words that do not hold for a local table, which closes when its player leaves.
"""

from __future__ import annotations

from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen

from .ui_helpers import local_app, my_turn, wait_until


async def test_leaving_a_local_game_does_not_promise_the_seat_back():
    app, connection = local_app(seed=3)
    assert not connection.seat_kept  # the table closes when its one player leaves
    assert connection.seat_token is None and not connection.can_chat  # no token to resume, nobody to talk to
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        text = app.screen.text
        assert "lobby" not in text and "come back" not in text and "host" not in text
        assert "not over" in text
        await pilot.press("n")
