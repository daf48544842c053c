"""Chat at the table, at the client: the chat key, the one-line input (Enter sends; ^G or Esc closes), lines in the
log set apart from moves and shown as plain text, mute (remembered), and no chat where nobody can hear."""

from __future__ import annotations

import asyncio

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.remembered import Remembered
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.widgets.chat import ChatInput
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.client.widgets.table import MoveLog
from nothanks_tui.link import ChatLine, NewTable, TableConnection

from .ui_helpers import local_app, table_screen, wait_until

HOSTILE = "\x1b]0;pwned\x07[red]hi[/red] \x1b[2J<b>"


async def two_players(started: bool = True) -> tuple[Lobby, TableConnection, TableConnection]:
    """alice (seat 0) and bob (seat 1) at a 2-seat table of an in-process host; the game dealt if ``started``."""
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=3))
    alice, bob = InProcessLobby(lobby, "alice"), InProcessLobby(lobby, "bob")
    await alice.start()
    await bob.start()
    a = await alice.create_table(NewTable(players=2))
    b = await bob.join(lobby.tables()[0].table_id)
    if started:
        await a.start_game()
    return lobby, a, b


async def heard(connection: TableConnection, text: str) -> ChatLine:
    async def scan() -> ChatLine:
        while True:
            event = await connection.next_event()
            if isinstance(event, ChatLine) and event.text == text:
                return event

    return await asyncio.wait_for(scan(), 10)


def log_text(app: NoThanksApp) -> str:
    return "\n".join(line.plain for line in table_screen(app).query_one(MoveLog).draw_lines())


def keys_shown(app: NoThanksApp) -> list[str]:
    return [f"{key.display} {key.description}" for key in app.screen.query_one(KeyBar)._shown]


def playing(app: NoThanksApp) -> bool:
    screen = app.table_screen
    return bool(screen and screen.table and screen.table.view.moves is not None)


async def test_c_opens_a_line_that_enter_sends_to_the_table_and_it_shows_in_the_log_apart_from_moves():
    _, a, b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        assert "c Chat" in keys_shown(app) and "m Mute chat" in keys_shown(app)
        state_id = table_screen(app).table.view.state_id
        await pilot.press("c")
        await wait_until(pilot, lambda: app.focused is table_screen(app).query_one(ChatInput), "the chat line")
        assert keys_shown(app) == ["Enter Send", "^G/Esc Close"]  # nothing else works while typing
        await pilot.press(*"take it n", "space", "t")  # play keys type text here, and play nothing
        await pilot.press("enter")
        line = await heard(b, "take it n t")
        assert (line.name, line.text, line.seat) == ("alice", "take it n t", 0) and line.at is not None
        await wait_until(pilot, lambda: "<alice> take it n t" in log_text(app), "the line in alice's log")
        assert table_screen(app).table.view.state_id == state_id
        assert not table_screen(app).query_one(ChatInput).display and "t Take" in keys_shown(app)
        await b.send_chat("gl hf")
        await wait_until(pilot, lambda: "<bob> gl hf" in log_text(app), "bob's line")
        lines = log_text(app).splitlines()
        assert lines.index("<alice> take it n t") < lines.index("<bob> gl hf")


async def test_ctrl_g_and_esc_close_the_line_without_sending():
    _, a, b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        chat = table_screen(app).query_one(ChatInput)
        for closing in ("ctrl+g", "escape"):
            await pilot.press("c", *"never sent")
            await wait_until(pilot, lambda: chat.value == "never sent", "typing")
            await pilot.press(closing)
            await wait_until(pilot, lambda: not chat.display, f"{closing} closes the line")
            assert chat.value == "" and app.focused is None
        await b.send_chat("only this")
        await wait_until(pilot, lambda: "<bob> only this" in log_text(app), "bob's line")
        assert "never sent" not in log_text(app)


async def test_hostile_lines_show_as_plain_text_never_as_markup_or_escapes():
    _, a, b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        await b.send_chat(HOSTILE)
        await wait_until(pilot, lambda: "<bob> [red]hi[/red] <b>" in log_text(app), "the line, as typed")
        assert "\x1b" not in log_text(app) and "pwned" not in log_text(app)
        # A host that did not clean (or a hostile one) is cleaned again by the client.
        screen = table_screen(app)
        screen.post_message(TableScreen.TableEventArrived(ChatLine("m[/]\x1b[31m", "\x1b[5m[blink]x\x07", 1)))
        await wait_until(pilot, lambda: "<m[/]> [blink]x" in log_text(app), "the uncleaned line, cleaned")
        assert "\x1b" not in log_text(app) and "\x07" not in log_text(app)


async def test_a_long_line_wraps_under_a_marker_and_never_pushes_the_moves_out_of_the_log():
    _, a, b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        screen = table_screen(app)
        await screen.connection.send_action(screen.table.view.legal[0], screen.table.view.state_id)
        await wait_until(pilot, lambda: len(screen.table.view.moves) == 1, "a move")
        for n in range(4):
            await b.send_chat(f"line {n} " + "word " * 30)
        await wait_until(pilot, lambda: "<bob> line 3" in log_text(app), "the newest line")
        lines = log_text(app).splitlines()
        assert any(line.startswith("› alice") for line in lines), lines  # the move is still there
        assert all(line.startswith(("<bob>", "┊ ", "› ", "  ")) for line in lines), lines
        assert len(lines) <= screen.query_one(MoveLog).content_region.height


