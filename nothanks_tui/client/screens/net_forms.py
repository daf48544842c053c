"""The start screen's network tabs: host a game from this terminal, or join someone else's.

Joining connects over TCP and opens the host's lobby (or, with a remembered seat token, goes straight back to
that seat). Hosting asks the command line's launchers (launchers.py) to start a host in this very process and
seat you at a new table of it, in-process: the client never builds a host itself.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label, Select

from ...defaults import DEFAULT_PORT
from ...i18n import N_, _
from ...link import LobbyError, NewTable
from ..error_sentences import error_sentence
from ..launchers import HostChoice
from ..seat_tokens import SeatTokens, remember_and_resume
from ..tcp import TcpLobby, parse_address
from ..widgets.forms import TickBox, bot_field, table_size_fields
from .start import HostStarted, StartForm


def _name_field(default: str) -> ComposeResult:
    with Horizontal(classes="field"):
        yield Label(_("Your name"), classes="field-label")
        yield Input(value=default, max_length=20, id="name")


class JoinForm(StartForm):
    """Join a host on the network: its address, your name."""

    TITLE = N_("Join a game")
    NEEDS_LAUNCHERS = False  # the client's own TCP connection

    def compose(self) -> ComposeResult:
        yield from _name_field(_("player"))
        with Horizontal(classes="field"):
            yield Label(_("Host"), classes="field-label")
            yield Input(placeholder=_("address or address:port (port {port})").format(port=DEFAULT_PORT), id="address")
        with Horizontal(classes="field"):
            yield Label("", classes="field-label")
            yield Button(_("Join"), id="join", variant="primary")

    async def open(self, app: App[object]) -> None:
        from ..netlaunch import first_screen_for

        address = self.query_one("#address", Input).value
        try:
            host, port = parse_address(address)
        except ValueError:
            raise ValueError(_("type the host's address, e.g. 192.168.1.20 or 192.168.1.20:7777")) from None
        lobby = TcpLobby(host, port, self.query_one("#name", Input).value)
        try:
            await lobby.start()
        except LobbyError as error:
            raise ValueError(error_sentence(error.code, error.message)) from None
        key = f"{host}:{port}"
        tokens = SeatTokens()
        connection = await remember_and_resume(lobby, tokens, key)
        app.switch_screen(first_screen_for(lobby, None, held=connection)())
        if connection is not None:  # back at our seat, with the lobby below for when we leave it
            app.push_screen(first_screen_for(lobby, connection)())


class HostForm(StartForm):
    """Host a game from this terminal: others join with ``nothanks join`` on this machine's address."""

    TITLE = N_("Host a game")
    BIND = "0.0.0.0"  # every interface, so others on the LAN can join (tests use loopback)

    def compose(self) -> ComposeResult:
        yield from _name_field(_("host"))
        yield from table_size_fields()
        yield from bot_field(self.launchers.bot_choices, self.launchers.default_bot)
        with Horizontal(classes="field"):
            yield Label(_("Port"), classes="field-label")
            yield Input(value=str(DEFAULT_PORT), id="port")
        with Horizontal(classes="field"):
            yield Label("", classes="field-label")
            yield TickBox(_("Open chips (everyone sees every chip count)"), id="open-chips", compact=True)
        with Horizontal(classes="field"):
            yield Label("", classes="field-label")
            yield Button(_("Host"), id="host", variant="primary")

    async def open(self, app: App[object]) -> None:
        from ..netlaunch import first_screen_for

        players = self.query_one("#players", Select).value
        bots = self.query_one("#bots", Select).value
        if not isinstance(players, int) or not isinstance(bots, int):
            raise ValueError(_("choose the number of players"))
        try:
            port = int(self.query_one("#port", Input).value)
        except ValueError:
            raise ValueError(_("the port is a number, e.g. 7777")) from None
        table = NewTable(
            players=players,
            bots=min(bots, players - 1),
            bot=str(self.query_one("#bot", Select).value),
            open_chips=self.query_one("#open-chips", TickBox).value,
        )
        hosting = await self.launchers.host_game(
            HostChoice(name=self.query_one("#name", Input).value, port=port, table=table, bind=self.BIND)
        )
        app.post_message(HostStarted(hosting))  # the app stops it when it ends
        app.switch_screen(first_screen_for(hosting.lobby, hosting.table, hosting.join_lines)())
