"""The command line speaks the player's language: its help, argparse's own words and its errors, in French and
Spanish as in English, the language chosen before the parser is built (``--lang`` anywhere, the start screen's
remembered choice, the locale, else English).

Every run here isolates the locale variables and the config dir (where the remembered language is), and runs
``main`` in a copy of the context, so that the language it chooses stays in that run.
"""

from __future__ import annotations

import argparse
import ast
import contextvars
import gettext
import inspect
import json
import os
import re

import pytest

from nothanks_tui import i18n
from nothanks_tui.bots import bot_names
from nothanks_tui.cli import lang_in, main
from nothanks_tui.commands import translated_parser as argparse_words
from nothanks_tui.commands.translated_parser import placeholders, translate_message

from .test_cli_help import subcommands

COMMANDS = [[], *([name] for name in sorted(subcommands()))]
ARGPARSE_WORDS = (argparse_words.USAGE, *argparse_words.HEADINGS, *argparse_words.ERRORS)  # the ones we translate
NAMES = {
    *subcommands(),
    *bot_names(),
    *(action.dest for parser in subcommands().values() for action in parser._actions),  # positionals: [file]
    "nothanks",
    "Redis",
    "...",
}
SAME_WORD = {("fr", "options:")}  # argparse's heading is the same word in French


