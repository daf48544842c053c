"""The one Textual app for every way of playing: local, hosting, joining, and over SSH.

It takes a connection, never the engine's state. Nothing here prints, opens URLs, writes screenshots or suspends
the process: over SSH those would act on the host, not the player's terminal.
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
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import App, CSSPathType
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.driver import Driver
from textual.filter import LineFilter, Monochrome, NoColor
from textual.screen import Screen

from ..i18n import LANGUAGES, N_, _, current_language, switch_language, use_language
from ..link import TableConnection
from .discovery import HostBrowser
from .launchers import Hosting, Launchers
from .remembered import Remembered
from .reviewing import Reviewer
from .screens.dialogs import HOST_WARNING, ConfirmQuitScreen
from .screens.start import START_FORMS, Playing, StartForm, StartScreen
from .screens.table import TableScreen
from .textual_private import first_screen

STYLES = Path(__file__).parent

# Signals that end a player's own terminal session: leave the table and give the terminal back, not die with it taken.
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
    """No colour at all, for ``NO_COLOR``: Textual's own filter still writes a grey colour code for every cell. Bold,
    reverse, underline and dim stay: nothing here says anything by colour alone (app.tcss)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, None if style is None else _colourless(style), control) for text, style, control in segments
        ]


COLOURLESS = Colourless()


@functools.cache
def clearing(driver: type[Driver]) -> type[Driver]:
    class Clearing(driver):  # type: ignore[valid-type,misc]
        def stop_application_mode(self) -> None:
            self.write(CLEAR_SCREEN)
            super().stop_application_mode()

    return Clearing


