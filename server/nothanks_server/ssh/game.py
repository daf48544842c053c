"""What an SSH player gets: the game's own app, opening on a welcome screen, then the host's lobby.

The welcome screen shows the game's name and asks for a display name (prefilled from the SSH user name unless
that is the generic ``play``). Then the player is in the lobby, the same screen ``nothanks join`` shows, talking
to this host's ``Lobby`` in-process. A player who logged in with a public key is remembered by its fingerprint:
when they come back while their seat is still held (a dropped connection), they go straight back to it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from nothanks_tui.client.connection import ConnectionInfo, LobbyError, NewTable, TableConnection
from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.safe_text import clean_message, display_name
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.names import MAX_NAME

from ..inprocess import InProcessLobby
from ..lobby import Lobby
from .player import SSHPlayer
from .session import AppFactory

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HeldSeat:
    name: str
    token: str


class SeatMemory:
    """Which seat each key-identified player holds (in memory: a host restart ends its games anyway)."""

    def __init__(self) -> None:
        self._seats: dict[str, HeldSeat] = {}

    def get(self, identity: str | None) -> HeldSeat | None:
        return self._seats.get(identity) if identity else None

    def put(self, identity: str | None, name: str, token: str | None) -> None:
        if identity and token:
            self._seats[identity] = HeldSeat(name, token)

    def forget(self, identity: str | None) -> None:
        if identity:
            self._seats.pop(identity, None)


class SessionLobby(InProcessLobby):
    """An in-process lobby connection that remembers the seats it gives out, and closes them when the session ends.

    Closing a seat's connection during a game leaves the seat waiting for its player ("away"), so a player who
    dropped can come back to it.
    """

    def __init__(self, lobby: Lobby, name: str, player: SSHPlayer, seats: SeatMemory) -> None:
        info = ConnectionInfo(description="this host over SSH", extras={"name": name, "via": "ssh"})
        super().__init__(lobby, name, info)
        self._player = player
        self._seats = seats
        self._opened: list[TableConnection] = []

    def _remember(self, connection: TableConnection) -> TableConnection:
        self._opened.append(connection)
        self._seats.put(self._player.identity, self.name, connection.seat_token)
        return connection

    async def create_table(self, settings: NewTable) -> TableConnection:
        return self._remember(await super().create_table(settings))

    async def join(self, table_id: str, seat: int | None = None) -> TableConnection:
        return self._remember(await super().join(table_id, seat))

    async def resume(self, token: str) -> TableConnection:
        return self._remember(await super().resume(token))

    async def close(self) -> None:
        """Leave every table this session sat at (a seat in a running game then waits for us, away)."""
        opened, self._opened = self._opened, []
        for connection in opened:
            try:
                await connection.close()
            except Exception:
                log.exception("closing a table connection of an SSH session")
        await super().close()


class NameInput(Input):
    """The name field; Enter (shown in the footer) goes on to the tables."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "submit", "Go to the tables")]

    def __init__(self, **kwargs: Any) -> None:
        # No blinking cursor: each blink repaints the centred dialog, kilobytes a second to every idle player.
        super().__init__(**kwargs)
        self.cursor_blink = False


class WelcomeScreen(Screen[None]):
    """The game's name and a display name to play under."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    WelcomeScreen #welcome { width: 60; height: auto; border: round $accent; padding: 1 2; }
    WelcomeScreen #welcome-title { text-style: bold; color: $accent; width: 100%; content-align: center middle; }
    WelcomeScreen #welcome-rules { color: $text-muted; margin-bottom: 1; }
    WelcomeScreen #welcome-message { color: $warning; height: auto; }
    """

    def __init__(self, player: SSHPlayer, lobby: Lobby, seats: SeatMemory) -> None:
        super().__init__()
        self.player = player
        self.lobby = lobby
        self.seats = seats

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome"):
            yield Static("No Thanks!", id="welcome-title")
            yield Static(
                "Take the card, or pay a chip to say No thanks! Lowest score wins.", id="welcome-rules", markup=False
            )
            yield Static("Your name at the table:", markup=False)
            yield NameInput(
                value=self.player.suggested_name[:MAX_NAME],
                placeholder="a name (1 to 20 characters)",
                max_length=MAX_NAME,
                id="name",
            )
            yield Static("", id="welcome-message")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()
        held = self.seats.get(self.player.identity)
        if held is not None:
            self.say(f"Welcome back, {display_name(held.name)}: taking you back to your seat...")
            self.resume(held)

    def say(self, text: str) -> None:
        self.query_one("#welcome-message", Static).update(Text(clean_message(text)))

    @work(exclusive=True, group="welcome")
    async def resume(self, held: HeldSeat) -> None:
        lobby = SessionLobby(self.lobby, held.name, self.player, self.seats)
        try:
            await lobby.start()
            connection = await lobby.resume(held.token)
        except LobbyError as error:
            self.seats.forget(self.player.identity)
            self.say(f"Your old seat is gone ({error.message}). Choose a name to play on.")
            return
        self.app.ssh_lobby = lobby  # type: ignore[attr-defined]
        self.app.switch_screen(WaitingScreen(connection))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.enter_lobby()

    async def enter_lobby(self) -> None:
        lobby = SessionLobby(self.lobby, self.query_one("#name", Input).value, self.player, self.seats)
        try:
            await lobby.start()
        except LobbyError as error:
            self.say(error.message)
            return
        self.app.ssh_lobby = lobby  # type: ignore[attr-defined]
        self.app.switch_screen(LobbyScreen(lobby))


class SSHGameApp(NetApp):
    """The game app for one SSH session; ``ssh_session_ended`` leaves its tables when the session is over."""

    def __init__(self, player: SSHPlayer, lobby: Lobby, seats: SeatMemory, **kwargs: Any) -> None:
        super().__init__(lambda: WelcomeScreen(player, lobby, seats), **kwargs)
        self.ssh_lobby: SessionLobby | None = None

    async def ssh_session_ended(self) -> None:
        if self.ssh_lobby is not None:
            await self.ssh_lobby.close()
            self.ssh_lobby = None


def game_app_factory(lobby: Lobby, seats: SeatMemory | None = None) -> AppFactory:
    """An ``AppFactory`` for ``SSHFront``: each session gets the game, at ``lobby``'s tables."""
    memory = seats or SeatMemory()

    def make_app(player: SSHPlayer) -> SSHGameApp:
        return SSHGameApp(player, lobby, memory)

    return make_app
