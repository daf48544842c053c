"""A host restarting while its players read the scores, as ``nothanks join`` shows it: a "play again" that never
reached the host must not take the score dialog's ``a`` away, and the restart notice is news of the host.

Seen with ``nothanks join``: eve pressed ``a`` on the score dialog while the host restarted (her ask was refused with
"the host is restarting", or lost in flight). The table came back and everyone's screen said "waiting for eve to
press a", but eve's dialog no longer offered ``a`` (it still believed her ask was on its way), and nothing on it said
what to do.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import App

from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.engine import view_for
from nothanks_tui.link import SeatInfo, TableUpdate

from .test_match_and_timeline import played_out


def finished_update(again: tuple[int, ...] = ()) -> TableUpdate:
    state = played_out(3)
    seats = (SeatInfo("eve"), SeatInfo("alice"), SeatInfo("bob"))
    return TableUpdate(view_for(state, 0), seats, "t1", can_restart=True, again=again)


async def test_a_lost_ask_leaves_the_key_to_ask_again_once_the_table_is_heard_from():
    asks: list[str] = []

    async def ask_lost() -> None:
        asks.append("sent")  # and then nothing: the host restarted before it read it

    screen = ScoreScreen(finished_update(), ask_lost)
    async with App().run_test(size=(80, 24)) as pilot:
        await pilot.app.push_screen(screen)
        await pilot.pause()
        assert screen.check_action("play_again", ())
        await pilot.press("a")
        await pilot.pause()
        assert asks == ["sent"] and not screen.check_action("play_again", ())  # no second ask while it travels
        screen.table_changed(finished_update(again=(1,)))  # the host's view: alice asked, eve did not
        await pilot.pause()
        assert screen.check_action("play_again", ())
        await pilot.press("a")
        await pilot.pause()
        assert asks == ["sent", "sent"]
        screen.table_changed(replace(finished_update(), again=(0, 1)))  # this one arrived: eve is waiting
        assert not screen.check_action("play_again", ())


def test_the_restart_notice_is_titled_as_news_of_the_host_not_as_a_move_refused():
    """At a finished game (nothing pressed) the TCP client's "the host is restarting; your game is kept" came as a
    warning titled "Not played"."""
    from nothanks_tui.client.screens.table import rejection_title
    from nothanks_tui.link import errors

    assert rejection_title(errors.CLOSED) == "Host"
    assert rejection_title(errors.NOT_YOUR_TURN) == "Not played"
    assert rejection_title(errors.CHAT_TOO_LONG) == "Not said"
