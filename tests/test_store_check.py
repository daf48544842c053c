"""A store that cannot vanish in silence (issue 31): deleted, replaced, made immutable or failing its writes under a
running host, it is said in the log within 5 s and to every player, moves wait (``not_saved``), the host never
dies of it, and nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import time

import pytest

from nothanks_server import Lobby
from nothanks_server.store import DATABASE_NAME, SqliteStore, StoreDown
from nothanks_tui.engine import Action
from nothanks_tui.link import Rejected

from .net_helpers import WAIT
from .test_host_table import is_update, next_matching
from .test_store import seated, settings
from .test_store_restart import check_restored, start_server, stop, two_players_mid_game


async def at_my_turn(lobby: Lobby):
    _, conn = await seated(lobby, "alice", bots=1)
    await conn.start_game()
    return conn, await next_matching(conn, lambda e: is_update(e) and e.view.my_turn)


async def refused_then_played(conn, update, lobby: Lobby, put_back) -> None:
    """The move is refused (``not_saved``) and the table stays; once ``put_back()`` and a check, it is played."""
    await conn.send_action(Action.TAKE, update.view.state_id)
    refused = await next_matching(conn, lambda e: isinstance(e, Rejected))
    assert refused.code == "not_saved"
    assert lobby.table(update.table_id).state.state_id == update.view.state_id
    put_back()
    await lobby.check_store()
    await conn.send_action(Action.TAKE, update.view.state_id)
    assert (await next_matching(conn, is_update)).view.state_id == update.view.state_id + 1


async def test_a_store_moved_away_is_said_once_refuses_moves_is_copied_and_play_goes_on_once_it_is_back(
    tmp_path, caplog
):
    lobby = Lobby(settings(tmp_path))
    lobby.start()
    conn, update = await at_my_turn(lobby)
    path = tmp_path / DATABASE_NAME
    os.rename(path, tmp_path / "elsewhere")
    await lobby.check_store()
    await lobby.check_store()
    told = await next_matching(conn, lambda e: isinstance(e, Rejected))
    assert told.code == "not_saved" and "deleted" in told.message
    assert caplog.text.count("the store cannot keep the games") == 1
    (rescued,) = tmp_path.glob(DATABASE_NAME + ".rescued-*")  # what it held, for whoever moves it back
    copy = SqliteStore(rescued, host=False)
    assert [t.table_id for t in copy.load_tables()] == [update.table_id]
    assert len(copy.load_tables()[0].moves) == update.view.state_id
    copy.close()
    await refused_then_played(conn, update, lobby, lambda: os.rename(tmp_path / "elsewhere", path))
    assert "takes changes again" in caplog.text
    lobby.close()


async def test_a_store_whose_writes_fail_refuses_moves_until_they_work_again(tmp_path):
    store = SqliteStore(tmp_path / DATABASE_NAME)
    lobby = Lobby(settings(tmp_path), store=store)
    lobby.start()
    conn, update = await at_my_turn(lobby)

    class Failing:
        def execute(self, *_: object) -> None:
            raise sqlite3.OperationalError("disk I/O error")

    real, store._sqlite = store._sqlite, Failing()
    await lobby.check_store()
    assert "disk I/O error" in (store.broken or "")
    await next_matching(conn, lambda e: isinstance(e, Rejected) and e.code == "not_saved")

    def put_back() -> None:
        store._sqlite = real

    await refused_then_played(conn, update, lobby, put_back)
    assert store.broken is None
    lobby.close()


def chattr(flag: str, path) -> None:
    subprocess.run(["chattr", flag, str(path)], check=True, capture_output=True)


def can_chattr(tmp_path) -> bool:
    probe = tmp_path / "probe"
    probe.touch()
    try:
        chattr("+i", probe)
        chattr("-i", probe)
    except (OSError, subprocess.CalledProcessError):
        return False
    return shutil.which("chattr") is not None


async def log_line(process, words: str) -> float:
    """Seconds until the host's log (stderr) says ``words``."""
    started = time.monotonic()
    while words not in (await asyncio.wait_for(process.stderr.readline(), WAIT)).decode():
        pass
    return time.monotonic() - started


@pytest.mark.parametrize("how", ["deleted", "immutable"])
async def test_a_real_host_says_a_store_deleted_or_made_immutable_within_5_s_and_loses_nothing(tmp_path, how):
    if how == "immutable" and not can_chattr(tmp_path):
        pytest.skip("chattr +i is not available here (root on ext4 or alike)")
    data = tmp_path / "data"
    path = data / DATABASE_NAME
    process, port = await start_server(data)
    try:
        alice, bob, tokens, before, table_id = await two_players_mid_game(port)
        mover = alice if before["to_move"] == before["seat"] else bob
        if how == "deleted":
            path.unlink()
        else:
            chattr("+i", f"{path}-shm")  # (SQLite's mmap'd shared memory: the host once died of SIGBUS here)
        assert await log_line(process, "the store cannot keep the games") < 5.0
        for player in (alice, bob):  # every player is told
            await player.until(lambda f: f.get("type") == "error" and f["code"] == "not_saved")
        await mover.send({"type": "action", "action": "take", "state_id": before["state_id"]})
        refused = await mover.until(lambda f: f.get("type") in ("error", "update"))
        assert refused["type"] == "error" and refused["code"] == "not_saved"
        if how == "immutable":
            chattr("-i", f"{path}-shm")
            await log_line(process, "takes changes again")
        process.terminate()
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        assert "Fatal Python error" not in (await process.stderr.read()).decode()
        if how == "deleted":
            (rescued,) = data.glob(DATABASE_NAME + ".rescued-*")
            for journal in ("-wal", "-shm"):
                os.remove(f"{path}{journal}")
            os.rename(rescued, path)
        process, port = await start_server(data)
        await check_restored(port, tokens, before, table_id)
    finally:
        if how == "immutable":
            subprocess.run(["chattr", "-i", f"{path}-shm"], capture_output=True)
        await stop(process)


def test_without_a_check_nothing_touches_a_store_whose_file_is_gone(tmp_path):
    store = SqliteStore(tmp_path / DATABASE_NAME)
    os.remove(tmp_path / DATABASE_NAME)
    with pytest.raises(StoreDown, match="deleted"):
        store.bind_key("SHA256:x", "t1", 0)  # refused before SQLite writes to a file nobody will find again
    store.close()
