"""The first screen over SSH: a display name to play under, then the lobby, or straight back to a held seat.
It knows nothing of SSH: the session gives it a ``Doorway``."""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Input, Static

from ...i18n import LANGUAGE_NAMES, LANGUAGES, N_, _, current_language
from ...link import LobbyConnection, LobbyError
from ...link.names import MAX_NAME
from ..error_sentences import error_sentence, taken_sentence
from ..safe_text import clean_message, display_name
from ..widgets.keybar import KeyBar
from .lobby import LobbyScreen
from .steady import SteadyScreen
from .waiting import WaitingScreen


class Doorway(Protocol):
    """What the welcome screen needs from the session it runs in."""

    @property
    def suggested_name(self) -> str: ...  # the name to prefill (may be empty)
    def held_seat(self) -> tuple[str, str] | None: ...  # (display name, seat token) the host may still hold
    def forget_seat(self) -> None: ...  # (that seat is gone)
    def lobby(self, name: str) -> LobbyConnection: ...  # new, unstarted; the doorway closes it with the session
    @property
    def keeps_seats(self) -> bool: ...  # can the player have their seat back (an SSH key login)? Missing: yes


class NameInput(Input):
    """The name field; Enter (shown in the footer) goes on to the tables."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "submit", N_("Go to the tables"))]
    # No blinking cursor: each blink repaints the centred dialog, kilobytes a second to every idle player.
    cursor_blink: reactive[bool] = reactive(False, init=False)


class WelcomeScreen(SteadyScreen[None]):
    """The game's name and a display name to play under."""

    # Ctrl-C quits, as a newcomer expects (priority: the name field would take it as "copy"), Esc too.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+l", "language", N_("Language")),
        Binding("ctrl+r", "plain", N_("Screen reader"), show=False, priority=True),
        Binding("ctrl+c,escape", "app.quit", N_("Quit"), key_display="^C/Esc", priority=True),
    ]

    def __init__(self, door: Doorway) -> None:
        super().__init__()
        self.door = door

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome"):
            yield Static("No Thanks!", id="welcome-title")
            yield Static(
                _("Take the card, or pay a chip to say No thanks! Lowest score wins."), id="welcome-rules", markup=False
            )
            yield Static(_("Your name at the table:"), markup=False)
            yield NameInput(
                value=self.door.suggested_name[:MAX_NAME],
                placeholder=_("a name (1 to 20 characters)"),
                max_length=MAX_NAME,
                id="name",
            )
            yield Static("", id="welcome-message")
            if not getattr(self.door, "keeps_seats", True):
                no_key = _(
                    "You came in without an SSH key: if your connection drops, your seat cannot be given back to you. "
                    "To have it kept, make a key once (ssh-keygen) and come in with it."
                )
                yield Static(no_key, id="welcome-no-key", markup=False)
            language = current_language()  # "Language: English (Ctrl-L: Français, Español)"
            others = ", ".join(LANGUAGE_NAMES[other] for other in LANGUAGES if other != language)
            line = _("Language: {language} (Ctrl-L: {others})").format(language=LANGUAGE_NAMES[language], others=others)
            yield Static(line, id="welcome-language", markup=False)
            if hasattr(self.app, "go_plain"):
                yield Static(_("Screen reader: Ctrl-R for plain lines."), id="welcome-plain", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()
        held = self.door.held_seat()
        if held is not None:
            name, token = held
            self.say(_("Welcome back, {name}: taking you back to your seat...").format(name=display_name(name)))
            self.resume(name, token)

    async def action_language(self) -> None:
        """The next language: this screen is drawn again in it, with the name typed so far."""
        name = self.query_one("#name", Input).value
        if not self.next_language():
            return
        await self.recompose()
        field = self.query_one("#name", Input)
        field.value = name
        field.focus()

    def action_plain(self) -> None:
        """Plain lines for a screen reader: this app ends, and the session goes on without it (ssh/session.py)."""
        if hasattr(self.app, "go_plain"):
            self.app.go_plain = self.query_one("#name", Input).value
            self.app.exit()

    def say(self, text: str) -> None:
        self.query_one("#welcome-message", Static).update(Text(clean_message(text)))

    @work(exclusive=True, group="welcome")
    async def resume(self, name: str, token: str) -> None:
        lobby = self.door.lobby(name)
        try:
            await lobby.start()
            connection = await lobby.resume(token)
        except LobbyError as error:
            self.door.forget_seat()
            self.say(
                _("Your old seat is gone ({reason}). Choose a name to play on.").format(
                    reason=error_sentence(error.code, error.message)
                )
            )
            return
        # The lobby below the table, as when sitting down from it: leaving goes back there, not out of the session.
        table_id = getattr(connection, "table_id", None)
        held = {table_id: token} if isinstance(table_id, str) and table_id else None
        self.app.switch_screen(LobbyScreen(lobby, held=held))
        self.app.push_screen(WaitingScreen(connection))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.enter_lobby()

    async def enter_lobby(self) -> None:
        lobby = self.door.lobby(self.query_one("#name", Input).value)
        try:
            await lobby.start()
        except LobbyError as error:
            self.say(taken_sentence(error) or error_sentence(error.code, error.message))
            if error.free_name:
                self.query_one("#name", Input).value = error.free_name
            return
        self.app.switch_screen(LobbyScreen(lobby))
