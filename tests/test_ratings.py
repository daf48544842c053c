"""Ratings (server/nothanks_server/ratings.py): a finished game rates its people with openskill's Plackett-Luce,
lower scores first, ties sharing a rank, bots at their level's fixed rating, guests left out; filed once with the
game's record, kept across a restart (and a SIGKILL), shown in the seats and on a leaderboard over TCP."""

from __future__ import annotations

import sqlite3

import pytest

from nothanks_server import ratings
from nothanks_server.history import LocalRecords, StoreHistory
from nothanks_server.store import SqliteStore, StoredMove, StoreError
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link.history import Rated
from nothanks_tui.link.identity import Identity

from .net_helpers import RawClient, live_host, of_type
from .test_store_restart import is_update, start_server, stop


def a_record(names, scores, levels=None, guests=None, finished_at=1.0) -> dict:
    levels = levels or [None] * len(names)
    record = {"players": names, "final": [{"score": s} for s in scores], "finished_at": finished_at}
    record |= {"bots": [level is not None for level in levels], "levels": levels}
    return record | ({"guests": guests} if guests else {})


def test_lower_scores_rank_first_ties_share_bots_stay_fixed_and_guests_are_left_out():
    record = a_record(["ann", "bo", "Cy", "dee", "eve"], [5, 10, 10, 30, 1], [None, None, None, "medium", None])
    record["guests"] = [False, False, False, False, True]
    after = ratings.rate(record, {})
    assert set(after) == {"ann", "bo", "cy"}  # people by name (case aside); not the bot, not the guest
    shown = {who: ratings.shown(mu, sigma) for who, (_name, mu, sigma, _games) in after.items()}
    assert shown["ann"] > shown["bo"] == shown["cy"] > ratings.NEWCOMER  # a tie shares a rank; all beat the bot
    assert after["cy"][0] == "Cy" and after["ann"][3] == 1
    lost = ratings.rate(a_record(["ann", "bo"], [40, 2], ["hard", None]), {})
    assert ratings.shown(*lost["bo"][1:3]) > ratings.NEWCOMER  # beating hard lifts bo; hard's rating never moves
    assert ratings.bot_rating("hard") > ratings.bot_rating("medium") > ratings.bot_rating("easy")
    assert ratings.rate(a_record(["ana", "bo"], [1, 2], ["easy", "hard"]), {}) == {}  # bots only: nobody rated
    assert [ratings.seat_role(None), ratings.seat_role("medium"), ratings.seat_role(None, guest=True)] == [
        "person",
        "bot",
        "",
    ]


def test_a_game_is_rated_once_with_its_record_and_read_back_after_a_restart(tmp_path):
    path = tmp_path / "nothanks.sqlite3"
    store = SqliteStore(path)
    record = a_record(["ann", "bo", "ana"], [5, 20, 12], [None, None, "medium"])
    store.add_moves([StoredMove("t1", 1, 0, 0, "take", record)])  # (a table's last move carries its record)
    before = store.ratings(["ann", "Bo", "ana", "zed"])
    assert set(before) == {"ann", "Bo"} and before["ann"] > before["Bo"]  # a bot's or a stranger's: none stored
    with pytest.raises(StoreError):  # the same game again: its record's key is taken, nothing is rated twice
        store.add_record("t1", 1, record)
    assert store.ratings(["ann", "Bo"]) == before
    store.close()
    again = SqliteStore(path)  # a restart: the same numbers
    assert again.ratings(["ann", "Bo"]) == before
    board = again.leaderboard()
    assert [row.name for row in board if not row.bot] == ["ann", "bo"]
    assert Rated("ann", before["ann"], 1) in board and Rated("hard", ratings.bot_rating("hard"), 0, bot=True) in board
    assert board == sorted(board, key=lambda row: -row.rating)
    again.close()


