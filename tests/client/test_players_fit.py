"""A terminal too short for every seat's row never hides a player without saying so: the rows shrink to one line,
the header goes, then the panel shows yours and the one to move first and says how many more there are."""

from __future__ import annotations

from nothanks_tui.client.widgets.table import PlayersPanel

from .ui_helpers import local_app, my_turn, table_screen, wait_until


def panel_lines(app) -> list[str]:
    return [line.plain for line in table_screen(app).query_one(PlayersPanel).draw_lines()]


async def test_seven_players_at_60x18_show_five_and_say_two_more():
    app, _ = local_app(players=7, seed=3, bot="rules")
    async with app.run_test(size=(60, 18)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        panel = table_screen(app).query_one(PlayersPanel)
        lines = panel_lines(app)
        assert len(lines) <= panel.content_region.height
        assert lines[-1] == "+2 more players: make the terminal taller"
        assert any("you" in line and line.startswith("▶") for line in lines)  # yours, and it is your turn
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: panel.content_region.height >= 8, "the taller terminal")
        lines = panel_lines(app)
        assert not any("more player" in line for line in lines) and len(lines) == 8  # the header and 7 seats


async def test_a_very_short_terminal_keeps_your_two_choices_in_sight():
    from nothanks_tui.client.widgets.table import PrivatePanel

    app, _ = local_app(players=3, seed=3, bot="rules")
    async with app.run_test(size=(60, 14)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        private = table_screen(app).query_one(PrivatePanel)
        await wait_until(pilot, lambda: private.compact, "the compact area")
        lines = [line.plain for line in private.draw_lines()]
        assert [line[:4] for line in lines] == ["[t] ", "[n] "]
        assert private.region.bottom <= 13  # above the key bar, on the screen
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not private.compact, "the whole area")
        assert [line.plain[:4] for line in private.draw_lines()][-2:] == ["[t] ", "[n] "]
        assert private.draw_lines()[0].plain.startswith("You: ")
