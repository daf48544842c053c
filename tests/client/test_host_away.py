"""While the host is away (restarting, or the connection lost and the client reconnecting), the table says so and
offers no move: it showed "▶ Your turn" and both choices, and only a toast that went after 10 s of a 60 s wait
said anything (issue 29, defect 4). The connection's word for it is the ``Rejected(closed)`` it posts
(client/tcp.py); the table is back with the next update."""

from __future__ import annotations

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.tcp import RESTARTING
from nothanks_tui.client.widgets.table import PrivatePanel, TableStatus
from nothanks_tui.engine import Action, GameConfig, new_game, view_for
from nothanks_tui.link import Rejected, SeatInfo, TableUpdate, errors

from .test_any_connection import ScriptedConnection
from .ui_helpers import table_screen, wait_until

SEATS = (SeatInfo("ana"), SeatInfo("bo"))


def text_of(widget) -> str:
    return "\n".join(line.plain for line in widget.draw_lines())


async def test_the_table_says_the_host_is_away_and_offers_no_move_until_it_is_back():
    state = new_game(GameConfig(players=2), seed=4)
    assert state.to_move == 0
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(state, 0), SEATS, "t1"))
        await wait_until(pilot, lambda: "Your turn" in text_of(table_screen(app).query_one(TableStatus)), "a turn")
        screen = table_screen(app)
        status, private = screen.query_one(TableStatus), screen.query_one(PrivatePanel)
        assert "[t]" in text_of(private) and screen.check_action("play", ("take",)) is True

        connection.events.put_nowait(Rejected(errors.CLOSED, RESTARTING))  # what TcpLobby posts as it reconnects
        await wait_until(pilot, lambda: "Host away" in text_of(status), "the word on the table")
        assert "Your turn" not in text_of(status)
        assert "[t]" not in text_of(private) and "[n]" not in text_of(private)
        assert "nothing can be played" in text_of(private)
        assert not screen.check_action("play", ("take",)) and not screen.check_action("play", ("pass",))
        await pilot.press("t")
        await pilot.pause()
        assert connection.sent == []  # nothing sent into the void
        assert any("host is away" in str(note.message) for note in app._notifications)

        connection.events.put_nowait(TableUpdate(view_for(state, 0), SEATS, "t1"))  # back: the resumed table
        await wait_until(pilot, lambda: "Your turn" in text_of(status), "the turn again")
        assert "Host away" not in text_of(status) and "[t]" in text_of(private)
        assert screen.check_action("play", ("take",)) is True
        await pilot.press("t")
        await wait_until(pilot, lambda: connection.sent == [(Action.TAKE, state.state_id)], "the move sent")