class NoThanksApp(App[int]):
    """Start screen when given no connection; the table when given one (or a factory)."""

    # Absolute paths (subclasses elsewhere find them), all loaded at start: a screen's own CSS_PATH re-parses all.
    CSS_PATH: ClassVar[CSSPathType] = [STYLES / "app.tcss", STYLES / "lobby.tcss", STYLES / "history.tcss"]
    TITLE = "No Thanks!"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), show=False, priority=True),
        # Ctrl-C quits as a terminal user means it (not Textual's English-only notice); copying keeps super+c.
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
        reviewer: Reviewer | None = None,
        **kwargs: Any,
    ) -> None:
        """``exit_on_signals``: SIGTERM and SIGHUP leave the table and restore the terminal (a player's own terminal,
        never a host process). ``language``: None is the running task's. ``host_browser``: how the Join tab finds
        hosts on the LAN (None: it does not look). ``reviewer``: grades a finished game (the bots', from the command
        line; None: no review)."""
        super().__init__(**kwargs)
        self.language = language
        self._exit_on_signals = exit_on_signals
        self.is_host = is_host  # this app's player hosts the game: leaving stops it for everyone
        # The bots a new table may have: the launchers', else (a lobby's new tables) those given.
        self.bot_choices = launchers.bot_choices if launchers is not None else bot_choices
        self.default_bot = launchers.default_bot if launchers is not None else default_bot
        self.remembered = remembered  # the start screen's name and last choices, kept by the command line
        # Chat hidden (m), the your-turn bell: on disk where the command line keeps preferences, else for the session.
        self.chat_muted = bool(remembered.preferences.get("chat_muted")) if remembered is not None else False
        self.bell_on = remembered.bell if remembered is not None else True
        self.back_to_start = False  # leaving the table opens the start screen again (it was opened from there)
        self.start_tab = 0  # the start screen's tab a game was started from (set by the start screen)
        self._signals_handled: list[signal.Signals] = []
        self._connection = connection
        self.launchers = launchers  # how the start screen builds tables (given by the command line)
        self.hosting: Hosting | None = None  # a host this app started (the start screen's Host tab)
        self._start_forms = start_forms
        self.host_browser = host_browser
        self.reviewer = reviewer
        # A host gone, the Join tab opens (``host_gone``): for the start screen and ``nothanks join``, never over SSH.
        self.may_join_others = False

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, erasing the screen before it leaves the alternate one: a terminal without one (GNU screen
        with ``altscreen off``) kept the last frame under the shell's prompt (the SSH front's driver does the same)."""
        return clearing(super().get_driver_class())

    def get_line_filters(self) -> Sequence[LineFilter]:
        """With ``no_color`` (Textual sets it from ``NO_COLOR`` at its start; the SSH front, for its session), no
        colour codes at all, not grey ones."""
        filters = super().get_line_filters()
        if not self.no_color:
            return filters
        return [*(f for f in filters if not isinstance(f, Monochrome | NoColor)), COLOURLESS]

    def remember_chat_muted(self, muted: bool) -> None:
        self.chat_muted = muted
        if self.remembered is not None:
            self.remembered.prefer("chat_muted", muted)

    def get_default_screen(self) -> Screen[Any]:
        if self._connection is not None:
            return first_screen(TableScreen(self._connection))
        self.may_join_others = True  # (the start screen: its Join tab is this app's)
        return first_screen(StartScreen(self._start_forms))

    def host_gone(self, sentence: str) -> bool:
        """The host of this app's lobby is gone for good: open the start screen's Join tab, ``sentence`` at its top.
        False where the player may not join other hosts (an SSH session's app)."""
        if not self.may_join_others:
            return False
        from .screens.net_forms import JoinForm

        kinds = [type(form) for form in self._start_forms] if self._start_forms else START_FORMS
        kinds = [kind for kind in kinds if self.launchers is not None or not kind.NEEDS_LAUNCHERS]
        if JoinForm not in kinds:
            kinds.append(JoinForm)
        forms = [JoinForm(note=sentence) if kind is JoinForm else kind() for kind in kinds]
        tab = kinds.index(JoinForm)
        self.back_to_start = False
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.switch_screen(StartScreen(forms, tab))
        return True

    def on_load(self) -> None:
        """Speak the player's language in every task of this app and no other's (the SSH front runs many apps on one
        loop): Textual sends Load in the app's own task before it starts any other."""
        language = self.language or current_language()
        use_language(language)
        self.language = current_language()

    def change_language(self, language: str) -> None:
        """Speak ``language`` from now on (the caller redraws the screen on top), and remember it."""
        switch_language(language)
        self.language = current_language()
        if self.remembered is not None:
            self.remembered.remember_language(self.language)

    def next_language(self) -> str:
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
        # A closed terminal (SIGHUP) can leave Textual waiting for its output for ever: the process ends regardless.
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
        self.bell_on = on
        if self.remembered is not None:
            self.remembered.prefer("bell", on)

    def your_turn(self) -> None:
        """It has just become this player's turn: ring the terminal bell once, if wanted (tmux marks the window)."""
        if self.bell_on:
            self.bell()

    def on_playing(self, message: Playing) -> None:
        self.back_to_start = True  # leaving the table (stopping the host) goes back to the start screen
        if message.hosting is not None:
            self.hosting = message.hosting
            self.is_host = True
        if message.connection is not None:
            self.switch_screen(TableScreen(message.connection))

    def table_left(self) -> None:
        """The player left the table (or its waiting room) at the bottom of the screens: back to the start screen
        if it was opened from there (a game hosted from it stopped first), else out of the app."""
        if not self.back_to_start:
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
        self.switch_screen(StartScreen(forms, self.start_tab))  # on the tab the game was started from

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

    async def on_unmount(self) -> None:
        """A host started from the start screen lives as long as the app: stop it, telling its players."""
        loop = asyncio.get_running_loop()
        for signum in self._signals_handled:
            loop.remove_signal_handler(signum)
        self._signals_handled.clear()
        if self.hosting is not None:
            await self.hosting.close(N_("the host was stopped"))

    async def action_quit(self) -> None:
        """Ctrl-Q: quit, asking first during a game or when others play at this app's host (again: quits)."""
        screen = self.table_screen
        playing = screen is not None and screen.table is not None and not screen.table.view.finished
        if isinstance(self.screen, ConfirmQuitScreen) or not (self.is_host or playing):
            await self._quit_now()
            return

        async def answered(leave: bool | None) -> None:
            if leave:
                await self._quit_now()

        text = _(HOST_WARNING) if self.is_host else _("The game is not over. [y] quit, [n] keep playing.")
        self.push_screen(ConfirmQuitScreen(_("Quit No Thanks!?"), text), answered)

    async def _quit_now(self) -> None:
        screen = self.table_screen
        if screen is not None:
            await screen.connection.close()
        self.exit(0)


class NetApp(NoThanksApp):
    """The app opening on a given first screen (a lobby, a waiting room, the history, a replay), with ``below``
    (the lobby under a resumed table) under it."""

    def __init__(
        self, first_screen: Callable[[], Screen[Any]], below: Callable[[], Screen[Any]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._first_screen = first_screen
        self._below = below

    def get_default_screen(self) -> Screen[Any]:
        return first_screen(self._below() if self._below is not None else self._first_screen())

    def on_mount(self) -> None:
        if self._below is not None:
            self.push_screen(self._first_screen())
