"""The words players read, in their language (English, French, Spanish), from gettext catalogs.

Shown strings go through ``_`` (or ``ngettext``); one written before a language is known is marked ``N_``. The
language is per player, not per process (an SSH worker runs many apps on one loop): a context variable holds each
app's ``Speaking``, inherited by its tasks. A leaf module. Catalogs: ``locale/<lang>/LC_MESSAGES/nothanks.po``.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path

DOMAIN = "nothanks"
LANGUAGES = ("en", "fr", "es")  # English first: the fallback
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "es": "Español"}  # each in its own language
LOCALE_DIR = Path(__file__).parent / "locale"
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX order: the first set one decides


class Speaking:
    """The language of one app (one player): shared by every task the app runs, changed in place."""

    __slots__ = ("language",)

    def __init__(self, language: str) -> None:
        self.language = language


_PROCESS = Speaking("en")  # the language outside any app (the command line's own messages, until one is chosen)
_active: ContextVar[Speaking] = ContextVar("nothanks_language")


@cache
def catalog(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (an English pass-through for English or when none is installed), loaded once."""
    if language == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


def known_language(language: str | None) -> str | None:
    """``language`` as one of ours (``fr``, ``fr_FR.UTF-8``, ``es-ES``, ``ES`` -> ``fr``/``es``), or None."""
    if not language:
        return None
    code = language.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else None


def language_from_environment(environ: Mapping[str, str]) -> str:
    """The language of the first of LC_ALL, LC_MESSAGES, LANG that is set (``C`` or one we lack: English)."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            return known_language(value) or "en"
    return "en"


def choose_language(explicit: str | None, remembered: str | None, environ: Mapping[str, str]) -> str:
    """``--lang`` if given, else what the player chose last time, else the locale's, else English."""
    return known_language(explicit) or known_language(remembered) or language_from_environment(environ)


def use_language(language: str) -> None:
    """Make ``language`` the one this task and those it starts speak, apart from any other: as an app starts."""
    _active.set(Speaking(known_language(language) or "en"))


def switch_language(language: str) -> None:
    """Change the language of this task's app: every task sharing its ``use_language`` speaks ``language`` now."""
    _active.get(_PROCESS).language = known_language(language) or "en"


def current_language() -> str:
    """The language of the running task: ``en``, ``fr`` or ``es``."""
    return _active.get(_PROCESS).language


def _(message: str) -> str:
    """``message`` in the current language (in its context when it was marked with ``NC_``)."""
    if isinstance(message, InContext):
        return catalog(current_language()).pgettext(message.context, message)
    return catalog(current_language()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form that suits ``count``, in the current language."""
    return catalog(current_language()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it now: ``_`` translates it where it is shown."""
    return message


class InContext(str):
    """A marked constant translated in ``context`` (a word English uses in two senses: a replay's "Start")."""

    context: str

    def __new__(cls, context: str, message: str) -> InContext:
        marked = super().__new__(cls, message)
        marked.context = context
        return marked


def NC_(context: str, message: str) -> str:
    """``N_`` for a word that needs its ``context`` to be translated; ``_`` then translates it in that context."""
    return InContext(context, message)
