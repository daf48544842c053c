"""``nothanks daily`` (issue 30): today's deal from this install's own secret, once a day, ranked against the
player's own past days."""

from __future__ import annotations

import asyncio
import random
import stat

from nothanks_server.inprocess import SoloGame, solo_table
from nothanks_tui import cli, paths
from nothanks_tui.commands.daily import DailyBook
from nothanks_tui.engine import Action, new_game
from nothanks_tui.link import Rejected, TableUpdate
from nothanks_tui.link.daily import daily_seed, today


def test_the_book_deals_each_day_once_and_ranks_the_players_own_days(tmp_path):
    path = tmp_path / "daily.json"
    book = DailyBook(path)
    seed = book.start("2026-12-01")
    assert seed == daily_seed(book.secret, "2026-12-01")
    assert book.start("2026-12-01") is None  # started: played
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the secret is the player's alone
    book.finish("2026-12-01", 40)
    for day, score in (("2026-12-02", 25), ("2026-12-03", 40)):
        book.start(day)
        book.finish(day, score)
    book.start("2026-12-04")  # left midway: counted as played, not ranked
    again = DailyBook(path)  # (kept across runs)
    assert again.secret == book.secret and again.start("2026-12-02") is None
    assert again.summary("2026-12-03") == [
        "No Thanks! daily 2026-12-03 · 40 points · =2nd of 3 · ▓░░",
        "Your days: 3; best 25 points (2026-12-02); average 35.0.",
    ]
    assert DailyBook(tmp_path / "other.json").secret != book.secret  # another install deals another deal


def test_a_second_daily_the_same_day_is_refused_before_any_game(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "data_dir", lambda: tmp_path)
    book = DailyBook(tmp_path / "daily.json")
    book.start(today())
    book.finish(today(), 33)
    assert cli.main(["daily", "--lang", "en"]) == 1
    out = capsys.readouterr().out
    assert "played today's deal already" in out and f"daily {today()} · 33 points · 1st of 1 · ▓▓▓" in out


async def test_the_local_daily_table_deals_the_days_seed_and_never_deals_again():
    seed = daily_seed(b"an install", "2026-12-04")
    connection = solo_table(SoloGame(3, "rules", "ann", seed, bot_pace=0, coach=False, daily=True))
    table = connection.table
    await connection.start()
    expected = new_game(table.config, table_rng_deal_seed(seed))
    assert (table.state.deck, table.state.removed) == (expected.deck, expected.removed)
    while True:
        event = await asyncio.wait_for(connection.next_event(), 10)
        if isinstance(event, TableUpdate) and event.view.finished:
            break
        if isinstance(event, TableUpdate) and event.view.my_turn:
            await connection.send_action(Action.TAKE, event.view.state_id)
    await connection.play_again()
    refused = await asyncio.wait_for(connection.next_event(), 10)
    while not isinstance(refused, Rejected):
        refused = await asyncio.wait_for(connection.next_event(), 10)
    assert refused.code == "daily_played"
    await connection.close()


def table_rng_deal_seed(seed: int) -> int:
    """The deal's seed a table dealt from ``seed`` draws (its rng's first draw: the bots are seeded apart)."""
    return random.Random(seed).randrange(2**63)
