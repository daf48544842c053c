"""The lobby's Seats column at 80 columns: people by name, bots counted by level, and a line that never makes the
list scroll sideways (a 7-seat table of bots used to run off the screen: "ana, medium bot, medium 2 bot, mediu")."""

from __future__ import annotations

from textual.widgets import DataTable

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen, seat_names
from nothanks_tui.link import NewTable, SeatInfo, TableSummary

from ..test_net_screens import wait_for_screen, wait_until


def summary(seats: list[SeatInfo], started: bool = False) -> TableSummary:
    return TableSummary(
        table_id="t1", players=len(seats), started=started, finished=False, seats=tuple(seats), open_chips=False,
        variant="standard",
    )  # fmt: skip


def test_people_are_named_bots_counted_by_level_and_free_seats_counted_once_the_game_is_on():
    seats = [
        SeatInfo("ana"),
        SeatInfo("medium", is_bot=True),
        SeatInfo("bo", away=True),
        SeatInfo("medium 2", is_bot=True),
        SeatInfo("hard", is_bot=True),
        SeatInfo("cy", stand_in=True, away=True),
        SeatInfo("", empty=True),
    ]
    assert seat_names(summary(seats)).plain == "ana, bo away, cy (bot playing), 2 medium bots, 1 hard bot"
    assert seat_names(summary(seats, started=True)).plain.endswith("1 hard bot, 1 free")
    hostile = seat_names(summary([SeatInfo("[b]x\x1b[31m 9", is_bot=True), SeatInfo("\x1b]0;t\x07eve")]))
    assert "\x1b" not in hostile.plain and "\x07" not in hostile.plain and "[b]x" in hostile.plain
    assert not hostile.spans or all(isinstance(span.style, str) for span in hostile.spans)  # no markup parsed


async def test_a_full_table_of_bots_fits_the_row_at_80_columns_and_follows_a_resize():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = InProcessLobby(lobby, "vic")
    await viewer.start()
    creator = InProcessLobby(lobby, "alexandra")
    await creator.start()
    await creator.create_table(NewTable(players=7, bots=5, bot="medium"))
    crowded = await creator.create_table(NewTable(players=7, bots=0))
    for index in range(6):  # six more people with long names: their line is longer than the screen is wide
        member = InProcessLobby(lobby, f"longername{index:02d}")
        await member.start()
        await member.join(crowded.table_id)
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await screen.refresh_tables().wait()
        rows = screen.query_one("#tables", DataTable)
        assert rows.get_row_at(0)[3].plain == "alexandra (1000), 5 medium bots"  # (her rating: a newcomer's)
        assert rows.get_row_at(1)[3].cell_len > 80  # (cut to the column's width when drawn)
        await pilot.pause()
        assert rows.virtual_size.width <= rows.size.width  # nothing to scroll to sideways
        await pilot.resize_terminal(50, 24)
        await pilot.pause()
        assert rows.virtual_size.width <= rows.size.width
        await pilot.resize_terminal(120, 24)
        await pilot.pause()
        assert rows.ordered_columns[3].width >= len("alexandra (1000), 5 medium bots")
    lobby.close()


async def test_r_says_the_list_is_up_to_date_when_nothing_changed():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = InProcessLobby(lobby, "vic")
    await viewer.start()
    creator = InProcessLobby(lobby, "ana")
    await creator.start()
    await creator.create_table(NewTable(players=3))
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await screen.refresh_tables().wait()
        message = screen.query_one("#lobby-message")
        assert "Up to date" not in str(message.render())
        await pilot.press("r")
        await wait_until(pilot, lambda: "Up to date: 1 table here." in str(message.render()))
    lobby.close()


async def test_the_list_names_each_tables_variant_and_a_new_one_from_a_newer_host_as_sent_cleaned():
    from nothanks_tui import i18n
    from nothanks_tui.client.presentation import variant_label

    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = InProcessLobby(lobby, "vic")
    await viewer.start()
    creator = InProcessLobby(lobby, "ana")
    await creator.start()
    await creator.create_table(NewTable(players=3, variant="tactical"))
    await creator.create_table(NewTable(players=4))
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await screen.refresh_tables().wait()
        rows = screen.query_one("#tables", DataTable)
        assert [rows.get_row_at(row)[1].plain for row in range(2)] == ["3 tactical", "4"]
    lobby.close()
    i18n.use_language("fr")
    try:
        assert variant_label("tactical") == "tactique"
        assert variant_label("\x1b[31mnew[b]") == "new[b]"  # a name this client has no words for, cleaned
    finally:
        i18n.use_language("en")
