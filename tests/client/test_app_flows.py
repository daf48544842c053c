"""The app played by keys through Pilot: take, pass, forced take, stale intents, a full game, hostile names."""

from __future__ import annotations

import pytest
from textual.actions import parse
from textual.widgets import Static

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen, HelpScreen
from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.screens.start import BotGameForm, StartScreen
from nothanks_tui.client.screens.table import TableScreen, TitleBar
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.client.widgets.table import FaceUpCard, MoveLog, PlayersPanel, PrivatePanel
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.engine import Action
from nothanks_tui.link.names import MAX_NAME

from .ui_helpers import local_app, my_turn, table_screen, wait_until


def notices(app: NoThanksApp) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def test_t_takes_the_face_up_card_with_its_chips():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        view = table_screen(app).table.view
        card, pot, chips = view.card, view.pot, view.my_chips
        await pilot.press("t")
        await wait_until(pilot, lambda: card in table_screen(app).table.view.my_hand, "the card in my hand")
        after = table_screen(app).table.view
        assert after.my_chips == chips + pot
        assert after.moves[-1].action is Action.TAKE
        assert str(card) in PlayersPanel.render(app.screen.query_one(PlayersPanel)).plain


async def test_n_and_space_say_no_thanks_and_pay_one_chip():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in ("n", "space"):
            await wait_until(pilot, lambda: my_turn(app), "my turn")
            before = table_screen(app).table.view
            await pilot.press(key)
            await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b.state_id, "the pass")
            after = table_screen(app).table.view
            assert after.moves[before.state_id].action is Action.PASS
            assert after.my_chips == before.my_chips - 1
            assert "No thanks!" in app.screen.query_one(MoveLog).render().plain


async def no_chip_app() -> tuple[NoThanksApp, int]:
    """A seed whose table (nobody has chips) starts with the human."""
    for seed in range(50):
        _, connection = local_app(players=3, seed=seed, chips=0)
        await connection.start()
        first = await connection.next_event()
        await connection.close()
        if first.view.my_turn:
            return local_app(players=3, seed=seed, chips=0)[0], seed
    raise AssertionError("no seed lets the human start")


async def test_with_no_chips_no_thanks_is_greyed_refused_with_the_reason_and_take_still_works():
    app, _ = await no_chip_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        before = screen.table.view
        assert before.my_chips == 0
        assert screen.check_action("play", ("pass",)) is None  # shown, greyed
        assert screen.check_action("play", ("take",)) is True
        assert "impossible with no chips" in app.screen.query_one(PrivatePanel).render().plain
        await pilot.press("n")
        await pilot.press("space")
        await wait_until(pilot, lambda: any("no chips" in text for text in notices(app)), "the no-chips notice")
        assert screen.table.view.state_id == before.state_id  # nothing was played
        await pilot.press("t")
        await wait_until(pilot, lambda: screen.table.view.state_id == before.state_id + 1, "the take")
        assert before.card in screen.table.view.my_hand


async def test_a_stale_intent_is_refused_and_said_so():
    app, connection = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        seen = screen.table.view.state_id
        await pilot.press("t")
        await wait_until(pilot, lambda: screen.table.view.state_id > seen, "the take")
        now = connection.table.state.state_id
        await connection.send_action(Action.TAKE, seen)  # the same intent again, from the old picture
        await wait_until(pilot, lambda: any("moved on" in text for text in notices(app)), "the refusal notice")
        assert connection.table.state.state_id == now


async def test_a_full_game_by_keys_reaches_the_score_screen_and_play_again_deals_anew():
    app, connection = local_app(players=4, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            if isinstance(app.screen, ScoreScreen):
                break
            await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "my turn or the end")
            if my_turn(app):
                view = table_screen(app).table.view
                await pilot.press("n" if view.my_chips and view.pot < 3 else "t")
                await wait_until(
                    pilot,
                    lambda v=view: table_screen(app).table.view.state_id > v.state_id,
                    "my move",
                )
        assert isinstance(app.screen, ScoreScreen)
        final = table_screen(app).table.view
        assert final.finished
        text = " ".join(static.render().plain for static in app.screen.query("Static"))
        assert "Game over" in text and "★" in text and "Score" in text
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "back to the table")
        await wait_until(pilot, lambda: not table_screen(app).table.view.finished, "a new deal")
        assert connection.table.games_played == 2
        assert "game 2" in app.screen.query_one(TitleBar).render().plain


async def test_hostile_names_are_drawn_literally_and_cleaned():
    hostile_me = "mallory[/]\x1b[31m\x07"
    bots = ["[bold]x", "a" * 10_000, "\x1b]0;pwned\x07eve[link=http://x]y[/link]"]
    app, _ = local_app(players=4, seed=3, human_name=hostile_me, bot_names=bots)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("n")
        await wait_until(pilot, lambda: len(table_screen(app).table.view.moves) >= 4, "a few moves")
        players = app.screen.query_one(PlayersPanel).render().plain
        log = app.screen.query_one(MoveLog).render().plain
        assert "mallory[/]" in players
        assert "[bold]x" in players
        assert "eve[link=http" in players
        assert "\x1b" not in players + log and "\x07" not in players + log
        assert "a" * 20 not in players  # long names are cut
        assert "…" in players
        assert app.export_screenshot()  # the whole screen draws


