"""Every private name of Textual the client uses: one, checked against the textual version pinned exactly in
pyproject.toml; tests/client/test_screens_below.py fails if Textual changes it. (The SSH front's own are in
nothanks_server/ssh/patches.py.)"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen


def switchable(screen: Screen[Any]) -> None:
    """Give a first screen (returned by ``get_default_screen``) the result callback that ``switch_screen`` pops from
    the screen it replaces: only a pushed screen has one. No public route costs nothing: pushed over Textual's blank
    default screen, a first screen cost a third more CPU to its first frame on the SSH host; as the first screen of
    a mode (``MODES``, ``switch_mode``) it costs the app a full restyle (``App.refresh_css``)."""
    screen._push_result_callback(screen, None)
