"""The new-table dialog offers as many bots as there are seats besides the creator's: a 3-player table offered up
to 6 and quietly made 2 of them."""

from __future__ import annotations

from textual.widgets import Label, Select

from nothanks_tui.client.screens.waiting import WaitingScreen

from .ui_helpers import lobby_app, open_new_table_dialog, wait_until


def offered(select: Select) -> list[int]:
    return [value for _label, value in select._options if isinstance(value, int)]  # (no public list of options)


async def test_the_bots_offered_follow_the_players_and_the_choice_is_kept_where_it_fits():
    lobby, app = await lobby_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        dialog = app.screen
        players, bots = dialog.query_one("#players", Select), dialog.query_one("#bots", Select)
        assert players.value == 3 and offered(bots) == [0, 1, 2]
        players.value = 7
        await wait_until(pilot, lambda: offered(bots) == [0, 1, 2, 3, 4, 5, 6], "seven seats")
        bots.value = 5
        players.value = 5
        await wait_until(pilot, lambda: offered(bots) == [0, 1, 2, 3, 4], "five seats")
        assert bots.value == 4  # the most that fits
        players.value = 6
        await wait_until(pilot, lambda: len(offered(bots)) == 6, "six seats")
        assert bots.value == 4  # kept
        await pilot.click("#create")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await wait_until(pilot, lambda: waiting.waiting is not None, "the seats")
        assert len(waiting.waiting.seats) == 6 and sum(seat.is_bot for seat in waiting.waiting.seats) == 4
    lobby.close()


async def test_the_bot_fields_say_how_many_and_which_level_each_once():
    """ "Bots now: no bots" said it twice, with a "now" that meant nothing to a newcomer (issue 29, defect 21)."""
    lobby, app = await lobby_app("alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        fields = {
            str(row.query_one(Label).render()): row.query_one(Select)
            for row in app.screen.query(".field")
            if row.query(Label) and row.query(Select)
        }
        assert "Bots now" not in fields
        count = fields["Bots"]
        assert count.id == "bots" and count.value == 0
        assert str(count.query_one("SelectCurrent Static#label").render()) == "none"
    lobby.close()
