"""argparse's own words (``usage: ``, ``options``, its error messages), in the player's language.

argparse looks them up with ``gettext.gettext``, in the process's language; the game's language is per task (an SSH
worker serves several at once). So the command line's parser (``translated_parser.py``) translates what argparse
says where it comes out, by matching it against the English texts below (exactly argparse's:
tests/test_cli_language.py checks them against its source) and filling the same values into their translation.
"""

from __future__ import annotations

import re

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

WORDS = (USAGE, *HEADINGS, *ERRORS)

PLACEHOLDER = re.compile(r"%\((\w+)\)[sr]|%[sr]")
NESTED = "message"  # the placeholder holding another of argparse's messages (or one of ours, already translated)


def placeholders(template: str) -> list[str]:
    """The names of ``template``'s placeholders in order; an unnamed one (``%s``) is ``""``."""
    return [match.group(1) or "" for match in PLACEHOLDER.finditer(template)]


def _pattern(template: str) -> re.Pattern[str]:
    parts, start = [], 0
    for match in PLACEHOLDER.finditer(template):
        parts.append(re.escape(template[start : match.start()]))
        parts.append("(.*?)")
        start = match.end()
    parts.append(re.escape(template[start:]))
    return re.compile("".join(parts), re.DOTALL)


_PATTERNS = [(template, _pattern(template)) for template in ERRORS]


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


def translate_heading(heading: str | None) -> str | None:
    """A section heading of a help text: argparse's own in the current language, ours as given."""
    return _(heading) if heading in HEADINGS else heading
