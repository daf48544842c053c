"""Full screens laid out once per size, with a chat line (the lobby's, a table's), and the base of a table's
screens (its reader).

Textual lays a screen out again for a Resize to the size it already has (an app's first screen gets two while it
starts); on an SSH host each full layout is paid once per player, so ``SteadyScreen`` skips those. An app's first
screen (``textual_private.first_screen``) is also not styled a second time at its first resume: every node was
styled as it was mounted (tests/client/test_first_screen_styles.py checks the result is the same).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

from textual import events, on, work
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen

from ...i18n import N_, _
from ...link import Closed, LobbyConnection, TableConnection, TableEvent
from ..widgets.chat import PLACEHOLDER, ChatInput
from .dialogs import HOST_WARNING, ConfirmQuitScreen

log = logging.getLogger(__name__)
ScreenResult = TypeVar("ScreenResult")
CHAT_ACTIONS = ("chat", "mute")
CHAT_KEYS = [  # (one of the two m keys at a time)
    Binding("c", "chat", N_("Chat")),
    Binding("m", "mute(True)", N_("Mute chat")),
    Binding("m", "mute(False)", N_("Unmute chat")),
]


class SteadyScreen(Screen[ScreenResult]):
    """A full screen that is not laid out again for a Resize to the size it already has."""

    styled_at_mount = False  # set on an app's first screen: its first resume need not style it all again

    @on(events.ScreenResume)
    def _styled_once(self, event: events.ScreenResume) -> None:
        # Before Textual's own handler, which reads the flag; decorated, so a subclass's on_screen_resume runs too.
        if self.styled_at_mount:
            self.styled_at_mount = False
            event.refresh_styles = False

    def on_resize(self, event: events.Resize) -> None:
        if event.size == self.outer_size:
            event.prevent_default()  # Screen._on_resize would lay the screen out again, at the same size

    def action_close(self) -> None:
        """Back to the screen below, or out of the app when there is none."""
        if len(self.app.screen_stack) > 1:
            self.dismiss(None)
        else:
            self.app.exit(0)

    def next_language(self) -> bool:
        """Switch the app to its next language (Ctrl-L), where the app has languages; False where it has none."""
        change, following = getattr(self.app, "change_language", None), getattr(self.app, "next_language", None)
        if not callable(change) or not callable(following):
            return False
        change(following())
        return True


class ChatScreen(SteadyScreen[ScreenResult]):
    """A screen with a chat line to ``talk`` (c or t opens it), and m to mute what is said there, kept by the app."""

    chat_muted: reactive[bool] = reactive(False, repaint=False)

    def __init__(self, talk: LobbyConnection | TableConnection, placeholder: str = PLACEHOLDER) -> None:
        super().__init__()
        self.talk = talk
        self.chat_input = ChatInput(placeholder, id="chat-input")  # (kept: check_action asks it at each footer refresh)

    def on_mount(self) -> None:
        self.chat_muted = bool(getattr(self.app, "chat_muted", False))

    def check_chat(self, action: str, parameters: tuple[object, ...]) -> bool:
        """``check_action`` while the chat line is open (keys type into it), and for the chat keys."""
        if self.chat_input.display or not self.talk.can_chat:
            return False
        return action == "chat" or self.chat_muted != parameters[0]  # one of the two m keys at a time

    def action_chat(self) -> None:
        if self.talk.can_chat:
            self.chat_input.open()
            self.refresh_bindings()

    def action_mute(self, muted: bool) -> None:
        """Hide (or show again) what is said; the app remembers it (on disk where it can)."""
        self.chat_muted = muted
        remember = getattr(self.app, "remember_chat_muted", None)
        if callable(remember):
            remember(muted)
        self.refresh_bindings()

    async def on_chat_input_closed(self, message: ChatInput.Closed) -> None:
        if isinstance(self.focused, ChatInput):
            self.set_focus(next(iter(self.query("#tables")), None))  # (the lobby's list of tables)
        self.refresh_bindings()
        if message.text:
            await self.talk.send_chat(message.text)


class AtTableScreen(ChatScreen[str | None]):
    """A screen at a table (its waiting room, its game; its result: why the table let it go): it reads the
    connection until ``LAST``, posting each event to itself."""

    LAST: type[TableEvent] | tuple[type[TableEvent], ...] = Closed

    class TableEventArrived(Message, bubble=False):
        """An event of the connection, for this screen only."""

        def __init__(self, event: TableEvent) -> None:
            super().__init__()
            self.event = event

    def __init__(self, connection: TableConnection, read: list[TableEvent] | None = None) -> None:
        """``read``: events already read from the (started) connection, posted first; None: start it."""
        super().__init__(connection)
        self.connection = connection
        self._read = read

    def on_mount(self) -> None:
        self.read_events()

    @work(exclusive=True, group="connection", exit_on_error=False)
    async def read_events(self) -> None:
        try:
            if self._read is None:
                await self.connection.start()
            for event in self._read or ():
                self.post_message(self.TableEventArrived(event))
            while True:
                event = await self.connection.next_event()
                self.post_message(self.TableEventArrived(event))
                if isinstance(event, self.LAST):
                    return
        except Exception as error:  # a broken connection ends the game, never the app
            log.exception("table connection failed")
            self.post_message(self.TableEventArrived(Closed(_("connection lost: {error}").format(error=error))))

    @property
    def hosting(self) -> bool:
        """This app runs the host, and this is its first screen: leaving stops the host."""
        return bool(getattr(self.app, "is_host", False)) and len(self.app.screen_stack) == 1

    def ask_to_leave(self, title: str | None = None, text: str | None = None) -> None:
        """``_leave`` once the player says yes (to stopping the host, when ``hosting``)."""
        if self.hosting:
            title, text = _("Stop the host?"), _(HOST_WARNING)

        async def answered(leave: bool | None) -> None:
            if leave and (leaving := self._leave()) is not None:
                await leaving

        self.app.push_screen(ConfirmQuitScreen(title, text), answered)

    def _leave(self) -> Awaitable[None] | None:
        raise NotImplementedError
