"""Which seat each SSH player who logged in with a key holds, so that a reconnect finds it from any worker.

Workers come and go (front.py recycles them), so a seat is remembered in a file, not in one worker's memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """A seat to take back: the display name it was taken under and its token."""

    name: str
    token: str


class Seats(Protocol):
    """Which seat each key-identified player holds."""

    def get(self, identity: str | None) -> HeldSeat | None: ...
    def put(self, identity: str | None, name: str, token: str | None) -> None: ...
    def forget(self, identity: str | None) -> None: ...


class SeatFiles:
    """``Seats`` in a directory, one small file per player: shared by the SSH worker processes of one host, so a
    player who reconnects finds their seat whichever worker the new connection lands on.

    A file is named by a hash of the key fingerprint and holds the display name and the seat token (a secret that
    takes the seat back): the directory is made private (0700) and emptied when the host starts (``clear``),
    since a new host process knows none of the old tokens. Writes replace the file in one rename.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def clear(self) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)
        for stale in self.directory.glob("*.json"):
            stale.unlink(missing_ok=True)

    def _path(self, identity: str) -> Path:
        return self.directory / (hashlib.sha256(identity.encode()).hexdigest()[:32] + ".json")

    def get(self, identity: str | None) -> HeldSeat | None:
        if not identity:
            return None
        try:
            data = json.loads(self._path(identity).read_text())
            return HeldSeat(str(data["name"]), str(data["token"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, identity: str | None, name: str, token: str | None) -> None:
        if not (identity and token):
            return
        path = self._path(identity)
        part = path.with_suffix(f".{os.getpid()}.part")
        try:
            descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as file:
                json.dump({"name": name, "token": token}, file)
            os.replace(part, path)
        except OSError:
            log.exception("could not remember an SSH player's seat")

    def forget(self, identity: str | None) -> None:
        if identity:
            self._path(identity).unlink(missing_ok=True)
