"""The bot interface: a bot sees one seat's view (never the full state) and returns an action.

Any object with ``name`` and ``choose(view) -> Action`` is a bot. ``choose`` is synchronous and may be slow for
search bots; callers that must stay responsive (the host, the UI) run it off their event loop.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..engine import Action, PlayerView


@runtime_checkable
class Bot(Protocol):
    """A player that decides from its own view only."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """The action to play; only called when ``view.my_turn`` is true. Must be one of ``view.legal_actions()``."""
        ...
