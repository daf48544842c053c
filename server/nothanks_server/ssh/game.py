"""What an SSH player gets: the game's own app, opening on a welcome screen, then the host's lobby.

The welcome screen shows the game's name and asks for a display name (prefilled from the SSH user name unless
that is the generic ``play``). Then the player is in the lobby, the same screen ``nothanks join`` shows, talking
to this host's ``Lobby``: in-process when the sessions run in the host's process (``game_app_factory``), over the
host's TCP port when they run in SSH worker processes (``tcp_game_app_factory``, see workers.py). A player who
logged in with a public key is remembered by its fingerprint: when they come back while their seat is still held
(a dropped connection), they go straight back to it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.safe_text import clean_message, display_name
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.screens.steady import SteadyScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.link import (
    ConnectionInfo,
    LobbyConnection,
    LobbyError,
    NewTable,
    TableConnection,
    TableSummary,
)
from nothanks_tui.link.names import MAX_NAME

from ..inprocess import InProcessLobby
from ..lobby import Lobby
from .player import SSHPlayer
from .session import AppFactory

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HeldSeat:
    name: str
    token: str


class Seats(Protocol):
    """Which seat each key-identified player holds."""

    def get(self, identity: str | None) -> HeldSeat | None: ...
    def put(self, identity: str | None, name: str, token: str | None) -> None: ...
    def forget(self, identity: str | None) -> None: ...


class SeatMemory:
    """``Seats`` in memory: for sessions in the host's process (a host restart ends its games anyway)."""

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


class SeatFiles:
    """``Seats`` in a directory, one small file per player: shared by the SSH worker processes of one host, so a
    player who reconnects finds their seat whichever worker the new connection lands on.

    A file is named by a hash of the key fingerprint and holds the display name and the seat token (a secret that
    takes the seat back): the directory is made private (0700) and emptied when the host starts (``clear``),
    since a new host process knows none of the old tokens. Writes replace the file in one rename.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def clear(self) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)
        for stale in self.directory.glob("*.json"):
            stale.unlink(missing_ok=True)

    def _path(self, identity: str) -> Path:
        return self.directory / (hashlib.sha256(identity.encode()).hexdigest()[:32] + ".json")

    def get(self, identity: str | None) -> HeldSeat | None:
        if not identity:
            return None
        try:
            data = json.loads(self._path(identity).read_text())
            return HeldSeat(str(data["name"]), str(data["token"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, identity: str | None, name: str, token: str | None) -> None:
        if not (identity and token):
            return
        path = self._path(identity)
        part = path.with_suffix(f".{os.getpid()}.part")
        try:
            descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as file:
                json.dump({"name": name, "token": token}, file)
            os.replace(part, path)
        except OSError:
            log.exception("could not remember an SSH player's seat")

    def forget(self, identity: str | None) -> None:
        if identity:
            self._path(identity).unlink(missing_ok=True)


LobbyFactory = Callable[[str, ConnectionInfo], LobbyConnection]
"""Makes a session's (unstarted) lobby connection from the display name asked for and how to describe it."""


def in_process_lobbies(lobby: Lobby) -> LobbyFactory:
    return lambda name, info: InProcessLobby(lobby, name, info)


def tcp_lobbies(host: str, port: int) -> LobbyFactory:
    def connect(name: str, info: ConnectionInfo) -> LobbyConnection:
        connection = TcpLobby(host, port, name)
        connection.info = info  # the title bar says "this host over SSH", not the loopback address
        return connection

    return connect


