"""Finished games, as a client asks for them (``HistorySource``, in-process or over TCP): a page of the history,
one game's record, players' statistics. Only finished games: a record holds the deal, hidden while it is played."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import msgspec

HISTORY_PAGE = 100  # games in one page of the history (a request may ask for fewer)
STATS_ROWS = 100  # players in a statistics reply, most games first


class GameListing(msgspec.Struct, frozen=True, rename={"game_id": "game"}):
    """One line of the history: a finished game, its players and their final scores (``game`` on the wire)."""

    game_id: str  # "<table>/<game number>": what ``open_game`` takes
    finished_at: float  # seconds since the epoch
    players: tuple[str, ...]  # untrusted names: draw as literal text (client/safe_text.py)
    scores: tuple[int, ...]
    winners: tuple[int, ...]  # seats
    bots: tuple[bool, ...]

    def __post_init__(self) -> None:
        seats = len(self.players)
        if not seats == len(self.scores) == len(self.bots) or not all(0 <= seat < seats for seat in self.winners):
            raise ValueError("one name, score and bot flag per seat; winners are seats")


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """Games ``offset``.. of ``total``, newest first."""

    games: tuple[GameListing, ...]
    total: int
    offset: int = 0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's record, per name, SSH key or seat token (``kind``: name, key, seat, bot); ``best``: the lowest
    final score; ``you``: the asker's own row (their SSH key)."""

    name: str
    kind: str
    games: int
    wins: int
    mean: float
    best: int
    you: bool = False

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class Rated:
    """One row of a leaderboard: a player's shown rating (ratings.py at the host) and games rated; ``bot``: a bot
    level's fixed rating, there to read the others against."""

    name: str
    rating: int
    games: int
    bot: bool = False


class HistorySource(ABC):
    """Where the history screen reads finished games. Refusals raise ``LobbyError`` (link/connections.py)."""

    @abstractmethod
    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        """Finished games, newest first, from ``offset``."""

    @abstractmethod
    async def open_game(self, game_id: str) -> dict[str, Any]:
        """The ``nothanks-record/1`` record of a finished game (``no_game``; ``not_finished`` while it is played)."""

    @abstractmethod
    async def player_stats(self) -> list[PlayerStats]:
        """Players with the most games first (at most ``STATS_ROWS``)."""

    @abstractmethod
    async def leaderboard(self) -> list[Rated]:
        """Players by rating, best first, with the bot levels' fixed ratings among them (at most ``STATS_ROWS``)."""


def game_id(table_id: str, game_no: int) -> str:
    return f"{table_id}/{game_no}"


def parse_game_id(text: str) -> tuple[str, int | None]:
    """(table id, game number) of ``"t3/2"``; ``"t3"`` alone gives (``"t3"``, None): that table's latest game."""
    table, slash, number = text.partition("/")
    if not slash:
        return table, None
    if not number.isdigit() or len(number) > 9:
        raise ValueError(f"not a game id: {text[:40]!r}")
    return table, int(number)
