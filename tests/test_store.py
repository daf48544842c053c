"""The host's store (server/nothanks_server/store.py): what a restart brings back, tokens kept hashed, a move stored
before anyone sees it, one record per game, and record files written without following anything planted there."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import tempfile

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.history import RecordStore
from nothanks_server.inprocess import InProcessLobby, InProcessTable
from nothanks_server.store import (
    DATABASE_NAME,
    GroupCommit,
    SqliteStore,
    StoredMove,
    StoredSeat,
    StoredTable,
    StoreError,
    hash_token,
)
from nothanks_tui.client.replaying import read_record_file
from nothanks_tui.engine import Action, replay
from nothanks_tui.link import NewTable, Rejected, TableUpdate, TableWaiting

from .test_host_table import WAIT, is_update, next_matching


def settings(data_dir, **extra) -> LobbySettings:
    return LobbySettings(**({"data_dir": data_dir, "bot_delay": 0, "turn_timer": None, "seed": 5} | extra))


async def seated(lobby: Lobby, name: str, **table):
    player = InProcessLobby(lobby, name)
    await player.start()
    return player, await player.create_table(NewTable(**({"players": 2} | table)))


async def play_moves(conn, count: int, update: TableUpdate | None = None) -> TableUpdate:
    """Play ``count`` of our moves (take when we must, else pass); returns the last update seen."""
    if update is None or not update.view.my_turn:
        update = await next_matching(conn, lambda e: is_update(e) and (e.view.my_turn or e.view.finished))
    for _ in range(count):
        if update.view.finished:
            break
        legal = update.view.legal
        await conn.send_action(Action.PASS if Action.PASS in legal else Action.TAKE, update.view.state_id)
        update = await next_matching(conn, lambda e: is_update(e) and (e.view.my_turn or e.view.finished))
        if update.view.finished:
            break
    return update


async def test_a_table_comes_back_at_its_last_move_with_its_seats_and_its_token_resumes(tmp_path):
    first = Lobby(settings(tmp_path))
    first.start()
    _, conn = await seated(first, "alice", players=3, bots=2)
    await conn.start_game()
    before = await play_moves(conn, 3)
    token = conn.seat_token
    table_id = before.table_id
    first.close()  # whatever ends the process, the store has every move already (see the SIGKILL test)

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        table = second.table(table_id)
        assert table.state is not None and table.state.state_id >= before.view.state_id
        assert [seat.name for seat in table.seats] == [s.name for s in before.seats]
        assert table.seats[0].away and all(seat.bot is not None for seat in table.seats[1:])
        player = InProcessLobby(second, "alice")
        await player.start()
        back = await player.resume(token)
        update = await next_matching(back, is_update)
        view = update.view
        assert view.seat == 0 and view.hands[:1] == before.view.hands[:1]
        assert not update.seat_events  # coming back after a restart is no news for the log ("alice is back")
        assert [m.seat for m in view.moves][: before.view.state_id] == [m.seat for m in before.view.moves]
        await play_moves(back, 500, update)  # and the game plays on to its end, bots and all
        assert table.finished
    finally:
        second.close()


async def test_a_table_that_had_not_started_comes_back_with_its_seats_and_creator_then_frees_them(tmp_path):
    first = Lobby(settings(tmp_path))
    _, conn = await seated(first, "alice", players=3, bots=1)
    bob = InProcessLobby(first, "bob")
    await bob.start()
    [summary] = await bob.list_tables()
    await bob.join(summary.table_id)
    tokens = {"alice": conn.seat_token}
    first.close()

    second = Lobby(settings(tmp_path, restored_waiting_grace=3600))
    second.start()
    table = second.table(summary.table_id)
    assert [s.name for s in table.seats] == ["alice", "ana", "bob"] and table.creator_seat == 0
    alice = InProcessLobby(second, "alice")
    await alice.start()
    back = await alice.resume(tokens["alice"])
    waiting = await next_matching(back, lambda e: isinstance(e, TableWaiting))
    assert waiting.my_seat == 0 and waiting.can_start and waiting.seats[2].away
    table.release_away_seats()  # what the grace period's end does: bob did not come back
    waiting = await next_matching(back, lambda e: isinstance(e, TableWaiting) and e.seats[2].empty)
    assert not waiting.can_start
    second.close()
    third = Lobby(settings(tmp_path))
    assert [s.name for s in third.table(summary.table_id).seats] == ["alice", "ana", None]
    third.close()


async def test_tokens_are_stored_hashed_never_in_clear(tmp_path):
    lobby = Lobby(settings(tmp_path))
    _, conn = await seated(lobby, "alice", bots=1)
    token = conn.seat_token
    assert token
    lobby.close()
    raw = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.name.startswith(DATABASE_NAME))
    assert token.encode() not in raw
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        [(digest,)] = db.execute("SELECT token_hash FROM seats WHERE bot_kind IS NULL").fetchall()
    assert digest == hashlib.sha256(token.encode()).digest() == hash_token(token)
    assert oct(os.stat(tmp_path / DATABASE_NAME).st_mode & 0o777) == "0o600"


class StoreWatcher:
    """A spectator that, whenever it hears of a move, checks that the store holds it already."""

    name = "watcher"

    def __init__(self, store: SqliteStore, table_id: str) -> None:
        self.store, self.table_id = store, table_id
        self.checked: list[tuple[int, int]] = []
        self.records_seen = 0
        self.done = asyncio.Event()

    def deliver(self, event) -> None:
        if not isinstance(event, TableUpdate):
            return
        [stored] = [t for t in self.store.load_tables() if t.table_id == self.table_id]
        if event.view.finished:  # the last move went in with the record (and the game's moves with it)
            self.records_seen = len(self.store.records())
            self.done.set()
        else:
            self.checked.append((event.view.state_id, len(stored.moves)))


async def test_every_move_is_in_the_store_before_anyone_sees_it(tmp_path):
    lobby = Lobby(settings(tmp_path))
    _, conn = await seated(lobby, "alice", players=3, bots=1)
    table = lobby.table("t1")
    watcher = StoreWatcher(lobby.store, "t1")
    table.spectate(watcher)
    table.add_bots(1)
    await conn.start_game()
    await play_moves(conn, 500)
    await asyncio.wait_for(watcher.done.wait(), WAIT)
    assert watcher.checked and all(seen == stored for seen, stored in watcher.checked)
    assert watcher.records_seen == 1
    lobby.close()


async def test_a_finished_game_has_exactly_one_record_in_the_store_and_one_json_file(tmp_path):
    lobby = Lobby(settings(tmp_path))
    _, conn = await seated(lobby, "alice", bots=1)
    await conn.start_game()
    final = await play_moves(conn, 500)
    assert final.view.finished
    lobby.close()
    [stored] = SqliteStore(tmp_path / DATABASE_NAME).records()
    [path] = tmp_path.glob("*.json")
    assert read_record_file(path) == stored.record and stored.exported
    assert replay(stored.record).finished
    # A host killed after the commit but before the file: the next start writes it, once.
    path.unlink()
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        db.execute("UPDATE records SET exported = 0")
    for _ in range(2):
        Lobby(settings(tmp_path)).close()
        assert [p.name for p in tmp_path.glob("*.json")] == [path.name]
    assert len(SqliteStore(tmp_path / DATABASE_NAME).records()) == 1
    # The finished table comes back finished (its players may be voting for the next game), recorded once still.
    again = Lobby(settings(tmp_path))
    assert again.table(final.table_id).finished
    again.close()
    assert len(SqliteStore(tmp_path / DATABASE_NAME).records()) == 1


def test_record_files_never_follow_a_symlink_and_leave_no_temp_behind(tmp_path, monkeypatch):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    records = RecordStore(tmp_path / "records")
    records.directory.mkdir()
    record = {"format": "nothanks-record/1", "finished_at": 1_700_000_000.0, "moves": []}
    target = records.path_for(record, "t1", 1)
    target.symlink_to(victim)  # a symlink where the record goes: replaced, not written through
    planted = records.directory / ".nothanks-planted.tmp"
    planted.symlink_to(victim)  # and one at the temp name the writer will try first
    names = iter(["planted", "fresh"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    assert records.save(record, "t1", 1) == target
    assert victim.read_text() == "precious"
    assert not target.is_symlink() and json.loads(target.read_text()) == record
    assert {p.name for p in records.directory.iterdir()} == {target.name, planted.name}
    # A killed writer's leftovers (an empty temp, a planted link) are removed at start, their targets untouched.
    (records.directory / ".nothanks-x1y2.tmp").write_bytes(b"")
    (records.directory / "20261201-100000-t3-g1.json.tmp").write_bytes(b"")  # an older version's leftover
    assert records.clean_temps() == 3
    assert {p.name for p in records.directory.iterdir()} == {target.name} and victim.read_text() == "precious"


def test_the_store_keeps_ssh_key_bindings_and_forgets_them_with_the_table(tmp_path):
    store = SqliteStore(tmp_path / DATABASE_NAME)
    seats = (StoredSeat("alice", token_hash=b"x"), None)
    store.create_table(StoredTable("t1", 2, False, "standard", "rules", None, seats))
    store.bind_key("SHA256:abc", "t1", 0)
    store.close()
    store = SqliteStore(tmp_path / DATABASE_NAME)
    assert store.seat_for_key("SHA256:abc") == ("t1", 0) and store.next_table_number() == 2
    store.drop_table("t1")
    assert store.seat_for_key("SHA256:abc") is None
    store.close()


def test_a_store_from_a_newer_version_is_refused(tmp_path):
    SqliteStore(tmp_path / DATABASE_NAME).close()
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(RuntimeError, match="schema 99"):
        SqliteStore(tmp_path / DATABASE_NAME)


async def test_a_seat_bound_to_an_ssh_key_is_found_again_after_a_restart(tmp_path):
    first = Lobby(settings(tmp_path))
    _, conn = await seated(first, "alice", bots=1)
    await conn.start_game()
    await next_matching(conn, is_update)
    first.store.bind_key("SHA256:alice-key", "t1", 0)
    first.close()
    second = Lobby(settings(tmp_path))
    second.start()
    member = InProcessLobby(second, "alice")
    await member.start()
    seat = InProcessTable(member.name, lobby=second)
    table, index = second.resume_key("SHA256:alice-key", seat)
    assert (table.table_id, index) == ("t1", 0) and not table.seats[0].away
    with pytest.raises(Exception, match="no seat is bound"):
        second.resume_key("SHA256:someone-else", InProcessTable(member.name, lobby=second))
    second.close(forget=True)  # tables ended for good (nothanks host's own player left): nothing comes back
    third = Lobby(settings(tmp_path))
    assert third.tables() == [] and third.store.seat_for_key("SHA256:alice-key") is None
    third.close()


class FailingStore(SqliteStore):
    """A store whose disk fills up on demand."""

    fail = False

    def add_moves(self, moves) -> None:
        if self.fail:
            raise StoreError("disk full")
        super().add_moves(moves)


async def test_a_move_the_store_cannot_keep_is_not_played_and_nobody_sees_it():
    store = FailingStore()
    lobby = Lobby(settings(None), store=store)
    _, conn = await seated(lobby, "alice", bots=1)
    await conn.start_game()
    update = await next_matching(conn, lambda e: is_update(e) and e.view.my_turn)
    store.fail = True
    await conn.send_action(Action.TAKE, update.view.state_id)
    refused = await next_matching(conn, lambda e: isinstance(e, Rejected))
    assert refused.code == "not_saved"
    table = lobby.table(update.table_id)
    assert table.state.state_id == update.view.state_id and table.state.hands == update.view.hands
    store.fail = False
    await conn.send_action(Action.TAKE, update.view.state_id)
    moved = await next_matching(conn, is_update)
    assert moved.view.state_id == update.view.state_id + 1
    lobby.close()


async def test_moves_of_many_tables_accepted_together_go_to_the_disk_in_one_commit():
    store = SqliteStore()
    for number in (1, 2, 3):
        seats = (StoredSeat("a", token_hash=b"x"), StoredSeat("b", token_hash=b"y"))
        store.create_table(StoredTable(f"t{number}", 2, False, "standard", "rules", None, seats))
        store.start_game(f"t{number}", 1, number, 0.0)
    commits = GroupCommit(store)
    heard: list[tuple[str, object]] = []
    all_heard = asyncio.Event()

    def done(table_id: str):
        def call(error) -> None:
            heard.append((table_id, error))
            if len(heard) == 3:
                all_heard.set()

        return call

    store.drop_table("t3")  # dropped while its move waits: nothing of it is kept
    for number in (1, 2, 3):
        commits.add(StoredMove(f"t{number}", 1, 0, 0, "pass"), done(f"t{number}"))
    assert heard == []  # nothing is durable yet, so nobody hears of it
    await asyncio.wait_for(all_heard.wait(), WAIT)
    assert heard == [("t1", None), ("t2", None), ("t3", None)]
    assert (commits.commits, commits.moves) == (1, 3)
    assert {t.table_id: t.moves for t in store.load_tables()} == {"t1": ((0, "pass"),), "t2": ((0, "pass"),)}


def test_one_data_dir_serves_one_host_at_a_time(tmp_path):
    first = Lobby(settings(tmp_path))
    with pytest.raises(StoreError, match="another running nothanks host"):
        Lobby(settings(tmp_path))
    first.close()  # (a killed host's lock goes with its process)
    Lobby(settings(tmp_path)).close()


class Watcher:
    """A spectator's member: keeps every update."""

    name = "eve"

    def __init__(self) -> None:
        self.updates: asyncio.Queue[TableUpdate] = asyncio.Queue()

    def deliver(self, event) -> None:
        if isinstance(event, TableUpdate):
            self.updates.put_nowait(event)


