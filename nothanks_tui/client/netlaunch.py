"""What ``nothanks join`` runs: connect, take back the seat held at that host (its token is kept on disk), else
open the lobby; and the first screens of the app that opens on a host's lobby or table (``host``, SSH too)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from ..i18n import _
from ..link import LobbyConnection, LobbyError, TableConnection, errors
from ..link.identity import Identity
from ..link.invites import parse_invite
from .app import NetApp as NetApp
from .error_sentences import error_sentence, taken_sentence
from .remembered import login_name
from .safe_text import clean_message
from .seat_tokens import SeatTokens, remember_and_resume
from .tcp import TcpLobby, parse_address


def first_screen_for(
    lobby: LobbyConnection,
    connection: TableConnection | None,
    join_hint: list[str] | None = None,
    held: TableConnection | None = None,
) -> Callable[[], Screen[Any]]:
    """The lobby, or the waiting room of the table we are already at (it hands over to the table)."""
    from .screens.lobby import LobbyScreen, held_seats
    from .screens.waiting import WaitingScreen

    if connection is not None:
        return lambda: WaitingScreen(connection, join_hint)
    seats = held_seats(held)
    return lambda: LobbyScreen(lobby, join_hint, seats)


async def join_host(
    address: str, name: str, tokens: SeatTokens, code: str | None = None
) -> tuple[TcpLobby, TableConnection | None]:
    """The lobby of the host at ``address`` (started), and the seat held there taken back, if any, else the private
    table ``code`` invites to (a seat, or watching it when none is free); ``ValueError`` for a bad address or code,
    ``LobbyError`` if the host refuses (or the player's identity key cannot be read)."""
    host, port = parse_address(address)
    invited = None if code is None else parse_invite(code)
    if code is not None and invited is None:
        raise ValueError(_("{code!r} is not an invite code: one reads like 12-K7PM-3QDX").format(code=code[:30]))
    try:
        identity = Identity.load()
    except (OSError, ValueError) as error:
        raise LobbyError(errors.BAD_SIGNATURE, str(error)) from None
    lobby = TcpLobby(host, port, name, identity=identity)
    await lobby.start()
    connection = await remember_and_resume(lobby, tokens, f"{host}:{port}")
    if connection is None and invited is not None:
        try:
            connection = await lobby.join(invited[0], code=code)
        except LobbyError as error:
            from .screens.lobby import SEATS_NOT_FREE

            if error.code not in SEATS_NOT_FREE:
                await lobby.close()
                raise
            connection = await lobby.spectate(invited[0], code)
    return lobby, connection


async def join_async(
    address: str, name: str | None, tokens: SeatTokens | None = None, code: str | None = None, **app_options: Any
) -> int:
    try:
        lobby, connection = await join_host(address, name or login_name(), tokens or SeatTokens(), code)
    except ValueError as error:
        print(f"nothanks join: {error}")
        return 2
    except LobbyError as error:
        print("nothanks join: " + clean_message(taken_sentence(error) or error_sentence(error.code, error.message)))
        return 1
    below = None if connection is None else first_screen_for(lobby, None, held=connection)  # (to leave the table to)
    app = NetApp(first_screen_for(lobby, connection), below=below, exit_on_signals=True, **app_options)
    app.may_join_others = True  # the player's own terminal: a host gone, the Join tab opens
    try:
        await app.run_async()
    finally:
        await lobby.close()
    if lobby.closed_reason and lobby.closed_reason != "disconnected":
        print("nothanks join: " + clean_message(_(lobby.closed_reason)))
    return app.return_code or 0


def run_join(address: str, name: str | None, code: str | None = None, **app_options: Any) -> int:
    """``nothanks join``; ``app_options`` go to the app (the bots a new table may have, from the command line)."""
    return asyncio.run(join_async(address, name, code=code, **app_options))
