"""The coach as a table option at a host: ticked in the lobby's new-table dialog, shown to everyone at the table
(waiting room, lobby list, title bar), and the key then works there (in-process host: the same Table)."""

from __future__ import annotations

from textual.widgets import Select

from nothanks_tui.client.screens.table import TableScreen, TitleBar
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.widgets.forms import TickBox
from nothanks_tui.client.widgets.keybar import KeyBar

from .ui_helpers import lobby_app, open_new_table_dialog, wait_until


async def test_a_table_created_with_the_coach_shows_it_and_answers_the_key():
    lobby, app = await lobby_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        app.screen.query_one("#coach", TickBox).value = True
        await pilot.click("#create")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await wait_until(pilot, lambda: waiting.waiting is not None, "the seats")
        assert waiting.waiting.coach
        assert "(coach)" in str(waiting.query_one("#waiting-title").render())
        [summary] = lobby.tables()
        assert summary.coach
        for _ in range(2):
            await pilot.press("b")
        await wait_until(pilot, lambda: waiting.waiting.can_start, "every seat filled")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.table is not None, "table")
        table = app.screen
        assert table.table.coach and "coach" in table.query_one(TitleBar).render().plain
        # Coach, chat and bell at once on 80 columns: the key bar still shows every key, the last one included.
        bar = table.query_one(KeyBar)
        await wait_until(pilot, lambda: "Mute bell" in bar.render().plain, "the whole key bar")
        shown = bar.render_line(0).text
        assert len(shown) == 80 and "…" not in shown
        for key in ("Take", "No thanks!", "Coach", "Rules", "Quit", "Chat", "Mute chat", "Mute bell"):
            assert f" {key}" in shown, key
        await wait_until(pilot, lambda: bool(table.table.view.legal), "my turn")
        await pilot.press("i")
        await wait_until(pilot, lambda: table.advice is not None, "the advice")
        assert table.advice.state_id == table.table.view.state_id
    lobby.close()


async def test_the_new_table_dialog_s_turn_clock_reaches_the_table_and_the_dialog_fits_80x24():
    lobby, app = await lobby_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        create = app.screen.query_one("#create")
        assert create.region.bottom <= 23 and app.screen.query_one("#turn-clock").region.height == 1
        app.screen.query_one("#turn-clock", Select).value = 30
        await pilot.click("#create")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        [summary] = lobby.tables()
        assert lobby.table(summary.table_id).settings.turn_clock == 30
    lobby.close()
