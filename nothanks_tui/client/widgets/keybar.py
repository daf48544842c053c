"""The footer line of every screen: each key the screen binds, greyed when it does nothing right now.

Textual's own ``Footer`` rebuilds itself (one child widget per key, each restyled) whenever the bindings are
refreshed, which the table does on most moves. On the host, where every SSH player's app runs, that rebuild was
the largest single cost of a move. This bar is one widget drawing one line; it redraws only when what it shows
changes. It reads the screen's active bindings exactly as ``Footer`` does, so ``BINDINGS`` stays the one place a
key is declared, and a click on a key presses it.

Descriptions are translated here, as the bar is drawn: ``BINDINGS`` are class attributes, made once per process
(marked with ``N_``), while the language is each player's (nothanks_tui.i18n).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ClassVar, NamedTuple

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from ...i18n import N_, _

GREYED = Style(dim=True)
TEXTUAL_DESCRIPTIONS = (N_("Dismiss menu"),)  # Textual's own bindings this bar shows (an open Select's Esc)
STRIPS_KEPT = 8  # drawn bars kept for reuse (a screen shows two or three)
MIN_DESCRIPTION = 3  # cells a description keeps when a bar is cut to fit (two letters and "…")


class ShownKey(NamedTuple):
    """One entry of the bar: what is drawn, the key it presses, whether it does anything now."""

    key: str
    display: str
    description: str
    enabled: bool


def primary_key(display: str) -> str:
    """The first of a key display's alternatives: "n" of "n/space", "?" of "?/h" (a lone "/" stays)."""
    first, slash, _rest = display.partition("/")
    return first if slash and first else display


def fit_keys(shown: tuple[ShownKey, ...], width: int) -> list[tuple[str, str, ShownKey]]:
    """The bar's entries as (key text, description text, key), in the roomiest form that fits ``width`` cells, so
    that a narrow terminal, a longer language or a table that offers every key at once still shows every key:
    first each key padded and all its alternatives (" n/space No thanks! "), then only the first alternative
    (the others still work), then the keys unpadded, then the longest descriptions cut short ("Unmute c…"), the
    later of two equally long ones first."""

    def total(entries: list[tuple[str, str, ShownKey]]) -> int:
        return sum(cell_len(key) + cell_len(description) for key, description, _shown in entries)

    def padded(display: Callable[[str], str]) -> list[tuple[str, str, ShownKey]]:
        return [(f" {display(key.display)} ", f"{key.description} " if key.description else "", key) for key in shown]

    for entries in (padded(str), padded(primary_key)):
        if width <= 0 or total(entries) <= width:
            return entries
    descriptions = [key.description for key in shown]

    def unpadded() -> list[tuple[str, str, ShownKey]]:
        out = [(primary_key(key.display), f" {text} " if text else " ", key) for key, text in zip(shown, descriptions)]
        return out[:-1] + [(out[-1][0], out[-1][1].rstrip(), out[-1][2])] if out else out  # (no space at the end)

    entries = unpadded()
    while total(entries) > width:
        # The longest description first; among equals the later one, as screens bind their main keys first.
        longest = max(range(len(descriptions)), key=lambda i: (cell_len(descriptions[i]), i))
        description = descriptions[longest]
        if cell_len(description) <= MIN_DESCRIPTION:
            break  # (the line is truncated as it is drawn)
        descriptions[longest] = description.removesuffix("…")[: len(description) - 2].rstrip() + "…"
        entries = unpadded()
    return entries


class KeyBar(Widget, can_focus=False):
    """One line of keys at the bottom of a screen (Textual's ``Footer``, drawn as a single widget)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--description"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[ShownKey, ...] = ()
        self._spans: list[tuple[int, int, ShownKey]] = []
        self._strips: dict[Hashable, tuple[Strip, list[tuple[int, int, ShownKey]]]] = {}

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
                display = _(display) if display else display  # "n/space" is marked where it is bound
                description = _(binding.description) if binding.description else ""  # (marked N_ in BINDINGS)
                by_action[binding.action] = ShownKey(binding.key, display, description, enabled)
        return tuple(by_action.values())

    def render(self) -> Content:
        key_style = self.get_visual_style("keybar--key")
        description_style = self.get_visual_style("keybar--description")
        parts: list[tuple[str, Style]] = []
        self._spans = []
        position = 0
        for key_text, description_text, shown in fit_keys(self._shown, self.content_region.width):
            greyed = GREYED if not shown.enabled else Style()
            parts.append((key_text, key_style + greyed))
            parts.append((description_text, description_style + greyed))
            end = position + cell_len(key_text) + cell_len(description_text)
            self._spans.append((position, end, shown))
            position = end
        return Content.assemble(*parts)

    def render_line(self, y: int) -> Strip:
        """The bar as one strip, kept per keys shown: on the table the bar flips between two states (your turn
        or not) on most moves, and building it again each time was a real part of what a move costs the host."""
        width = self.content_region.width
        key = (self._shown, width, self.app.current_theme.name, self.app.ansi_color)
        kept = self._strips.get(key)
        if kept is None:
            line = self.render()
            if line.cell_length > width:
                line = line.truncate(width, ellipsis=True)
            style = self.visual_style
            strip = Strip(line.render_segments(style), line.cell_length).extend_cell_length(width, style.rich_style)
            if len(self._strips) >= STRIPS_KEPT:
                self._strips.clear()
            kept = self._strips[key] = (strip, self._spans)
        strip, self._spans = kept
        return strip if y == 0 else Strip.blank(width, self.visual_style.rich_style)

    def on_click(self, event: events.Click) -> None:
        for start, end, shown in self._spans:
            if start <= event.x < end:
                if shown.enabled:
                    self.app.simulate_key(shown.key.split(",")[0].strip())
                else:
                    self.app.bell()
                return
