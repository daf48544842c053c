"""The store's history: finished games filed with summaries, listed newest first in pages, opened, counted into
statistics per player; damaged rows and old schemas never break it."""

from __future__ import annotations

import json
import sqlite3

import pytest

from nothanks_server.archive import HOST, LOCAL
from nothanks_server.store import SqliteStore, StoredMove, StoredSeat, StoredTable, StoreError, hash_token

from .records import finished_record, scores_of


def test_games_are_listed_newest_first_in_pages_and_opened_whole(tmp_path):
    store = SqliteStore(tmp_path / "h.sqlite3", host=False)
    records = [finished_record(["ann", "bob", "cy"], seed, finished_at=1000.0 + seed) for seed in range(7)]
    for number, record in enumerate(records, start=1):
        store.add_record("local-a", number, record, LOCAL)
    games, total = store.list_games(0, 3)
    assert total == 7
    assert [game.game_id for game in games] == ["local-a/7", "local-a/6", "local-a/5"]
    assert games[0].players == ("ann", "bob", "cy") and list(games[0].scores) == scores_of(records[6])
    assert list(games[0].winners) == records[6]["winners"]
    later, _ = store.list_games(6, 3)
    assert [game.game_id for game in later] == ["local-a/1"]
    assert store.game_record("local-a", 3) == records[2]
    assert store.game_record("local-a", None) == records[6]  # a table's latest game
    assert store.game_record("local-a", 99) is None
    store.close()


def test_statistics_per_name_match_the_hand_computed_numbers(tmp_path):
    store = SqliteStore(tmp_path / "h.sqlite3", host=False)
    games = [finished_record(["ann", "bob"], seed, finished_at=2000.0 + seed, bots=[False, True]) for seed in range(5)]
    games.append(finished_record(["Ann", "cy", "bob"], 9, finished_at=3000.0, bots=[False, False, True]))
    for number, record in enumerate(games, start=1):
        store.add_record("local-b", number, record, LOCAL)
    ann_scores = [record["final"][0]["score"] for record in games]  # "Ann" is the same name, cased otherwise
    ann_wins = sum(1 for record in games if 0 in record["winners"])
    rows = {row.name: row for row in store.player_stats()}
    ann = rows["Ann"]  # shown under the latest name used
    assert (ann.kind, ann.games, ann.wins) == ("name", 6, ann_wins)
    assert ann.mean == pytest.approx(sum(ann_scores) / 6)
    assert ann.best == min(ann_scores)
    assert ann.win_share == pytest.approx(ann_wins / 6)
    bob = rows["bob"]
    assert bob.kind == "bot" and bob.games == 6
    assert rows["cy"].games == 1
    assert [row.kind for row in store.player_stats()][-1] == "bot"  # people first
    store.close()


def test_a_host_counts_players_by_ssh_key_else_by_seat_token(tmp_path):
    store = SqliteStore(tmp_path / "host.sqlite3")
    seats = (StoredSeat("ann", token_hash=hash_token("tok-ann")), StoredSeat("bob", token_hash=hash_token("tok-bob")))
    store.create_table(StoredTable("t1", 2, False, "standard", "rules", None, seats))
    store.bind_key("SHA256:annkey", "t1", 0)
    store.start_game("t1", 1, 5, 0.0)
    record = finished_record(["ann", "bob"], 5)
    store.add_moves([StoredMove("t1", 1, 0, 0, "take", record)])
    rows = {row.name: row for row in store.player_stats(HOST, key="SHA256:annkey")}
    assert rows["ann"].kind == "key" and rows["ann"].you
    assert rows["bob"].kind == "seat" and not rows["bob"].you
    raw = sqlite3.connect(tmp_path / "host.sqlite3")
    assert {who for (who,) in raw.execute("SELECT who FROM record_seats")} == {
        "key:SHA256:annkey",
        "seat:" + hash_token("tok-bob").hex(),
    }
    raw.close()
    store.close()


def test_a_damaged_row_is_a_clear_error_and_the_listing_still_reads(tmp_path):
    path = tmp_path / "h.sqlite3"
    store = SqliteStore(path, host=False)
    store.add_record("local-c", 1, finished_record(["ann", "bob"], 1), LOCAL)
    store.add_record("local-c", 2, finished_record(["ann", "bob"], 2, finished_at=1_800_000_000.0), LOCAL)
    raw = sqlite3.connect(path)
    raw.execute("UPDATE records SET record = '{not json', summary = 'garbage' WHERE game_no = 2")
    raw.commit()
    raw.close()
    games, total = store.list_games()
    assert total == 2 and games[0].game_id == "local-c/2" and games[0].players == ("?",)
    with pytest.raises(StoreError, match="damaged"):
        store.game_record("local-c", 2)
    assert store.game_record("local-c", 1) is not None
    assert [stored.game_no for stored in store.records()] == [1]  # the host's export skips it too
    store.close()


def test_a_schema_1_store_is_migrated_with_its_records_in_the_history(tmp_path):
    path = tmp_path / "old.sqlite3"
    record = finished_record(["ann", "bob", "cy"], 4, finished_at=1234.0)
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        INSERT INTO schema_version VALUES (1);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE tables (table_id TEXT PRIMARY KEY, players INTEGER NOT NULL, open_chips INTEGER NOT NULL,
            variant TEXT NOT NULL, default_bot TEXT NOT NULL, chips_per_player INTEGER, creator_seat INTEGER,
            game_no INTEGER NOT NULL DEFAULT 0, seed INTEGER, started_at REAL, finished INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL);
        CREATE TABLE seats (table_id TEXT NOT NULL, seat INTEGER NOT NULL, name TEXT NOT NULL, bot_kind TEXT,
            bot_seed INTEGER, token_hash BLOB, PRIMARY KEY (table_id, seat));
        CREATE TABLE moves (table_id TEXT NOT NULL, game_no INTEGER NOT NULL, state_id INTEGER NOT NULL,
            seat INTEGER NOT NULL, action TEXT NOT NULL, PRIMARY KEY (table_id, game_no, state_id));
        CREATE TABLE records (table_id TEXT NOT NULL, game_no INTEGER NOT NULL, finished_at REAL NOT NULL,
            record TEXT NOT NULL, exported INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_id, game_no));
        CREATE TABLE key_bindings (fingerprint TEXT PRIMARY KEY, table_id TEXT NOT NULL, seat INTEGER NOT NULL);
        """
    )
    db.execute("INSERT INTO records VALUES ('t4', 1, 1234.0, ?, 1)", (json.dumps(record),))
    db.execute("INSERT INTO records VALUES ('t5', 1, 1235.0, 'broken', 1)")
    db.execute("INSERT INTO tables VALUES ('t6', 2, 0, 'standard', 'medium', NULL, 0, 0, NULL, NULL, 0, 1.0)")
    db.execute("INSERT INTO seats VALUES ('t6', 0, 'ann', NULL, NULL, X'00')")
    db.commit()
    db.close()
    store = SqliteStore(path)
    [table] = store.load_tables()  # schema 3's columns, with what an older table had: no coach, no stand-in
    assert not table.coach and table.seats[0] is not None and not table.seats[0].stand_in
    games, total = store.list_games(place=HOST)
    assert total == 2 and [game.game_id for game in games] == ["t5/1", "t4/1"]
    assert games[0].players == ("?",)  # listed with what is known; opening it says it is damaged
    assert list(games[1].scores) == scores_of(record)
    with pytest.raises(StoreError, match="damaged"):
        store.game_record("t5", 1)
    assert sum(row.games for row in store.player_stats(HOST)) == 3
    store.close()
