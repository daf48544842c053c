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
