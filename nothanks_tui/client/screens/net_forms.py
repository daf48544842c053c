"""The start screen's network tabs: host a game from this terminal, or join someone else's.

Joining opens the host's lobby (or goes back to a remembered seat); the Join tab lists the hosts found on the LAN
(``host_browser``). Hosting asks the command line's launchers to start a host in this process: the client never
builds one itself.
"""

from __future__ import annotations

import contextlib
import logging

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from ...defaults import DEFAULT_PORT
from ...i18n import N_, _, ngettext
from ...link import LobbyError
from ..discovery import FoundHost, HostBrowser
from ..error_sentences import error_sentence, taken_sentence
from ..launchers import HostChoice
from ..presentation import COACH_LABEL
from ..safe_text import clean_message, display_name
from ..seat_tokens import SeatTokens
from ..widgets import forms
from .start import Playing, StartForm

log = logging.getLogger(__name__)


def found_line(host: FoundHost) -> Content:
    """One host in the Join tab's list: its name, address and free seats, or why we cannot play there."""
    if not host.compatible:
        what = (
            _("another version of nothanks (protocol {theirs})").format(theirs=host.protocol)
            if host.protocol is not None
            else _("not a host this nothanks understands")
        )
    elif host.free_seats is None:
        what = ""
    else:
        what = ngettext("{count} free seat", "{count} free seats", host.free_seats).format(count=host.free_seats)
    return Content(f"{display_name(host.name, 20)}  {host.target}  {what}".rstrip())  # plain text, never markup


