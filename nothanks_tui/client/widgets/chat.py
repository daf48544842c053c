"""The line a player types chat into (Enter sends; Ctrl-G or Esc closes: GNU screen can hold a lone Esc back for
seconds), and the few lines of chat of a waiting room or a lobby. Losing the focus closes it, keeping what was typed."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input

from ...i18n import N_, _
from ...link import ChatLine
from ...link.chat import MAX_CHAT
from ..seat_log import chat_content, chat_rows

PLACEHOLDER = N_("Say something to the table (Enter sends, Ctrl-G or Esc closes)")
LOBBY_PLACEHOLDER = N_("Say something to everyone in the lobby (Enter sends, Ctrl-G or Esc closes)")


class ChatInput(Input):
    """Hidden until opened; posts ``Closed`` when put away, with the text to send on Enter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "put_away(True)", N_("Send"), key_display="Enter"),
        Binding("ctrl+g,escape", "put_away(False)", N_("Close"), key_display="^G/Esc"),
    ]

    class Closed(Message):
        """The input was put away: ``text`` to send (Enter on it), else empty (cancelled, left, or nothing said)."""

        def __init__(self, text: str = "") -> None:
            super().__init__()
            self.text = text

    def __init__(self, prompt: str = PLACEHOLDER, **kwargs: object) -> None:
        super().__init__(max_length=MAX_CHAT, **kwargs)  # type: ignore[arg-type]
        self.prompt = prompt
        self.can_focus = False  # only while open: a screen focuses its first focusable widget by itself
        self.display = False  # until opened (whatever the screen's styles say, and before they apply)

    def on_mount(self) -> None:
        self.placeholder = _(self.prompt)

    def open(self) -> None:
        self.can_focus = True
        self.display = True
        self.focus()

    def action_put_away(self, send: bool) -> None:
        text, self.value = self.value, ""
        self._put_away(text if send and text.strip() else "")

    def on_paste(self, event: events.Paste) -> None:
        """A paste longer than the room left is cut to fit, first line only (``Input`` would drop it whole), and
        pasted again; one that fits is left to ``Input``'s own handler, which Textual calls next."""
        lines = event.text.splitlines()
        room = MAX_CHAT - len(self.value) + abs(self.selection.end - self.selection.start)
        if lines and len(lines[0]) > room:
            event.stop()
            event.prevent_default()  # (not Input's handler as well, with the whole paste)
            if room > 0:
                self.post_message(events.Paste(lines[0][:room]))

    def on_blur(self, event: events.Blur) -> None:
        if self.display:
            self._put_away()

    def _put_away(self, text: str = "") -> None:
        if not self.display:
            return
        self.display = False
        self.can_focus = False
        self.post_message(self.Closed(text))


class ChatLines(Widget):
    """The newest chat lines that fit, newest at the bottom (a waiting room's or lobby's; at a table, in its log)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"movelog--chat-name", "movelog--chat"}

    lines: reactive[tuple[ChatLine, ...]] = reactive(())
    muted: reactive[bool] = reactive(False)

    def render(self) -> Content:
        if self.muted:
            return Content.styled(_("Chat muted (m shows it)."), "dim")
        width, height = self.content_region.size
        name_style = self.get_visual_style("movelog--chat-name")
        text_style = self.get_visual_style("movelog--chat")
        rows: list[Content] = []
        for line in reversed(self.lines):
            rows[:0] = chat_rows(chat_content(line, name_style, text_style), width or 80)
            if len(rows) >= height:
                break
        return Content("\n").join(rows[-max(1, height) :])
