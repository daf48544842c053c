"""Over SSH each player reads the language their client sends (``SendEnv LANG LC_*``), two players in one worker
at once in two languages, and Ctrl-L on the name screen changes it for that player only."""

from __future__ import annotations

from nothanks_server.ssh.patches import KEPT_VARIABLES
from tools.loadgen.terminal_client import TerminalClient


def test_the_locale_variables_are_kept_from_what_a_client_sends():
    assert {b"LANG", b"LC_ALL", b"LC_MESSAGES"} <= KEPT_VARIABLES


async def test_each_session_reads_the_language_its_client_sends(game_sessions):
    french = await TerminalClient().connect(game_sessions.port, "amelie", env={"LANG": "fr_FR.UTF-8"})
    spanish = await TerminalClient().connect(game_sessions.port, "bea", env={"LC_MESSAGES": "es_ES.UTF-8"})
    english = await TerminalClient().connect(game_sessions.port, "carl", env={"LANG": "C.UTF-8"})
    await french.wait_for("Votre nom à la table")
    await spanish.wait_for("Tu nombre en la mesa")
    await english.wait_for("Your name at the table")
    await french.wait_for("Aller aux tables")  # the footer, in the session's language
    await spanish.wait_for("Ir a las mesas")
    french.send("\r")
    spanish.send("\r")
    await french.wait_for("Pas encore de table")
    await spanish.wait_for("Aún no hay mesas")
    assert "Rejoindre" in french.text() and "Unirse" in spanish.text()  # (the key bar squeezes the longest labels)
    for client in (french, spanish, english):
        await client.close()


async def test_ctrl_l_on_the_name_screen_changes_only_that_players_language(game_sessions):
    first = await TerminalClient().connect(game_sessions.port, "dora")
    second = await TerminalClient().connect(game_sessions.port, "ezra")
    await first.wait_for("Your name at the table")
    await second.wait_for("Your name at the table")
    first.send("\x0c")  # Ctrl-L: French
    await first.wait_for("Votre nom à la table")
    first.send("\x0c")  # Spanish
    await first.wait_for("Tu nombre en la mesa")
    assert "dora" in first.text()  # the name typed so far stays
    second.send("\r")
    await second.wait_for("No tables yet")
    first.send("\r")
    await first.wait_for("Aún no hay mesas")
    for client in (first, second):
        await client.close()
