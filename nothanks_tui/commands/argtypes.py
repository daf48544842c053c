"""Argument types shared by every `nothanks` subcommand (and the host's SSH options), so each is checked once."""

from __future__ import annotations

import argparse

from ..bots import make_bot
from ..engine import MAX_PLAYERS, MIN_PLAYERS


def players(text: str) -> int:
    """A player count the engine accepts."""
    value = int(text)
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    return value


def positive(text: str) -> int:
    """A whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def port(text: str) -> int:
    """A TCP port; 0 lets the system choose one."""
    value = int(text)
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError("port must be 0..65535")
    return value


def processes(text: str) -> int:
    """A number of worker processes: 0 (none: threads instead) to 64."""
    value = int(text)
    if not 0 <= value <= 64:
        raise argparse.ArgumentTypeError("must be 0..64")
    return value


def bot_name(text: str) -> str:
    """A bot the registry can make: a name, or ``base:SETTING`` (``ismcts:800``)."""
    try:
        make_bot(text, 0)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text