@pytest.fixture(autouse=True)
def no_locale(monkeypatch, tmp_path):
    """No locale variable of this machine's, no remembered language, help wrapped at 80 columns."""
    for variable in ("LANGUAGE", *i18n.LOCALE_VARIABLES):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("COLUMNS", "80")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``nothanks ARGV`` in a context of its own: (exit code, stdout, stderr), French's non-breaking spaces (before
    a colon, so that argparse never wraps a line before one) read as spaces."""
    with pytest.raises(SystemExit) as done:
        contextvars.copy_context().run(main, argv)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out.replace("\u00a0", " "), err.replace("\u00a0", " ")


def help_text(command: list[str], language: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, _err = run(["--lang", language, *command, "--help"], capsys)
    assert code == 0
    return out


def only_names(line: str) -> bool:
    """A line of option names, metavars, choices and command names only (the same in every language)."""
    for token in line.split():
        word = token.strip("[](),")
        if not (word.startswith(("-", "{")) or word.endswith("}") or word.isupper() or word in NAMES or "://" in word):
            return False
    return True


@pytest.mark.parametrize("language", ["fr", "es"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: " ".join(command) or "nothanks")
def test_every_help_line_is_translated_but_names(command, language, capsys):
    english = help_text(command, "en", capsys)
    translated = help_text(command, language, capsys)
    english_lines = {line.strip() for line in english.splitlines() if line.strip()}
    left = [
        line
        for line in translated.splitlines()
        if line.strip() in english_lines and not only_names(line) and (language, line) not in SAME_WORD
    ]
    assert not left, f"English left in `nothanks {' '.join(command)} --help` ({language}): {left}"
    assert translated.splitlines()[0].startswith({"fr": "usage :", "es": "uso:"}[language])


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: " ".join(command) or "nothanks")
def test_help_fits_80_columns_in_every_language(command, language, capsys):
    for line in help_text(command, language, capsys).splitlines():
        # argparse wraps words; only a usage line's one unbreakable [--option {choices}] may be longer
        assert len(line) <= 80 or len(line.split()) <= 2, line
        assert "%%" not in line and "%(" not in line and not re.search(r"\{\w+(:\w*)?\}", line), line


def test_lang_before_or_after_the_command_and_with_an_equals_sign(capsys):
    for argv in (
        ["--lang", "fr", "play", "--help"],
        ["play", "--lang", "fr", "--help"],
        ["play", "--help", "--lang", "fr"],  # --help stops the parser at once: the language was chosen before it
        ["play", "--lang=fr", "--help"],
        ["--lang", "es", "play", "--lang", "fr", "--help"],  # the last one wins, as argparse reads it
    ):
        assert "afficher cette aide et quitter" in run(argv, capsys)[1], argv


def test_lang_in_reads_the_forms_argparse_takes():
    assert lang_in(["play", "--lang", "es"]) == "es"
    assert lang_in(["--lang=fr", "host"]) == "fr"
    assert lang_in(["--lan", "fr"]) == "fr"  # an abbreviation argparse accepts
    assert lang_in(["replay", "--la", "x.json"]) is None  # ambiguous with replay's --last: argparse refuses it
    assert lang_in(["replay", "--last"]) is None
    assert lang_in(["play", "--", "--lang", "fr"]) is None
    assert lang_in(["play", "--lang"]) is None


def test_the_locale_decides_without_lang(monkeypatch, capsys):
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert "mostrar esta ayuda y salir" in run(["--help"], capsys)[1]
    monkeypatch.setenv("LC_ALL", "fr_FR.UTF-8")  # LC_ALL before LANG
    assert "afficher cette aide et quitter" in run(["--help"], capsys)[1]
    assert "show this help message and exit" in run(["--lang", "en", "--help"], capsys)[1]


def test_the_language_chosen_on_the_start_screen_beats_the_locale_and_lang_beats_it(monkeypatch, tmp_path, capsys):
    config = tmp_path / "config" / "nothanks"
    config.mkdir(parents=True)
    (config / "start.json").write_text(json.dumps({"language": "fr"}))
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert "afficher cette aide et quitter" in run(["play", "--help"], capsys)[1]
    assert "mostrar esta ayuda y salir" in run(["play", "--help", "--lang", "es"], capsys)[1]


def test_an_argparse_error_in_french(capsys):
    code, out, err = run(["--lang", "fr", "play", "--players", "9"], capsys)
    assert code == 2 and not out
    assert err.startswith("usage : nothanks play")
    assert "nothanks play : erreur : argument --players : le nombre de joueurs doit être de 2 à 7" in err
    code, _out, err = run(["--lang", "fr", "play", "--players"], capsys)
    assert "argument --players : attend une valeur" in err
    code, _out, err = run(["--lang", "fr", "dance"], capsys)
    assert "nothanks : erreur : argument COMMAND : choix invalide : 'dance' (au choix : 'play'," in err
    code, _out, err = run(["--lang", "es", "play", "--colour"], capsys)
    assert "nothanks: error: argumentos no reconocidos: --colour" in err
    code, _out, err = run(["--lang", "es", "tournament"], capsys)
    assert "faltan estos argumentos obligatorios: BOT" in err
    code, _out, err = run(["--lang", "es", "play", "--bot", "nobody"], capsys)
    assert "bot desconocido 'nobody'; elige entre random," in err


def test_an_unknown_lang_gets_argparse_error_in_the_language_chosen_without_it(monkeypatch, capsys):
    code, _out, err = run(["--lang", "de"], capsys)
    assert code == 2 and "nothanks: error: argument --lang: invalid choice: 'de' (choose from 'en', 'fr', 'es')" in err
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code, _out, err = run(["play", "--lang=de"], capsys)
    assert code == 2 and "argument --lang : choix invalide : 'de' (au choix : 'en', 'fr', 'es')" in err


def test_a_message_of_argparse_is_translated_with_its_values_and_any_other_kept():
    def french(message: str) -> str:
        i18n.use_language("fr")
        return translate_message(message)

    in_french = contextvars.copy_context().run
    assert in_french(french, "argument --bot: invalid choice: 'x' (choose from 'a', 'b')") == (
        "argument --bot\u00a0: choix invalide\u00a0: 'x' (au choix\u00a0: 'a', 'b')"
    )
    assert in_french(french, "argument --seed: invalid int value: 'x'") == (
        "argument --seed\u00a0: valeur int invalide\u00a0: 'x'"
    )
    assert (
        in_french(french, "argument --players: déjà dit en français")
        == "argument --players\u00a0: déjà dit en français"
    )
    assert in_french(french, "something argparse may say one day") == "something argparse may say one day"


def _argparse_words() -> set[str]:
    """The texts the running Python's argparse passes to gettext."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(argparse))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext"):
            found.update(arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    return found


def test_each_of_argparse_words_we_translate_is_still_argparse_own():
    missing = [word for word in ARGPARSE_WORDS if word not in _argparse_words()]
    assert not missing, (
        f"this Python's argparse no longer says {missing}: update nothanks_tui/commands/translated_parser.py"
    )


@pytest.mark.parametrize("language", ["fr", "es"])
def test_argparse_words_keep_their_placeholders_in_translation(language):
    for word in ARGPARSE_WORDS:
        translated = i18n.catalog(language).gettext(word)
        assert translated != word or (word == "options" and language == "fr"), (language, word)
        assert sorted(placeholders(translated)) == sorted(placeholders(word)), (language, word, translated)
        assert re.sub(r"%\(\w+\)[sr]|%[sr]", "", translated).count("%") == 0, (language, translated)


def test_choosing_the_language_leaves_the_environment_and_gettexts_domain_alone(capsys):
    """Bot and SSH workers inherit the environment; other libraries share gettext's domain: neither is touched."""
    before, domain = dict(os.environ), gettext.textdomain()
    assert "afficher cette aide et quitter" in run(["--lang", "fr", "play", "--help"], capsys)[1]
    assert dict(os.environ) == before and gettext.textdomain() == domain
