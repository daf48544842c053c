"""An SSH player reads the host's words in their own language (issue 29, defect 9): the history's title said
"Parties terminées sur this host over SSH", and the restart's goodbye was always English and told a player with no
seat (in the lobby, or watching) that their seat was kept."""

from __future__ import annotations

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
    seated = await TerminalClient().connect(game_sessions.port, "bea", env={"LANG": "es_ES.UTF-8"})
    for client, lobby in ((watching, "Pas encore de table"), (seated, "Aún no hay mesas")):
        await client.wait_for("No Thanks!")
        client.send("\r")
        await client.wait_for(lobby)
    seated.send("c")  # a new table, as the dialog offers it
    await seated.wait_for("Crear")
    seated.send("\x13")  # Ctrl-S: create
    await seated.wait_for("esperando")
    await game_sessions.close(RESTART_REASON)
    assert await watching.wait_closed() == 0 and await seated.wait_closed() == 0
    said_to_watching = "No Thanks!: " + bytes(watching.raw).decode(errors="replace").rsplit("No Thanks!: ", 1)[-1]
    said_to_seated = "No Thanks!: " + bytes(seated.raw).decode(errors="replace").rsplit("No Thanks!: ", 1)[-1]
    assert said_to_watching.startswith("No Thanks!: l'hôte redémarre"), said_to_watching
    assert "place" not in said_to_watching
    assert said_to_seated.startswith("No Thanks!: el anfitrión se reinicia") and "asiento" in said_to_seated
