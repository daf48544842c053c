"""What the start screen asks of the command line (the one place that composes client and host): a table against
bots, or a hosted game, described here and built there, given back as link connections."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..engine import STANDARD
from ..link import LobbyConnection, NewTable, TableConnection
from ..link.history import HistorySource


@dataclass(frozen=True)
class SoloChoice:
    """You against bots at one table in this terminal."""

    name: str
    players: int
    bot: str
    open_chips: bool = False
    variant: str = STANDARD  # a name the engine registers (nothanks_tui/engine/config.py)
    turn_clock: float | None = None  # seconds per move, then a bot plays it for you (None: off)


@dataclass(frozen=True)
class HostChoice:
    """Host a game from this terminal, listening on ``bind``:``port``, and sit at a new table of it."""

    name: str
    port: int
    table: NewTable
    bind: str = "0.0.0.0"


@dataclass
class Hosting:
    """A host running in this process: the player's way into its lobby, their table, and how to stop it."""

    lobby: LobbyConnection
    table: TableConnection
    join_lines: list[str]  # how others reach it, shown in the waiting room
    port: int
    close: Callable[[str], Awaitable[None]] = field(repr=False)


class Launchers(Protocol):
    """Built by the command line (nothanks_tui/commands/launchers.py); tests may pass their own."""

    @property
    def bot_choices(self) -> Sequence[tuple[str, str]]:
        """(name, one-line description) of each bot a player may choose."""

    @property
    def default_bot(self) -> str: ...

    async def open_solo_table(self, choice: SoloChoice) -> TableConnection:
        """Deal a game at a new local table; raise ValueError with a readable message if the choice is invalid."""

    async def host_game(self, choice: HostChoice) -> Hosting:
        """Start a host and seat the player at a new table; raise ValueError (readable) if it cannot listen."""


def history_of(launchers: object) -> HistorySource | None:
    """The history ``launchers`` offer (the command line's ``history()``), if they offer one."""
    history = getattr(launchers, "history", None)
    source = history() if callable(history) else None
    return source if isinstance(source, HistorySource) else None
