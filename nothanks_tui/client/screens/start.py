"""The start screen: choose how to play, then open a table.

Each way of playing is a ``StartForm`` in its own tab (``START_FORMS``): its fields, and on Enter its ``open``.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Select, Static, TabbedContent, TabPane

from ...engine import MAX_PLAYERS, MIN_PLAYERS
from ...i18n import N_, _, ngettext
from ...link import TableConnection
from ..launchers import Hosting, Launchers, SoloChoice, history_of
from ..remembered import Remembered, login_name
from ..widgets.forms import bot_field, form_row, name_field, open_chips_box, variant_field
from ..widgets.keybar import KeyBar
from .history import HistoryScreen, StatsScreen
from .steady import SteadyScreen

TALL_START = 30  # from this many rows the start screen sits in the middle of the terminal


class Playing(Message):
    """A start form built a table ``connection`` (the app leaves the start screen for it), or started a host in this
    process (``hosting``: the app keeps it, and stops it when the app ends)."""

    def __init__(self, connection: TableConnection | None = None, hosting: Hosting | None = None) -> None:
        super().__init__()
        self.connection = connection
        self.hosting = hosting


class StartForm(Vertical):
    """One way of playing: its fields, and how they become a connection. Subclass and add to ``START_FORMS``."""

    TITLE = "?"
    NEEDS_LAUNCHERS = True  # builds its table through the app's launchers (left out of an app without them)

    @property
    def launchers(self) -> Launchers:
        """What the command line gave the app to build tables with (``NoThanksApp(launchers=...)``)."""
        launchers: Launchers | None = getattr(self.app, "launchers", None)
        if launchers is None:
            raise ValueError(_("this way of playing is not available here"))
        return launchers

    async def open(self, app: App[object]) -> None:
        """Go play (a table: post ``Playing``; or a lobby); raise ValueError with a readable message if invalid."""
        raise NotImplementedError


class BotGameForm(StartForm):
    """You against bots at one table in this terminal."""

    TITLE = N_("Play against bots")

    def compose(self) -> ComposeResult:
        yield from name_field(_("you"), compact=True)
        sizes = [
            (ngettext("{count} players (you + {bots} bot)", "{count} players (you + {bots} bots)", n - 1), n)
            for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
        ]
        sizes = [(text.format(count=n, bots=n - 1), n) for text, n in sizes]
        yield from form_row(_("Players"), Select(sizes, value=4, allow_blank=False, id="players", compact=True))
        yield from bot_field(self.launchers.bot_choices, self.launchers.default_bot)
        yield from variant_field(compact=True)
        yield from form_row("", open_chips_box())
        yield from form_row("", Button(_("Play"), id="play", variant="primary", compact=True))

    async def open(self, app: App[object]) -> None:
        name = self.query_one("#name", Input).value  # the table cleans it, or says why not (ValueError)
        players = self.query_one("#players", Select).value
        bot = self.query_one("#bot", Select).value
        if not isinstance(players, int) or not isinstance(bot, str):
            raise ValueError(_("choose the number of players and a bot"))
        open_chips = self.query_one("#open-chips", Checkbox).value
        variant = str(self.query_one("#variant", Select).value)
        choice = SoloChoice(name=name, players=players, bot=bot, open_chips=open_chips, variant=variant)
        app.post_message(Playing(await self.launchers.open_solo_table(choice)))


START_FORMS: list[type[StartForm]] = [BotGameForm]  # (and, at the end, the host and join tabs)


class StartScreen(SteadyScreen[None]):
    """How do you want to play? One tab per ``StartForm``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", N_("Start")),
        Binding("ctrl+n", "next_mode", N_("Next tab")),
        Binding("ctrl+o", "history", N_("History")),
        Binding("ctrl+t", "history(True)", N_("Statistics")),
        Binding("ctrl+l", "language", N_("Language")),
        Binding("escape", "quit", N_("Quit")),
    ]

    def __init__(self, forms: list[StartForm] | None = None, tab: int = 0) -> None:
        """``tab``: the way of playing shown first (the one a game was started from, when coming back to it)."""
        super().__init__()
        self._first_tab = tab
        self._default_forms = forms is None
        self._player_name = ""  # the name in every tab's name field
        self.forms = forms if forms is not None else [form() for form in START_FORMS]

    def compose(self) -> ComposeResult:
        if self._default_forms and getattr(self.app, "launchers", None) is None:
            self.forms = [form for form in self.forms if not form.NEEDS_LAUNCHERS]
        yield Static(Content.styled("No Thanks!", "bold"), id="start-title")
        yield Static(
            Content(_("Take the card, or pay a chip to say No thanks! Lowest score wins.")), id="start-subtitle"
        )
        with TabbedContent(id="start-modes"):
            for index, form in enumerate(self.forms):
                with TabPane(_(form.TITLE), id=f"mode-{index}", classes=f"-{type(form).__name__}"):  # (app.tcss)
                    yield form
        yield KeyBar()

    def on_mount(self) -> None:
        self.set_class(self.app.size.height >= TALL_START, "-tall")
        # Every form's fields one line high, so a form fits 80x24 whatever tab it is in.
        for field in self.query("StartForm Input, StartForm Select, StartForm Button, StartForm Checkbox"):
            field.compact = True  # type: ignore[attr-defined]  # (each of these has it)
        self._recall()
        if 0 < self._first_tab < len(self.forms):
            self._show_tab(self._first_tab)
            return
        for field in self.query("#name").results(Input):
            field.focus()  # the first tab's name field: focusing a later one would switch tabs
            break

    @property
    def remembered(self) -> Remembered | None:
        """Where the command line keeps the player's name and last choices (None: nothing is kept)."""
        remembered = getattr(self.app, "remembered", None)
        return remembered if isinstance(remembered, Remembered) else None

    def _recall(self) -> None:
        """One name in every tab (the remembered one, else the login name), and each tab's last choices."""
        remembered = self.remembered
        name = (remembered.name if remembered else None) or login_name()
        self._player_name = name
        for field in self.query("#name").results(Input):
            field.value = name[: field.max_length or None]
        if remembered is None:
            return
        for form in self.forms:
            chosen = remembered.choices.get(type(form).__name__, {})
            for widget in form.query("Input, Select, Checkbox"):
                if widget.id == "name" or widget.id not in chosen:
                    continue
                value = chosen[widget.id]
                with contextlib.suppress(Exception):  # an option that no longer exists, a hand-edited file
                    if isinstance(widget, Checkbox):
                        widget.value = bool(value)
                    elif isinstance(widget, Input):
                        widget.value = str(value)
                    elif isinstance(widget, Select):
                        widget.value = value

    def _remember(self, form: StartForm) -> None:
        remembered = self.remembered
        if remembered is None:
            return
        fields: dict[str, str | int | bool] = {}
        for widget in form.query("Input, Select, Checkbox"):
            value = getattr(widget, "value", None)
            if widget.id is not None and widget.id != "name" and isinstance(value, str | int | bool):
                fields[widget.id] = value
        name = next((field.value for field in form.query("#name").results(Input)), remembered.name or "")
        remembered.remember(name, type(form).__name__, fields)

    def on_input_changed(self, event: Input.Changed) -> None:
        """Your name is one name: typed in one tab, it is the name in the others too."""
        if event.input.id != "name" or event.value == self._player_name or event.value != event.input.value:
            return  # not the name, the name as it is already (set from another field), or an old change
        self._player_name = event.value
        for field in self.query("#name").results(Input):
            if field is not event.input and field.value != event.value:
                field.value = event.value

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height >= TALL_START, "-tall")  # room to sit in the middle (app.tcss)

    def _active_form(self) -> StartForm:
        tabs = self.query_one("#start-modes", TabbedContent)
        active = tabs.active or "mode-0"
        return self.forms[int(active.removeprefix("mode-"))]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_mode":
            return len(self.forms) > 1
        if action == "history":
            return history_of(getattr(self.app, "launchers", None)) is not None  # hidden where nothing is kept
        return True

    def action_history(self, stats: bool = False) -> None:
        """The games kept on this machine, or their statistics (Esc comes back)."""
        source = history_of(getattr(self.app, "launchers", None))
        if source is not None:
            self.app.push_screen(StatsScreen(source) if stats else HistoryScreen(source))

    def action_next_mode(self) -> None:
        self._show_tab((self.forms.index(self._active_form()) + 1) % len(self.forms))

    def _show_tab(self, index: int) -> None:
        """Way of playing ``index``, with its first field focused: no need to reach the tab bar."""
        self.query_one("#start-modes", TabbedContent).active = f"mode-{index}"
        fields = self.forms[index].query("Input, Select, Checkbox, Button")
        if fields:
            fields.first().focus()

    async def action_start(self) -> None:
        form = self._active_form()
        self._remember(form)
        self.app.start_tab = self.forms.index(form)  # type: ignore[attr-defined]  # (NoThanksApp: coming back here)
        try:
            await form.open(self.app)
        except ValueError as error:
            self.notify(str(error), title=_("Cannot start"), severity="error", markup=False)

    @on(Button.Pressed)
    @on(Input.Submitted)
    async def _started(self, event: Button.Pressed | Input.Submitted) -> None:
        event.stop()
        await self.action_start()

    def action_quit(self) -> None:
        self.app.exit(0)

    def action_language(self) -> None:
        """The next language, remembered: the screen is drawn again in it, with the choices made so far."""
        self._remember(self._active_form())
        if self.next_language():
            tab = self.forms.index(self._active_form())
            self.app.switch_screen(StartScreen([type(form)() for form in self.forms], tab))


from .net_forms import HostForm, JoinForm  # noqa: E402  (in their own module, which imports this one)

START_FORMS.extend([HostForm, JoinForm])
