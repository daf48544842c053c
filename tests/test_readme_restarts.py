"""What the README says about restarts and restored tables, held to what a restarted host does (issue 29, defect
22: the README said a restored table had no coach; it has one)."""

from __future__ import annotations

import re
from pathlib import Path

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable

from .net_helpers import live_host

README = (Path(__file__).parent.parent / "README.md").read_text()


def paragraph_of(words: str) -> str:
    """The README's list item or paragraph holding ``words``, on one line."""
    for block in re.split(r"\n(?=- |\n)", README):
        flat = " ".join(block.split())
        if words in flat:
            return flat
    raise AssertionError(f"the README no longer says {words!r}")


async def test_a_restored_table_keeps_its_coach_as_the_readme_says(tmp_path):
    first = Lobby(LobbySettings(data_dir=tmp_path, bot_delay=0, turn_timer=None, seed=5))
    alice = InProcessLobby(first, "alice")
    await alice.start()
    await (await alice.create_table(NewTable(players=2, bots=1, coach=True))).start_game()
    first.close()
    async with live_host(data_dir=tmp_path) as host:  # the same data dir, a new host: a restart
        eve = TcpLobby("127.0.0.1", host.port, "eve")
        await eve.start()
        (table,) = await eve.list_tables()
        assert table.coach  # the lobby's list (and the table) still offer the coach
        await eve.close()
    coach = paragraph_of("`nothanks host --coach` for the host's own table")
    assert "has no coach" not in coach
    assert "a table brought back after a restart keeps it" in coach


def test_the_readme_says_seats_come_back_per_name():
    restarts = paragraph_of("Games in progress come back at their last move")
    assert "with the same `--name`" in restarts
