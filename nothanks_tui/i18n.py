"""The words players read, in their language: English, French or Spanish, from standard gettext catalogs.

Every string shown to a player goes through ``_`` (or ``ngettext``). A string that must be written where no
language is known yet (a class attribute, a module constant) is marked with ``N_`` and translated with ``_``
where it is shown.

The language is per player, not per process: an SSH worker runs many players' apps on one event loop. So the
active language is held in a context variable that each app sets as it starts (the way Textual holds its
active app); every task the app spawns afterwards inherits it. A leaf module: every layer may import it.
"""

from __future__ import annotations

import gettext
from contextvars import ContextVar
from pathlib import Path

DOMAIN = "nothanks"
LANGUAGES = ("en", "fr", "es")  # English first: the fallback
LOCALE_DIR = Path(__file__).parent / "locale"

_catalogs: dict[str, gettext.NullTranslations] = {}
_active: ContextVar[str] = ContextVar("nothanks_language", default="en")


def catalog(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (an English pass-through for English or when none is installed), loaded once."""
    if language not in _catalogs:
        if language == "en":
            _catalogs[language] = gettext.NullTranslations()
        else:
            _catalogs[language] = gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)
    return _catalogs[language]


def use_language(language: str) -> None:
    """Make ``language`` the one this task (and every task it starts from now on) speaks."""
    _active.set(language if language in LANGUAGES else "en")


def current_language() -> str:
    """The language of the running task: ``en``, ``fr`` or ``es``."""
    return _active.get()


def _(message: str) -> str:
    """``message`` in the current language."""
    return catalog(_active.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form that suits ``count``, in the current language."""
    return catalog(_active.get()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it now: ``_`` translates it where it is shown."""
    return message
