"""The lobby and waiting-room screens, driven with Textual's pilot against a real lobby (in-process and TCP)."""

from __future__ import annotations

import asyncio

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen, NewTableScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import Closed, NewTable, TableUpdate

from .net_helpers import live_host

WAIT = 10.0


async def wait_for_screen(app, pilot, kind):
    async def poll():
        while not isinstance(app.screen, kind):
            await pilot.pause(0.02)

    await asyncio.wait_for(poll(), WAIT)
    return app.screen


async def wait_until(pilot, predicate):
    async def poll():
        while not predicate():
            await pilot.pause(0.02)

    await asyncio.wait_for(poll(), WAIT)


def screen_text(app) -> str:
    return "\n".join(str(widget.render()) for widget in app.screen.query("Static"))


async def test_create_a_table_fill_it_with_a_bot_and_start_from_the_lobby():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    player = InProcessLobby(lobby, "alice")
    await player.start()
    app = NetApp(first_screen_for(player, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_screen(app, pilot, LobbyScreen)
        await pilot.press("c")
        await wait_for_screen(app, pilot, NewTableScreen)
        await pilot.click("#create")
        waiting = await wait_for_screen(app, pilot, WaitingScreen)
        await wait_until(pilot, lambda: waiting.waiting is not None)
        assert not waiting.waiting.can_start  # 3 seats by default: alice and two free
        await pilot.press("b")
        await wait_until(pilot, lambda: waiting.waiting.seats[1].is_bot)
        await pilot.press("b")
        await wait_until(pilot, lambda: waiting.waiting.can_start)
        await pilot.press("s")
        table = await wait_for_screen(app, pilot, TableScreen)
        await wait_until(pilot, lambda: table.table is not None)
        assert table.table.view.seat == 0
    lobby.close()


async def test_a_second_player_joins_over_tcp_and_a_hostile_name_shows_as_plain_text():
    async with live_host() as host:
        creator = TcpLobby("127.0.0.1", host.port, "[bold]mal\x1b[31mlory[/]")
        await creator.start()
        mine = await creator.create_table(NewTable(players=2))
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await bob.start()
        app = NetApp(first_screen_for(bob, None))
        async with app.run_test(size=(80, 24)) as pilot:
            lobby_screen = await wait_for_screen(app, pilot, LobbyScreen)
            await wait_until(pilot, lambda: len(lobby_screen.summaries) == 1)
            await pilot.press("j")
            waiting = await wait_for_screen(app, pilot, WaitingScreen)
            await wait_until(pilot, lambda: waiting.waiting is not None)
            text = screen_text(app)
            assert "[bold]mallory[/]" in text and "\x1b" not in text
            await mine.start_game()
            await wait_for_screen(app, pilot, TableScreen)
        await bob.close()
        await creator.close()


async def test_joining_with_a_saved_token_goes_straight_back_to_the_seat(tmp_path):
    from nothanks_tui.client.seat_tokens import SeatTokens

    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        table = await alice.create_table(NewTable(players=2))
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await bob.start()
        seat = await bob.join((await bob.list_tables())[0].table_id)
        await table.start_game()
        tokens = SeatTokens(tmp_path / "seats.json")
        tokens.put(f"127.0.0.1:{host.port}", "bob", seat.seat_token)
        bob._read_task.cancel()  # bob's terminal dies: nothing of that client runs on to come back by itself
        bob._writer.transport.abort()

        bob_again = TcpLobby("127.0.0.1", host.port, "bob")
        await bob_again.start()
        resumed = await bob_again.resume(tokens.get(f"127.0.0.1:{host.port}", "bob"))
        app = NetApp(first_screen_for(bob_again, resumed), below=first_screen_for(bob_again, None))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await wait_for_screen(app, pilot, TableScreen)
            await wait_until(pilot, lambda: isinstance(screen.table, TableUpdate))
            assert screen.table.view.seat == 1 and not screen.table.seats[1].away
            await pilot.press("q")
            await pilot.press("y")
            await wait_for_screen(app, pilot, LobbyScreen)  # leaving the resumed table: the lobby
        await bob_again.close()
        await alice.close()


async def test_the_start_screen_joins_a_host_through_the_join_tab(tmp_path, monkeypatch):
    from textual.widgets import Input, TabbedContent

    from nothanks_tui.client.app import NoThanksApp
    from nothanks_tui.commands.launchers import LocalLaunchers

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    async with live_host() as host:
        app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.screen.query_one("#start-modes", TabbedContent).active = "mode-2"
            await pilot.pause()
            form = app.screen.forms[2]
            form.query_one("#name", Input).value = "zoe"
            form.query_one("#address", Input).value = f"127.0.0.1:{host.port}"
            await app.screen.action_start()
            screen = await wait_for_screen(app, pilot, LobbyScreen)
            assert screen.lobby.name == "zoe"
            await pilot.press("c")
            await wait_for_screen(app, pilot, NewTableScreen)
            await pilot.press("ctrl+s")
            waiting = await wait_for_screen(app, pilot, WaitingScreen)
            await wait_until(pilot, lambda: waiting.waiting is not None and waiting.waiting.my_seat == 0)
        # the seat's token was remembered for this host
        assert (tmp_path / "nothanks" / "seats.json").exists()


async def host_two_seats_from_the_start_screen(app, pilot) -> WaitingScreen:
    """The start screen's "Host a game" tab: a 2-seat table on a free port, no bots; its waiting room."""
    from textual.widgets import Input, Select, TabbedContent

    await pilot.pause()
    app.screen.query_one("#start-modes", TabbedContent).active = "mode-1"
    await pilot.pause()
    form = app.screen.forms[1]
    form.query_one("#port", Input).value = "0"
    form.query_one("#players", Select).value = 2
    bots = form.query_one("#bots", Select)
    await wait_until(pilot, lambda: [value for _label, value in bots._options] == [0, 1])  # one seat is yours
    await app.screen.action_start()
    waiting = await wait_for_screen(app, pilot, WaitingScreen)
    await wait_until(pilot, lambda: waiting.waiting is not None)
    return waiting


async def test_the_start_screen_hosts_a_game_that_others_can_join(tmp_path, monkeypatch):

    from nothanks_tui.client.app import NoThanksApp
    from nothanks_tui.client.screens.net_forms import HostForm
    from nothanks_tui.commands.launchers import LocalLaunchers

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(HostForm, "BIND", "127.0.0.1")
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
    async with app.run_test(size=(80, 24)) as pilot:
        waiting = await host_two_seats_from_the_start_screen(app, pilot)
        port = app.hosting.port
        guest = TcpLobby("127.0.0.1", port, "guest")
        await guest.start()
        [summary] = await guest.list_tables()
        seat = await guest.join(summary.table_id)
        await wait_until(pilot, lambda: waiting.waiting.can_start)
        await pilot.press("s")
        await wait_for_screen(app, pilot, TableScreen)
        app.exit()
    # the app ended: its host told the guest before closing
    while not isinstance(event := await asyncio.wait_for(seat.next_event(), WAIT), Closed):
        pass
    assert "stopped" in event.reason
    await guest.close()


async def test_stopping_a_game_hosted_from_the_start_screen_goes_back_to_the_start_screen(tmp_path, monkeypatch):
    """Leaving the table of a game hosted from the start screen (after "Stop the host?") stops the host, tells its
    players, and opens the start screen again, as leaving a game against bots does; the port is free again."""
    from textual.widgets import TabbedContent

    from nothanks_tui.client.app import NoThanksApp
    from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen
    from nothanks_tui.client.screens.net_forms import HostForm
    from nothanks_tui.client.screens.start import StartScreen
    from nothanks_tui.commands.launchers import LocalLaunchers

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(HostForm, "BIND", "127.0.0.1")
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
    async with app.run_test(size=(80, 24)) as pilot:
        waiting = await host_two_seats_from_the_start_screen(app, pilot)
        port = app.hosting.port
        guest = TcpLobby("127.0.0.1", port, "guest")
        await guest.start()
        [summary] = await guest.list_tables()
        seat = await guest.join(summary.table_id)
        await wait_until(pilot, lambda: waiting.waiting.can_start)
        await pilot.press("s")
        await wait_for_screen(app, pilot, TableScreen)
        await pilot.press("q")
        await wait_for_screen(app, pilot, ConfirmQuitScreen)
        await pilot.press("y")
        start = await wait_for_screen(app, pilot, StartScreen)
        assert app.hosting is None and not app.is_host and app.is_running
        await pilot.pause()
        assert start.query_one("#start-modes", TabbedContent).active == "mode-1"  # back on "Host a game"
        while not isinstance(event := await asyncio.wait_for(seat.next_event(), WAIT), Closed):
            pass
        assert "stopped" in event.reason
        await guest.close()
        with pytest.raises(OSError):  # nobody listens there any more
            await asyncio.open_connection("127.0.0.1", port)


async def test_a_hostile_host_cannot_put_escapes_or_markup_on_the_lobby_screen():
    import msgpack
    from rich.text import Text
    from textual.widgets import DataTable

    from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

    evil = "\x1b]0;pwned\x07[blink]t1\x1b[2J"
    seat = {"name": "[red]x\x1b[31m", "bot": False, "away": False, "empty": False}

    async def fake_host(reader, writer):
        unpacker = msgpack.Unpacker(raw=False)
        writer.write(encode({"type": "hello", "protocol": PROTOCOL_VERSION, "server": "evil"}))
        while data := await reader.read(4096):
            unpacker.feed(data)
            for message in unpacker:
                if message["type"] == "hello":
                    writer.write(encode({"type": "welcome", "name": "bob"}))
                elif message["type"] == "list_tables":
                    table = {
                        "table": evil,
                        "players": 2,
                        "seats": [seat, seat],
                        "started": False,
                        "finished": False,
                        "open_chips": False,
                        "variant": "standard",
                        "spectators": 0,
                    }
                    writer.write(encode({"type": "tables", "tables": [table], "re": message["id"]}))
        writer.close()

    server = await asyncio.start_server(fake_host, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    lobby = TcpLobby("127.0.0.1", port, "bob")
    await lobby.start()
    app = NetApp(first_screen_for(lobby, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await wait_until(pilot, lambda: len(screen.summaries) == 1)
        await pilot.pause()
        cells = screen.query_one("#tables", DataTable).get_row_at(0)
        assert all(isinstance(cell, Text) for cell in cells)
        shown = " ".join(cell.plain for cell in cells)
        assert "\x1b" not in shown and "\x07" not in shown
        assert "[blink]" in shown and "[red]x" in shown  # markup stays literal text
    await lobby.close()
    server.close()


async def test_leaving_a_table_goes_back_to_the_lobby():
    from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen

    # Bots that take their time: a bot playing bob's seat at once would finish the game between bots in moments,
    # and a finished table nobody sits at closes, sometimes before the lobby's first look (a flake under load).
    async with live_host(bot_delay=2.0) as host:
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await bob.start()
        app = NetApp(first_screen_for(bob, None))
        async with app.run_test(size=(80, 24)) as pilot:
            lobby_screen = await wait_for_screen(app, pilot, LobbyScreen)
            await pilot.press("c")
            await wait_for_screen(app, pilot, NewTableScreen)
            app.screen.query_one("#players").value = 2
            app.screen.query_one("#bots").value = 1
            await pilot.press("ctrl+s")
            waiting = await wait_for_screen(app, pilot, WaitingScreen)
            await wait_until(pilot, lambda: waiting.waiting is not None and waiting.waiting.can_start)
            await pilot.press("s")
            await wait_for_screen(app, pilot, TableScreen)
            await pilot.press("q")
            await wait_for_screen(app, pilot, ConfirmQuitScreen)  # the game is running: it asks first
            await pilot.press("y")
            assert await wait_for_screen(app, pilot, LobbyScreen) is lobby_screen
            await wait_until(pilot, lambda: len(lobby_screen.summaries) == 1 and lobby_screen.summaries[0].started)
            assert lobby_screen.summaries[0].seats[0].away  # our seat waits for us
        await bob.close()


async def test_an_idle_lobby_does_not_redraw_its_list_but_shows_a_new_table():
    """The lobby polls the host; when nothing changed it must not rebuild its list (over SSH every rebuild is
    a repaint sent to an idle player), and when a table appears it must."""
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = InProcessLobby(lobby, "vic")
    await viewer.start()
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        from textual.widgets import DataTable

        rows = screen.query_one("#tables", DataTable)
        clears: list[int] = []
        original = rows.clear
        rows.clear = lambda *args, **kwargs: (clears.append(1), original(*args, **kwargs))[1]  # type: ignore[method-assign]
        for _ in range(3):
            await screen.refresh_tables().wait()
        assert clears == []
        other = InProcessLobby(lobby, "olga")
        await other.start()
        await other.create_table(NewTable(players=3))
        await screen.refresh_tables().wait()
        assert clears == [1] and rows.row_count == 1
    lobby.close()


async def test_the_lobby_stops_polling_while_a_screen_covers_it_and_polls_again_after():
    """Under a table for a whole game the lobby has no list to keep fresh (one poller per SSH player otherwise)."""
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = InProcessLobby(lobby, "vic")
    await viewer.start()
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        calls: list[str] = []

        class RecordingTimer:
            def pause(self) -> None:
                calls.append("pause")

            def resume(self) -> None:
                calls.append("resume")

        screen._refresh_timer = RecordingTimer()  # type: ignore[assignment]
        listing = screen.lobby.list_tables

        async def recording_listing():  # type: ignore[no-untyped-def]
            calls.append("list")
            return await listing()

        screen.lobby.list_tables = recording_listing  # type: ignore[method-assign]
        await pilot.press("c")
        await wait_for_screen(app, pilot, NewTableScreen)
        await screen.refresh_tables().wait()  # told to list while covered: it asks the host nothing
        assert calls == ["pause"]
        await pilot.press("escape")
        assert await wait_for_screen(app, pilot, LobbyScreen) is screen
        await wait_until(pilot, lambda: calls == ["pause", "resume", "list"])  # on top again: it lists
    lobby.close()


async def test_a_player_who_left_a_running_game_takes_the_seat_back_from_the_lobby():
    """Issue 17.1: leave mid-game (a bot plays the seat meanwhile), see the table marked as yours, Enter: back in
    that seat. (The bots think for a minute here: the game must not end before alice is back.)"""
    async with live_host(bot_delay=60) as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        app = NetApp(first_screen_for(alice, None))
        async with app.run_test(size=(80, 24)) as pilot:
            lobby_screen = await wait_for_screen(app, pilot, LobbyScreen)
            await pilot.press("c")
            await wait_for_screen(app, pilot, NewTableScreen)
            await pilot.press("ctrl+s")
            waiting = await wait_for_screen(app, pilot, WaitingScreen)
            await wait_until(pilot, lambda: waiting.waiting is not None)
            await pilot.press("b", "b")
            await wait_until(pilot, lambda: waiting.waiting.can_start)
            await pilot.press("s")
            table = await wait_for_screen(app, pilot, TableScreen)
            await wait_until(pilot, lambda: table.table is not None)
            await pilot.press("q")
            await pilot.press("y")
            await wait_for_screen(app, pilot, LobbyScreen)
            await wait_until(pilot, lambda: "your seat" in screen_text(app) or _row_mine(lobby_screen))
            assert "takes it back" in screen_text(app)
            await pilot.press("enter")
            table = await wait_for_screen(app, pilot, TableScreen)
            await wait_until(pilot, lambda: table.table is not None)
            assert table.table.view.seat == 0 and not table.table.seats[0].away
        await alice.close()


def _row_mine(screen: LobbyScreen) -> bool:
    from textual.widgets import DataTable

    table = screen.query_one("#tables", DataTable)
    return table.row_count > 0 and "your seat" in str(table.get_row_at(0)[2])


async def test_a_player_who_left_a_finished_game_is_not_offered_the_seat_again():
    """Issue 17.2: leaving on the score screen gives the seat up; the next game there is not "your seat"."""
    from nothanks_tui.client.screens.score import ScoreScreen

    from .test_leaving import take_on_my_turns

    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await alice.start()
        await bob.start()
        app = NetApp(first_screen_for(alice, None))
        async with app.run_test(size=(80, 24)) as pilot:
            lobby_screen = await wait_for_screen(app, pilot, LobbyScreen)
            await pilot.press("c")
            await wait_for_screen(app, pilot, NewTableScreen)
            await pilot.press("ctrl+s")
            waiting = await wait_for_screen(app, pilot, WaitingScreen)
            await wait_until(pilot, lambda: waiting.waiting is not None)
            bob_table = await bob.join(waiting.waiting.table_id)
            await pilot.press("b")
            await wait_until(pilot, lambda: waiting.waiting.can_start)
            await pilot.press("s")
            bob_plays = asyncio.get_running_loop().create_task(take_on_my_turns(bob_table))
            table = await wait_for_screen(app, pilot, TableScreen)
            while not isinstance(app.screen, ScoreScreen):
                if table.table is not None and table.table.view.my_turn:
                    await pilot.press("t")
                await pilot.pause(0.01)
            await asyncio.wait_for(bob_plays, WAIT)
            await pilot.press("q")  # leave from the score screen: the seat is given up
            await wait_for_screen(app, pilot, LobbyScreen)
            await bob_table.play_again()  # the next game: a bot in alice's old seat
            await wait_until(pilot, lambda: bool(lobby_screen.summaries) and not lobby_screen.summaries[0].finished)
            assert "your seat" not in str(lobby_screen.query_one("#tables").get_row_at(0)[2])
            assert "your seat" not in screen_text(app)
        await alice.close()
        await bob.close()


async def test_a_lobby_first_shown_empty_widens_its_columns_for_the_table_that_appears():
    """Seen over SSH under load: a list shown empty, then filled, kept its header widths ("2 seat", "alic…")."""
    from textual.widgets import DataTable

    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = InProcessLobby(lobby, "vic")
    await viewer.start()
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await screen.refresh_tables().wait()
        other = InProcessLobby(lobby, "alexandra")
        await other.start()
        await other.create_table(NewTable(players=3))
        await screen.refresh_tables().wait()  # no idle moment in between: the widths come from the cells alone
        rows = screen.query_one("#tables", DataTable)
        widths = [column.get_render_width(rows) for column in rows.ordered_columns]
        seats_cell = rows.get_row_at(0)[3]
        assert widths[3] - 2 * rows.cell_padding >= seats_cell.cell_len >= len("alexandra")
        status_cell = rows.get_row_at(0)[2]
        assert widths[2] - 2 * rows.cell_padding >= status_cell.cell_len > len("Status")
    lobby.close()


async def test_the_host_tab_offers_the_coach_a_variant_and_the_address_to_listen_on(tmp_path, monkeypatch):
    """``nothanks host`` has --coach, --tactical and --bind: the start screen's Host tab had none of them (issue 29,
    defect 25). Chosen there, they reach the hosted table and the listening socket."""
    from textual.widgets import Input, Select, TabbedContent

    from nothanks_tui.client.app import NoThanksApp
    from nothanks_tui.client.screens.net_forms import HostForm
    from nothanks_tui.client.widgets.forms import TickBox
    from nothanks_tui.commands.launchers import LocalLaunchers

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(HostForm, "BIND", "0.0.0.0")  # the default: changed in the form below, as a player would
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0, advertise=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#start-modes", TabbedContent).active = "mode-1"
        await pilot.pause()
        form = app.screen.forms[1]
        assert form.query_one("#bind", Input).value == "0.0.0.0"
        assert form.query_one("#host").region.bottom <= 23  # every field and the button fit 80x24
        form.query_one("#bind", Input).value = "127.0.0.1"
        form.query_one("#port", Input).value = "0"
        form.query_one("#variant", Select).value = "tactical"
        form.query_one("#coach", TickBox).value = True
        await app.screen.action_start()
        waiting = await wait_for_screen(app, pilot, WaitingScreen)
        await wait_until(pilot, lambda: waiting.waiting is not None)
        assert waiting.waiting.coach and waiting.waiting.variant == "tactical"
        title = str(waiting.query_one("#waiting-title").render())
        assert "(coach)" in title and "(tactical)" in title
        guest = TcpLobby("127.0.0.1", app.hosting.port, "guest")
        await guest.start()  # it listens on the address chosen
        [summary] = await guest.list_tables()
        assert summary.coach
        await guest.close()
        app.exit()
