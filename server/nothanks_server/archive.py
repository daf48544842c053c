"""Finished games in the store, indexed for the history: listing, opening and statistics stay fast at 10,000 games.

The store (store.py) keeps each finished game's ``nothanks-record/1`` record in ``records``. Reading a page of
the history from those documents would parse every one; so each row also carries a small ``summary`` (names,
final scores, winners, bots), ``finished_at`` is indexed, ``record_seats`` holds one row per seat (who, score,
won), and ``players`` each player's running totals (games, wins, sum of scores, best, latest name), so the
statistics read one row per player. A game is filed with its summary, seats and totals in the same transaction
as its record (for a host, the same as its last move).

Who a seat was: locally, its name (``name:``); at a host, the SSH key bound to the seat (``key:``), else its
seat token's digest (``seat:``); a bot is ``bot:`` and its name. Only kinds and names leave the host.

``place`` says where a game was played: ``host`` (a host's table) or ``local`` (``nothanks play``). A host's lobby
lists only its own games; ``nothanks history`` lists every game in the data dir."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from typing import Any

from nothanks_tui.link.history import GameListing, PlayerStats, Rated, game_id

from . import ratings

log = logging.getLogger(__name__)

HOST = "host"
LOCAL = "local"
SeatRow = tuple[int, str, str, bool, int, bool]  # (seat, who, name, bot, score, won)

_SCHEMA_2 = """
ALTER TABLE records ADD COLUMN place TEXT NOT NULL DEFAULT 'host';
ALTER TABLE records ADD COLUMN summary TEXT;
CREATE INDEX IF NOT EXISTS records_by_time ON records (finished_at);
CREATE INDEX IF NOT EXISTS records_by_place ON records (place, finished_at);
CREATE TABLE IF NOT EXISTS record_seats (
    table_id TEXT NOT NULL, game_no INTEGER NOT NULL, seat INTEGER NOT NULL, place TEXT NOT NULL, who TEXT NOT NULL,
    name TEXT NOT NULL, bot INTEGER NOT NULL, score INTEGER NOT NULL, won INTEGER NOT NULL, finished_at REAL NOT NULL,
    PRIMARY KEY (table_id, game_no, seat)
);
CREATE INDEX IF NOT EXISTS record_seats_by_who ON record_seats (who, finished_at);
CREATE TABLE IF NOT EXISTS players (
    place TEXT NOT NULL, who TEXT NOT NULL, name TEXT NOT NULL, bot INTEGER NOT NULL, games INTEGER NOT NULL,
    wins INTEGER NOT NULL, score_sum INTEGER NOT NULL, best INTEGER NOT NULL, last_at REAL NOT NULL,
    PRIMARY KEY (place, who)
);
"""


def migrate_to_2(db: sqlite3.Connection) -> None:
    """Schema 1 -> 2, inside the store's migration transaction: the new columns and table, and every record
    already kept filed again with its summary (a record that does not read is left out of the history)."""
    run_script(db, _SCHEMA_2)
    rows = db.execute("SELECT table_id, game_no, record FROM records WHERE summary IS NULL").fetchall()
    for table_id, game_no, text in rows:
        try:
            record = json.loads(text)
            summary, seats = summarise(record, [None] * len(record["players"]), LOCAL)
        except (ValueError, TypeError, KeyError, AttributeError):
            log.warning("record %s is not readable: left out of the history", game_id(table_id, game_no))
            continue
        query = "UPDATE records SET summary = ? WHERE table_id = ? AND game_no = ?"
        db.execute(query, (json.dumps(summary), table_id, game_no))
        _put_seats(db, table_id, game_no, HOST, finished_at(record), seats)


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Each statement of ``script`` in the caller's transaction (``executescript`` would commit it first)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def file_record(
    db: sqlite3.Connection, table_id: str, game_no: int, record: dict[str, Any], place: str, exported: bool = False
) -> None:
    """Insert one finished game (record, summary, seats, totals) in the caller's transaction; ``exported``: its JSON
    file is written already."""
    finished, identities = finished_at(record), None
    if place == HOST:
        tokens = db.execute("SELECT seat, token_hash FROM seats WHERE table_id = ?", (table_id,)).fetchall()
        keys = db.execute("SELECT seat, fingerprint FROM key_bindings WHERE table_id = ?", (table_id,)).fetchall()
        identities = host_identities(len(record["players"]), tokens, keys)
    summary, seats = summarise(record, identities or [None] * len(record["players"]), place)
    db.execute(
        "INSERT INTO records (table_id, game_no, finished_at, record, place, summary, exported) VALUES (?,?,?,?,?,?,?)",
        (table_id, game_no, finished, json.dumps(record), place, json.dumps(summary), int(exported)),
    )
    _put_seats(db, table_id, game_no, place, finished, seats)
    rate(db, record)


def migrate_to_5(db: sqlite3.Connection) -> None:
    """Schema 4 -> 5: players' ratings (ratings.py), every game kept so far rated in the order it finished."""
    db.execute(
        "CREATE TABLE ratings (who TEXT PRIMARY KEY, name TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL, "
        "games INTEGER NOT NULL, shown INTEGER NOT NULL)"
    )
    db.execute("CREATE INDEX ratings_by_shown ON ratings (shown)")
    for (text,) in db.execute("SELECT record FROM records ORDER BY finished_at, rowid").fetchall():
        try:
            rate(db, json.loads(text))
        except (ValueError, TypeError, KeyError, AttributeError):
            continue  # (a record that does not read is out of the history too)


