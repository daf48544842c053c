"""Chat at a table, over real sockets: who may speak, what reaches the others (cleaned), limits, history, and
clients that do not speak chat (they never get a chat frame, and the reference client ignores unknown types)."""

from __future__ import annotations

import asyncio

from nothanks_server import Lobby, LobbySettings
from nothanks_server.chat import ChatRoom
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import ChatHistory, ChatLine, NewTable, Rejected, TableUpdate, TableWaiting, errors
from nothanks_tui.link.chat import CHAT_HISTORY, MAX_CHAT
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

from .net_helpers import WAIT, RawClient, live_host, of_type

HOSTILE = "\x1b[2J\x1b]0;pwned\x07[red]hi[/red] <b>&amp;\x9b31m\u202e\x07 \n\r\t there\x1bc"
HOSTILE_CLEANED = "[red]hi[/red] <b>&amp; there"


async def next_matching(conn, predicate):
    async def scan():
        while True:
            event = await conn.next_event()
            if predicate(event):
                return event

    return await asyncio.wait_for(scan(), WAIT)


def is_chat(event) -> bool:
    return isinstance(event, ChatLine)


def is_refusal(event) -> bool:
    return isinstance(event, Rejected)


async def three_at_a_table(port: int):
    """alice (creator, seat 0) and bob seated at a 3-seat table, eve watching."""
    alice, bob, eve = (TcpLobby("127.0.0.1", port, name) for name in ("alice", "bob", "eve"))
    for client in (alice, bob, eve):
        await client.start()
    a = await alice.create_table(NewTable(players=3))
    b = await bob.join(a.table_id)
    e = await eve.spectate(a.table_id)
    return (alice, bob, eve), (a, b, e)


async def test_a_line_reaches_every_player_and_spectator_with_the_name_and_seat_and_spectators_chat_too():
    async with live_host() as host:
        clients, (a, b, e) = await three_at_a_table(host.port)
        assert a.can_chat and b.can_chat and e.can_chat
        await b.send_chat("good luck all")
        for conn in (a, b, e):
            line = await next_matching(conn, is_chat)
            assert line == ChatLine(name="bob", text="good luck all", seat=1, at=0)  # said before any move
        await e.send_chat("go alice")
        for conn in (a, b, e):
            assert await next_matching(conn, is_chat) == ChatLine(name="eve", text="go alice", seat=None, at=0)
        for client in clients:
            await client.close()


async def test_hostile_text_is_cleaned_by_the_host_before_any_byte_reaches_another_player():
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        a = await alice.create_table(NewTable(players=2))
        raw = await RawClient.connect(host.port, name=None)
        await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "raw", "features": ["chat"]})
        await raw.until(of_type("welcome"))
        await raw.send({"type": "join", "table": a.table_id, "id": 1})
        await raw.until(of_type("joined"))
        await a.send_chat(HOSTILE)
        frame = await raw.until(of_type("chat"))
        assert frame == {"type": "chat", "name": "alice", "seat": 0, "text": HOSTILE_CLEANED, "at": 0}
        assert b"\x1b" not in raw.received and b"\x07" not in raw.received and b"\xc2\x9b" not in raw.received
        assert "\u202e".encode() not in raw.received
        late = await RawClient.connect(host.port, name=None)
        await late.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "late", "features": ["chat"]})
        await late.send({"type": "spectate", "table": a.table_id})
        history = await late.until(of_type("chat_history"))
        assert history == {
            "type": "chat_history",
            "lines": [{"name": "alice", "seat": 0, "text": HOSTILE_CLEANED, "at": 0}],
        }
        await late.close()
        await raw.close()
        await alice.close()


async def test_empty_too_long_and_unseated_lines_are_refused_with_their_codes_and_nobody_hears_them():
    async with live_host() as host:
        clients, (a, b, e) = await three_at_a_table(host.port)
        await a.send_chat("\x1b[31m \t\x07\u200b ")
        assert (await next_matching(a, is_refusal)).code == errors.CHAT_EMPTY
        await a.send_chat("x" * (MAX_CHAT + 1))
        refused = await next_matching(a, is_refusal)
        assert refused.code == errors.CHAT_TOO_LONG and str(MAX_CHAT) in refused.message
        await a.send_chat("y" * MAX_CHAT + "\x1b[0m")  # 200 once the escape is gone: fine
        assert (await next_matching(b, is_chat)).text == "y" * MAX_CHAT  # the first line anyone heard
        assert (await next_matching(e, is_chat)).text == "y" * MAX_CHAT
        # In the lobby (at no table) a line goes nowhere.
        raw = await RawClient.connect(host.port)
        await raw.send({"type": "chat", "text": "anyone?", "id": 7})
        error = await raw.until(of_type("error"))
        assert error["code"] == errors.NOT_AT_TABLE and error["re"] == 7 and not error.get("fatal")
        await raw.close()
        for client in clients:
            await client.close()


