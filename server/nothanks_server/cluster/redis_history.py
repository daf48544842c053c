"""The cluster's finished games in Redis: the history, replays and statistics every table host answers alike.

Why: a front sends ``history``, ``replay`` and ``stats`` to any table host; if each kept only the games it
finished, a player would see a different history from one request to the next. So a game's record is filed here,
with the same summary and per-player totals archive.py keeps in SQLite, by the table host that played its last
move, in the same round trip as that move and fenced by the same lease (redis_store.py), once (``file`` names
the keys: a hash per game and per player, sorted sets for the pages, the best scores and the most games).
Who a player is, as in archive.py: an SSH key bound to the seat (``key:``), else the seat token's digest
(``seat:``), else the name; a bot is ``bot:`` and its name. Only names and kinds leave the table hosts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from nothanks_tui.link.history import STATS_ROWS, GameListing, PlayerStats, game_id

from ..archive import HOST, listing, summarise, who_is
from ..store import StoreError
from .directory import text as _text


class RedisHistory:
    """Reads and files finished games under ``prefix`` on a synchronous Redis ``client``."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def game_key(self, table_id: str, game_no: int) -> str:
        """The key whose presence says the game is filed (written once, whoever sends it again)."""
        return self._key("game", game_id(table_id, game_no))

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
        write("ZADD", self._key("games"), finished_at, ident)
        write("ZADD", self._key("games_of", table_id), game_no, game_no)
        for _seat, who, name, bot, score, won in seats:
            player = self._key("player", who)
            write("HINCRBY", player, "games", 1)
            write("HINCRBY", player, "wins", int(won))
            write("HINCRBY", player, "score_sum", score)
            write("HSET", player, "name", name, "bot", int(bot))
            write("ZADD", self._key("player_best"), "LT", score, who)
            write("ZINCRBY", self._key("players", "bots" if bot else "people"), -1, who)

    def list_games(self, offset: int, limit: int) -> tuple[list[GameListing], int]:
        """A page of the cluster's finished games, newest first, and how many there are."""
        offset, limit = max(0, offset), max(0, limit)
        with self.client.pipeline(transaction=False) as pipe:
            pipe.zcard(self._key("games"))
            pipe.zrevrange(self._key("games"), offset, offset + limit - 1)
            total, ids = pipe.execute()
        if not ids or limit == 0:
            return [], int(total)
        with self.client.pipeline(transaction=False) as pipe:
            for ident in ids:
                pipe.hmget(self._key("game", _text(ident)), "finished_at", "summary")
            rows = pipe.execute()
        games = [
            listing(_text(ident), float(finished or 0), None if summary is None else _text(summary))
            for ident, (finished, summary) in zip(ids, rows, strict=True)
        ]
        return games, int(total)

    def game_record(self, table_id: str, game_no: int | None) -> dict[str, Any] | None:
        """A finished game's record (``game_no`` None: the table's latest), None if there is none."""
        if game_no is None:
            latest = self.client.zrevrange(self._key("games_of", table_id), 0, 0)
            if not latest:
                return None
            game_no = int(latest[0])
        text = self.client.hget(self.game_key(table_id, game_no), "record")
        if text is None:
            return None
        try:
            record = json.loads(text)
        except ValueError as error:
            raise StoreError(f"the record of {game_id(table_id, game_no)} is damaged ({error})") from None
        if not isinstance(record, dict):
            raise StoreError(f"the record of {game_id(table_id, game_no)} is not a JSON object")
        return record

    def player_stats(self, limit: int = STATS_ROWS, key: str | None = None) -> list[PlayerStats]:
        """Each player's games, wins, mean and best score: people before bots, most games first."""
        limit = max(0, limit)
        people = self.client.zrange(self._key("players", "people"), 0, limit - 1) if limit else []
        room = limit - len(people)
        bots = self.client.zrange(self._key("players", "bots"), 0, room - 1) if room > 0 else []
        chosen = [_text(who) for who in [*people, *bots]]
        if not chosen:
            return []
        with self.client.pipeline(transaction=False) as pipe:
            for who in chosen:
                pipe.hgetall(self._key("player", who))
                pipe.zscore(self._key("player_best"), who)
            answers = pipe.execute()
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
