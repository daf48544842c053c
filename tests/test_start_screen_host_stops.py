"""Stopping a game hosted from the start screen ends its tables, as its dialog says ("leaving stops it and ends the
game for everyone who joined") and as ``nothanks host`` does when its player leaves.

Seen in tmux: root hosted from the start screen, eve and gus joined with ``nothanks join``, a few cards were played,
root stopped the host (q, y) and hosted again on the same port. The stopped game came back from the data dir, a bot
playing root's seat, while root sat alone at a new table: eve's ``nothanks join`` took her back into the old game,
so the three of them were at two tables, the host at neither with them.
"""

from __future__ import annotations

from nothanks_tui.client.launchers import HostChoice
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.link import NewTable


async def test_hosting_again_after_stopping_does_not_bring_back_the_stopped_tables(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    launchers = LocalLaunchers(bot_pace=0, advertise=False)
    choice = HostChoice(name="root", port=0, table=NewTable(players=3, bots=1), bind="127.0.0.1")
    first = await launchers.host_game(choice)
    await first.table.start_game()
    await first.close("the host was stopped")

    again = await launchers.host_game(choice)
    try:
        tables = await again.lobby.list_tables()
        assert [summary.started for summary in tables] == [False]  # the new table alone
    finally:
        await again.close("the host was stopped")
