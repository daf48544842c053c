"""The bot interface: a bot sees one seat's view (never the full state) and returns an action.

Any object with ``name`` and ``choose(view) -> Action`` is a bot. ``choose`` is synchronous and may be slow for
search bots; callers that must stay responsive (the host, the UI) run it off their event loop.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..engine import Action, PlayerView
from .knowledge import InfoSet, info_from_view


@runtime_checkable
class Bot(Protocol):
    """A player that decides from its own view only."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """The action to play; only called when ``view.my_turn`` is true. Must be one of ``view.legal``."""
        ...


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A search's answer at the root, what ``nothanks advise`` and the coach report for every search bot: the value
    of taking and of passing (higher is better; ``pass_`` None when passing is impossible), the deciding seat's mean
    final score after each, the ``worlds`` (samples or iterations), and the visits of a tree search (0 otherwise).
    The move is the most visited action, ties (and flat searches) to the higher value."""

    take: float
    pass_: float | None
    take_score: float
    pass_score: float | None
    worlds: int
    take_visits: int = 0
    pass_visits: int = 0

    @property
    def action(self) -> Action:
        if self.pass_ is None or (self.pass_visits, self.pass_) <= (self.take_visits, self.take):
            return Action.TAKE
        return Action.PASS


def decision_seed(info: InfoSet, *salt: int) -> int:
    """A per-decision seed from ``salt`` (the bot's seed, after a search's own number) and the public position only
    (ints hash the same in every run, strings do not)."""
    return hash((*salt, *info.position_key)) & 0xFFFF_FFFF_FFFF


class SearchingBot:
    """What the search bots share: a seed (a random one by default), and ``choose`` = take without chips, else the
    action of ``evaluate`` (the search, which ``nothanks advise`` and the coach call too) from the view's InfoSet."""

    prior = "rules"  # the playout model of a rival whose moves fit no other better (``info_from_view``)

    def __init__(self, seed: int | None, name: str) -> None:
        self.name = name
        self.seed = random.randrange(1 << 32) if seed is None else seed

    def evaluate(self, info: InfoSet) -> SearchResult:
        raise NotImplementedError

    def evaluate_view(self, view: PlayerView) -> SearchResult:
        """The search from the seat's own view, as ``choose`` runs it (the coach asks this)."""
        return self.evaluate(info_from_view(view, self.prior))

    def choose(self, view: PlayerView) -> Action:
        """Thread-safe: no state changes between calls; the same view and seed give the same action."""
        if (view.my_chips or 0) <= 0:
            return Action.TAKE
        return self.evaluate_view(view).action
