"""The bot interface: a bot sees one seat's view (never the full state) and returns an action.

Any object with ``name`` and ``choose(view) -> Action`` is a bot. ``choose`` is synchronous and may be slow for
search bots; callers that must stay responsive (the host, the UI) run it off their event loop.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from ..engine import Action, PlayerView
from .knowledge import InfoSet, info_from_view


@runtime_checkable
class Bot(Protocol):
    """A player that decides from its own view only."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """The action to play; only called when ``view.my_turn`` is true. Must be one of ``view.legal_actions()``."""
        ...


class SearchingBot:
    """What the search bots share: a seed (a random one by default), and ``choose`` = take without chips, else the
    action of ``evaluate`` (the search, which ``nothanks advise`` and the coach call too) from the view's InfoSet."""

    prior = "rules"  # the playout model of a rival whose moves fit no other better (``info_from_view``)

    def __init__(self, seed: int | None, name: str) -> None:
        self.name = name
        self.seed = random.randrange(1 << 32) if seed is None else seed

    def evaluate(self, info: InfoSet) -> Any:
        raise NotImplementedError

    def choose(self, view: PlayerView) -> Action:
        """Thread-safe: no state changes between calls; the same view and seed give the same action."""
        if (view.my_chips or 0) <= 0:
            return Action.TAKE
        return self.evaluate(info_from_view(view, self.prior)).action