class SessionLobby(LobbyConnection):
    """A session's lobby connection that remembers the seats it gives out, and closes them when the session ends.

    Closing a seat's connection during a game leaves the seat waiting for its player ("away"), so a player who
    dropped can come back to it.
    """

    def __init__(self, connect: LobbyFactory, name: str, player: SSHPlayer, seats: Seats) -> None:
        self.info = ConnectionInfo(description="this host over SSH", extras={"name": name, "via": "ssh"})
        self.inner = connect(name, self.info)
        self._player = player
        self._seats = seats
        self._opened: list[TableConnection] = []

    @property
    def name(self) -> str:
        return str(getattr(self.inner, "name", ""))

    @property
    def closed_reason(self) -> str | None:
        return getattr(self.inner, "closed_reason", None)

    def _remember(self, connection: TableConnection) -> TableConnection:
        self._opened.append(connection)
        self._seats.put(self._player.identity, self.name, connection.seat_token)
        return connection

    async def start(self) -> None:
        await self.inner.start()

    async def list_tables(self) -> list[TableSummary]:
        return await self.inner.list_tables()

    async def create_table(self, settings: NewTable) -> TableConnection:
        return self._remember(await self.inner.create_table(settings))

    async def join(self, table_id: str, seat: int | None = None) -> TableConnection:
        return self._remember(await self.inner.join(table_id, seat))

    async def spectate(self, table_id: str) -> TableConnection:
        return await self.inner.spectate(table_id)

    async def resume(self, token: str) -> TableConnection:
        return self._remember(await self.inner.resume(token))

    async def close(self) -> None:
        """Leave every table this session sat at (a seat in a running game then waits for us, away)."""
        opened, self._opened = self._opened, []
        for connection in opened:
            try:
                await connection.close()
            except Exception:
                log.exception("closing a table connection of an SSH session")
        await self.inner.close()


class NameInput(Input):
    """The name field; Enter (shown in the footer) goes on to the tables."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "submit", "Go to the tables")]

    def __init__(self, **kwargs: Any) -> None:
        # No blinking cursor: each blink repaints the centred dialog, kilobytes a second to every idle player.
        super().__init__(**kwargs)
        self.cursor_blink = False


class WelcomeScreen(SteadyScreen[None]):
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

    def __init__(self, player: SSHPlayer, connect: LobbyFactory, seats: Seats) -> None:
        super().__init__()
        self.player = player
        self.connect = connect
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
        lobby = SessionLobby(self.connect, held.name, self.player, self.seats)
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
        lobby = SessionLobby(self.connect, self.query_one("#name", Input).value, self.player, self.seats)
        try:
            await lobby.start()
        except LobbyError as error:
            self.say(error.message)
            return
        self.app.ssh_lobby = lobby  # type: ignore[attr-defined]
        self.app.switch_screen(LobbyScreen(lobby))


class SSHGameApp(NetApp):
    """The game app for one SSH session; ``ssh_session_ended`` leaves its tables when the session is over."""

    def __init__(self, player: SSHPlayer, connect: LobbyFactory, seats: Seats, **kwargs: Any) -> None:
        super().__init__(lambda: WelcomeScreen(player, connect, seats), **kwargs)
        self.ssh_lobby: SessionLobby | None = None

    async def ssh_session_ended(self) -> None:
        if self.ssh_lobby is not None:
            await self.ssh_lobby.close()
            self.ssh_lobby = None


def lobby_app_factory(connect: LobbyFactory, seats: Seats) -> AppFactory:
    """An ``AppFactory`` for ``SSHFront``: each session gets the game, its lobby connections made by ``connect``."""

    def make_app(player: SSHPlayer) -> SSHGameApp:
        return SSHGameApp(player, connect, seats)

    return make_app


def game_app_factory(lobby: Lobby, seats: SeatMemory | None = None) -> AppFactory:
    """Sessions in the host's own process, at ``lobby``'s tables."""
    return lobby_app_factory(in_process_lobbies(lobby), seats or SeatMemory())


def tcp_game_app_factory(host: str, port: int, seats: Seats) -> AppFactory:
    """Sessions in an SSH worker process, at the tables of the host listening on ``host``:``port`` (TCP)."""
    return lobby_app_factory(tcp_lobbies(host, port), seats)
