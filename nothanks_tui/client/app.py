"""The one Textual app for every way of playing: local, hosting, joining, and over SSH.

It takes a ready connection (or a factory for one) and never the engine's state, so the same app runs against an
in-process table, a TCP host, or inside an SSH session. Nothing here prints, opens URLs, writes screenshots or
suspends the process: over SSH those would act on the host, not the player's terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.app import App, CSSPathType
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.filter import LineFilter, Monochrome, NoColor
from textual.screen import Screen

from ..i18n import LANGUAGES, N_, _, current_language, switch_language, use_language
from ..link import TableConnection
from .discovery import HostBrowser
from .launchers import Hosting, Launchers
from .remembered import Remembered
from .screens.dialogs import HOST_WARNING, ConfirmQuitScreen
from .screens.start import START_FORMS, HostStarted, StartForm, StartScreen, TableChosen
from .screens.steady import SteadyScreen
from .screens.table import TableScreen

ScreenType = TypeVar("ScreenType", bound=Screen[Any])

STYLES = Path(__file__).parent

# Signals that end a player's own terminal session (``kill PID``, the terminal window closed): the app leaves its table
# and gives the terminal back (alternate screen, mouse reporting, cursor) instead of dying with it still taken.
EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
LEAVE_TIMEOUT = 2.0  # seconds the host may take to hear that we left, when a signal ends the app
EXIT_GRACE = 2.0  # then seconds to give the terminal back before the process ends regardless

CLEAR_SCREEN = "\x1b[H\x1b[2J"  # cursor home, erase the screen (written as the app ends)

# Actions that would reach outside the terminal (files, the process, the desktop): never allowed.
BLOCKED_ACTIONS = frozenset({"screenshot", "suspend_process", "command_palette", "open_url"})


@functools.lru_cache(maxsize=1024)
def _colourless(style: Style) -> Style:
    return style.without_color


class Colourless(LineFilter):
    """No colour at all, for ``NO_COLOR`` (no-color.org): Textual's own filter for it only greys the colours (or
    sets them to the terminal's default), and still writes a 256-colour or 24-bit code for every cell. Bold,
    reverse, underline and dim stay: nothing here says anything by colour alone (app.tcss)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, None if style is None else _colourless(style), control) for text, style, control in segments
        ]


def first_screen(screen: ScreenType) -> ScreenType:
    """``screen`` made ready to be the app's first screen (returned by ``get_default_screen``).

    The first screen is the bottom of the stack, not pushed over Textual's blank default screen: on the SSH host that
    blank screen cost every arrival a layout and a full frame of its own, a third of the CPU to its first frame. So a
    screen is the first one when the stack holds just that screen. Textual gives a pushed screen a result callback
    and ``switch_screen`` removes one from the screen it replaces; a default screen has none, so it gets the one
    ``switch_screen`` gives (tests/client/test_screens_below.py fails if Textual changes this). Its first showing does
    not style it all over again (``SteadyScreen.styled_at_mount``): every node was styled as it was mounted.
    """
    screen._push_result_callback(screen, None)
    if isinstance(screen, SteadyScreen):
        screen.styled_at_mount = True
    return screen