def rate(db: sqlite3.Connection, record: dict[str, Any]) -> None:
    """The finished game's people rated, in the caller's transaction: the one filing its record (whose key, the
    game's id, is unique), so a game is rated once."""
    keys = [who for who, _name, level, _score in ratings.ranked(record) if level is None]
    marks = ",".join("?" * len(keys))
    rows = db.execute(f"SELECT who, mu, sigma, games FROM ratings WHERE who IN ({marks})", keys).fetchall()
    changed = ratings.rate(record, {who: (mu, sigma, games) for who, mu, sigma, games in rows})
    db.executemany(
        "INSERT OR REPLACE INTO ratings (who, name, mu, sigma, games, shown) VALUES (?,?,?,?,?,?)",
        [(who, name, mu, sigma, games, ratings.shown(mu, sigma)) for who, (name, mu, sigma, games) in changed.items()],
    )


def rating_of(db: sqlite3.Connection, names: list[str]) -> dict[str, int]:
    keys = {ratings.key(name): name for name in names}
    marks = ",".join("?" * len(keys))
    rows = db.execute(f"SELECT who, shown FROM ratings WHERE who IN ({marks})", list(keys)).fetchall()
    return {keys[who]: int(shown) for who, shown in rows}


def leaderboard(db: sqlite3.Connection, limit: int) -> list[Rated]:
    rows = db.execute("SELECT name, shown, games FROM ratings ORDER BY shown DESC, who LIMIT ?", (max(0, limit),))
    return ratings.board([Rated(str(name), int(shown), int(games)) for name, shown, games in rows], limit)


def finished_at(record: dict[str, Any]) -> float:
    """When the game ended, as its record says (now, if it says nothing that reads)."""
    value = record.get("finished_at")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else time.time()


def host_identities(players: int, tokens: list[Any], keys: list[Any]) -> list[str | None]:
    """Who sat in each seat of a host's table: the SSH key bound to it (``keys``), else its token's (``tokens``)."""
    who: list[str | None] = [None] * players
    for seat, token_hash in tokens:
        if 0 <= seat < players and token_hash is not None:
            who[seat] = "seat:" + bytes(token_hash).hex()
    for seat, fingerprint in keys:
        if 0 <= seat < players:
            who[seat] = "key:" + str(fingerprint)
    return who


def summarise(record: dict[str, Any], identities: list[str | None], place: str) -> tuple[dict[str, Any], list[SeatRow]]:
    """(the listing's summary, one (seat, who, name, bot, score, won) per seat) of a record (also what a cluster
    files in Redis: cluster/redis_store.py)."""
    players = [str(name) for name in record["players"]]
    final = record["final"]
    scores = [int(entry["score"]) for entry in final]
    if len(scores) != len(players):
        raise ValueError("one final score per player")
    winners = [int(seat) for seat in record.get("winners", [])]
    bots_field = record.get("bots")
    bots = [bool(flag) for flag in bots_field] if isinstance(bots_field, list) else [False] * len(players)
    if len(bots) != len(players):
        bots = [False] * len(players)
    levels_field = record.get("levels")  # each bot's level (records since bots got first names; else its name)
    levels = levels_field if isinstance(levels_field, list) and len(levels_field) == len(players) else players
    seats = []
    for seat, name in enumerate(players):
        if bots[seat]:
            name = str(levels[seat] or name)  # a bot's statistics are its level's: "ana" plays medium here, hard there
            who = "bot:" + name
        else:
            who = identities[seat] or "name:" + name.casefold()
        seats.append((seat, who, name, bots[seat], scores[seat], seat in winners))
    summary = {"players": players, "scores": scores, "winners": winners, "bots": bots}
    return summary, seats


