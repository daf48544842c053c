"""The app for ``nothanks history`` and ``nothanks replay``: the client app opening on the history or a replay.

The same ``NoThanksApp`` (its styles, its blocked actions, its Ctrl-Q) with another first screen; leaving that
screen leaves the app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from .app import NoThanksApp, first_screen


class HistoryApp(NoThanksApp):
    """``first`` builds the screen the app opens on (a ``HistoryScreen`` or a ``ReplayScreen``)."""

    def __init__(self, first: Callable[[], Screen[Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._first = first

    def get_default_screen(self) -> Screen[Any]:
        return first_screen(self._first())