def test_games_kept_before_ratings_existed_are_rated_when_the_store_is_opened(tmp_path):
    path = tmp_path / "nothanks.sqlite3"
    store = SqliteStore(path)
    store.add_record("local-1", 1, a_record(["you", "ana"], [3, 9], [None, "easy"]))
    store.close()
    with sqlite3.connect(path) as db:  # as a schema 4 store left it
        db.execute("DROP TABLE ratings")
        db.execute("DROP TABLE names")
        db.execute("ALTER TABLE seats DROP COLUMN guest")
        db.execute("UPDATE schema_version SET version = 4")
    assert SqliteStore(path).ratings(["you"])["you"] > ratings.NEWCOMER


async def test_history_leaderboard_reads_local_games(tmp_path):
    LocalRecords(tmp_path).save(a_record(["you", "ana", "bo"], [3, 9, 20], [None, "easy", "medium"]), "x", 1)
    board = await StoreHistory(tmp_path).leaderboard()
    assert [row.name for row in board if not row.bot] == ["you"] and board[0].games == 0  # expert's above


async def play_to_the_end(client: RawClient) -> dict:
    """Create a 2-seat table with a bot, start, take every card; the last update."""
    await client.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
    seat = (await client.until(of_type("joined")))["seat"]
    if not any(of_type("waiting")(f) and f["can_start"] for f in client.frames):  # (may come before `joined`)
        await client.until(lambda f: of_type("waiting")(f) and f["can_start"])
    await client.send({"type": "start"})
    while True:
        frame = await client.until(is_update)
        view = frame["view"]
        if view["finished"]:
            return frame
        if view["to_move"] == seat:
            await client.send({"type": "action", "action": "take", "state_id": view["state_id"]})


async def test_the_seats_carry_ratings_and_the_leaderboard_answers_over_tcp(tmp_path):
    async with live_host() as host:
        alice = await RawClient.connect(host.port, "alice", key=Identity.load(tmp_path / "alice.key"))
        await alice.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
        waiting = await alice.until(lambda f: of_type("waiting")(f) and f["can_start"])
        assert [seat.get("rating") for seat in waiting["seats"]] == [ratings.NEWCOMER, ratings.bot_rating("medium")]
        await alice.close()
        bob = await RawClient.connect(host.port, "bob", key=Identity.load(tmp_path / "bob.key"))
        final = await play_to_the_end(bob)
        mine = final["seats"][final["view"]["seat"]]
        assert mine["rating"] == host.lobby.store.ratings(["bob"])["bob"] and mine["change"] == mine["rating"] - 1000
        lobby = TcpLobby("127.0.0.1", host.port, "carol")
        await lobby.start()
        try:
            board = await lobby.leaderboard()
            [table] = [table for table in await lobby.list_tables() if table.finished]
        finally:
            await lobby.close()
        assert Rated("bob", mine["rating"], 1) in board and any(row.bot for row in board)
        assert [seat.rating for seat in table.seats] == [mine["rating"], ratings.bot_rating("medium")]
        await bob.close()


async def test_a_guest_is_shown_no_rating_and_is_not_rated():
    async with live_host() as host:
        dan = await RawClient.connect(host.port, "dan")  # no key: a guest
        final = await play_to_the_end(dan)
        mine = final["seats"][final["view"]["seat"]]
        assert mine.get("guest") and "rating" not in mine and "change" not in mine
        assert "dan" not in host.lobby.store.ratings(["dan"])
        await dan.close()


async def test_ratings_survive_a_sigkill_of_the_host(tmp_path):
    process, port = await start_server(tmp_path)
    try:
        bob = await RawClient.connect(port, "bob", key=Identity.load(tmp_path / "bob.key"))
        final = await play_to_the_end(bob)
        rating = final["seats"][final["view"]["seat"]]["rating"]
        process.kill()  # SIGKILL: the rating went to the disk with the game's record, or neither did
        await process.wait()
        process, port = await start_server(tmp_path)
        client = await RawClient.connect(port, "eve")
        await client.send({"type": "leaderboard", "id": 7})
        reply = await client.until(of_type("leaderboard"))
        assert {"name": "bob", "rating": rating, "games": 1, "bot": False} in reply["players"]
        await client.close()
    finally:
        await stop(process)
