"""Extract the words players read from the source, update the French and Spanish catalogs, compile them.

    .venv/bin/python scripts/i18n.py update    # extract, merge into every .po (new strings empty), compile the .mo
    .venv/bin/python scripts/i18n.py check     # list what lacks a translation (empty or fuzzy); exit 1 if any
    .venv/bin/python scripts/i18n.py compile   # only compile each .po into its .mo

A string is extracted where the source calls ``_("...")``, ``N_("...")`` or ``ngettext("...", "...", n)``
(nothanks_tui.i18n) with literal text, in nothanks_tui/ and server/nothanks_server/. ``update`` keeps every
translation already made; a string whose English changed comes back fuzzy (to be checked, and counted missing until
then); strings gone from the source are dropped. Translate by editing the .po files (msgstr), then run
``update`` again (it compiles). tests/test_i18n_catalogs.py fails while any string lacks a translation, or a .mo
does not match its .po.

Babel (a test dependency) does the extraction and the .po/.mo reading and writing: the standard library has
gettext for reading catalogs, but no extractor of ``ngettext`` plurals nor a .po merger.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "nothanks_tui", ROOT / "server" / "nothanks_server")
LOCALE_DIR = ROOT / "nothanks_tui" / "locale"
DOMAIN = "nothanks"
TRANSLATED = ("fr", "es")  # English is the source
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "NC_": ((1, "c"), 2), "pgettext": ((1, "c"), 2)}
PLURAL_FORMS = {"fr": "nplurals=2; plural=(n > 1);", "es": "nplurals=2; plural=(n != 1);"}


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return po_path(language).with_suffix(".mo")


def extract() -> Catalog:
    """Every marked string of the source, with where it is used."""
    template = Catalog(project="nothanks", domain=DOMAIN)
    for source in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
            source, method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
        ):
            where = str((source / filename).relative_to(ROOT))
            template.add(message, None, [(where, lineno)], auto_comments=comments, context=context)
    return template


def read(language: str) -> Catalog:
    """``language``'s catalog as its .po says, with the two plural forms of gettext's usual rule for it (Babel's
    CLDR data gives French a third, "many", that gettext's tools do not use)."""
    path = po_path(language)
    if path.exists():
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=language, domain=DOMAIN)
    else:
        catalog = Catalog(locale=language, project="nothanks", domain=DOMAIN)
    catalog.mime_headers = [*catalog.mime_headers, ("Plural-Forms", PLURAL_FORMS[language])]
    for message in catalog:
        if message.id and isinstance(message.string, tuple | list) and len(message.string) > 2:
            message.string = tuple(message.string[:2])
    return catalog


def missing(catalog: Catalog) -> Iterator[Message]:
    """Entries without a usable translation: empty (any plural form) or fuzzy."""
    for message in catalog:
        if not message.id:
            continue  # the header
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        if message.fuzzy or not all(strings):
            yield message


def untranslated(template: Catalog, language: str) -> list[str]:
    """The source strings ``language`` does not translate yet (absent, empty or fuzzy in its .po)."""
    catalog = read(language)
    lacking = {message.id if isinstance(message.id, str) else message.id[0] for message in missing(catalog)}
    result = []
    for message in template:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        if catalog.get(message.id) is None or key in lacking:
            result.append(key)
    return result


def compiled(language: str) -> bytes:
    """The .mo bytes of ``language``'s .po (fuzzy entries left out, as msgfmt does)."""
    buffer = io.BytesIO()
    write_mo(buffer, read(language), use_fuzzy=False)
    return buffer.getvalue()


def compile_all() -> None:
    for language in TRANSLATED:
        mo_path(language).write_bytes(compiled(language))


def update() -> None:
    template = extract()
    for language in TRANSLATED:
        catalog = read(language)
        catalog.update(template, no_fuzzy_matching=False)
        catalog.obsolete.clear()
        path = po_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            write_po(handle, catalog, width=116, sort_output=False, include_previous=True)
    compile_all()


def check() -> int:
    template = extract()
    status = 0
    for language in TRANSLATED:
        for text in untranslated(template, language):
            print(f"{language}: {text!r}")
            status = 1
    return status


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "update":
        update()
        return check()
    if command == "compile":
        compile_all()
        return 0
    if command == "check":
        return check()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
