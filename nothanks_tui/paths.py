"""Where the game keeps its files on this machine: the platform's own places, from ``platformdirs`` (on Linux the
XDG base directories). One place, so the client, the host and the command line never disagree about a path."""

from __future__ import annotations

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
