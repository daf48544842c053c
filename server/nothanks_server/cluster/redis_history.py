"""The cluster's finished games in Redis: the history, replays and statistics every table host answers alike.

Why: a front sends ``history``, ``replay`` and ``stats`` to any table host; if each kept only the games it
finished, a player would see a different history from one request to the next. So a game's record is filed here,
with the same summary and per-player totals archive.py keeps in SQLite, by the table host that played its last
move, in the same round trip as that move and fenced by the same lease (redis_store.py), once (``file`` names
the keys: a hash per game and per player, sorted sets for the pages, the best scores and the most games), and rates
its people (``rate``: ``P:ratings``, ``P:rating_board``), only if the ratings read before are still there.
Who a player is, as in archive.py: an SSH key bound to the seat (``key:``), else the seat token's digest
(``seat:``), else the name; a bot is ``bot:`` and its name. Only names and kinds leave the table hosts.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import redis

from nothanks_tui.link.history import STATS_ROWS, GameListing, PlayerStats, Rated, game_id

from .. import ratings
from ..archive import HOST, listing, summarise, who_is
from ..store import StoreError
from .directory import Keyed
from .directory import text as _text
from .exchanges import Command, asked, run


class RedisHistory(Keyed):
    """Reads (as ``TableStore``'s, store.py) and files finished games under ``prefix`` on a blocking ``client``:
    the base of redis_store.py's ``RedisTableStore``."""

    @property
    def ratings_key(self) -> str:
        return self.key("ratings")

    def game_key(self, table_id: str, game_no: int) -> str:
        """The key whose presence says the game is filed (written once, whoever sends it again)."""
        return self.key("game", game_id(table_id, game_no))

    def file(
        self,
        write: Callable[..., None],
        table_id: str,
        game_no: int,
        record: dict[str, Any],
        identities: list[str | None],
        finished_at: float,
    ) -> None:
        """The commands filing one finished game, handed to ``write(command, key, *args)`` (the store's fenced
        writes). ``identities``: who sat in each seat (``key:``, ``seat:``, or None for the name)."""
        summary, seats = summarise(record, identities, HOST)
        ident = game_id(table_id, game_no)
        write(
            "HSET", self.game_key(table_id, game_no),
            "record", json.dumps(record), "summary", json.dumps(summary), "finished_at", finished_at,
        )  # fmt: skip
        write("ZADD", self.key("games"), finished_at, ident)
        write("ZADD", self.key("games_of", table_id), game_no, game_no)
        for _seat, who, name, bot, score, won in seats:
            player = self.key("player", who)
            write("HINCRBY", player, "games", 1)
            write("HINCRBY", player, "wins", int(won))
            write("HINCRBY", player, "score_sum", score)
            write("HSET", player, "name", name, "bot", int(bot))
            write("ZADD", self.key("player_best"), "LT", score, who)
            write("ZINCRBY", self.key("players", "bots" if bot else "people"), -1, who)

    @staticmethod
    def rated(record: dict[str, Any]) -> list[str]:
        """The keys of the people a finished game rates (none for a record that does not read)."""
        try:
            return [who for who, _name, level, _score in ratings.ranked(record) if level is None]
        except (ValueError, TypeError, KeyError):
            return []

    def rate(
        self, write: Callable[..., None], record: dict[str, Any], held: dict[str, bytes | None]
    ) -> list[tuple[str, str, str]]:
        """The commands rating the game's people from their ratings ``held`` before, and what the script must find
        still there for them: (key, field, value) each."""
        current = {who: tuple(json.loads(value)[1:]) for who, value in held.items() if value is not None}
        for who, (name, mu, sigma, games) in ratings.rate(record, current).items():
            write("HSET", self.ratings_key, who, json.dumps([name, mu, sigma, games]))
            write("ZADD", self.key("rating_board"), ratings.shown(mu, sigma), who)
        return [(self.ratings_key, who, _text(value or b"")) for who, value in held.items()]

    def ask(self, *commands: Command) -> list[Any]:
        """The answers to ``commands``, sent together in one round trip on the blocking client (``StoreError`` if
        Redis fails)."""
        with redis_errors():
            return run(self.client, asked(list(commands)))

    def ratings(self, names: Any) -> dict[str, int]:
        """The shown ratings of these names (rated people only), by name."""
        wanted = {ratings.key(name): name for name in names}
        [found] = self.ask(("HMGET", self.ratings_key, "-", *wanted))
        rows = {who: json.loads(value) for who, value in zip(wanted, found[1:], strict=True) if value is not None}
        return {wanted[who]: ratings.shown(mu, sigma) for who, (_name, mu, sigma, _games) in rows.items()}

    def leaderboard(self, limit: int = STATS_ROWS) -> list[Rated]:
        """People by shown rating, best first, with the bot levels' (ratings.board)."""
        [keys] = self.ask(("ZREVRANGE", self.key("rating_board"), 0, limit - 1)) if limit > 0 else [[]]
        [found] = self.ask(("HMGET", self.ratings_key, "-", *keys))
        rows = [json.loads(value) for value in found[1:] if value]
        return ratings.board([Rated(name, ratings.shown(mu, sigma), games) for name, mu, sigma, games in rows], limit)

    def list_games(self, offset: int = 0, limit: int = 100, place: str | None = None) -> tuple[list[GameListing], int]:
        """A page of the cluster's finished games, newest first (every table host lists the same), and how many
        there are."""
        if place not in (None, HOST):
            return [], 0
        offset, limit = max(0, offset), max(0, limit)
        games = self.key("games")
        total, ids = self.ask(("ZCARD", games), ("ZREVRANGE", games, offset, offset + limit - 1))
        if not ids or limit == 0:
            return [], int(total)
        rows = self.ask(*(("HMGET", self.key("game", _text(ident)), "finished_at", "summary") for ident in ids))
        listed = [
            listing(_text(ident), float(finished or 0), None if summary is None else _text(summary))
            for ident, (finished, summary) in zip(ids, rows, strict=True)
        ]
        return listed, int(total)

    def game_record(self, table_id: str, game_no: int | None, place: str | None = None) -> dict[str, Any] | None:
        """A finished game's record (``game_no`` None: the table's latest), None if there is none."""
        if place not in (None, HOST):
            return None
        if game_no is None:
            [latest] = self.ask(("ZREVRANGE", self.key("games_of", table_id), 0, 0))
            if not latest:
                return None
            game_no = int(latest[0])
        [text] = self.ask(("HGET", self.game_key(table_id, game_no), "record"))
        if text is None:
            return None
        try:
            record = json.loads(text)
        except ValueError as error:
            raise StoreError(f"the record of {game_id(table_id, game_no)} is damaged ({error})") from None
        if not isinstance(record, dict):
            raise StoreError(f"the record of {game_id(table_id, game_no)} is not a JSON object")
        return record

    def player_stats(
        self, place: str | None = None, limit: int = STATS_ROWS, key: str | None = None
    ) -> list[PlayerStats]:
        """Each player's games, wins, mean and best score: people before bots, most games first."""
        if place not in (None, HOST):
            return []
        limit = max(0, limit)
        [people] = self.ask(("ZRANGE", self.key("players", "people"), 0, limit - 1)) if limit else [[]]
        room = limit - len(people)
        [bots] = self.ask(("ZRANGE", self.key("players", "bots"), 0, room - 1)) if room > 0 else [[]]
        chosen = [_text(who) for who in [*people, *bots]]
        if not chosen:
            return []
        reads = [(("HGETALL", self.key("player", who)), ("ZSCORE", self.key("player_best"), who)) for who in chosen]
        answers = self.ask(*(read for pair in reads for read in pair))
        mine = who_is(HOST, key)
        stats = []
        for who, totals, best in zip(chosen, answers[::2], answers[1::2], strict=True):
            fields = {_text(name): _text(value) for name, value in totals.items()}
            games = int(fields.get("games", 0))
            bot = fields.get("bot") == "1"
            stats.append(
                PlayerStats(
                    name=fields.get("name", "?"),
                    kind="bot" if bot else who.partition(":")[0],
                    games=games,
                    wins=int(fields.get("wins", 0)),
                    mean=int(fields.get("score_sum", 0)) / games if games else 0.0,
                    best=int(best or 0),
                    you=mine is not None and who == mine,
                )
            )
        return stats


@contextlib.contextmanager
def redis_errors(what: str = "") -> Iterator[None]:
    """redis-py's errors (connection lost, timeout, a script's error) as ``StoreError``, with which the host knows
    how to refuse a change."""
    try:
        yield
    except redis.RedisError as error:
        raise StoreError(f"Redis refused {what}: {error}" if what else f"Redis: {error}") from error
