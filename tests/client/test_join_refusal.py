"""A refused join in the lobby is said, plainly and in a way that stays: what happened, what the player can do now,
and how an away player's seat goes back to its player (their key or computer, never a newcomer).

The lead's report: after a SIGKILL and a restart, a player who had logged in over SSH without a key saw their old
seat "away" and pressed ``j`` on that table: nothing they could see or act on. The host's side of it is
tests/test_join_away_seat.py.
"""

from __future__ import annotations

import pytest
from textual.widgets import Static

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen, join_refusal
from nothanks_tui.link import SeatInfo, TableSummary, errors

from ..test_join_away_seat import alice_at_a_table_then_a_restart
from ..test_net_screens import wait_for_screen, wait_until


def lobby_message(screen: LobbyScreen) -> Static:
    return screen.query_one("#lobby-message", Static)


@pytest.mark.parametrize("start", [True, False], ids=["game under way", "game not started"])
async def test_j_on_a_table_whose_seat_is_away_says_why_and_what_to_do_and_the_message_stays(tmp_path, start):
    lobby, table_id, _token = await alice_at_a_table_then_a_restart(tmp_path, start=start)
    newcomer = InProcessLobby(lobby, "alice")  # back without her key: a newcomer to the host
    await newcomer.start()
    app = NetApp(first_screen_for(newcomer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await wait_until(pilot, lambda: bool(screen.summaries))
        await pilot.press("j")
        message = lobby_message(screen)
        await wait_until(pilot, lambda: message.has_class("-refused"))
        text = str(message.render())
        assert ("under way" in text) == start and ("Every seat at " + table_id in text) == (not start)
        assert "alice is away: the seat waits for them." in text
        assert "Press w to watch it" in text and "SSH key" in text
        assert app.screen is screen and lobby.table(table_id).seats[0].away  # no seat taken, hers kept
        # Seen at 80x24: every line of it, above the footer.
        assert message.region.height >= 4 and message.region.bottom <= 23
        # The lobby changes (someone watches that table): the refreshed list does not put the advice back.
        watcher = InProcessLobby(lobby, "eve")
        await watcher.start()
        await watcher.spectate(table_id)
        screen.refresh_tables()
        await wait_until(pilot, lambda: bool(screen.summaries) and screen.summaries[0].spectators == 1)
        await pilot.pause()
        assert message.has_class("-refused") and "alice is away" in str(message.render())
        await pilot.press("w")  # what it offers works: watching
        await wait_until(pilot, lambda: app.screen is not screen)
    lobby.close()


async def test_watch_with_no_table_says_so():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    player = InProcessLobby(lobby, "vic")
    await player.start()
    app = NetApp(first_screen_for(player, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await wait_until(pilot, lambda: "No tables yet" in str(lobby_message(screen).render()))
        await pilot.press("w")
        await wait_until(pilot, lambda: "No table to watch" in str(lobby_message(screen).render()))
    lobby.close()


def summary(*seats: SeatInfo, started: bool = True, finished: bool = False) -> TableSummary:
    return TableSummary("t7", len(seats), seats, started, finished, open_chips=False, variant="standard")


def test_an_older_hosts_refusal_still_names_the_away_players_from_the_list():
    """A host from before ``seat_away`` says ``already_started`` or ``table_full``: the list still shows who is away."""
    away = SeatInfo("bob", away=True)
    both = summary(SeatInfo("ann", away=True, stand_in=True), away, SeatInfo("medium", is_bot=True))
    lines = join_refusal(errors.ALREADY_STARTED, "this game has started", both)
    assert lines[0] == "The game at t7 is under way: its seats belong to its players."
    assert lines[1] == "ann, bob are away: their seats wait for them."
    assert "SSH key" in lines[-1]
    over = join_refusal(errors.TABLE_FULL, "", summary(away, SeatInfo("medium", is_bot=True), finished=True))
    assert over[0].startswith("The game at t7 is over") and over[1] == "bob is away: the seat waits for them."
    full = join_refusal(errors.TABLE_FULL, "", summary(SeatInfo("cy"), SeatInfo("di"), started=False))
    assert full == ["Every seat at t7 is taken.", "Press w to watch it, or c to set up a table of your own."]
    assert join_refusal(errors.NO_TABLE, "no table 't7'", both) == ["That table is gone."]
    hostile = join_refusal(errors.SEAT_AWAY, "", summary(SeatInfo("\x1b[31m[b]x", away=True), started=False))
    assert "\x1b" not in "".join(hostile) and "[b]x is away" in hostile[1]
