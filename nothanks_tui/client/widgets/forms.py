"""Form widgets that say their state in characters, not only in colour (NO_COLOR, 16 colours, screen readers)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class TickBox(Checkbox):
    """A checkbox drawn ``[✓]`` when on and ``[ ]`` when off, in the text colour (Textual's colours an X)."""

    @property
    def _button(self) -> Content:
        return Content.styled("[✓]" if self.value else "[ ]", "bold")
