"""What the start screen remembers between runs: your name, language, each tab's last choices, and preferences
(chat muted, the bell), in ``paths.config_dir()/start.json`` (none over SSH). A bad file is ignored, never an error."""

from __future__ import annotations

import contextlib
import getpass
import json
from pathlib import Path
from typing import Any

from .. import paths
from ..i18n import LANGUAGES
from ..link.names import MAX_NAME

FieldValue = str | int | bool


def login_name() -> str:
    """The name to offer before any is remembered: the login name (at most ``MAX_NAME`` characters), else "player"."""
    try:
        return getpass.getuser()[:MAX_NAME] or "player"
    except (KeyError, OSError):
        return "player"


def _fields(data: object) -> dict[str, FieldValue]:
    """What can be used of a hand-editable mapping of field values."""
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items() if isinstance(key, str) and isinstance(value, str | int | bool)}


class Remembered:
    """The start screen's remembered name and choices, in one JSON file."""

    @classmethod
    def of_this_user(cls) -> Remembered:
        """What this machine's user has chosen so far: ``paths.config_dir()/start.json``."""
        return cls(paths.config_dir() / "start.json")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name: str | None = None
        self.language: str | None = None  # chosen on the start screen (Ctrl-L); None: from --lang or the locale
        self.choices: dict[str, dict[str, FieldValue]] = {}
        self.preferences: dict[str, FieldValue] = {}  # chat_muted, bell, ...
        self._load()

    def _load(self) -> None:
        try:
            data: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict):
            return
        name = data.get("name")
        if isinstance(name, str) and name.strip():
            self.name = name[:MAX_NAME]
        language = data.get("language")
        if isinstance(language, str) and language in LANGUAGES:
            self.language = language
        choices = data.get("choices")
        if isinstance(choices, dict):
            self.choices = {form: _fields(fields) for form, fields in choices.items() if isinstance(form, str)}
        self.preferences = _fields(data.get("preferences"))

    def remember(self, name: str, form: str, fields: dict[str, FieldValue]) -> None:
        """Keep ``name`` and one tab's ``fields``, and write the file (quietly giving up if it cannot)."""
        if name.strip():
            self.name = name[:MAX_NAME]
        self.choices[form] = dict(fields)
        self._save()

    def remember_language(self, language: str) -> None:
        if language in LANGUAGES:
            self.language = language
            self._save()

    def prefer(self, key: str, value: FieldValue) -> None:
        """Keep one preference (``chat_muted``, ``bell``...) and write the file (quietly giving up if it cannot)."""
        self.preferences[key] = value
        self._save()

    @property
    def bell(self) -> bool:
        return self.preferences.get("bell", True) is not False

    def _save(self) -> None:
        data = {"name": self.name, "language": self.language, "choices": self.choices, "preferences": self.preferences}
        with contextlib.suppress(OSError):
            paths.write_private(self.path, data, indent=1)