async def test_spectators_are_marked_as_watching():
    lobby, a, _ = await two_players()
    eve = InProcessLobby(lobby, "eve")
    await eve.start()
    watcher = await eve.spectate(lobby.tables()[0].table_id)
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        await watcher.send_chat("go alice")
        await wait_until(pilot, lambda: "<eve (watching)> go alice" in log_text(app), "eve's line")


async def test_m_mutes_chat_and_the_choice_is_remembered(tmp_path):
    path = tmp_path / "config" / "start.json"
    _, a, b = await two_players()
    app = NoThanksApp(a, remembered=Remembered(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        await b.send_chat("before")
        await wait_until(pilot, lambda: "<bob> before" in log_text(app), "the line")
        await pilot.press("m")
        await wait_until(pilot, lambda: "<bob>" not in log_text(app), "chat hidden")
        assert "m Unmute chat" in keys_shown(app) and "m Mute chat" not in keys_shown(app)
        await b.send_chat("while muted")
        await wait_until(pilot, lambda: len(table_screen(app).chat) == 2, "the line, kept")
        assert "<bob>" not in log_text(app)
    assert Remembered(path).preferences == {"chat_muted": True}
    _, a2, b2 = await two_players()
    again = NoThanksApp(a2, remembered=Remembered(path))
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(again), "the table")
        assert table_screen(again).chat_muted and "m Unmute chat" in keys_shown(again)
        await b2.send_chat("hidden")
        await wait_until(pilot, lambda: len(table_screen(again).chat) == 1, "the line, kept")
        await pilot.press("m")
        await wait_until(pilot, lambda: "<bob> hidden" in log_text(again), "shown again")
    assert Remembered(path).preferences == {"chat_muted": False}


async def test_a_local_game_against_bots_offers_no_chat():
    app, _ = local_app(players=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        assert not any("Chat" in key or "chat" in key for key in keys_shown(app))
        await pilot.press("c")
        await pilot.pause()
        assert not table_screen(app).query_one(ChatInput).display


async def test_lines_said_in_the_waiting_room_and_before_are_in_the_log_when_the_game_starts():
    lobby, a, b = await two_players(started=False)
    await b.send_chat("ready when you are")
    app = NetApp(first_screen_for(InProcessLobby(lobby, "x"), a))
    async with app.run_test(size=(80, 24)) as pilot:
        await b.send_chat("still ready")
        await pilot.pause()
        await a.start_game()
        await wait_until(pilot, lambda: playing(app), "the table")
        await wait_until(pilot, lambda: "<bob> still ready" in log_text(app), "the lines")
        assert "<bob> ready when you are" in log_text(app)


async def test_where_the_log_has_no_room_a_line_is_shown_in_a_toast():
    _, a, b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(70, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        assert not table_screen(app).query_one(MoveLog).display
        await b.send_chat("[b]psst[/b]")
        await wait_until(
            pilot, lambda: any("<bob> [b]psst[/b]" in str(n.message) for n in app._notifications), "the toast"
        )


async def test_the_waiting_room_has_chat_too():
    from nothanks_tui.client.screens.waiting import WaitingScreen
    from nothanks_tui.client.widgets.chat import ChatLines

    lobby, a, b = await two_players(started=False)
    app = NetApp(first_screen_for(InProcessLobby(lobby, "x"), a))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        await wait_until(pilot, lambda: "c Chat" in keys_shown(app), "the chat key")
        await pilot.press("c", *"[b]waiting[/b]", "enter")
        assert (await heard(b, "[b]waiting[/b]")).name == "alice"
        lines = app.screen.query_one(ChatLines)
        await wait_until(pilot, lambda: "<alice> [b]waiting[/b]" in lines.render().plain, "the line shown")
        await pilot.press("m")
        await wait_until(pilot, lambda: "<alice>" not in lines.render().plain, "muted")
        assert "m Unmute chat" in keys_shown(app)


async def test_opening_the_line_at_a_full_table_pushes_nobody_off_the_screen():
    from nothanks_tui.client.widgets.table import PlayersPanel

    lobby = Lobby(LobbySettings(bot_delay=1000, turn_timer=None, seed=3))
    zed = InProcessLobby(lobby, "zed")
    await zed.start()
    z = await zed.create_table(NewTable(players=7, bots=6))
    await z.start_game()
    app = NoThanksApp(z)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        await pilot.pause()
        panel = table_screen(app).query_one(PlayersPanel)
        before = panel.region
        assert before.height >= 1 + 7 + 1  # header, seven players, its border
        await pilot.press("c")
        await wait_until(pilot, lambda: table_screen(app).query_one(ChatInput).display, "the line")
        await pilot.pause()
        assert panel.region == before
        line = table_screen(app).query_one(ChatInput).region
        assert line.height == 1 and line.bottom == 23  # just above the keys


async def test_ten_kilobytes_pasted_into_the_line_are_cut_to_fit_and_arrive_cleaned():
    from textual import events

    _, a, b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        await pilot.press("c")
        chat = table_screen(app).query_one(ChatInput)
        await wait_until(pilot, lambda: app.focused is chat, "the line")
        pasted = ("\x1b[31m[red]x[/red] " * 700)[:10_000] + "\nsecond line"
        chat.post_message(events.Paste(pasted))
        await wait_until(pilot, lambda: len(chat.value) == 200, "the paste, cut to 200 characters")
        await pilot.press("enter")
        await heard(b, " ".join(["[red]x[/red]"] * 11))  # 200 raw characters: 11 of 18, and "\x1b["
        await wait_until(pilot, lambda: "<alice> [red]x[/red] [red]x[/red]" in log_text(app), "alice's own line")
        assert "\x1b" not in log_text(app)