class JoinForm(StartForm):
    """Join a host on the network: one found on the LAN, or typed in by address; and your name."""

    TITLE = N_("Join a game")
    NEEDS_LAUNCHERS = False  # the client's own TCP connection
    NONE_FOUND_AFTER = 4.0  # seconds of looking before the tab says none was found (it goes on looking)

    def __init__(self, note: str = "") -> None:
        """``note``: a sentence at the tab's top (why the player is here: the host they were at is gone)."""
        super().__init__()
        self.note = note
        self.browser: HostBrowser | None = None
        self.found: dict[str, FoundHost] = {}  # by key, as the list's options are
        self._left = False  # unmounted: the list is gone

    def compose(self) -> ComposeResult:
        if self.note:
            yield Static(Content(clean_message(self.note)), id="join-note")
        yield from forms.name_field(_("player"))
        status = Static(_("Looking for hosts on this network…"), id="found-status")
        found = Vertical(status, OptionList(id="found-hosts"), id="found")
        yield from forms.form_row(_("Found"), found, id="found-field")
        address = _("address or address:port (port {port})").format(port=DEFAULT_PORT)
        yield from forms.form_row(_("Host"), Input(placeholder=address, id="address"))
        yield from forms.form_row("", Button(_("Join"), id="join", variant="primary"))

    def on_mount(self) -> None:
        self.query_one("#found-hosts", OptionList).display = False
        self.query_one("#found-field").display = getattr(self.app, "host_browser", None) is not None

    async def on_show(self) -> None:
        """Start looking for hosts when the tab is first shown."""
        make = getattr(self.app, "host_browser", None)
        if self.browser is not None or make is None:
            return
        self.browser = make()
        try:
            await self.browser.start(self.show_found)
        except Exception as error:  # no multicast, no interface: typing the address still works
            log.info("cannot look for hosts on this network: %s", error)  # the tab says so; stderr is the screen
            self.query_one("#found-status", Static).update(
                _("Cannot look for hosts on this network: type the host's address below.")
            )
            return
        self.set_timer(self.NONE_FOUND_AFTER, self._none_found)

    def _none_found(self) -> None:
        """Still nothing after a while: say so (and keep looking)."""
        if not self._left and not self.found:
            self.query_one("#found-status", Static).update(
                _("No host found on this network: type the host's address below (the list fills in if one appears).")
            )

    async def on_unmount(self) -> None:
        self._left = True
        browser, self.browser = self.browser, None
        if browser is not None:
            with contextlib.suppress(Exception):
                await browser.close()

    def show_found(self, hosts: list[FoundHost]) -> None:
        """The browser's news: every host it knows now, the highlighted one kept highlighted."""
        if self._left:  # news that crossed our leaving
            return
        listing = self.query_one("#found-hosts", OptionList)
        chosen = listing.highlighted_option.id if listing.highlighted_option is not None else None
        self.found = {host.key: host for host in hosts}
        listing.set_options(Option(found_line(host), id=host.key, disabled=not host.compatible) for host in hosts)
        keys = [host.key for host in hosts]
        playable = [index for index, host in enumerate(hosts) if host.compatible]
        if chosen in keys:
            listing.highlighted = keys.index(chosen)
        elif playable:
            listing.highlighted = playable[0]  # Enter (or Start, with no address typed) joins it
        listing.display = bool(hosts)
        self.query_one("#found-status", Static).display = not hosts

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A host chosen in the list: its address goes in the Host field, and we join it."""
        event.stop()
        host = self.found.get(event.option.id or "")
        if host is None or not host.compatible:
            return
        self.query_one("#address", Input).value = host.target
        await self.screen.run_action("start")

    async def open(self, app: App[object]) -> None:
        from ..netlaunch import first_screen_for, join_host

        address = self.query_one("#address", Input).value
        option = self.query_one("#found-hosts", OptionList).highlighted_option
        found = None if option is None else self.found.get(option.id or "")
        if not address.strip() and found is not None and found.compatible:  # none typed: the host highlighted
            address = found.target
        try:
            lobby, connection = await join_host(address, self.query_one("#name", Input).value, SeatTokens())
        except LobbyError as error:
            if error.free_name:
                self.query_one("#name", Input).value = error.free_name
            raise ValueError(taken_sentence(error) or error_sentence(error.code, error.message)) from None
        except ValueError:
            raise ValueError(_("type the host's address, e.g. 192.168.1.20 or 192.168.1.20:7777")) from None
        app.switch_screen(first_screen_for(lobby, None, held=connection)())
        if connection is not None:  # back at our seat, with the lobby below for when we leave it
            app.push_screen(first_screen_for(lobby, connection)())


class HostForm(StartForm):
    """Host a game from this terminal: others join with ``nothanks join`` on this machine's address."""

    TITLE = N_("Host a game")
    BIND = "0.0.0.0"  # every interface, so others on the LAN can join (tests use loopback)

    def compose(self) -> ComposeResult:
        yield from forms.name_field(_("host"))
        yield from forms.table_size_fields()
        yield from forms.bot_field(self.launchers.bot_choices, self.launchers.default_bot)
        yield from forms.variant_field(compact=True)
        port = Input(value=str(DEFAULT_PORT), id="port", classes="port")  # (``nothanks host --bind --port``)
        bind = Input(value=self.BIND, id="bind", classes="bind")
        yield from forms.form_row(_("Listen on"), bind, Label(_("port"), classes="port-label"), port)
        # (the tick boxes together: fits 80x24)
        yield from forms.form_row("", forms.open_chips_box(), classes="field -first-of-two")
        yield from forms.form_row("", forms.TickBox(_(COACH_LABEL), id="coach", compact=True))
        yield from forms.form_row("", Button(_("Host"), id="host", variant="primary"))

    def on_select_changed(self, event: Select.Changed) -> None:
        forms.fit_bots_to_players(event, self)

    async def open(self, app: App[object]) -> None:
        from ..netlaunch import first_screen_for

        table = forms.new_table(self)
        try:
            port = int(self.query_one("#port", Input).value)
        except ValueError:
            raise ValueError(_("the port is a number, e.g. 7777")) from None
        bind = self.query_one("#bind", Input).value.strip() or self.BIND
        hosting = await self.launchers.host_game(
            HostChoice(name=self.query_one("#name", Input).value, port=port, table=table, bind=bind)
        )
        app.post_message(Playing(hosting=hosting))  # the app stops it when it ends
        app.switch_screen(first_screen_for(hosting.lobby, hosting.table, hosting.join_lines)())
