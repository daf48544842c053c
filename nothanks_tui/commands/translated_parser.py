"""The parser of ``nothanks`` and its subcommands: argparse, with every word it writes in the player's language.

Our texts are translated with ``_`` as the parser is built. argparse's own words (``usage: ``, its headings and
error messages) it looks up with ``gettext.gettext``, in the process's language, but the game's language is per
task (an SSH worker serves several at once): so they are translated where they come out (the help formatter, our
own ``-h``, ``error``) by matching them against argparse's English texts below (tests/test_cli_language.py checks
them against its source) and filling the same values into their translation.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from typing import Any, NoReturn

from ..i18n import N_, _

USAGE = N_("usage: ")
HEADINGS = (N_("positional arguments"), N_("options"))

# Most specific first: a message is translated by the first that matches it whole.
ERRORS = (
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
)

PLACEHOLDER = re.compile(r"%\((\w+)\)[sr]|%[sr]")
NESTED = "message"  # the placeholder holding another of argparse's messages (or one of ours, already translated)


def placeholders(template: str) -> list[str]:
    """The names of ``template``'s placeholders in order; an unnamed one (``%s``) is ``""``."""
    return [match.group(1) or "" for match in PLACEHOLDER.finditer(template)]


# Each template as a pattern matching it filled in: its text as written, any value for each placeholder.
_PATTERNS = [
    (template, re.compile("(.*?)".join(map(re.escape, PLACEHOLDER.split(template)[::2])), re.DOTALL))
    for template in ERRORS
]


def translate_message(message: str) -> str:
    """One of argparse's messages, filled in, said in the current language (as it is when none matches)."""
    for template, pattern in _PATTERNS:
        found = pattern.fullmatch(message)
        if found is None:
            continue
        values = dict(zip(placeholders(template), found.groups(), strict=True))
        if NESTED in values:
            values[NESTED] = translate_message(values[NESTED])
        return fill(_(template), values)
    return message


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each placeholder replaced by its value as it was written (already ``%r``-quoted)."""
    return PLACEHOLDER.sub(lambda field: values.get(field.group(1) or "", field.group(0)), template)


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
        super().start_section(_(heading) if heading in HEADINGS else heading)  # (ours as given)


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