class NoThanksApp(App[int]):
    """Start screen when given no connection; the table when given one (or a factory)."""

    # Absolute paths, so subclasses elsewhere (the SSH front's app) find them; every screen's styles are loaded at
    # start: a screen with its own CSS_PATH would make each app re-parse all of its CSS when that screen opens.
    CSS_PATH: ClassVar[CSSPathType] = [STYLES / "app.tcss", STYLES / "lobby.tcss", STYLES / "history.tcss"]
    TITLE = "No Thanks!"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), show=False, priority=True),
        # Ctrl-C as a terminal user means it, on every screen and dialog: the same quit (asking first during a
        # game; a second Ctrl-C in that dialog quits) rather than Textual's English-only "Press ctrl+q to quit the
        # app" notice. (Textual's copying of selected text keeps super+c.)
        Binding("ctrl+c", "quit", N_("Quit"), show=False, priority=True),
    ]

    def __init__(
        self,
        connection: TableConnection | None = None,
        *,
        launchers: Launchers | None = None,
        start_forms: list[StartForm] | None = None,
        exit_on_signals: bool = False,
        is_host: bool = False,
        remembered: Remembered | None = None,
        bot_choices: Sequence[tuple[str, str]] = (),
        default_bot: str = "",
        language: str | None = None,
        host_browser: Callable[[], HostBrowser] | None = None,
        **kwargs: Any,
    ) -> None:
        """``exit_on_signals``: SIGTERM and SIGHUP leave the table and restore the terminal (the command line sets
        it for a player's own terminal; never inside a host process, such as an SSH session's app). ``language``:
        the player's (``en``, ``fr``, ``es``); None: the language of the task that runs the app.
        ``host_browser``: how the Join tab finds hosts on the LAN (the command line gives zeroconf's; None: it
        does not look)."""
        super().__init__(**kwargs)
        self.language = language
        self._exit_on_signals = exit_on_signals
        self.is_host = is_host  # this app's player hosts the game: leaving stops it for everyone
        self._bot_choices = bot_choices  # for a lobby's new tables, when there are no launchers
        self._default_bot = default_bot
        self.remembered = remembered  # the start screen's name and last choices, kept by the command line
        # Chat at tables hidden (the m key): remembered on disk where the command line keeps preferences, else for
        # as long as the app runs (an SSH session).
        self.chat_muted = bool(remembered.preferences.get("chat_muted")) if remembered is not None else False
        # The terminal bell when it becomes your turn: on unless the player turned it off (remembered between runs
        # where the command line keeps preferences; for the session only over SSH).
        self.bell_on = remembered.bell if remembered is not None else True
        self._back_to_start = False  # leaving the table opens the start screen again (it was opened from there)
        self.start_tab = 0  # the start screen's tab a game was started from (set by the start screen)
        self._signals_handled: list[signal.Signals] = []
        self._connection = connection
        self.launchers = launchers  # how the start screen builds tables (given by the command line)
        self.hosting: Hosting | None = None  # a host this app started (the start screen's Host tab)
        self._start_forms = start_forms
        self.host_browser = host_browser
        # The player may join other hosts from here (the start screen's app, ``nothanks join``): when the host of
        # the lobby they are in goes, the Join tab opens (``host_gone``). Never in an SSH session's app.
        self.may_join_others = False
        if self.no_color:  # (Textual reads NO_COLOR at its start): no colour codes at all, not grey ones
            self._filters = [Colourless() if isinstance(f, Monochrome | NoColor) else f for f in self._filters]

    def remember_chat_muted(self, muted: bool) -> None:
        self.chat_muted = muted
        if self.remembered is not None:
            self.remembered.prefer("chat_muted", muted)

    @property
    def bot_choices(self) -> Sequence[tuple[str, str]]:
        """(name, what it is like) of each bot a player may seat, as the command line gave them."""
        return self.launchers.bot_choices if self.launchers is not None else self._bot_choices

    @property
    def default_bot(self) -> str:
        return self.launchers.default_bot if self.launchers is not None else self._default_bot

    def get_default_screen(self) -> Screen[Any]:
        connection = self._connection
        if connection is not None:
            return first_screen(TableScreen(connection))
        self.may_join_others = True  # (the start screen: its Join tab is this app's)
        return first_screen(StartScreen(self._start_forms))

    def host_gone(self, sentence: str) -> bool:
        """The host whose lobby this app was in is gone for good: open the start screen's Join tab, ``sentence``
        (why, and what now) at its top, instead of leaving the player in a lobby that can do nothing. Only for an
        app whose player may join any host (not an SSH session's: its player may only reach its own host); False
        when it may not."""
        if not self.may_join_others:
            return False
        from .screens.net_forms import JoinForm

        kinds = [type(form) for form in self._start_forms] if self._start_forms else START_FORMS
        if self.launchers is None:
            kinds = [kind for kind in kinds if not kind.NEEDS_LAUNCHERS] or [JoinForm]
        forms = [JoinForm(note=sentence) if kind is JoinForm else kind() for kind in kinds]
        if not any(isinstance(form, JoinForm) for form in forms):
            forms.append(JoinForm(note=sentence))
        tab = next(index for index, form in enumerate(forms) if isinstance(form, JoinForm))
        self._connection, self._back_to_start = None, False
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.switch_screen(StartScreen(forms, tab))
        return True

    def on_load(self) -> None:
        """Speak the player's language in every task of this app, and in no other app's (the SSH front runs many
        apps on one loop): Textual sends Load in the app's own task before it starts any other."""
        language = self.language or current_language()
        use_language(language)
        self.language = current_language()

    def change_language(self, language: str) -> None:
        """Speak ``language`` from now on (every screen opened later; the caller redraws the one on top), and
        remember it where the player's choices are kept."""
        switch_language(language)
        self.language = current_language()
        if self.remembered is not None:
            self.remembered.remember_language(self.language)

    def next_language(self) -> str:
        """The language after this app's, in ``LANGUAGES`` order (what Ctrl-L switches to)."""
        language = self.language or current_language()
        return LANGUAGES[(LANGUAGES.index(language) + 1) % len(LANGUAGES)] if language in LANGUAGES else "en"

    def on_mount(self) -> None:
        if not self._exit_on_signals:
            return
        loop = asyncio.get_running_loop()
        for signum in EXIT_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not on this platform/thread
                loop.add_signal_handler(signum, self._on_exit_signal)
                self._signals_handled.append(signum)

    def _on_exit_signal(self) -> None:
        # A closed terminal window (SIGHUP) can leave nothing to write the restoring codes to, and Textual then
        # waits for its output for ever: whatever happens, the process ends soon after the table heard we left.
        watchdog = threading.Timer(LEAVE_TIMEOUT + EXIT_GRACE, os._exit, args=(0,))
        watchdog.daemon = True
        watchdog.start()
        self.run_worker(self._leave_and_exit(), group="signal-exit", exclusive=True)

    async def _leave_and_exit(self) -> None:
        """Tell the table we left (bounded: the host may be gone too), then exit, which restores the terminal."""
        screen = self.table_screen
        if screen is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(screen.connection.close(), LEAVE_TIMEOUT)
        self.exit(0)

    def set_bell(self, on: bool) -> None:
        """Turn the your-turn bell on or off (and remember it, where preferences are kept)."""
        self.bell_on = on
        if self.remembered is not None:
            self.remembered.remember_bell(on)

    def your_turn(self) -> None:
        """It has just become this player's turn: ring the terminal bell once, if wanted. tmux and screen then mark
        the window, many terminals flash or sound; over SSH the bell byte travels to the player's terminal."""
        if self.bell_on:
            self.bell()

    def on_table_chosen(self, message: TableChosen) -> None:
        """Leave the start screen for the table a start form opened."""
        self._connection = message.connection
        self._back_to_start = True
        self.switch_screen(TableScreen(message.connection))

    @property
    def back_to_start(self) -> bool:
        """Leaving the table at the bottom of the screens opens the start screen again (it was opened from there)."""
        return self._back_to_start

    def table_left(self) -> None:
        """The player left the table (or its waiting room) at the bottom of the screens: back to the start screen
        if the table was opened from it (with its choices as they were; a game hosted from it is stopped first,
        its players told), else out of the app."""
        if not self._back_to_start:
            self.exit(0)
            return
        if self.hosting is not None:
            self.run_worker(self._stop_hosting_and_go_back(), group="stop-host", exclusive=True)
            return
        self._show_start_again()

    async def _stop_hosting_and_go_back(self) -> None:
        hosting, self.hosting = self.hosting, None
        self.is_host = False
        if hosting is not None:
            await hosting.close(N_("the host was stopped"))
        self._show_start_again()

    def _show_start_again(self) -> None:
        forms = None if self._start_forms is None else [type(form)() for form in self._start_forms]
        self._connection = None
        self.switch_screen(StartScreen(forms, self.start_tab))  # on the tab the game was started from

    def on_host_started(self, message: HostStarted) -> None:
        self.hosting = message.hosting
        self.is_host = True
        self._back_to_start = True  # stopping the host (leaving its table) goes back to the start screen

    @property
    def table_screen(self) -> TableScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                return screen
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in BLOCKED_ACTIONS:
            return False
        return super().check_action(action, parameters)

    def action_suspend_process(self) -> None:
        """Never suspend: over SSH it would stop the host."""

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """Never open URLs: over SSH it would open them on the host."""

    def on_exit_app(self) -> None:
        """The app is ending (Textual leaves the alternate screen next): erase the screen first. A terminal without
        an alternate screen (GNU screen with ``altscreen off``) kept the last frame, the shell's prompt over its
        top-left corner; where there is one, this erases only that screen."""
        driver = self._driver
        if driver is not None and not self.is_headless:
            driver.write(CLEAR_SCREEN)

    async def on_unmount(self) -> None:
        """A host started from the start screen lives as long as the app: stop it, telling its players."""
        loop = asyncio.get_running_loop()
        for signum in self._signals_handled:
            loop.remove_signal_handler(signum)
        self._signals_handled.clear()
        if self.hosting is not None:
            await self.hosting.close(N_("the host was stopped"))

    async def action_quit(self) -> None:
        """Ctrl-Q: quit, asking first while a game is on or when others play at this app's host; a second Ctrl-Q
        in that dialog quits."""
        if isinstance(self.screen, ConfirmQuitScreen) or not self._quit_needs_asking():
            await self._quit_now()
            return

        async def answered(leave: bool | None) -> None:
            if leave:
                await self._quit_now()

        text = _(HOST_WARNING) if self.is_host else _("The game is not over. [y] quit, [n] keep playing.")
        self.push_screen(ConfirmQuitScreen(_("Quit No Thanks!?"), text), answered)

    def _quit_needs_asking(self) -> bool:
        if self.is_host:
            return True
        screen = self.table_screen
        return bool(screen is not None and screen.table is not None and not screen.table.view.finished)

    async def _quit_now(self) -> None:
        screen = self.table_screen
        if screen is not None:
            await screen.connection.close()
        self.exit(0)
