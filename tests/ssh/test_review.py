"""The review over SSH (issue 30): the SSH player's app (the client's, in the worker) grades their own finished game
when they press v on the score screen."""

from __future__ import annotations

import pytest

from nothanks_tui.bots import review
from tools.loadgen.terminal_client import TerminalClient
from tools.loadgen.visitors import FIRST_BOT_SEAT, my_turn, play_my_turn


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    monkeypatch.setattr(review, "BUDGETS", {True: (300, 3_000, 1_000), False: (100, 1_000, 300)})


async def test_v_on_the_score_screen_over_ssh_shows_the_review(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "alice")
    for keys, shown in [
        ("", "Your name at the table"),
        ("\r", "No tables yet"),
        ("c", "New table"),
        ("\x13", "waiting for players"),
        ("b", FIRST_BOT_SEAT),
        ("b", "press s to start"),
        ("s", "You: 11 chips"),
    ]:
        client.send(keys)
        await client.wait_for(shown)
    while "Game over" not in client.text():
        await client.wait_for(lambda: my_turn(client) or "Game over" in client.text(), timeout=30)
        if my_turn(client):
            await play_my_turn(client, timeout=10)
    await client.wait_for("v Review")
    client.send("v")
    await client.wait_for("Review of your game")
    await client.wait_for("decisions graded", timeout=30)
    assert "Move " in client.text()
    await client.close()
