"""The coach over SSH: a table created with the coach ticked says so, and c on your turn shows the advice."""

from __future__ import annotations

from tools.loadgen.terminal_client import TerminalClient


async def test_a_coach_table_over_ssh_answers_i_on_your_turn(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "alice")
    await client.wait_for("Your name at the table")
    client.send("\r")
    await client.wait_for("No tables yet")
    client.send("c")
    await client.wait_for("New table")
    client.send("\t\t\t\t\t ")  # players, bots now, variant, clock, open chips (no level field here), tick the coach
    await client.wait_for("[✓] Coach")
    client.send("\x13")  # ctrl+s: create
    await client.wait_for("waiting for players (coach)")
    client.send("b")
    await client.wait_for("seat 2:")
    client.send("b")
    await client.wait_for("press s to start")
    client.send("s")
    await client.wait_for("Your turn")
    assert "coach" in client.text().splitlines()[0]  # the title bar says so, for everyone at the table
    client.send("i")
    await client.wait_for("◀ coach: ≈", timeout=20)  # written after the choice the bot would play
    await client.close()
