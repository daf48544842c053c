"""Bots by name. Every table, the simulator and the tournament make bots through ``make_bot``.

A new bot registers a factory ``(seed) -> Bot`` with ``register``; names are what players type. A bot with a
setting, its iterations (``ismcts:400``: IS-MCTS with 400 iterations), also registers a ``(seed, iterations) -> Bot``
factory; the plain name gives its default. Players choose among the ``LEVELS`` (``offered_bots``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..i18n import N_, _
from .base import Bot
from .ismcts import IsmctsBot, ismcts_with, parse_iterations
from .levels import EasyBot, expert_bot, flat_bot, hard_bot, medium_bot
from .pubmcts import PubMctsBot
from .simple import RandomBot, RuleBot, ThresholdBot

BotFactory = Callable[[int | None], Bot]
ParamFactory = Callable[[int | None, int], Bot]  # (seed, iterations)

_REGISTRY: dict[str, tuple[BotFactory, str]] = {}
_PARAMS: dict[str, ParamFactory] = {}


def register(name: str, factory: BotFactory, description: str, with_param: ParamFactory | None = None) -> None:
    """Make a bot available by ``name`` (and as ``name:SETTING`` when ``with_param`` is given); ``description``
    marked with ``N_`` (players read it, translated, where they choose a bot)."""
    _REGISTRY[name] = (factory, description)
    if with_param is not None:
        _PARAMS[name] = with_param


def bot_names() -> list[str]:
    """Names of every registered bot."""
    return list(_REGISTRY)


def bots_with_setting() -> list[str]:
    """Names of the bots that take a ``:N`` setting (their iterations)."""
    return list(_PARAMS)


def describe(name: str) -> str:
    """One line about a bot, for help texts."""
    return _REGISTRY[name][1]


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot called ``name`` (``base:SETTING`` for bots with a setting); raises ValueError for an unknown name
    or a bad setting."""
    base, colon, param = name.partition(":")
    if colon:
        if base not in _PARAMS:
            raise ValueError(f"unknown bot {name!r}: only {', '.join(_PARAMS) or 'none'} take a ':' setting")
        bot = _PARAMS[base](seed, parse_iterations(base, param))
        bot.name = name
        return bot
    try:
        factory = _REGISTRY[name][0]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(_REGISTRY)}") from None
    return factory(seed)


register("random", RandomBot, N_("takes or passes at random"))
register("threshold", ThresholdBot, N_("takes when the card costs it no more than the chips on it"))
register("rules", RuleBot, N_("rule-based: weighs runs, bridging, the pot and its chip reserve"))
register("easy", EasyBot, N_("level easy: a casual player who takes cards that look cheap enough"))
register("medium", medium_bot, N_("level medium: a quick search over a few possible decks"))
register("hard", hard_bot, N_("level hard: a deep tree search over the cards still to come"))
register("expert", expert_bot, N_("level expert: hard's search ten times deeper"))
register("flat", flat_bot, N_("flat Monte Carlo over up to 240 possible decks: the hard level until issue 15"))
register("ismcts", IsmctsBot, N_("information-set MCTS, random playouts; ismcts:N for N iterations (400)"), ismcts_with)
register(
    "pubmcts",
    PubMctsBot,
    N_("plays like the published IS-MCTS bot (belief-game tree, heuristic playouts); pubmcts:N iterations (400)"),
    PubMctsBot,
)

# The bots a player is offered in the app's forms, each with one line on what it is like to play against.
LEVELS: tuple[tuple[str, str], ...] = (
    ("easy", N_("casual, takes what looks cheap")),
    ("medium", N_("steady, plans ahead a little")),
    ("hard", N_("strong, reads the whole table")),
    ("expert", N_("strongest, searches 10x deeper")),
)


def offered_bots(default: str) -> list[tuple[str, str]]:
    """(name, description) of each level, and the command line's ``default`` bot first when it is not a level
    (``--bot rules`` offers rules as well)."""
    names = [name for name, _ in LEVELS]
    extra = [] if default in names else [(default, N_("chosen on the command line"))]
    return extra + list(LEVELS)


def bots_help() -> str:
    """Every bot of the registry and what it is like, for ``--bot``'s help (in the command line's language)."""
    return "; ".join(f"{name}: {_(describe(name))}" for name in bot_names())


__all__ = ["Bot", "bot_names", "bots_help", "describe", "make_bot", "offered_bots", "register"]
