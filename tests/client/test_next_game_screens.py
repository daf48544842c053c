"""Two players at a host's table: the score dialog stays until both have asked for another game, and says who
waits for whom (the other's ask in its note; once you asked, who the game still waits for, and no ``a`` key)."""

from __future__ import annotations

import asyncio

from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.screens.waiting import WaitingScreen

from ..net_helpers import WAIT
from ..test_extras_snapshots import scores_drawn
from ..test_leaving import take_on_my_turns
from .ui_helpers import lobby_app, open_new_table_dialog, wait_until


def note_of(screen: ScoreScreen) -> str:
    return str(screen.query_one("#score-note").render())


async def play_to_the_score_screen(app, pilot, bob_table) -> tuple[TableScreen, ScoreScreen]:
    bob_plays = asyncio.get_running_loop().create_task(take_on_my_turns(bob_table))
    await wait_until(pilot, lambda: isinstance(app.screen, (TableScreen, ScoreScreen)), "the table")
    table = next(screen for screen in app.screen_stack if isinstance(screen, TableScreen))
    while not isinstance(app.screen, ScoreScreen):
        if app.screen is table and table.table is not None and table.table.view.my_turn:
            await pilot.press("t")
        await pilot.pause(0.005)
    await asyncio.wait_for(bob_plays, WAIT)
    await wait_until(pilot, lambda: scores_drawn(app), "the scores")
    return table, app.screen


async def start_with_bob(app, pilot, bob, players: int = 3):
    """Alice (the app) sets up a table of ``players`` from the lobby, bob joins it, bots fill the rest, and she
    starts it; bob's table connection."""
    from textual.widgets import Select

    await open_new_table_dialog(pilot, app)
    app.screen.query_one("#players", Select).value = players
    await pilot.pause()
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
    waiting = app.screen
    await wait_until(pilot, lambda: waiting.waiting is not None, "the table's seats")
    bob_table = await bob.join(waiting.waiting.table_id)
    for _ in range(players - 2):
        await pilot.press("b")
    await wait_until(pilot, lambda: waiting.waiting.can_start, "a full table")
    await pilot.press("s")
    return bob_table


async def test_the_score_dialog_waits_for_both_players_and_says_who_asked():
    lobby, app = await lobby_app("alice")
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    async with app.run_test(size=(80, 24)) as pilot:
        bob_table = await start_with_bob(app, pilot, bob)

        # Game 1: bob asks first. Alice's dialog stays, says so, and her a deals the game.
        table, score = await play_to_the_score_screen(app, pilot, bob_table)
        assert "Each run counts its lowest card" in note_of(score)
        await bob_table.play_again()
        await wait_until(pilot, lambda: "bob wants another game: press a" in note_of(score), "bob's ask")
        assert app.screen is score and table.table.view.finished
        assert score.check_action("play_again", ()) is True
        await pilot.press("a")
        await wait_until(pilot, lambda: app.screen is table and not table.table.view.finished, "game 2")
        assert not any("has started" in str(note.message) for note in app._notifications)  # she asked for it

        # Game 2: alice asks first. Her dialog stays and says whom it waits for; a is gone until the deal.
        table, score = await play_to_the_score_screen(app, pilot, bob_table)
        await pilot.press("a")
        await wait_until(pilot, lambda: "waiting for bob to press a" in note_of(score), "alice's own ask")
        assert app.screen is score and table.table.view.finished
        assert score.check_action("play_again", ()) is False
        await pilot.press("escape")  # to the table: its status says the same
        await wait_until(pilot, lambda: app.screen is table, "the table")
        status = str(table.query_one("#status").render())
        assert "waiting for bob" in status and table.check_action("play_again", ()) is False
        await bob_table.play_again()
        await wait_until(pilot, lambda: table.table is not None and not table.table.view.finished, "game 3")
    await bob.close()
    lobby.close()


async def test_with_seven_players_the_note_stays_in_sight_and_follows_the_asks():
    """Issue 29, defect 3: at 80x24 with seven players the scores pushed the note out of the dialog, and with it
    "bob wants another game": the dialog must show it, and follow it live."""
    lobby, app = await lobby_app("alice")
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    async with app.run_test(size=(80, 24)) as pilot:
        bob_table = await start_with_bob(app, pilot, bob, players=7)
        table, score = await play_to_the_score_screen(app, pilot, bob_table)
        box = score.query_one("#score-box")
        note = score.query_one("#score-note")

        def in_sight() -> bool:
            inside = box.region.shrink(box.styles.gutter)  # within the dialog's border
            return inside.contains_region(note.region) and note.region.bottom <= app.size.height - 1

        assert in_sight(), (note.region, box.region)
        await bob_table.play_again()
        await wait_until(pilot, lambda: "bob wants another game: press a" in note_of(score), "bob's ask")
        assert in_sight()
        await pilot.press("a")
        await wait_until(pilot, lambda: app.screen is table and not table.table.view.finished, "game 2")
    await bob.close()
    lobby.close()


async def test_toasts_leave_the_choices_in_sight_and_an_ask_s_toast_goes_with_the_deal():
    """Issue 29, defect 10: at 80 columns a toast covered the [t]/[n] lines; and "bob wants another game: press a
    to play again" stayed on screen after the next game was dealt."""
    from textual.widgets._toast import Toast

    from nothanks_tui.client.widgets.table import PrivatePanel

    lobby, app = await lobby_app("alice")
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        bob_table = await start_with_bob(app, pilot, bob)
        table, _score = await play_to_the_score_screen(app, pilot, bob_table)
        await pilot.press("escape")  # alice looks at the table: bob's ask comes as a toast
        await wait_until(pilot, lambda: app.screen is table, "the table")
        await bob_table.play_again()
        await wait_until(pilot, lambda: any("press a" in str(n.message) for n in app._notifications), "the ask")
        await wait_until(pilot, lambda: bool(table.query(Toast)), "bob's ask in a toast")
        private = table.query_one(PrivatePanel).region
        for toast in table.query(Toast):
            assert not toast.region.overlaps(private), (toast.region, private)
        assert any("press a" in str(note.message) for note in app._notifications)
        table.notify("a toast of the last game", title="Test")  # every toast of the last game goes with it
        await wait_until(pilot, lambda: any("last game" in str(n.message) for n in app._notifications), "the toast")
        await pilot.press("a")
        await wait_until(pilot, lambda: not table.table.view.finished, "game 2")
        await pilot.pause()
        assert not any("press a" in str(note.message) for note in app._notifications)
        assert not any("last game" in str(note.message) for note in app._notifications)
        gone = lambda: not any("press a" in str(toast.render()) for toast in table.query(Toast))  # noqa: E731
        await wait_until(pilot, gone, "the ask's toast off the screen")
        # At the next deal the choices are live: a toast then must not cover them either.
        table.notify("a long enough toast to reach across the screen", title="Test")
        await wait_until(pilot, lambda: any("long enough" in str(t.render()) for t in table.query(Toast)), "toast")
        for toast in table.query(Toast):
            assert not toast.region.overlaps(table.query_one(PrivatePanel).region)
    await bob.close()
    lobby.close()
