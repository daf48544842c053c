"""Every word players read has its French and Spanish, and the installed catalogs say what the .po files say.

The strings are extracted from the source as scripts/i18n.py does (calls of ``_``, ``N_``, ``ngettext`` with
literal text). When this fails after new strings were marked: ``.venv/bin/python scripts/i18n.py update``, fill
in the empty ``msgstr`` of nothanks_tui/locale/{fr,es}/LC_MESSAGES/nothanks.po (and check the fuzzy ones, then
remove their ``#, fuzzy`` line), then ``update`` again, which compiles the .mo files.
"""

from __future__ import annotations

import ast
import contextvars
import gettext
import importlib.util
import re
import string
from pathlib import Path

import pytest

from nothanks_tui import i18n

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "scripts" / "i18n.py")
assert _spec is not None and _spec.loader is not None
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

MARKERS = {"_", "N_", "ngettext"}


@pytest.fixture(scope="module")
def template():
    return tool.extract()


def test_the_source_marks_words_for_players(template):
    ids = {message.id if isinstance(message.id, str) else message.id[0] for message in template if message.id}
    assert {"No thanks!", "Take", "Your turn", "{count} chip", "It is not your turn yet."} <= ids
    assert len(ids) > 150


@pytest.mark.parametrize("language", tool.TRANSLATED)
def test_every_marked_string_is_translated(template, language):
    lacking = tool.untranslated(template, language)
    assert not lacking, (
        f"{len(lacking)} strings lack a {language} translation (empty or fuzzy): {lacking[:10]}. "
        "Run `.venv/bin/python scripts/i18n.py update`, translate them in "
        f"nothanks_tui/locale/{language}/LC_MESSAGES/nothanks.po, and run `update` again."
    )


def _fields(text: str) -> list[str]:
    return sorted(name for _text, name, _spec, _conv in string.Formatter().parse(text) if name is not None)


@pytest.mark.parametrize("language", tool.TRANSLATED)
def test_translations_keep_every_placeholder_and_format(language):
    catalog = tool.read(language)
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        expected = _fields(ids[-1])
        for text in strings:
            if text:
                assert _fields(text) == expected, (language, message.id, text)
                assert ("\n" in text) == ("\n" in ids[0]), (language, message.id)


@pytest.mark.parametrize("language", tool.TRANSLATED)
def test_the_installed_mo_says_what_the_po_says(language):
    """The .mo files are committed (no compiler is needed to install the game): they must be the .po compiled."""
    path = tool.mo_path(language)
    assert path.exists(), f"run `.venv/bin/python scripts/i18n.py compile` ({path} is missing)"
    with path.open("rb") as handle:
        installed = gettext.GNUTranslations(handle)
    expected = gettext.GNUTranslations(__import__("io").BytesIO(tool.compiled(language)))
    assert installed._catalog == expected._catalog, "run `.venv/bin/python scripts/i18n.py compile`"  # type: ignore[attr-defined]
    assert i18n.catalog(language).gettext("No thanks!") != "No thanks!"  # what the game loads is that file


def _marked_literals() -> list[tuple[str, int, str]]:
    """(file, line, text) of every marker call with literal text, wherever it is (also inside an f-string, where
    an extractor does not look)."""
    found = []
    for source in tool.SOURCES:
        for path in source.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                    for argument in node.args[:1]:
                        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                            found.append((str(path.relative_to(ROOT)), node.lineno, argument.value))
    return found


def test_marked_text_is_literal_and_reaches_the_catalogs(template):
    ids = {message.id if isinstance(message.id, str) else message.id[0] for message in template if message.id}
    unseen = [(path, line, text) for path, line, text in _marked_literals() if text not in ids]
    assert not unseen, f"marked but not extracted (inside an f-string?): {unseen}"
    formatted = []
    for source in tool.SOURCES:
        for path in source.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in MARKERS
                    and node.args
                    and isinstance(node.args[0], ast.JoinedStr | ast.BinOp)
                ):
                    formatted.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not formatted, f"translate the text, then fill it in (_('... {{x}}').format(x=...)): {formatted}"


def test_every_language_has_rules_for_the_help_screen():
    for language in i18n.LANGUAGES:
        text = (i18n.LOCALE_DIR / language / "rules.txt").read_text(encoding="utf-8")
        for fact in ("3", "35", "24", "9", "11", "30-31-32"):
            assert re.search(rf"(?<![\d-]){re.escape(fact)}(?![\d-])", text), (language, fact)


def test_fuzzy_and_empty_entries_count_as_missing():
    from babel.messages.catalog import Catalog

    catalog = Catalog(locale="fr")
    catalog.add("Done", "Fait")
    catalog.add("Guessed", "Deviné", flags=["fuzzy"])
    catalog.add("Empty", "")
    catalog.add(("{count} chip", "{count} chips"), ("{count} jeton", ""))
    lacking = {message.id if isinstance(message.id, str) else message.id[0] for message in tool.missing(catalog)}
    assert lacking == {"Guessed", "Empty", "{count} chip"}


def test_a_word_marked_in_context_is_translated_in_that_context():
    """The replay's "Start" (its first move) is not the start screen's "Start" (begin a game)."""

    def words(language: str) -> tuple[str, str]:
        i18n.use_language(language)
        return i18n._(i18n.NC_("replay", "Start")), i18n._("Start")

    assert contextvars.copy_context().run(words, "fr") == ("Début", "Lancer")
    assert contextvars.copy_context().run(words, "es") == ("Inicio", "Empezar")
    assert contextvars.copy_context().run(words, "en") == ("Start", "Start")
