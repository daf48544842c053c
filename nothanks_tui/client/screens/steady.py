"""Full screens that lay themselves out once per size, not twice or three times.

When Textual lays a screen out for a new size it also posts the screen a Resize for that same size, and the
screen's own Resize handler then lays it out again in full; an app's first screen gets two more Resizes of the
size it already has while the app starts. On an SSH host every full layout is paid by the host once per player.
``SteadyScreen`` skips Textual's handling of a Resize to the size the screen already has. A Resize to another size
(a window change) is handled as usual, and a subclass's own ``on_resize`` still runs for every Resize.
"""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual.screen import Screen

ScreenResult = TypeVar("ScreenResult")


class SteadyScreen(Screen[ScreenResult]):
    """A full screen that is not laid out again for a Resize to the size it already has."""

    def on_resize(self, event: events.Resize) -> None:
        if event.size == self.outer_size:
            event.prevent_default()  # Screen._on_resize would lay the screen out again, at the same size
