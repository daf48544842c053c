"""Finished games, as a client asks for them: a page of the history, one game's record, players' statistics.

Local games and a host's games are kept in the same store (server/nothanks_server/store.py); the client reads
them through ``HistorySource``, which the host implements in-process (``nothanks history``, ``nothanks host``'s own
player) and the client over TCP (lobby requests ``history``, ``replay``, ``stats``: docs/protocol.md). Only
finished games are ever listed or opened: a record holds the deal, which is hidden while the game is played.

The wire conversions are here too, strict in what they accept (a host's reply is untrusted like any frame).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

HISTORY_PAGE = 100  # games in one page of the history (a request may ask for fewer)
STATS_ROWS = 100  # players in a statistics reply, most games first


@dataclass(frozen=True, slots=True)
class GameListing:
    """One line of the history: a finished game, its players and their final scores."""

    game_id: str  # "<table>/<game number>": what ``open_game`` takes
    finished_at: float  # seconds since the epoch
    players: tuple[str, ...]  # untrusted names: draw as literal text (client/safe_text.py)
    scores: tuple[int, ...]
    winners: tuple[int, ...]  # seats
    bots: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """Games ``offset``.. of ``total``, newest first."""

    games: tuple[GameListing, ...]
    total: int
    offset: int = 0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's record: locally per name, at a host per SSH key or seat token (``kind``: name, key, seat, bot).

    ``best`` is the lowest final score (lower is better); ``you``: this row is the asker's own (their SSH key).
    """

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


# ---------------------------------------------------------------------------------------------- wire


def listing_to_wire(game: GameListing) -> dict[str, Any]:
    return {
        "game": game.game_id,
        "finished_at": game.finished_at,
        "players": list(game.players),
        "scores": list(game.scores),
        "winners": list(game.winners),
        "bots": list(game.bots),
    }


def listing_from_wire(data: Any) -> GameListing:
    players = tuple(_want(name, str) for name in _want(data["players"], list))
    scores = tuple(_want(value, int) for value in _want(data["scores"], list))
    winners = tuple(_want(value, int) for value in _want(data["winners"], list))
    bots = tuple(_want(value, bool) for value in _want(data["bots"], list))
    if not (len(players) == len(scores) == len(bots)) or not all(0 <= seat < len(players) for seat in winners):
        raise ValueError("one name, score and bot flag per seat; winners are seats")
    finished = data["finished_at"]
    if not isinstance(finished, int | float) or isinstance(finished, bool):
        raise TypeError("finished_at is a number")
    return GameListing(_want(data["game"], str), float(finished), players, scores, winners, bots)


def page_to_wire(page: HistoryPage) -> dict[str, Any]:
    return {
        "type": "history",
        "games": [listing_to_wire(game) for game in page.games],
        "total": page.total,
        "offset": page.offset,
    }


def page_from_wire(message: dict[str, Any]) -> HistoryPage:
    games = tuple(listing_from_wire(item) for item in _want(message["games"], list))
    return HistoryPage(games, _want(message["total"], int), _want(message.get("offset", 0), int))


def stats_to_wire(rows: list[PlayerStats]) -> dict[str, Any]:
    return {
        "type": "stats",
        "players": [
            {
                "name": row.name,
                "kind": row.kind,
                "games": row.games,
                "wins": row.wins,
                "mean": row.mean,
                "best": row.best,
                "you": row.you,
            }
            for row in rows
        ],
    }


def stats_from_wire(message: dict[str, Any]) -> list[PlayerStats]:
    rows = []
    for item in _want(message["players"], list):
        mean = item["mean"]
        if not isinstance(mean, int | float) or isinstance(mean, bool):
            raise TypeError("mean is a number")
        rows.append(
            PlayerStats(
                name=_want(item["name"], str),
                kind=_want(item["kind"], str),
                games=_want(item["games"], int),
                wins=_want(item["wins"], int),
                mean=float(mean),
                best=_want(item["best"], int),
                you=_want(item.get("you", False), bool),
            )
        )
    return rows


def _want(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value
