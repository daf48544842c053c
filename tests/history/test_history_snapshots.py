"""SVG snapshots at 80x24 of the replay (mid-game, and its end with what was hidden) and of the history list.

Update after an intended change with ``pytest tests/history/test_history_snapshots.py --snapshot-update`` and look
at the new SVGs before committing them.
"""

from __future__ import annotations

import time

import pytest

from nothanks_server.archive import LOCAL
from nothanks_server.history import StoreHistory, history_database
from nothanks_server.store import SqliteStore
from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.replaying import load_replay
from nothanks_tui.client.screens.history import HistoryScreen
from nothanks_tui.client.screens.replay import ReplayScreen

from ..client.ui_helpers import wait_until
from .records import finished_record

FINISHED = 1_700_000_000.0  # a fixed date: the title shows it (in the machine's time zone; CI runs in UTC)


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Dates in the snapshots are the same on every machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def four_player_replay():
    record = finished_record(["ann", "bob", "cy", "dee"], 12, bots=[False, True, True, True], finished_at=FINISHED)
    return load_replay(record)


def test_replay_mid_game(snap_compare):
    replay = four_player_replay()

    async def step(pilot):
        for _ in range(30):
            await pilot.press("n")

    assert snap_compare(HistoryApp(lambda: ReplayScreen(replay)), terminal_size=(80, 24), run_before=step)


def test_replay_at_the_end_shows_what_was_hidden(snap_compare):
    replay = four_player_replay()
    app = HistoryApp(lambda: ReplayScreen(replay, at_end=True))
    assert snap_compare(app, terminal_size=(80, 24))


def test_history_list(snap_compare, tmp_path):
    store = SqliteStore(history_database(tmp_path), host=False)
    for number in range(1, 31):
        names = ["you", "ana", "bo"] if number % 2 else ["you", "ana", "bo", "cy", "dee"]
        record = finished_record(names, number, bots=[False] + [True] * (len(names) - 1), finished_at=FINISHED + number)
        store.add_record("local-s", number, record, LOCAL)
    store.close()
    app = HistoryApp(lambda: HistoryScreen(StoreHistory(tmp_path)))

    async def listed(pilot):
        await wait_until(pilot, lambda: len(getattr(app.screen, "games", ())) == 30, "the games")

    assert snap_compare(app, terminal_size=(80, 24), run_before=listed)
