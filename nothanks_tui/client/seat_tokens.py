"""Seat tokens kept on disk (owner-only JSON: host address -> player name -> token), so ``nothanks join HOST``
after a crash resumes the seat; a token the host no longer knows is forgotten."""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path

from .. import paths
from ..link import LobbyConnection, LobbyError, TableConnection
from .tcp import TcpLobby

log = logging.getLogger(__name__)


class SeatTokens:
    """Tokens by host address (``host:port``) and player name."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.state_dir() / "seats.json"

    def get(self, address: str, name: str) -> str | None:
        token = self._names(self._load(), address).get(name)
        return token if isinstance(token, str) else None

    def put(self, address: str, name: str, token: str | None) -> None:
        data = self._load()
        names = data[address] = self._names(data, address)  # (a file of before kept one token, whose name it lost)
        if token is None:
            if names.pop(name, None) is None:
                return
            if not names:
                del data[address]
        else:
            names[name] = token
        try:
            paths.write_private(self.path, data)
        except OSError:
            log.warning("could not save the seat token in %s", self.path)

    def forget(self, address: str, name: str) -> None:
        self.put(address, name, None)

    @staticmethod
    def _names(data: dict[str, object], address: str) -> dict[str, object]:
        names = data.get(address)
        return names if isinstance(names, dict) else {}

    def _load(self) -> dict[str, object]:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return data
        return {}


async def remember_and_resume(lobby: TcpLobby, tokens: SeatTokens, address: str) -> TableConnection | None:
    """Keep every seat token ``lobby`` (started) is given under ``address`` and its name; back to the saved seat."""
    name = lobby.name
    lobby.on_seat = lambda token: tokens.put(address, name, token)
    return await resume_saved(lobby, name, tokens, address)


async def resume_saved(lobby: LobbyConnection, name: str, tokens: SeatTokens, address: str) -> TableConnection | None:
    """Back to the seat saved under ``address`` and ``name``, if the host still knows its token (else forgotten)."""
    saved = tokens.get(address, name)
    if saved is None:
        return None
    try:
        return await lobby.resume(saved)
    except LobbyError:
        tokens.forget(address, name)
        return None
