"""The daily deal at a host (issue 30): the same deal for everyone on a host and day, never twice for a player,
never sent to a client (nor shown in the lobby before it is played), ranked right, kept across a restart."""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path

import pytest

from nothanks_server.lobby import Lobby, LobbySettings
from nothanks_server.store import SqliteStore
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.engine.scoring import score
from nothanks_tui.i18n import use_language
from nothanks_tui.link import LobbyError
from nothanks_tui.link.daily import Ranked, bar, daily_seed, place_text, rank, share_line, today
from nothanks_tui.link.identity import Identity
from nothanks_tui.link.wire import encode

from .net_helpers import RawClient, live_host, of_type
from .test_host_wire import cards_shown, walk

KEYS = Path(tempfile.mkdtemp(prefix="nothanks-daily-keys-"))  # (a guest cannot play the daily deal)


async def play_daily(client: RawClient, request_id: int = 1) -> tuple[str, dict]:
    """``client`` plays today's deal to its end (taking every card); returns its table and final view."""
    await client.send({"type": "daily", "id": request_id})
    joined = await client.until(of_type("joined"))
    assert joined["seat"] == 0 and joined["token"]
    first = [frame for frame in client.frames if frame.get("type") == "update"][-1:]  # (the deal may come first)
    while True:
        view = (first.pop() if first else await client.until(of_type("update")))["view"]
        if view["finished"]:
            return joined["table"], view
        if view["to_move"] == view["seat"]:
            await client.send({"type": "action", "action": "take", "state_id": view["state_id"]})


def keyed(name: str) -> Identity:
    """A player's key, one per name (made once in a temporary dir for the whole test run)."""
    return Identity.load(KEYS / f"{name}.key")


def my_score(view: dict) -> int:
    return score(view["hands"][view["seat"]], view["chips"][view["seat"]])


def test_the_seed_is_the_days_and_the_hosts():
    day = "2026-12-04"
    assert daily_seed(b"host one", day) == daily_seed(b"host one", day)
    assert daily_seed(b"host one", day) != daily_seed(b"host one", "2026-12-05")
    assert daily_seed(b"host one", day) != daily_seed(b"host two", day)
    assert len({SqliteStore().daily_secret() for _ in range(3)}) == 3  # a secret per host (store)
    store = SqliteStore()
    assert store.daily_secret() == store.daily_secret()  # made once, then kept
    assert today(datetime.datetime(2026, 12, 4, 23, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-3)))) == (
        "2026-12-05"  # the day is UTC's
    )


async def test_two_players_get_the_same_deal_and_bots_and_nobody_sees_it_first(tmp_path):
    async with live_host(data_dir=tmp_path, seed=None) as host:
        alice = await RawClient.connect(host.port, "alice", key=keyed("alice"))
        bob = await RawClient.connect(host.port, "bob", key=keyed("bob"))
        table_a, view_a = await play_daily(alice)
        tables = host.lobby._tables
        state = tables[table_a].state
        # Bob in the lobby while alice's game is on, and after: nothing tells him the deal.
        await bob.send({"type": "list_tables", "id": 5})
        assert (await bob.until(of_type("tables")))["tables"] == []
        for message in ({"type": "join", "table": table_a}, {"type": "spectate", "table": table_a}):
            await bob.send({**message, "id": 6})
            assert (await bob.until(of_type("error")))["code"] == "no_table"
        await bob.send({"type": "replay", "game": table_a, "id": 7})
        assert (await bob.until(of_type("error")))["code"] == "no_game"
        await bob.send({"type": "daily_ranking", "id": 8})
        ranking = await bob.until(of_type("daily_ranking"))
        assert ranking["count"] == 1 and ranking["you"] is None and not ranking["played"]
        assert ranking["top"] == [[1, False, "alice", my_score(view_a)]]
        table_b, view_b = await play_daily(bob, 9)
        other = tables[table_b].state
        assert table_a != table_b and (state.deck, state.removed, state.first_player) == (
            other.deck,
            other.removed,
            other.first_player,
        )
        seats_a, seats_b = tables[table_a].seats, tables[table_b].seats
        assert [(s.bot_kind, s.bot_seed) for s in seats_a[1:]] == [(s.bot_kind, s.bot_seed) for s in seats_b[1:]]
        assert seats_a[1].bot_kind == "medium" and seats_a[1].bot_seed is not None
        assert view_a["hands"] == view_b["hands"]  # the same bots played the same game against the same moves
        needles = [encode(state.seed), str(state.seed).encode(), encode(list(state.deck)), encode(list(state.removed))]
        for client in (alice, bob):
            assert not any(needle in client.received for needle in needles)
            for frame in client.frames:
                assert not {"seed", "deck", "removed", "first_player"} & {s for s in walk(frame) if isinstance(s, str)}
                if frame.get("type") == "update":
                    view = frame["view"]
                    taken = view["state_id"] and sum(1 for m in view["moves"] if m[1] == "take")
                    assert not cards_shown(view) & set(state.removed)
                    assert cards_shown(view) <= set(state.deck[: taken + 1])
        await alice.close()
        await bob.close()


