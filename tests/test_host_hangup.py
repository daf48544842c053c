"""``nothanks host`` hung up (SIGHUP: the terminal or the SSH connection it ran in went away) stops as it does on
SIGTERM: its players are told, its store is closed, its own terminal is given back (issue 17)."""

from __future__ import annotations

import re
import signal

from nothanks_server.store import SqliteStore

from .net_helpers import RawClient, of_type
from .test_terminal_signals import ALT_SCREEN_OFF, PtyGame


async def test_a_hung_up_host_tells_its_players_and_ends_cleanly(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    game = PtyGame(
        "host",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path / "data"),
        "--players",
        "2",
        "--name",
        "alice",
        env=env,
    )
    await game.wait_for(b"Others join with:")
    port = int(re.search(rb"Hosting on 127\.0\.0\.1:(\d+)\.", game.seen()).group(1))
    await game.wait_for(b"alice")  # the app is up, at alice's table
    bob = await RawClient.connect(port, "bob")
    await bob.send({"type": "list_tables", "id": 1})
    (listed,) = (await bob.until(of_type("tables")))["tables"]
    await bob.send({"type": "join", "table": listed["table"], "id": 2})
    await bob.until(of_type("joined"))
    mark = len(game.seen())
    game.process.send_signal(signal.SIGHUP)
    closing = await bob.until(of_type("closing"))
    assert "restarting" in closing["reason"]
    assert await game.finish() == 0
    after = game.seen()[mark:]
    assert ALT_SCREEN_OFF in after and b"Traceback" not in after
    assert b"nothanks host stopped." in after
    assert b"the host was stopped" not in after  # said once: the app's own lowercase farewell doubled it
    store = SqliteStore(tmp_path / "data" / "nothanks.sqlite3")  # closed and kept: the table, with bob's seat
    try:
        (table,) = store.load_tables()
        assert [seat.name for seat in table.seats if seat is not None] == ["alice", "bob"]
    finally:
        store.close()
