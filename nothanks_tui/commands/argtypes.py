"""Argument types shared by every `nothanks` subcommand, so each is checked once; what they refuse is said in the
player's language (a value that is not a number at all too, rather than argparse's "invalid players value")."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ..bots import bot_names, bots_with_setting, make_bot
from ..bots.ismcts import MOST_ITERATIONS
from ..client.error_sentences import os_reason
from ..defaults import TURN_CLOCK_RANGE
from ..engine import MAX_PLAYERS, MIN_PLAYERS, STANDARD, VARIANTS
from ..i18n import N_, _

Number = TypeVar("Number", int, float)


def whole_number(text: str) -> int:
    """A whole number, any sign."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a whole number: {text}").format(text=repr(text))) from None


def readable_file(text: str) -> Path:
    """A file that can be read now (an SSH worker that cannot read it would fail later, in a traceback)."""
    path = Path(text)
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(
            _("cannot read {path}: {reason}").format(path=path, reason=os_reason(error))
        ) from None
    return path


def number(text: str) -> float:
    """A number, whole or not ("nan", which float() takes, is none: a bot pace of nan passed every check)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise argparse.ArgumentTypeError(_("not a number: {text}").format(text=repr(text)))
    return value


def within(convert: Callable[[str], Number], least: float, most: float, refusal: str) -> Callable[[str], Number]:
    """An argument type: what ``convert`` makes of the text, from ``least`` to ``most``; ``refusal`` (marked with
    ``N_``, translated when it is said, in the command line's language) says so of anything else, with ``{least}``
    and ``{most}`` filled in."""

    def check(text: str) -> Number:
        value = convert(text)
        if not least <= value <= most:
            raise argparse.ArgumentTypeError(_(refusal).format(least=least, most=most))
        return value

    return check


non_negative = within(number, 0, math.inf, N_("must be >= 0"))  # a number of seconds
# A player count the engine accepts.
players = within(whole_number, MIN_PLAYERS, MAX_PLAYERS, N_("players must be {least}..{most}"))
positive = within(whole_number, 1, math.inf, N_("must be at least 1"))
port = within(whole_number, 0, 65535, N_("port must be 0..65535"))  # 0 lets the system choose one
processes = within(whole_number, 0, 64, N_("must be 0..64"))  # worker processes: 0 (none: threads instead) to 64

MOST_JOBS = 64  # a tournament's worker processes at most: more would fork them all at once, to no gain
jobs = within(whole_number, 1, MOST_JOBS, N_("must be 1..{most}"))  # (a typo such as 100000 once forked that many)


def bot_name(text: str) -> str:
    """A bot the registry can make: a name, or ``base:SETTING`` (``ismcts:800``)."""
    try:
        make_bot(text, 0)
    except ValueError:
        base = text.partition(":")[0]
        if base not in bot_names():
            raise argparse.ArgumentTypeError(
                _("unknown bot {name}; choose from {names}").format(name=repr(text), names=", ".join(bot_names()))
            ) from None
        if base in bots_with_setting():
            message = _("{name}: {base}:N takes N iterations, from 1 to {most}")
        else:
            message = _("{name}: only {bots} take a setting, their iterations: NAME:N, N from 1 to {most}")
        bots = ", ".join(bots_with_setting())
        said = message.format(name=repr(text), base=base, bots=bots, most=MOST_ITERATIONS)
        raise argparse.ArgumentTypeError(said) from None
    return text


def add_variant_options(parser: argparse.ArgumentParser) -> None:
    """``--variant NAME`` (every variant the engine registers) and ``--tactical``, its shorthand kept from before
    variants had names, on each command that sets up a table; both set ``args.variant``."""
    parser.add_argument(
        "--variant",
        choices=list(VARIANTS),
        default=STANDARD,
        metavar="NAME",
        help=_("the variant to play (default {default}): {variants}").format(
            default=STANDARD, variants="; ".join(f"{name}: {_(variant.summary)}" for name, variant in VARIANTS.items())
        ),
    )
    parser.add_argument(
        "--tactical", action="store_const", const="tactical", dest="variant", help=_("the same as --variant tactical")
    )


def add_limit(
    group: argparse._ArgumentGroup,
    flag: str,
    default: float,
    help: str,
    *,
    kind: Callable[[str], float] = positive,
    metavar: str = "N",
) -> None:
    """An option setting one limit (a count unless ``kind`` says otherwise), its default filled into ``help``'s
    ``{default}`` (or ``{seconds:g}``): the shape every limit of the host's options has."""
    group.add_argument(
        flag, type=kind, default=default, metavar=metavar, help=help.format(default=default, seconds=default)
    )


_clock_seconds = within(number, *TURN_CLOCK_RANGE, N_("must be {least:g}..{most:g} seconds, or 0 (off)"))


def turn_clock(text: str) -> float | None:
    """A turn clock: seconds within ``TURN_CLOCK_RANGE``, or off (``0``, ``off``, ``none``: None)."""
    return None if text.lower() in ("0", "off", "none") else _clock_seconds(text)


def add_turn_clock_option(parser: argparse.ArgumentParser, default: float | None) -> None:
    """``--turn-clock SECONDS``: a connected player's move waits this long, then a bot plays it for them."""
    least, most = TURN_CLOCK_RANGE
    words = _("seconds per move of a connected player ({least:g}..{most:g}; default {default}), then a bot plays it")
    shown = words.format(least=least, most=most, default=f"{default:g}" if default else _("off"))
    parser.add_argument("--turn-clock", type=turn_clock, default=default, metavar="SECONDS", help=shown)


def add_plain_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plain",
        action="store_true",
        help=_("for screen readers and scripts: plain lines, a key a line, no escape sequence (also TERM=dumb)"),
    )


def plain_wanted(args: argparse.Namespace) -> bool:
    return bool(args.plain) or os.environ.get("TERM") == "dumb"
