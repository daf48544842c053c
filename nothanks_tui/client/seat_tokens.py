"""Remembering seat tokens, so ``nothanks join HOST`` after a crash or a closed terminal resumes the seat.

One small JSON file, readable only by its owner: host address -> the token of the seat we last held there.
A token that the host no longer knows is simply forgotten.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from .. import paths
from ..link import LobbyError, TableConnection
from .tcp import TcpLobby

log = logging.getLogger(__name__)


def default_path() -> Path:
    return paths.state_dir() / "seats.json"


class SeatTokens:
    """Tokens by host address (``host:port``)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def get(self, address: str) -> str | None:
        token = self._load().get(address)
        return token if isinstance(token, str) else None

    def put(self, address: str, token: str | None) -> None:
        data = self._load()
        if token is None:
            if data.pop(address, None) is None:
                return
        else:
            data[address] = token
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_suffix(".tmp")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            temp.replace(self.path)
        except OSError:
            log.warning("could not save the seat token in %s", self.path)

    def forget(self, address: str) -> None:
        self.put(address, None)

    def _load(self) -> dict[str, object]:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return data
        return {}


async def remember_and_resume(lobby: TcpLobby, tokens: SeatTokens, address: str) -> TableConnection | None:
    """Keep every seat token ``lobby`` is given under ``address``, and return to the seat saved there, if any.

    A saved token the host no longer knows is forgotten.
    """
    lobby.on_seat = lambda token: tokens.put(address, token)
    saved = tokens.get(address)
    if saved is None:
        return None
    try:
        return await lobby.resume(saved)
    except LobbyError:
        tokens.forget(address)
        return None