async def test_ten_kilobytes_of_chat_close_only_that_connection():
    async with live_host() as host:
        clients, (a, b, _) = await three_at_a_table(host.port)
        raw = await RawClient.connect(host.port)
        await raw.send({"type": "spectate", "table": a.table_id, "id": 1})
        await raw.until(of_type("joined"))
        await raw.send_bytes(encode({"type": "chat", "text": "\x1b[5m" + "A" * 10_000}))
        error = await raw.until(of_type("error"))
        assert error["code"] in (errors.BAD_FRAME, errors.TOO_BIG) and error["fatal"]
        assert await raw.closed()
        await b.send_chat("still here")
        assert (await next_matching(a, is_chat)).text == "still here"
        for client in clients:
            await client.close()


async def test_a_flood_of_lines_is_cut_to_the_burst_and_the_rest_refused_as_too_fast():
    async with live_host() as host:
        clients, (a, b, _) = await three_at_a_table(host.port)
        raw = await RawClient.connect(host.port, name=None)
        await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "spam", "features": ["chat"]})
        await raw.send({"type": "spectate", "table": a.table_id})
        await raw.send({"type": "ping", "id": 1})
        await raw.until(of_type("pong"))
        # 30 lines in one write: the host reads them within microseconds of each other.
        await raw.send_bytes(b"".join(encode({"type": "chat", "text": f"spam {n}"}) for n in range(30)))
        await raw.send({"type": "ping", "id": 2})
        frames = []
        while (frame := await raw.next_frame()) is not None and frame.get("re") != 2:
            frames.append(frame)
        said = [f for f in frames if f["type"] == "chat"]
        too_fast = [f for f in frames if f["type"] == "error" and f["code"] == errors.CHAT_TOO_FAST]
        assert 5 <= len(said) < 30 and len(said) + len(too_fast) == 30
        assert [f["text"] for f in said] == [f"spam {n}" for n in range(len(said))]
        assert not any(f.get("fatal") for f in too_fast)  # a chatty person is slowed down, not thrown out
        # The others heard only what was accepted.
        heard = [await next_matching(b, is_chat) for _ in said]
        assert [line.text for line in heard] == [f["text"] for f in said]
        await raw.close()
        for client in clients:
            await client.close()


async def test_newcomers_and_returning_players_get_the_recent_lines_as_history():
    async with live_host() as host:
        clients, (a, b, e) = await three_at_a_table(host.port)
        await a.send_chat("first")
        await b.send_chat("second")
        await next_matching(e, lambda ev: is_chat(ev) and ev.text == "second")
        carol = TcpLobby("127.0.0.1", host.port, "carol")
        await carol.start()
        c = await carol.join(a.table_id)
        history = await next_matching(c, lambda ev: isinstance(ev, ChatHistory))
        assert [(line.name, line.text) for line in history.lines] == [("alice", "first"), ("bob", "second")]
        await next_matching(a, lambda ev: isinstance(ev, TableWaiting) and ev.can_start)
        await a.start_game()
        await next_matching(b, lambda ev: isinstance(ev, TableUpdate))
        # bob drops and comes back with his token: the lines are there again.
        token = b.seat_token
        clients[1]._read_task.cancel()  # (a crashed terminal: that client does not come back by itself)
        clients[1]._writer.transport.abort()
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await bob.start()
        again = await bob.resume(token)
        history = await next_matching(again, lambda ev: isinstance(ev, ChatHistory))
        assert [line.text for line in history.lines] == ["first", "second"]
        for client in (clients[0], clients[2], carol, bob):
            await client.close()


async def test_the_history_keeps_only_the_most_recent_lines():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=3))
    alice = InProcessLobby(lobby, "alice")
    await alice.start()
    a = await alice.create_table(NewTable(players=2))
    table = lobby.table(a.table_id)
    table.chat = ChatRoom(rate=1000, burst=1000)  # this test fills the history, not the table's rate
    for n in range(CHAT_HISTORY + 7):
        table.say(a, f"line {n}")
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    b = await bob.join(a.table_id)
    history = await next_matching(b, lambda ev: isinstance(ev, ChatHistory))
    assert [line.text for line in history.lines] == [f"line {n}" for n in range(7, CHAT_HISTORY + 7)]


async def test_the_host_players_own_seat_chats_in_process_with_the_same_rules():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=3))
    alice = InProcessLobby(lobby, "alice")
    await alice.start()
    a = await alice.create_table(NewTable(players=2))
    assert a.can_chat
    await a.send_chat(HOSTILE)
    assert (await next_matching(a, is_chat)).text == HOSTILE_CLEANED
    await a.send_chat("z" * 10_000)
    assert (await next_matching(a, is_refusal)).code == errors.CHAT_TOO_LONG
    codes = []
    for n in range(10):
        await a.send_chat(f"again {n}")
    while len(codes) < 10:
        event = await next_matching(a, lambda ev: is_chat(ev) or is_refusal(ev))
        codes.append(event.code if isinstance(event, Rejected) else "said")
    assert errors.CHAT_TOO_FAST in codes and codes.count("said") >= 3  # the burst, less the two tried above