def _put_seats(
    db: sqlite3.Connection, table_id: str, game_no: int, place: str, finished: float, seats: list[SeatRow]
) -> None:
    db.executemany(
        "INSERT OR REPLACE INTO record_seats (table_id, game_no, seat, place, who, name, bot, score, won, finished_at) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)",
        [
            (table_id, game_no, seat, place, who, name, int(bot), score, int(won), finished)
            for seat, who, name, bot, score, won in seats
        ],
    )
    db.executemany(
        "INSERT INTO players (place, who, name, bot, games, wins, score_sum, best, last_at) VALUES (?,?,?,?,1,?,?,?,?) "
        "ON CONFLICT (place, who) DO UPDATE SET games = games + 1, wins = wins + excluded.wins, "
        "score_sum = score_sum + excluded.score_sum, best = min(best, excluded.best), bot = max(bot, excluded.bot), "
        "name = CASE WHEN excluded.last_at >= last_at THEN excluded.name ELSE name END, "
        "last_at = max(last_at, excluded.last_at)",
        [(place, who, name, int(bot), int(won), score, score, finished) for _, who, name, bot, score, won in seats],
    )


def list_games(db: sqlite3.Connection, offset: int, limit: int, place: str | None) -> tuple[list[GameListing], int]:
    """A page of finished games, newest first, and how many there are; a row whose summary does not read is listed
    with what is known (id, date): one damaged row never fails the history. The count and the page's place come from
    the indexes alone (``records`` rows hold whole records: scanning them would make a big history slow)."""
    where, args = ("WHERE place = ?", (place,)) if place else ("", ())
    total = int(db.execute(f"SELECT count(*) FROM records {where}", args).fetchone()[0])
    rows = db.execute(
        "SELECT table_id, game_no, finished_at, summary FROM records WHERE rowid IN "
        f"(SELECT rowid FROM records {where} ORDER BY finished_at DESC, rowid DESC LIMIT ? OFFSET ?) "
        "ORDER BY finished_at DESC, rowid DESC",
        (*args, max(0, limit), max(0, offset)),
    ).fetchall()
    return [listing(game_id(str(table_id), int(game_no)), when, text) for table_id, game_no, when, text in rows], total


def listing(ident: str, finished: object, text: object) -> GameListing:
    when = float(finished) if isinstance(finished, int | float) else 0.0
    try:
        summary = json.loads(str(text))
        players = tuple(str(name) for name in summary["players"])
        scores = tuple(int(value) for value in summary["scores"])
        winners = tuple(int(seat) for seat in summary["winners"] if 0 <= int(seat) < len(players))
        return GameListing(ident, when, players, scores, winners, tuple(bool(flag) for flag in summary["bots"]))
    except (ValueError, TypeError, KeyError):  # (GameListing checks one score and bot flag per player)
        return GameListing(ident, when, ("?",), (0,), (), (False,))


def game_record(db: sqlite3.Connection, table_id: str, game_no: int | None, place: str | None) -> dict[str, Any] | None:
    """The record of one finished game (the table's latest when ``game_no`` is None); ValueError if damaged."""
    query = "SELECT record FROM records WHERE table_id = ? AND ifnull(game_no = ?, 1) AND ifnull(place = ?, 1)"
    row = db.execute(query + " ORDER BY game_no DESC LIMIT 1", (table_id, game_no, place)).fetchone()
    if row is None:
        return None
    record = json.loads(str(row[0]))  # a JSONDecodeError is a ValueError
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    return record


def player_stats(db: sqlite3.Connection, place: str | None, limit: int, mine: str | None = None) -> list[PlayerStats]:
    """Games, wins, mean and best (lowest) score per player, people before bots, most games first; named by their
    latest name. ``mine``: the asker's identity (``who_is``), whose row is marked ``you``."""
    where, args = ("WHERE place = ?", (place,)) if place else ("", ())
    rows = db.execute(
        "SELECT who, max(bot), max(last_at), sum(games), sum(wins), sum(score_sum), min(best) "
        f"FROM players {where} GROUP BY who ORDER BY max(bot), sum(games) DESC, who LIMIT ?",
        (*args, max(0, limit)),
    ).fetchall()
    stats = []
    for who, bot, last, *totals in rows:
        latest = db.execute("SELECT name FROM players WHERE who = ? AND last_at = ? LIMIT 1", (who, last)).fetchone()
        stats.append(stats_row(str(who), str(latest[0]) if latest else "?", bool(bot), totals, mine))
    return stats


def stats_row(who: str, name: str, bot: bool, totals: list[Any], mine: str | None) -> PlayerStats:
    """One player's row from their running totals (games, wins, sum of scores, best; SQLite's or Redis's)."""
    games, wins, score_sum, best = (int(value or 0) for value in totals)
    mean = score_sum / games if games else 0.0
    return PlayerStats(name, "bot" if bot else who.partition(":")[0], games, wins, mean, best, who == mine)


def who_is(place: str, key: str | None) -> str | None:
    """The identity of the asker at a host (their SSH key), to mark their own row."""
    return None if key is None or place != HOST else "key:" + key