async def test_a_second_try_the_same_day_is_refused_even_after_leaving_midway():
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice", identity=keyed("alice"))
        await alice.start()
        table = await alice.daily()
        await table.close()  # leaves at once
        with pytest.raises(LobbyError) as refused:
            await alice.daily()
        assert refused.value.code == "daily_played"
        await alice.close()
        again = await RawClient.connect(host.port, "alice", key=keyed("alice"))  # another connection, the same player
        await again.send({"type": "daily", "id": 3})
        error = await again.until(of_type("error"))
        assert error["code"] == "daily_played" and error["re"] == 3
        louder = await RawClient.connect(host.port, "ALICE", key=keyed("alice"))  # the same name, in capitals
        await louder.send({"type": "daily", "id": 4})
        assert (await louder.until(of_type("error")))["code"] == "daily_played"
        await louder.close()
        ranking = await TcpLobby_ranking(host.port, "alice")
        assert ranking.played and ranking.you is None  # started, never finished: not ranked
        await again.close()


async def TcpLobby_ranking(port: int, name: str):
    lobby = TcpLobby("127.0.0.1", port, name, identity=keyed(name))
    await lobby.start()
    try:
        return await lobby.daily_ranking()
    finally:
        await lobby.close()


async def test_a_guest_cannot_play_the_daily_deal():
    async with live_host() as host:
        guest = await RawClient.connect(host.port, "mallory")  # no key: a name anyone could take tomorrow
        await guest.send({"type": "daily", "id": 1})
        refused = await guest.until(of_type("error"))
        assert refused["code"] == "daily_needs_key" and refused["re"] == 1 and not refused.get("fatal")
        assert host.lobby.all_tables() == []
        await guest.close()


async def test_play_again_is_refused_at_a_daily_table():
    async with live_host() as host:
        alice = await RawClient.connect(host.port, "alice", key=keyed("alice"))
        await play_daily(alice)
        last = [frame for frame in alice.frames if frame.get("type") == "update"][-1]
        assert last["view"]["finished"] and not last["can_restart"]  # (so no "Play again" key is offered)
        await alice.send({"type": "play_again"})
        assert (await alice.until(of_type("error")))["code"] == "daily_played"
        await alice.close()


def test_the_ranking_of_a_known_set_of_results_with_ties():
    results = [("cy", 40), ("ana", 31), ("bo", 25), ("dee", 31), ("eve", 31), ("fay", 60)]
    assert rank(results) == [
        Ranked(1, False, "bo", 25),
        Ranked(2, True, "ana", 31),
        Ranked(2, True, "dee", 31),
        Ranked(2, True, "eve", 31),
        Ranked(5, False, "cy", 40),
        Ranked(6, False, "fay", 60),
    ]
    assert share_line("2026-12-04", Ranked(2, True, "dee", 31), 6) == (
        "No Thanks! daily 2026-12-04 · 31 points · =2nd of 6 · ▓▓░"
    )
    assert share_line("2026-12-04", Ranked(3, False, "x", 31), 57) == (
        "No Thanks! daily 2026-12-04 · 31 points · 3rd of 57 · ▓▓░"
    )
    line = Ranked(1, False, "x", 12)
    use_language("fr")
    try:
        assert share_line("2026-12-04", line, 57) == "No Thanks! donne du 2026-12-04 · 12 points · 1er sur 57 · ▓▓▓"
        assert place_text(Ranked(3, True, "x", 31)) == "=3e"
        use_language("es")
        assert share_line("2026-12-04", line, 57) == "No Thanks! reparto del 2026-12-04 · 12 puntos · 1.º de 57 · ▓▓▓"
    finally:
        use_language("en")
    assert [place_text(Ranked(n, False, "x", 1)) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == (
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
    )
    assert [bar(place, 7) for place in range(1, 8)] == ["▓▓▓", "▓▓░", "▓▓░", "▓░░", "▓░░", "░░░", "░░░"]
    assert bar(1, 1) == "▓▓▓" and bar(11, 12) == "░░░"
    lobby = Lobby(LobbySettings())
    day = today()
    for number, (name, points) in enumerate(results):
        assert lobby.store.daily_start(day, name, f"d{number}", 0.0)
        lobby.store.daily_finish(f"d{number}", points, 1.0)
    assert not lobby.store.daily_start(day, "ana", "d99", 0.0)  # once a day
    lobby.store.daily_start(day, "gus", "d50", 0.0)  # started, not finished: not ranked
    ranking = lobby.daily_ranking("eve")
    assert ranking["count"] == 6 and ranking["you"] == [2, True, "eve", 31] and ranking["played"]
    assert [line[2] for line in ranking["top"]] == ["bo", "ana", "dee", "eve", "cy", "fay"]
    assert lobby.daily_ranking("gus")["played"] and lobby.daily_ranking("gus")["you"] is None
    assert not lobby.daily_ranking("hal")["played"]
    lobby.close()


async def test_a_restart_keeps_the_results_and_the_secret(tmp_path):
    async with live_host(data_dir=tmp_path) as host:
        alice = await RawClient.connect(host.port, "alice", key=keyed("alice"))
        _table, view = await play_daily(alice)
        secret = host.lobby.store.daily_secret()
        await alice.close()
    async with live_host(data_dir=tmp_path) as host:
        assert host.lobby.store.daily_secret() == secret
        assert host.lobby.daily_ranking("alice")["you"] == [1, False, "alice", my_score(view)]
        alice = await RawClient.connect(host.port, "alice", key=keyed("alice"))
        await alice.send({"type": "daily", "id": 2})
        assert (await alice.until(of_type("error")))["code"] == "daily_played"
        await alice.close()
