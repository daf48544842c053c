"""Every private name of Textual the client uses: one, checked against the textual version pinned exactly in
pyproject.toml; tests/client/test_screens_below.py fails if Textual changes it. (The SSH front's own are in
nothanks_server/ssh/patches.py.)"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.screen import Screen

from .screens.steady import SteadyScreen

ScreenType = TypeVar("ScreenType", bound=Screen[Any])


def first_screen(screen: ScreenType) -> ScreenType:
    """``screen`` made ready to be the app's first screen (returned by ``get_default_screen``): not styled twice
    (``SteadyScreen.styled_at_mount``), and given the result callback ``switch_screen`` pops from the screen it
    replaces, which only a pushed screen has. No public route is as cheap: pushed over Textual's blank default
    screen, an SSH login's CPU to its first screen was half as much again; as the first screen of a mode (``MODES``,
    ``switch_mode``: the app restyled in full) 25-36 ms against 19-28 (``ssh_login_cost.py phases``)."""
    screen._push_result_callback(screen, None)
    if isinstance(screen, SteadyScreen):
        screen.styled_at_mount = True
    return screen