async def test_quit_asks_during_a_game_and_leaves_on_yes():
    app, connection = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "back at the table")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.return_code == 0, "the app to exit")
    assert connection._closed


async def test_help_opens_and_closes_and_every_key_is_in_the_footer():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        keys = {key for binding in TableScreen.BINDINGS for key in binding.key.split(",")}  # type: ignore[union-attr]
        assert {"t", "n", "space", "question_mark", "h", "q"} <= keys
        shown = {binding.action for binding in TableScreen.BINDINGS if binding.show}  # type: ignore[union-attr]
        assert {"play('take')", "play('pass')", "help", "quit_table"} <= shown
        assert app.screen.query_one(KeyBar)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "back at the table")
        await pilot.press("h")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")


@pytest.mark.parametrize(
    ("variant", "said"), [("tactical", "tactical variant: 10, 20, 30 set aside, 1 chip fewer"), ("standard", None)]
)
async def test_the_help_at_a_variant_table_says_what_the_variant_changes(variant, said):
    # (a tactical table's help gave only the published rules: "nine are set aside unseen", "11 for 2 to 5 players")
    app, _ = local_app(seed=3, variant=variant)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        text = str(app.screen.query_one("#help-text", Static).render())
        assert ("variant" in text) is (said is not None), text
        assert said is None or said in text, text


async def test_blocked_actions_never_run():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        for action in ("screenshot", "suspend_process", "command_palette"):
            assert app.check_action(action, ()) is False


async def test_the_start_screen_opens_a_table_against_bots():
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), start_forms=[BotGameForm()])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await pilot.press("enter")  # the name field has focus; Enter starts
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the first deal")
        assert table_screen(app).table.view.players == 4


async def test_small_terminals_do_not_crash():
    app, _ = local_app(players=7, seed=3)
    async with app.run_test(size=(60, 16)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        assert app.export_screenshot()
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert app.export_screenshot()


async def test_ctrl_n_moves_to_the_next_way_of_playing_with_its_first_field_focused():
    from textual.widgets import TabbedContent

    from nothanks_tui.client.screens.start import StartForm

    class OtherForm(StartForm):
        TITLE = "Other"

        def compose(self):
            from textual.widgets import Input

            yield Input(value="x", id="other-field")

    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), start_forms=[BotGameForm(), OtherForm()])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.screen.query_one(TabbedContent).active == "mode-1", "the second tab")
        await wait_until(pilot, lambda: app.focused is not None and app.focused.id == "other-field", "its field")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.screen.query_one(TabbedContent).active == "mode-0", "back to the first")


async def test_the_footer_is_rebuilt_only_when_a_key_changes_state():
    """Rebuilding the footer restyles every key (costly for many SSH sessions in one process): bots' moves that
    leave my keys as they were must not rebuild it, and my turn coming round must."""
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        rebuilds: list[int] = []
        original = screen.refresh_bindings

        def counting() -> None:
            rebuilds.append(screen.table.view.state_id)
            original()

        screen.refresh_bindings = counting  # type: ignore[method-assign]
        before = screen.table.view.state_id
        await pilot.press("n")
        await wait_until(pilot, lambda: my_turn(app) and screen.table.view.state_id > before, "my turn again")
        moves = screen.table.view.state_id - before
        assert moves >= 3, "the bots moved in between"
        assert len(rebuilds) == 2 < moves  # my turn ended, then came back: not once per move
        assert app.screen.query_one(KeyBar) is not None
        assert screen.check_action("play", ("take",)) is True


def take_is_dim(bar: KeyBar) -> bool:
    """Whether the drawn bar (the strip Textual paints, kept per state) shows "Take" greyed."""
    segments = [segment for segment in bar.render_line(0) if segment.text.strip() == "Take"]
    assert len(segments) == 1, segments
    return bool(segments[0].style and segments[0].style.dim)


