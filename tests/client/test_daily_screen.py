"""The lobby's daily deal key (issue 30): ``d`` shows today's ranking and offers the deal once; after the game the
ranking shows again with the player's result to share."""

from __future__ import annotations

import pytest
from textual.app import App

from nothanks_tui.client.screens.dialogs import DailyScreen
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.link import LobbyError
from nothanks_tui.link.daily import Ranked
from nothanks_tui.link.wire import DailyRanking

from .ui_helpers import lobby_app, my_turn, table_screen, wait_until


def daily_text(app) -> str:
    return str(app.screen.query_one("#daily-text").render())


async def test_d_in_the_lobby_plays_the_daily_deal_once_and_shows_where_it_ranks():
    lobby, app = await lobby_app("alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby_screen = app.screen
        await pilot.pause()
        assert "d Daily" in lobby_screen.query_one(KeyBar).render().plain
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DailyScreen) and "Press p" in daily_text(app), "it")
        assert "0 players have finished it" in daily_text(app)
        await pilot.press("p")
        await wait_until(pilot, lambda: app.table_screen is not None and table_screen(app).table is not None, "play")
        assert not lobby.tables()  # (nobody else sees it)
        await wait_until(pilot, lambda: my_turn(app) or table_screen(app).table.view.finished, "a turn")
        for _ in range(20_000):
            if table_screen(app).table.view.finished:
                break
            if my_turn(app):
                await pilot.press("t")
            await pilot.pause(0.001)
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, DailyScreen) and "to share" in daily_text(app), "rank")
        text = daily_text(app)
        assert "No Thanks! daily " in text and "1st of 1 · ▓▓▓" in text and "alice" in text
        await pilot.press("p")  # played: p does nothing
        await pilot.pause()
        assert isinstance(app.screen, DailyScreen)
        await pilot.press("q")
        await wait_until(pilot, lambda: app.screen is lobby_screen, "back in the lobby")
    lobby.close()


class HostileRanking:
    """A host that answers the ranking with markup and escapes where text goes (a stranger's host over `join`)."""

    def __init__(self, error: bool) -> None:
        self.error = error

    async def daily_ranking(self):
        if self.error:
            raise LobbyError("no_such_code", "[/bold] broken [link=x]markup\x1b]0;title\x07")
        return DailyRanking("\x1b[2J[/red]2026-12-04", 1, [Ranked(1, False, "[/b]eve", 3)], Ranked(1, False, "me", 3))


@pytest.mark.parametrize("error", [True, False])
async def test_a_hostile_hosts_ranking_or_refusal_is_drawn_as_literal_text_without_escapes(error):
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(DailyScreen(HostileRanking(error)))
        await wait_until(pilot, lambda: "Asking" not in daily_text(app), "the answer")
        text = daily_text(app)
        assert "\x1b" not in text and ("[/bold] broken" in text if error else "[/red]2026-12-04" in text)
