"""Small terminals: at 40x10 the table showed the card and the players and pushed your choices out of sight, saying
nothing; at 60x20 the start screen cut its tick boxes' labels at the edge (issue 29, defect 20)."""

from __future__ import annotations

from textual.widgets import Static

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.start import StartScreen
from nothanks_tui.client.widgets.forms import TickBox
from nothanks_tui.client.widgets.table import PrivatePanel
from nothanks_tui.commands.launchers import LocalLaunchers

from .ui_helpers import local_app, my_turn, table_screen, wait_until


async def test_at_40x10_the_table_shows_your_choices_and_how_big_it_must_be():
    app, _connection = local_app(players=4)
    async with app.run_test(size=(40, 10)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.pause()
        screen = table_screen(app)
        private = screen.query_one(PrivatePanel)
        assert private.region.height >= 2 and private.region.bottom <= 9  # above the key bar, on screen
        text = [line.plain for line in private.draw_lines()]
        assert text[0].startswith("[t] Take") and text[1].startswith("[n] No thanks!")
        note = screen.query_one("#too-small", Static)
        assert note.display and note.region.height > 0
        assert "40x10" in str(note.render()) and "36x13" in str(note.render())
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not screen.has_class("-tiny") and note.region.height == 0
        assert [line.plain for line in private.draw_lines()][-2].startswith("[t] Take")


async def test_at_60x20_the_start_screen_wraps_a_long_tick_box_label_instead_of_cutting_it():
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await pilot.pause()
        box = app.screen.query_one("#open-chips", TickBox)
        assert box.region.height == 2  # "... every chip" / "count)": the whole label, on two lines
        assert box.region.right <= 60
