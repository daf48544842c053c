"""The command line's own words: ``--version``, and every subcommand's help readable, with every option explained, in
every language (tests/test_cli_language.py: that they are translated)."""

from __future__ import annotations

import argparse
import contextvars

import pytest

from nothanks_tui import __version__
from nothanks_tui.cli import build_parser
from nothanks_tui.i18n import LANGUAGES, use_language


def subcommands(language: str = "en") -> dict[str, argparse.ArgumentParser]:
    def built() -> argparse.ArgumentParser:
        use_language(language)
        return build_parser()

    parser = contextvars.copy_context().run(built)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_version_prints_the_version(capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"nothanks {__version__}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_help_is_readable_and_every_option_says_what_it_does(command, language, capsys):
    parser = subcommands(language)[command]
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    text = capsys.readouterr().out
    assert "%%" not in text and "%(" not in text
    for action in parser._actions:
        assert action.help and action.help is not argparse.SUPPRESS, (command, action.option_strings or action.dest)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_key_a_help_names_is_the_key_the_table_binds_to_it(language):
    """Issue 29, defect 7: ``host --help`` said the coach was key c (c is chat; the coach is i). Every "(key X)"
    in any help is an option's, and the table binds X to what that option offers."""
    import re

    from nothanks_tui.client.screens.table import TableScreen

    actions: dict[str, str] = {}  # key -> action, as the table binds them
    for binding in TableScreen.BINDINGS:
        for key in binding.key.split(","):
            actions.setdefault(key, binding.action)
    offers = {"--coach": "coach"}  # option -> the table's action it makes available
    word = {"en": "key", "fr": "touche", "es": "tecla"}[language]
    named = []
    for command, parser in subcommands(language).items():
        for action in parser._actions:
            for key in re.findall(rf"\({word} (\w)\)", action.help or ""):
                named.append((command, action.option_strings[0], key))
    assert ("host", "--coach", "i") in named
    for command, option, key in named:
        assert actions.get(key) == offers.get(option), (command, option, key)