async def test_the_key_bar_shows_every_key_and_greys_those_that_do_nothing_now():
    app, _ = local_app(seed=3, bot_pace=0.3)  # bots take their time: the bar is seen during their turns
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        bar = screen.query_one(KeyBar)
        line = bar.render().plain
        for binding in TableScreen.BINDINGS:
            if binding.show and screen.check_action(*parse(binding.action)[1:]) is not False:  # type: ignore[union-attr]
                assert binding.description in line  # type: ignore[union-attr]
        assert {shown.description: shown.enabled for shown in bar.shown_keys()}["Take"] is True
        before = screen.table.view.state_id
        await pilot.press("n")
        await wait_until(pilot, lambda: screen.table.view.state_id > before and not my_turn(app), "a bot's turn")
        await wait_until(pilot, lambda: not bar._shown[0].enabled, "take greyed in the bar")
        assert "Take" in bar.render().plain  # greyed, still shown
        assert take_is_dim(bar)  # in what is drawn
        await wait_until(pilot, lambda: my_turn(app), "my turn again")
        await wait_until(pilot, lambda: bar._shown[0].enabled, "take enabled again")
        assert not take_is_dim(bar)
        for _ in range(2):  # the bar flips back and forth: each time it is drawn from the kept strips
            before = screen.table.view.state_id
            await pilot.press("n")
            await wait_until(pilot, lambda b=before: screen.table.view.state_id > b and not my_turn(app), "bots")
            await wait_until(pilot, lambda: not bar._shown[0].enabled, "take greyed in the bar")
            assert take_is_dim(bar)
            await wait_until(pilot, lambda: my_turn(app) and bar._shown[0].enabled, "take enabled again")
            assert not take_is_dim(bar)
        assert 1 < len(bar._strips) <= 3
        # A click on "Take" presses t: I take the card.
        cards = len(screen.table.view.my_hand)
        await pilot.click(KeyBar, offset=(1, 0))
        await wait_until(pilot, lambda: len(screen.table.view.my_hand) == cards + 1, "the card taken by a click")


async def test_a_move_redraws_only_the_widgets_whose_drawing_changed():
    """Each redraw costs the host real time for every SSH player: the title, which no move changes, is never
    redrawn by moves, while the card and the log are."""
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        renders: dict[str, int] = {}
        for widget_type in (TitleBar, FaceUpCard, MoveLog):
            widget = screen.query_one(widget_type)
            original = widget.render_line

            def counting(y, original=original, name=widget_type.__name__):  # type: ignore[no-untyped-def]
                renders[name] = renders.get(name, 0) + 1
                return original(y)

            widget.render_line = counting  # type: ignore[method-assign]
        before = screen.table.view.state_id
        await pilot.press("n")
        await wait_until(pilot, lambda: my_turn(app) and screen.table.view.state_id > before, "my turn again")
        await pilot.pause()
        assert renders.get("TitleBar", 0) == 0
        assert renders.get("MoveLog", 0) >= 1
        assert renders.get("FaceUpCard", 0) >= 1


async def test_a_move_repaints_only_the_changed_lines_of_the_players_panel():
    """A pass moves the turn marker from one seat to the next: two lines of the panel, not all of it."""
    app, _ = local_app(players=5, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        panel = screen.query_one(PlayersPanel)
        repainted: list[list[int]] = []
        original = panel.changed_lines

        def recording(lines):  # type: ignore[no-untyped-def]
            regions = original(lines)
            assert regions is not None, "the panel kept its line count"
            repainted.append([region.y for region in regions])
            return regions

        panel.changed_lines = recording  # type: ignore[method-assign]
        before = screen.table.view.state_id
        await pilot.press("n")
        await wait_until(pilot, lambda: my_turn(app) and screen.table.view.state_id > before, "my turn again")
        assert repainted, "the panel saw the moves"
        for lines in repainted:
            assert 1 <= len(lines) <= 2, lines  # old and new marker rows (chips are hidden, no card taken)


async def test_a_play_key_is_played_by_the_app_as_it_reads_the_key(monkeypatch):  # type: ignore[no-untyped-def]
    """t, n and space are priority bindings: on a busy SSH host the key is not handed to the screen first (one
    turn of the event loop fewer). A key that does nothing now still reaches the screen, which says why."""
    reached_screen: list[str] = []
    original = TableScreen.on_key

    def recording(screen, event):  # type: ignore[no-untyped-def]
        reached_screen.append(event.key)
        return original(screen, event)

    monkeypatch.setattr(TableScreen, "on_key", recording)
    app, _ = local_app(seed=3, bot_pace=0.3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        before = screen.table.view.state_id
        await pilot.press("n")
        await wait_until(pilot, lambda: screen.table.view.state_id > before and not my_turn(app), "my pass")
        assert reached_screen == []
        await pilot.press("t")  # a bot's turn: greyed
        await wait_until(pilot, lambda: reached_screen == ["t"], "the key at the screen")
        await wait_until(pilot, lambda: any("Not your turn yet" in text for text in notices(app)), "the notice")


async def test_the_start_screen_refuses_a_name_the_table_would_refuse_and_stays_open():
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), start_forms=[BotGameForm()])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        name = app.screen.query_one("#name")
        name.value = "\x1b[31m \x07"  # nothing printable is left once escapes and controls are stripped
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("name" in text for text in notices(app)), "the refusal")
        assert isinstance(app.screen, StartScreen)
        assert name.max_length == MAX_NAME  # the field holds no more than a table accepts


async def test_a_warning_is_not_repeated_while_it_shows_and_is_after():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        screen._notice_once("Held down.")
        screen._notice_once("Held down.")
        await pilot.pause()
        assert notices(app).count("Held down.") == 1
        screen._notices["Held down."] = 0.0  # (its time on screen is over)
        screen._notice_once("Held down.")
        await pilot.pause()
        assert notices(app).count("Held down.") == 2
