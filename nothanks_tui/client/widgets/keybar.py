"""The footer line of every screen: each key the screen binds, greyed when it does nothing right now; two lines when
one cannot hold every key with its whole description, on a screen that chose it (``rows``, the lobby's: the table
keeps its one line and squeezes the words instead, as ``fit_keys`` does everywhere).

Textual's ``Footer`` rebuilds a widget per key on every bindings refresh, the largest cost of a move on an SSH host;
this is one widget drawing one line from the same active bindings, redrawn only when it changes; a click presses a
key. Descriptions (marked ``N_`` in ``BINDINGS``) are translated as it is drawn, in each player's language.
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
    """The bar's entries as (key text, description text, key), in the roomiest form that fits ``width`` cells: keys
    padded with every alternative, then the first alternative only, then unpadded, then the longest descriptions
    cut short ("Unmute c…"), the later of two equally long ones first."""

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
        longest = max(range(len(descriptions)), key=lambda i: (cell_len(descriptions[i]), i))
        description = descriptions[longest]
        if cell_len(description) <= MIN_DESCRIPTION:
            break  # (the line is truncated as it is drawn)
        descriptions[longest] = description.removesuffix("…")[: len(description) - 2].rstrip() + "…"
        entries = unpadded()
    return entries


def bar_rows(shown: tuple[ShownKey, ...], width: int) -> list[tuple[ShownKey, ...]]:
    """``shown`` on one row if every key fits there with its whole description, else on two, as even as can be: a
    screen with many keys (the lobby, in French) keeps every word readable."""

    def cells(keys: tuple[ShownKey, ...]) -> int:
        return sum(cell_len(primary_key(key.display)) + cell_len(key.description) + 2 for key in keys) - 1

    if width <= 0 or cells(shown) <= width:
        return [shown]
    cuts = [cut for cut in range(1, len(shown)) if max(cells(shown[:cut]), cells(shown[cut:])) <= width]
    first = min(cuts, key=lambda cut: abs(cells(shown[:cut]) - cells(shown[cut:])), default=len(shown) // 2)
    return [shown[:first], shown[first:]] if first else [shown]


def line_strip(line: Content, width: int, style: Style) -> Strip:
    """``line`` drawn in exactly ``width`` cells: cut with "…" when longer, padded when shorter."""
    if line.cell_length > width:
        line = line.truncate(width, ellipsis=True)
    return Strip(line.render_segments(style), line.cell_length).extend_cell_length(width, style.rich_style)


class KeyBar(Widget, can_focus=False):
    """One line of keys at the bottom of a screen (Textual's ``Footer``, drawn as a single widget)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--description"}

    def __init__(self, rows: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.most_rows = rows  # 2: a second row when one cannot hold every whole word (``bar_rows``)
        self._shown: tuple[ShownKey, ...] = ()
        self._spans: list[tuple[int, int, ShownKey]] = []  # (of the row drawn last: see ``on_click``)
        self._rows: list[tuple[ShownKey, ...]] = [()]
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
            self._fit_rows()
            self.refresh()

    def on_resize(self) -> None:
        self._fit_rows()

    def _fit_rows(self) -> None:
        """One row or two (``bar_rows``), the bar's height following."""
        self._rows = bar_rows(self._shown, self.content_region.width) if self.most_rows > 1 else [self._shown]
        if self.styles.height is None or self.styles.height.value != len(self._rows):
            self.styles.height = len(self._rows)

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

    def render(self, row: int = 0) -> Content:
        key_style = self.get_visual_style("keybar--key")
        description_style = self.get_visual_style("keybar--description")
        parts: list[tuple[str, Style]] = []
        self._spans = []
        position = 0
        keys = self._rows[row] if row < len(self._rows) else ()
        for key_text, description_text, shown in fit_keys(keys, self.content_region.width):
            greyed = GREYED if not shown.enabled else Style()
            parts.append((key_text, key_style + greyed))
            parts.append((description_text, description_style + greyed))
            end = position + cell_len(key_text) + cell_len(description_text)
            self._spans.append((position, end, shown))
            position = end
        return Content.assemble(*parts)

    def render_line(self, y: int) -> Strip:
        """A row of the bar as one strip, kept per keys shown: on the table it flips between two states on most
        moves."""
        width = self.content_region.width
        if y >= len(self._rows):
            return Strip.blank(width, self.visual_style.rich_style)
        key = (self._rows[y], width, self.app.current_theme.name, self.app.ansi_color)
        kept = self._strips.get(key)
        if kept is None:
            strip = line_strip(self.render(y), width, self.visual_style)
            if len(self._strips) >= STRIPS_KEPT:
                self._strips.clear()
            kept = self._strips[key] = (strip, self._spans)
        return kept[0]

    def on_click(self, event: events.Click) -> None:
        row = self._rows[event.y] if 0 <= event.y < len(self._rows) else ()
        kept = self._strips.get((row, self.content_region.width, self.app.current_theme.name, self.app.ansi_color))
        for start, end, shown in kept[1] if kept else []:
            if start <= event.x < end:
                if shown.enabled:
                    self.app.simulate_key(shown.key.split(",")[0].strip())
                else:
                    self.app.bell()
                return
