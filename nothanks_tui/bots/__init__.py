"""Bots by name. Every table, the simulator and the tournament make bots through ``make_bot``.

A new bot registers a factory ``(seed) -> Bot`` with ``register``; names are what players type.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .levels import EasyBot, hard_bot, medium_bot
from .simple import RandomBot, RuleBot, ThresholdBot

BotFactory = Callable[[int | None], Bot]

_REGISTRY: dict[str, tuple[BotFactory, str]] = {}


def register(name: str, factory: BotFactory, description: str) -> None:
    """Make a bot available by ``name``."""
    _REGISTRY[name] = (factory, description)


def bot_names() -> list[str]:
    """Names of every registered bot."""
    return list(_REGISTRY)


def describe(name: str) -> str:
    """One line about a bot, for help texts."""
    return _REGISTRY[name][1]


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot called ``name``; raises ValueError for an unknown name."""
    try:
        factory = _REGISTRY[name][0]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(_REGISTRY)}") from None
    return factory(seed)


register("random", RandomBot, "takes or passes at random")
register("threshold", ThresholdBot, "takes when the card costs it no more than the chips on it")
register("rules", RuleBot, "rule-based: weighs runs, bridging, the pot and its chip reserve")
register("easy", EasyBot, "level easy: a casual player who takes cards that look cheap enough")
register("medium", medium_bot, "level medium: a quick search over a few possible decks")
register("hard", hard_bot, "level hard: searches up to 240 possible decks and reads its rivals' habits")

__all__ = ["Bot", "bot_names", "describe", "make_bot", "register"]
