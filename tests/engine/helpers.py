"""Small builders for engine tests: a game dealt in a chosen order, played by a list of moves."""

from __future__ import annotations

from collections.abc import Iterable

from nothanks_tui.engine import ALL_CARDS, GameConfig, GameState, apply, from_deal


def dealt(
    order: Iterable[int], players: int = 3, first: int = 0, chips: int | None = None, open_chips: bool = False
) -> GameState:
    """A game whose deck starts with ``order`` (the rest of the 24 follow in ascending order)."""
    head = list(order)
    rest = [card for card in ALL_CARDS if card not in head]
    deck = head + rest[: 24 - len(head)]
    removed = rest[24 - len(head) :]
    config = GameConfig(players=players, chips_per_player=chips, open_chips=open_chips)
    return from_deal(config, deck, removed, first)


def play(state: GameState, actions: str) -> GameState:
    """Apply moves written as letters: t = take, p = pass (spaces ignored)."""
    for letter in actions.replace(" ", ""):
        state = apply(state, {"t": "take", "p": "pass"}[letter])
    return state