async def test_after_a_restart_the_away_players_turn_timer_runs_again_and_a_stand_in_plays(tmp_path):
    first = Lobby(settings(tmp_path))
    _, conn = await seated(first, "alice", bots=1)
    await conn.start_game()
    before = await next_matching(conn, lambda e: is_update(e) and e.view.my_turn)
    first.close()
    second = Lobby(settings(tmp_path, turn_timer=0.01))
    table = second.table(before.table_id)
    watcher = Watcher()
    table.spectate(watcher)
    second.start()  # nobody resumes alice's seat: her turn timer runs out and a bot plays for her
    moved = await asyncio.wait_for(watcher.updates.get(), WAIT)
    while moved.view.state_id == before.view.state_id:
        moved = await asyncio.wait_for(watcher.updates.get(), WAIT)
    assert moved.view.moves[before.view.state_id].seat == 0 and moved.seats[0].away
    second.close()


async def test_a_restart_keeps_the_coach_option_and_a_bot_playing_for_who_left_until_they_come_back(tmp_path):
    first = Lobby(settings(tmp_path))
    first.start()
    _alice, alice_conn = await seated(first, "alice", players=3, bots=1, coach=True)
    table_id = first.tables()[0].table_id
    bob = InProcessLobby(first, "bob")
    await bob.start()
    bob_conn = await bob.join(table_id)
    bob_seat = first.table(table_id).members[bob_conn]
    await alice_conn.start_game()
    token = bob_conn.seat_token
    await bob_conn.close()  # bob leaves the game on purpose: a bot plays his seat at once
    await next_matching(alice_conn, lambda e: is_update(e) and e.seats[bob_seat].left)
    first.close()

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        table = second.table(table_id)
        assert table.settings.coach  # the table still lets its players ask the coach
        seat = table.seats[bob_seat]
        assert seat.left and seat.stand_in is not None and seat.away  # still bob's, still a bot's until he is back
        assert second.tables()[0].seats[bob_seat].left
        back = await (await lobby_player_of(second, "bob")).resume(token)
        await next_matching(back, is_update)
        assert seat.stand_in is None and not seat.left
    finally:
        second.close()
    third = Lobby(settings(tmp_path))  # and his coming back is kept too: no bot in his place after a restart
    try:
        assert third.table(table_id).seats[bob_seat].stand_in is None
    finally:
        third.close()


