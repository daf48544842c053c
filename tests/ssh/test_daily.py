"""The daily deal over SSH (issue 30), in French: ``d`` in the lobby, ``p`` plays it, leaving midway counts as
having played it, and back in the lobby the ranking shows where the player stands."""

from __future__ import annotations

import asyncssh

from nothanks_tui.link.daily import today
from tools.loadgen.terminal_client import TerminalClient


async def test_a_french_ssh_player_plays_the_daily_deal_and_leaving_midway_counts(game_sessions):
    key = asyncssh.generate_private_key("ssh-ed25519")  # (a guest cannot play the daily deal)
    client = await TerminalClient().connect(
        game_sessions.port, "amelie", env={"LANG": "fr_FR.UTF-8"}, client_keys=[key]
    )
    await client.wait_for("Votre nom à la table")
    client.send("\r")
    await client.wait_for("Pas encore de table")
    assert "d Jour" in client.text()
    client.send("d")
    await client.wait_for("Appuyez sur p pour la jouer")
    client.send("p")
    await client.wait_for("À vous de jouer")
    assert game_sessions.lobby.tables() == []  # nobody else sees it
    client.send("q")
    await client.wait_for("Quitter cette partie ?")
    client.send("y")
    await client.wait_for(lambda: "Vous avez commencé" in client.text() or "à partager" in client.text())
    assert game_sessions.lobby.store.daily_entry(today(), "amelie") is not None
    client.send("p")  # played: no second try
    client.send("q")
    await client.wait_for("Pas encore de table")
    assert sum(1 for table in game_sessions.lobby.all_tables() if table.table_id.startswith("d")) <= 1
    await client.close()
