"""Full screens that lay themselves out once per size, not twice or three times.

When Textual lays a screen out for a new size it also posts the screen a Resize for that same size, and the
screen's own Resize handler then lays it out again in full; an app's first screen gets two more Resizes of the
size it already has while the app starts. On an SSH host every full layout is paid by the host once per player.
``SteadyScreen`` skips Textual's handling of a Resize to the size the screen already has. A Resize to another size
(a window change) is handled as usual, and a subclass's own ``on_resize`` still runs for every Resize.

An app's first screen (``app.first_screen``) is also styled once, not twice: Textual styles every node as it is
mounted, then, when the screen is first shown (its first ScreenResume, which comes right after that mount), styles
the whole screen again, a walk that cost an SSH login about 7 of its 57 ms of the worker's CPU and changed nothing
(scripts/ssh_login_cost.py; tests/client/test_first_screen_styles.py compares the screen with one styled again).
Later resumes, after a dialog or another screen was on top, restyle as Textual does.
"""

from __future__ import annotations

from typing import TypeVar

from textual import events, on
from textual.screen import Screen

ScreenResult = TypeVar("ScreenResult")


class SteadyScreen(Screen[ScreenResult]):
    """A full screen that is not laid out again for a Resize to the size it already has."""

    styled_at_mount = False  # set on an app's first screen: its first resume need not style it all again

    @on(events.ScreenResume)
    def _styled_once(self, event: events.ScreenResume) -> None:
        # Runs before Textual's own handler (Screen._on_screen_resume), which reads the flag the event carries;
        # a decorated handler, so that a subclass's own on_screen_resume runs too.
        if self.styled_at_mount:
            self.styled_at_mount = False
            event.refresh_styles = False

    def on_resize(self, event: events.Resize) -> None:
        if event.size == self.outer_size:
            event.prevent_default()  # Screen._on_resize would lay the screen out again, at the same size