async def lobby_player_of(lobby: Lobby, name: str) -> InProcessLobby:
    player = InProcessLobby(lobby, name)
    await player.start()
    return player


async def test_a_restart_keeps_the_running_match_of_the_games_the_table_finished(tmp_path):
    first = Lobby(settings(tmp_path))
    first.start()
    _, conn = await seated(first, "alice", players=2, bots=1)
    await conn.start_game()
    finished = await play_moves(conn, 500)
    assert finished.view.finished and finished.match is not None and finished.match.games == 1
    await conn.play_again()
    await play_moves(conn, 2)  # the second game is under way when the host stops
    table_id = finished.table_id
    first.close()

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        totals = second.table(table_id).recorder.match.totals()
        assert totals == finished.match  # the first game still counts in the match
    finally:
        second.close()


def test_a_data_dir_that_is_a_file_is_said_so(tmp_path):
    taken = tmp_path / "a-file"
    taken.write_text("")
    with pytest.raises(StoreError, match=f"^{taken}: not a directory"):
        SqliteStore(taken / "nothanks.sqlite3")


async def test_a_table_its_creator_its_bots_and_the_table_closed_for_room_are_one_commit_or_none():
    class CountingStore(FailingStore):
        def __init__(self) -> None:
            super().__init__()
            self.commits = 0
            self._sqlite.set_trace_callback(self.traced)

        def traced(self, statement: str) -> None:
            self.commits += statement == "COMMIT"

        def create_table(self, table) -> None:
            super().create_table(table)
            if self.fail:
                raise sqlite3.OperationalError("disk I/O error")  # (after its writes: they must not be kept)

    store = CountingStore()
    lobby = Lobby(settings(None, max_tables=1), store=store)
    await seated(lobby, "alice", players=3, bots=2)
    before = store.commits
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    await bob.create_table(NewTable(players=4, bots=3))  # alice's unplayed table closes for it
    assert store.commits == before + 1
    assert [(t.table_id, len([s for s in t.seats if s])) for t in store.load_tables()] == [("t2", 4)]
    store.fail = True
    carol = InProcessLobby(lobby, "carol")
    await carol.start()
    with pytest.raises(Exception) as refused:
        await carol.create_table(NewTable(players=2, bots=1))
    assert getattr(refused.value, "code", None) == "not_saved"
    assert [t.table_id for t in lobby.all_tables()] == ["t2"] and [t.table_id for t in store.load_tables()] == ["t2"]
    lobby.close()
