"""A host's history over real sockets: lobby requests list its finished games, open their records and count its
players' statistics, and never open a game still being played (its record holds the deal)."""

from __future__ import annotations

import asyncio

import pytest

from nothanks_server.limits import ClientLimits
from nothanks_tui.client.replaying import load_replay
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.engine import Action, replay
from nothanks_tui.link import LobbyError, NewTable, TableUpdate, errors

from ..net_helpers import WAIT, RawClient, live_host


async def play_to_end(table) -> TableUpdate:
    """Take every card when it is our turn; the final update."""
    while True:
        event = await asyncio.wait_for(table.next_event(), WAIT)
        if isinstance(event, TableUpdate):
            if event.view.finished:
                return event
            if event.view.my_turn:
                await table.send_action(Action.TAKE, event.view.state_id)


async def test_a_finished_game_is_listed_opened_and_counted_over_tcp(tmp_path):
    async with live_host(data_dir=tmp_path, proxy_key="front-secret") as host:
        ann = TcpLobby("127.0.0.1", host.port, "ann", via="198.51.100.7", proxy_key="front-secret", key="SHA256:ann")
        await ann.start()
        table = await ann.create_table(NewTable(players=3, bots=2, bot="rules"))
        await table.start_game()
        final = await play_to_end(table)
        page = await ann.list_games()
        assert page.total == 1 and len(page.games) == 1
        [game] = page.games
        assert game.players[0] == "ann" and game.bots == (False, True, True)
        record = await ann.open_game(game.game_id)
        assert replay(record).hands == final.view.hands
        assert load_replay(record).final.hands == final.view.hands
        assert await table.game_record() == record  # "replay this game": the table's latest finished game
        stats = await ann.player_stats()
        mine = [row for row in stats if row.you]
        assert [(row.name, row.kind, row.games) for row in mine] == [("ann", "key", 1)]
        assert all(row.kind == "bot" for row in stats if not row.you)
        await ann.close()


async def test_a_game_in_progress_is_refused_and_unknown_games_too(tmp_path):
    async with live_host(data_dir=tmp_path, limits=ClientLimits(list_burst=50)) as host:
        ann = TcpLobby("127.0.0.1", host.port, "ann")
        await ann.start()
        table = await ann.create_table(NewTable(players=2, bots=1, bot="rules"))
        await table.start_game()
        table_id = table.table_id
        peeker = await RawClient.connect(host.port, "eve")
        for game in (table_id, f"{table_id}/1"):
            await peeker.send({"type": "replay", "game": game, "id": 5})
            reply = await peeker.next_frame()
            assert reply["type"] == "error" and reply["code"] == errors.NOT_FINISHED and reply["re"] == 5
        for game in (f"{table_id}/2", "t99/1", "t1/x", ""):
            await peeker.send({"type": "replay", "game": game, "id": 6})
            reply = await peeker.next_frame()
            assert reply["type"] == "error" and reply["code"] == errors.NO_GAME, reply
        await peeker.send({"type": "history", "id": 7})
        reply = await peeker.next_frame()
        assert reply == {"type": "history", "games": [], "total": 0, "offset": 0, "re": 7}
        with pytest.raises(LobbyError) as refused:
            await table.game_record()
        assert refused.value.code == errors.NOT_FINISHED
        # No byte the peeker received holds the deal: its frames are refusals and an empty history.
        assert all(frame.get("type") in ("hello", "welcome", "error", "history") for frame in peeker.frames)
        await peeker.close()
        await ann.close()


async def test_history_requests_are_rate_limited_like_the_table_list(tmp_path):
    async with live_host(data_dir=tmp_path) as host:
        client = await RawClient.connect(host.port, "ann")
        codes = []
        for index in range(12):
            await client.send({"type": "stats", "id": index})
            reply = await client.next_frame()
            codes.append(reply.get("code") if reply["type"] == "error" else reply["type"])
        assert codes[0] == "stats" and errors.SLOW_DOWN in codes
        await client.close()


async def test_the_host_players_own_lobby_lists_the_hosts_games_and_never_the_local_ones(tmp_path):
    from nothanks_server.archive import LOCAL
    from nothanks_server.inprocess import InProcessLobby
    from nothanks_server.lobby import Lobby, LobbySettings

    from .records import finished_record

    lobby = Lobby(LobbySettings(data_dir=tmp_path, bot_delay=0, turn_timer=None, seed=3))
    lobby.store.add_record("local-abcdef", 1, finished_record(["me", "ana"], 2), LOCAL)  # a game of `nothanks play`
    lobby.start()
    player = InProcessLobby(lobby, "host")
    await player.start()
    table = await player.create_table(NewTable(players=2, bots=1, bot="rules"))
    await table.start_game()
    await play_to_end(table)
    page = await player.list_games()
    assert [game.players[0] for game in page.games] == ["host"] and page.total == 1
    with pytest.raises(LobbyError) as refused:
        await player.open_game("local-abcdef/1")
    assert refused.value.code == errors.NO_GAME
    assert (await player.open_game(page.games[0].game_id))["players"][0] == "host"
    assert {row.name for row in await player.player_stats()} == {"host", "rules"}
    lobby.close()


async def test_an_offset_past_64_bits_is_refused_bad_field_not_a_traceback(tmp_path, caplog):
    """SQLite takes 64-bit integers: a bigger ``offset`` (msgpack carries up to 2**64-1) once dropped the connection
    with a traceback at ERROR; now it is refused at the edge and the client goes on."""
    async with live_host(data_dir=tmp_path) as host:
        client = await RawClient.connect(host.port, "eve")
        for offset in (2**64 - 1, 2**63):
            await client.send({"type": "history", "offset": offset, "id": 8})
            reply = await client.next_frame()
            assert (reply["type"], reply["code"], reply["re"]) == ("error", errors.BAD_FIELD, 8)
        await client.send({"type": "history", "offset": -(2**63), "id": 9})  # (a negative one is the first page)
        assert (await client.next_frame())["offset"] == 0
        await client.close()
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
