"""The bots a player is offered in the app's forms: the four levels, each with one line on what it is like to play
against (marked ``N_``: the app translates it). The registry also holds bots for tournaments and study."""

from __future__ import annotations

from ..bots import bot_names, describe
from ..i18n import N_, _

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
