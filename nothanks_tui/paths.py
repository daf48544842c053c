"""Where the game keeps its files on this machine: the platform's own places, from ``platformdirs`` (on Linux the
XDG base directories). One place, so the client, the host and the command line never disagree about a path."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import platformdirs

APP_NAME = "nothanks"


def data_dir() -> Path:
    """The host's data: game records, the SSH host key (``~/.local/share/nothanks``)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def records_dir() -> Path:
    """Finished games, one ``nothanks-record/1`` JSON file each, when ``--data-dir`` is not given."""
    return data_dir() / "records"


def state_dir() -> Path:
    """What a client keeps between runs: seat tokens (``~/.local/state/nothanks``)."""
    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """The player's settings (``~/.config/nothanks``)."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def write_private(path: Path, data: object, indent: int | None = None) -> None:
    """``data`` as JSON in ``path``, for this user's eyes only, whole or not at all (a temporary file renamed over it,
    never written through a symlink planted at either name). Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as file:
        json.dump(data, file, indent=indent)
    os.replace(temporary, path)