async def test_a_client_that_did_not_say_it_speaks_chat_never_gets_a_chat_frame_and_plays_on():
    """The version rule: a host sends chat frames only to clients whose hello lists "chat"; an older client (or any
    other) sees exactly the frames it saw before."""
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        a = await alice.create_table(NewTable(players=2))
        await a.send_chat("before the old client came")
        old = await RawClient.connect(host.port, name="old")  # hello without "features", as before chat
        await old.send({"type": "join", "table": a.table_id, "id": 1})
        await old.until(of_type("joined"))
        await a.send_chat("hello old client")
        await next_matching(a, lambda ev: is_chat(ev) and ev.text == "hello old client")
        await a.start_game()
        update = await old.until(of_type("update"))
        assert update["view"]["seat"] == 1
        await old.send({"type": "ping", "id": 2})
        await old.until(lambda frame: frame.get("re") == 2)
        assert all(frame["type"] not in ("chat", "chat_history") for frame in old.frames)
        assert b"hello old client" not in old.received and b"before the old" not in old.received
        await old.close()
        await alice.close()


async def test_the_reference_client_ignores_message_types_it_does_not_know():
    """What makes new host frames safe for clients that predate them: an unknown type is skipped, not fatal."""
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        a = await alice.create_table(NewTable(players=2, bots=1))
        assert alice._route({"type": "from_the_future", "anything": [1, {"x": None}]}) is None
        assert alice._route({"type": "chat", "name": 5}) is None  # a malformed chat line is dropped, quietly
        await a.start_game()
        assert isinstance(await next_matching(a, lambda ev: isinstance(ev, TableUpdate)), TableUpdate)
        assert alice.online
        await alice.close()


async def test_hello_features_are_listed_by_both_sides_and_checked():
    async with live_host() as host:
        raw = await RawClient.connect(host.port, name=None)
        assert raw.frames[0]["features"] == ["chat", "lobby_chat"]
        await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "x", "features": {"chat": 1}})
        error = await raw.until(of_type("error"))
        assert error["code"] == errors.BAD_FIELD
        await raw.close()
        odd = await RawClient.connect(host.port, name=None)
        await odd.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "y", "features": [1, None, "chat"]})
        await odd.until(of_type("welcome"))
        session = next(s for s in host.sessions if s.name == "y")
        assert session.features == frozenset({"chat"})
        await odd.close()


async def test_the_reference_client_refuses_a_line_too_big_for_a_frame_instead_of_losing_its_connection():
    """200 characters may be 800 bytes; a str over 512 bytes would make the host close the connection."""
    async with live_host() as host:
        clients, (a, b, _) = await three_at_a_table(host.port)
        await a.send_chat("\U0001f600" * 150)  # 150 characters, 600 bytes
        assert (await next_matching(a, is_refusal)).code == errors.CHAT_TOO_LONG
        await a.send_chat("\U0001f600" * 100)  # 400 bytes: fine
        assert (await next_matching(b, is_chat)).text == "\U0001f600" * 100
        assert clients[0].online
        for client in clients:
            await client.close()


async def test_a_table_as_a_whole_is_held_to_its_own_rate_whoever_speaks():
    """Many connections (each within its own budget) cannot make a table draw more than its rate on every screen."""
    from nothanks_tui.link.chat import TABLE_CHAT_BURST

    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=3))
    alice = InProcessLobby(lobby, "alice")
    await alice.start()
    a = await alice.create_table(NewTable(players=2))
    table = lobby.table(a.table_id)
    said = lines_taken(lambda text: table.say(a, text))  # straight to the table: no connection's budget in the way
    assert TABLE_CHAT_BURST <= said < 40


def lines_taken(say, lines: int = 40) -> int:
    """How many of ``lines`` lines said at once ``say`` takes; every other one is refused ``chat_too_fast``."""
    said = 0
    for n in range(lines):
        try:
            say(f"line {n}")
            said += 1
        except Exception as error:
            assert getattr(error, "code", None) == errors.CHAT_TOO_FAST
    return said


async def test_a_newcomer_s_history_says_when_each_line_was_said_in_this_game_and_not_for_earlier_games():
    room = ChatRoom()
    room.say("ana", 0, "good luck", game=1, at=0)
    room.say("bo", 1, "ouch", game=2, at=7, events=1)
    history = room.history(game=2)
    assert history is not None
    [earlier, now] = history.lines
    assert earlier.at is None and earlier.events == 0  # said in game 1: before this game's moves
    assert (now.at, now.events) == (7, 1)
