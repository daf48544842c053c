"""The footer line of every screen: each key the screen binds, greyed when it does nothing right now.

Textual's own ``Footer`` rebuilds itself (one child widget per key, each restyled) whenever the bindings are
refreshed, which the table does on most moves. On the host, where every SSH player's app runs, that rebuild was
the largest single cost of a move. This bar is one widget drawing one line; it redraws only when what it shows
changes. It reads the screen's active bindings exactly as ``Footer`` does, so ``BINDINGS`` stays the one place a
key is declared, and a click on a key presses it.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget

GREYED = Style(dim=True)


class ShownKey(NamedTuple):
    """One entry of the bar: what is drawn, the key it presses, whether it does anything now."""

    key: str
    display: str
    description: str
    enabled: bool


class KeyBar(Widget, can_focus=False):
    """One line of keys at the bottom of a screen (Textual's ``Footer``, drawn as a single widget)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--description"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._shown: tuple[ShownKey, ...] = ()
        self._spans: list[tuple[int, int, ShownKey]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        shown = self.shown_keys()
        if shown != self._shown:
            self._shown = shown
            self.refresh()

    def shown_keys(self) -> tuple[ShownKey, ...]:
        """The keys to draw, one per action (the first key bound to it), in the order they are bound."""
        by_action: dict[str, ShownKey] = {}
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in by_action:
                display = self.app.get_key_display(binding)
                by_action[binding.action] = ShownKey(binding.key, display, binding.description, enabled)
        return tuple(by_action.values())

    def render(self) -> Content:
        key_style = self.get_visual_style("keybar--key")
        description_style = self.get_visual_style("keybar--description")
        parts: list[tuple[str, Style]] = []
        self._spans = []
        position = 0
        for shown in self._shown:
            key_text = f" {shown.display} "
            description_text = f"{shown.description} " if shown.description else ""
            greyed = GREYED if not shown.enabled else Style()
            parts.append((key_text, key_style + greyed))
            parts.append((description_text, description_style + greyed))
            width = cell_len(key_text) + cell_len(description_text)
            self._spans.append((position, position + width, shown))
            position += width
        return Content.assemble(*parts)

    def on_click(self, event: events.Click) -> None:
        for start, end, shown in self._spans:
            if start <= event.x < end:
                if shown.enabled:
                    self.app.simulate_key(shown.key.split(",")[0].strip())
                else:
                    self.app.bell()
                return
