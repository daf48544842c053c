"""Ratings on the screens: the score dialog's rating and change, names with their rating in the lobby and the
waiting room, the lobby's leaderboard key over TCP, and ``nothanks history --leaderboard`` on local games."""

from __future__ import annotations

from textual.widgets import Static

from nothanks_server import Lobby, LobbySettings, ratings
from nothanks_server.history import LocalRecords, StoreHistory
from nothanks_server.inprocess import InProcessLobby, SoloGame, solo_table
from nothanks_tui.cli import main
from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.history import LeaderboardScreen
from nothanks_tui.client.screens.lobby import LobbyScreen, seat_names
from nothanks_tui.client.screens.score import score_lines
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.engine import Action, view_for
from nothanks_tui.link import NewTable, SeatInfo, TableSummary, TableUpdate
from nothanks_tui.link.identity import Identity

from ..net_helpers import RawClient, live_host
from ..test_net_screens import wait_for_screen, wait_until
from ..test_ratings import a_record, play_to_the_end
from .test_score_columns import finished


def board_rows(screen: LeaderboardScreen) -> list[list[str]]:
    table = screen.query_one("#leaderboard")
    return [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]


def test_the_score_dialog_shows_each_rating_and_what_the_game_changed():
    seats = (SeatInfo("you", rating=1042, change=12), SeatInfo("ana", True, level="hard", rating=1480))
    seats += (SeatInfo("bo", rating=990, change=-7),)
    _, body = score_lines(TableUpdate(view_for(finished(3), 0), seats, "t1"))
    lines = body.plain.splitlines()
    assert "Rating" in lines[0]
    assert any("1042 +12" in line for line in lines) and any("990 −7" in line for line in lines)
    assert any("1480" in line for line in lines)  # the bot's fixed rating, no change
    _, local = score_lines(TableUpdate(view_for(finished(3), 0), tuple(SeatInfo(s.name) for s in seats), "t1"))
    assert "Rating" not in local.plain  # a game nobody was rated in: no column


def test_the_lobby_line_carries_each_players_rating():
    seats = (SeatInfo("alice", rating=1042), SeatInfo("ana", True, level="medium", rating=1380))
    seats += (SeatInfo("", empty=True),)
    line = seat_names(TableSummary("t1", 3, seats, False, False, False, "standard")).plain
    assert line.startswith("alice (1042), 1 medium bot")


async def test_the_lobby_leaderboard_key_over_tcp_lists_players_by_rating(tmp_path):
    async with live_host() as host:
        bob = await RawClient.connect(host.port, "bob", key=Identity.load(tmp_path / "bob.key"))
        final = await play_to_the_end(bob)
        rating = final["seats"][final["view"]["seat"]]["rating"]
        await bob.close()
        lobby = TcpLobby("127.0.0.1", host.port, "<b>eve</b>")
        await lobby.start()
        app = NetApp(first_screen_for(lobby, None))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_screen(app, pilot, LobbyScreen)
            shown = app.screen.query_one(KeyBar).shown_keys()
            assert ("l", "Ranks") in [(key.display, key.description) for key in shown]  # (the key, in the footer)
            await pilot.press("l")
            screen = await wait_for_screen(app, pilot, LeaderboardScreen)
            await wait_until(pilot, lambda: bool(screen.rows))
            rows = board_rows(screen)
            assert ["1", "bob", str(rating), "1"] in rows and ["", "medium (bot)", "1380", ""] in rows
        await lobby.close()


async def test_history_leaderboard_opens_on_the_local_games_ratings(tmp_path, monkeypatch):
    records = LocalRecords(tmp_path)
    records.save(a_record(["[red]you[/red]", "ana"], [3, 20], [None, "easy"]), "x", 1)
    records.save(a_record(["zoe", "ana"], [30, 2], [None, "hard"]), "x", 2)
    opened = []
    monkeypatch.setattr(HistoryApp, "run", lambda app: opened.append(app) or 0)
    assert main(["history", "--leaderboard", "--data-dir", str(tmp_path)]) == 0
    [app] = opened
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LeaderboardScreen)
        await wait_until(pilot, lambda: bool(screen.rows))
        people = [row for row in board_rows(screen) if row[0]]
        assert [row[:2] for row in people] == [["1", "[red]you[/red]"], ["2", "zoe"]]  # (a hostile name: as text)
        assert int(people[0][2]) > ratings.NEWCOMER > int(people[1][2])


async def test_the_waiting_room_shows_each_players_rating():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    player = InProcessLobby(lobby, "alice")
    await player.start()
    connection = await player.create_table(NewTable(players=2, bots=1))
    app = NetApp(first_screen_for(player, connection))
    async with app.run_test(size=(80, 24)) as pilot:
        waiting = await wait_for_screen(app, pilot, WaitingScreen)
        await wait_until(pilot, lambda: waiting.waiting is not None and waiting.waiting.can_start)
        seats = str(waiting.query_one("#waiting-seats", Static).render())
        assert "seat 1: alice (1000)  (you)" in seats and "bot (medium) (1380)" in seats
    lobby.close()


async def test_a_local_games_score_screen_shows_the_rating_it_filed_and_its_change(tmp_path):
    before = ratings.NEWCOMER
    for game_no in (1, 2):  # a newcomer's first game, then one from the rating the first left
        game = SoloGame(players=2, bot="rules", seed=game_no, bot_pace=0, records_dir=tmp_path)
        connection = solo_table(game)
        await connection.start()
        while not (update := await connection.next_event()).view.finished:
            if update.view.my_turn:
                await connection.send_action(Action.TAKE, update.view.state_id)
        [filed] = [row for row in await StoreHistory(tmp_path).leaderboard() if row.name == "you"]
        assert (update.seats[0].rating, update.seats[0].change) == (filed.rating, filed.rating - before)
        assert filed.games == game_no and "Rating" in score_lines(update)[1].plain
        before = filed.rating
        await connection.close()
