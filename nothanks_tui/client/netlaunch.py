"""What ``nothanks join`` runs, and the app that opens on a host's lobby or table (also for ``host`` and SSH).

``join`` connects, resumes the seat it held at that host if it still can (the token is kept on disk), and
otherwise opens the lobby. ``NetApp`` opens on the lobby or a table's waiting room instead of the start screen:
``nothanks host`` (composed by the command line) and the SSH front run it too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from ..i18n import _
from ..link import LobbyConnection, LobbyError, TableConnection
from .app import NoThanksApp, first_screen
from .error_sentences import error_sentence
from .remembered import login_name
from .safe_text import clean_message
from .seat_tokens import SeatTokens, remember_and_resume
from .tcp import TcpLobby, parse_address

log = logging.getLogger(__name__)


class NetApp(NoThanksApp):
    """The client app opening on a given first screen (lobby or waiting room) instead of the start screen."""

    def __init__(
        self,
        first_screen: Callable[[], Screen[object]],
        below: Callable[[], Screen[object]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._first_screen = first_screen
        self._below = below  # e.g. the lobby under a resumed table, to go back to when leaving it

    def get_default_screen(self) -> Screen[Any]:
        return first_screen(self._below() if self._below is not None else self._first_screen())

    def on_mount(self) -> None:
        if self._below is not None:
            self.push_screen(self._first_screen())


def first_screen_for(
    lobby: LobbyConnection,
    connection: TableConnection | None,
    join_hint: list[str] | None = None,
    held: TableConnection | None = None,
) -> Callable[[], Screen[Any]]:
    """The lobby, or the waiting room of the table we are already at (it hands over to the table)."""
    from .screens.lobby import LobbyScreen
    from .screens.waiting import WaitingScreen

    if connection is not None:
        return lambda: WaitingScreen(connection, join_hint)
    seats = held_seats(held)
    return lambda: LobbyScreen(lobby, join_hint, seats)


def held_seats(connection: TableConnection | None) -> dict[str, str]:
    """table id -> token of the seat ``connection`` holds (the lobby below a resumed table marks it as yours)."""
    table_id = getattr(connection, "table_id", None)
    if connection is None or connection.seat_token is None or not isinstance(table_id, str) or not table_id:
        return {}
    return {table_id: connection.seat_token}


async def join_async(address: str, name: str | None, tokens: SeatTokens | None = None, **app_options: Any) -> int:
    host, port = parse_address(address)
    key = f"{host}:{port}"
    tokens = tokens or SeatTokens()
    lobby = TcpLobby(host, port, name or login_name())
    try:
        await lobby.start()
    except LobbyError as error:
        print("nothanks join: " + clean_message(error_sentence(error.code, error.message)))
        return 1
    connection = await remember_and_resume(lobby, tokens, key)
    # leaving the resumed table: the lobby, which knows the seat is ours
    below = None if connection is None else first_screen_for(lobby, None, held=connection)
    app = NetApp(first_screen_for(lobby, connection), below=below, exit_on_signals=True, **app_options)
    app.may_join_others = True  # the player's own terminal: a host gone, the Join tab opens
    try:
        await app.run_async()
    finally:
        await lobby.close()
    if lobby.closed_reason and lobby.closed_reason != "disconnected":
        print("nothanks join: " + clean_message(_(lobby.closed_reason)))
    return app.return_code or 0


def run_join(address: str, name: str | None, **app_options: Any) -> int:
    """``nothanks join``; ``app_options`` go to the app (the bots a new table may have, from the command line)."""
    try:
        parse_address(address)
    except ValueError as error:
        print(f"nothanks join: {error}")
        return 2
    return asyncio.run(join_async(address, name, **app_options))
