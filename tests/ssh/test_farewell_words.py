"""An SSH player reads the host's words in their own language (issue 29, defect 9): the history's title said
"Parties terminées sur this host over SSH", and the restart's goodbye was always English and told a player with no
seat (in the lobby, or watching) that their seat was kept; nor does it tell one who came in without a key (a
password player at a table read "your seat and your game are kept", then found the seat given back only to "the SSH
key or the computer that took it")."""

from __future__ import annotations

import asyncssh

from nothanks_server.host import RESTART_REASON
from tools.loadgen.terminal_client import TerminalClient


def test_the_seated_goodbye_is_the_hosts_restart_reason():
    from nothanks_server.ssh.game import RESTART_SEATED

    assert RESTART_SEATED == RESTART_REASON  # (the worker tells the seated apart by it)


async def test_the_history_title_is_all_in_the_players_language(game_sessions):
    french = await TerminalClient().connect(game_sessions.port, "amelie", env={"LANG": "fr_FR.UTF-8"})
    await french.wait_for("Votre nom à la table")
    french.send("\r")
    await french.wait_for("Pas encore de table")
    french.send("h")
    await french.wait_for("Parties terminées sur cet hôte par SSH")
    await french.close()


async def test_a_restart_says_goodbye_in_each_players_language_and_only_the_seated_hear_of_a_seat(game_sessions):
    watching = await TerminalClient().connect(game_sessions.port, "amelie", env={"LANG": "fr_FR.UTF-8"})
    key = asyncssh.generate_private_key("ssh-ed25519")
    seated = await TerminalClient().connect(game_sessions.port, "bea", env={"LANG": "es_ES.UTF-8"}, client_keys=[key])
    keyless = await TerminalClient().connect(game_sessions.port, "cleo", env={"LANG": "es_ES.UTF-8"})
    for client, lobby in ((watching, "Pas encore de table"), (seated, "Aún no hay mesas"), (keyless, "Aún no hay")):
        await client.wait_for("No Thanks!")
        client.send("\r")
        await client.wait_for(lobby)
    for client in (seated, keyless):
        client.send("c")  # a new table, as the dialog offers it
        await client.wait_for("Crear")
        client.send("\x13")  # Ctrl-S: create
        await client.wait_for("esperando")
    await game_sessions.close(RESTART_REASON)
    said = {}
    for client in (watching, seated, keyless):
        assert await client.wait_closed() == 0
        said[client] = "No Thanks!: " + bytes(client.raw).decode(errors="replace").rsplit("No Thanks!: ", 1)[-1]
    assert said[watching].startswith("No Thanks!: l'hôte redémarre"), said[watching]
    assert "place" not in said[watching]
    assert said[seated].startswith("No Thanks!: el anfitrión se reinicia") and "asiento" in said[seated]
    assert said[keyless].startswith("No Thanks!: el anfitrión se reinicia") and "asiento" not in said[keyless]
