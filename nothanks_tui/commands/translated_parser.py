"""The parser of ``nothanks`` and its subcommands: argparse, with every word it writes in the player's language.

Our texts are translated with ``_`` as the parser is built; argparse's own go through public doors only: the help
formatter (the usage prefix, the headings), our own ``-h``, and ``error`` (argparse_words.py says why).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import Any, NoReturn

from ..i18n import _
from .argparse_words import USAGE, translate_heading, translate_message


class TranslatedHelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, with the usage prefix and argparse's headings in the current language."""

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[Any],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, _(USAGE) if prefix is None else prefix)

    def start_section(self, heading: str | None) -> None:
        super().start_section(translate_heading(heading))


class TranslatedParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that speaks the current language (set it before building the parser)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", TranslatedHelpFormatter)
        add_help = kwargs.get("add_help", True)
        kwargs["add_help"] = False  # ours below, its help said in the current language
        super().__init__(*args, **kwargs)
        if add_help:
            self.add_argument("-h", "--help", action="help", help=_("show this help message and exit"))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, _("{prog}: error: {message}").format(prog=self.prog, message=translate_message(message)) + "\n")
