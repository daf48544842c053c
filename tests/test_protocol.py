"""The protocol module: the fast update encoding equals the plain one, and events survive the round trip."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from unittest.mock import ANY

import msgpack
import pytest

from nothanks_server import session
from nothanks_server.limits import ClientLimits
from nothanks_tui.engine import Action, GameConfig, apply, new_game, spectator_view, view_for
from nothanks_tui.link import SeatInfo, TableUpdate, TableWaiting
from nothanks_tui.link.messages import CLIENT_MESSAGES, decode_client, kind_of
from nothanks_tui.link.wire import (
    PROTOCOL_VERSION,
    ProtocolError,
    _one_more_entry,
    decode_host,
    encode,
    encode_event,
    to_wire,
)

from .net_helpers import RawClient, live_host, of_type


def sample_updates():
    state = new_game(GameConfig(players=4, open_chips=False), seed=3)
    seats = (SeatInfo("a"), SeatInfo("b[/]", is_bot=True), SeatInfo("c", away=True), SeatInfo("d"))
    for step in range(60):
        state = apply(state, "pass" if step % 3 else "take")
        yield TableUpdate(view_for(state, step % 4), seats, "t9", can_restart=False)
        yield TableUpdate(spectator_view(state), seats, "t9")


def test_encode_event_is_byte_for_byte_the_plain_encoding_and_decodes_back():
    for update in sample_updates():
        fast = encode_event(update)
        assert fast == encode(to_wire(update))
        assert decode_host(msgpack.unpackb(fast, raw=False)).event() == update


def test_waiting_round_trip():
    waiting = TableWaiting("t1", (SeatInfo("a"), SeatInfo("", empty=True)), my_seat=0, can_start=False)
    assert decode_host(msgpack.unpackb(encode_event(waiting), raw=False)).event() == waiting


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "action", "action": "take"}, "bad_field"),
        ({"type": "action", "action": "take", "state_id": True}, "bad_field"),
        ({"type": "join", "table": "t1", "seat": "0"}, "bad_field"),
        ({"type": "fly"}, "unknown_type"),
        ({"type": 3}, "bad_field"),
        ("hello", "bad_field"),
        ({"type": "create_table", "players": 3, "bot": None}, "bad_field"),  # absent is the default; nil is not
        ({"type": "hello", "protocol": 2, "name": "x", "via": None}, "bad_field"),
        ({"type": "history", "limit": None}, "bad_field"),
        ({"type": "ping", "id": -1}, "bad_field"),
        ({"type": "fly", "id": "x"}, "bad_field"),  # the id is looked at before the type
        ({"type": "ping", "id": 2**31}, "bad_field"),
    ],
)
def test_decode_client_refuses(message, code):
    with pytest.raises(ProtocolError) as refused:
        decode_client(message)
    assert refused.value.code == code


def test_decode_client_accepts_every_documented_type_minimally():
    examples = {
        "hello": {"protocol": 1, "name": "x"},
        "create_table": {"players": 3},
        "join": {"table": "t1", "seat": None},
        "spectate": {"table": "t1"},
        "resume": {"token": "abc"},
        "add_bot": {"bot": None},
        "action": {"action": "take", "state_id": 0},
        "replay": {"game": "t1/1"},
        "chat": {"text": "hi"},
        "stand_in": {"seat": 1},
        "remove": {"seat": 2},
        "coach": {"state_id": 0},
    }
    for kind in CLIENT_MESSAGES:
        message = decode_client({"type": kind, "id": 4, **examples.get(kind, {})})
        assert kind_of(message) == kind and message.id == 4
        assert all(getattr(message, name) == value for name, value in examples.get(kind, {}).items())


@pytest.mark.parametrize("entries", [1, 14, 15, 16, 300])
def test_a_packed_map_takes_one_more_entry_across_the_fixmap_limit(entries):
    data = {f"k{index}": index for index in range(entries)}
    packed = _one_more_entry(encode(data)) + encode("last") + encode(True)
    assert msgpack.unpackb(packed, raw=False) == {**data, "last": True}


def an_update_frame():
    state = new_game(GameConfig(players=3, chips_per_player=0), seed=1)
    update = TableUpdate(view_for(state, state.to_move), (SeatInfo("a"), SeatInfo("b"), SeatInfo("c")), "t1")
    return msgpack.unpackb(encode_event(update), raw=False)


def test_a_view_carries_what_is_legal_for_its_seat_and_why_the_rest_is_not():
    frame = an_update_frame()
    assert frame["view"]["legal"] == ["take"]
    assert frame["view"]["refused"] == {"pass": "no_chips"}
    view = decode_host(frame).event().view
    assert view.legal == (Action.TAKE,) and view.refusal(Action.PASS) == "no_chips"


@pytest.mark.parametrize(
    ("legal", "refused"),
    [
        (["take"], {}),  # pass is neither legal nor refused
        (["take", "pass"], {"pass": "no_chips"}),  # both
        (["take", "take"], {"pass": "no_chips"}),  # twice
        (["take", "fold"], {"pass": "no_chips"}),  # no such action
        ("take", {"pass": "no_chips"}),
        (["take"], [["pass", "no_chips"]]),
        (["take"], {"pass": ""}),
        (["take"], {"pass": 3}),
        ([1], {"pass": "no_chips"}),
    ],
)
def test_a_view_whose_legal_and_refused_do_not_cover_every_action_once_is_refused(legal, refused):
    frame = an_update_frame()
    frame["view"]["legal"] = legal
    frame["view"]["refused"] = refused
    with pytest.raises((ValueError, TypeError, KeyError)):
        decode_host(frame).event()


# ---------------------------------------------------------------- conformance: docs/protocol.md, against a live host
# Each test holds a rule of docs/protocol.md's "Conformance" list that a client may rely on.


async def hello_of(client: RawClient, **fields) -> dict:
    await client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "c", **fields})
    return await client.next_frame()


async def test_a_connection_over_the_address_limit_gets_too_many_and_no_hello():
    async with live_host(limits=ClientLimits(per_address_connections=1)) as host:
        first = await RawClient.connect(host.port, "first")
        reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
        over = RawClient(reader, writer)
        frame = await over.next_frame()
        assert frame["type"] == "error" and frame["code"] == "too_many" and frame["fatal"]
        assert await over.closed()
        await first.close()


@pytest.mark.parametrize(
    "fields", [{"via": "10.0.0.1"}, {"via": "10.0.0.1", "proxy_key": "guess"}, {"key": "SHA256:x"}]
)
async def test_via_or_key_without_the_proxy_key_is_a_fatal_bad_field(fields):
    async with live_host(proxy_key="secret") as host:
        client = await RawClient.connect(host.port, name=None)
        frame = await hello_of(client, **fields)
        assert frame["code"] == "bad_field" and frame["fatal"]
        assert await client.closed()


@pytest.mark.parametrize("fields", [{"features": "chat"}, {"name": None}, {"name": 5}])
async def test_a_bad_hello_field_is_not_fatal_and_a_good_hello_after_it_is_welcomed(fields):
    async with live_host() as host:
        client = await RawClient.connect(host.port, name=None)
        frame = await hello_of(client, id=3, **fields)
        assert frame["type"] == "error" and frame["code"] == "bad_field" and not frame.get("fatal")
        assert frame["re"] == 3
        welcome = await hello_of(client)
        assert welcome == {"type": "welcome", "name": "c"}  # no id, no re
        await client.close()


async def test_a_name_over_256_characters_is_a_fatal_bad_name_and_names_are_trimmed_and_collapsed():
    async with live_host() as host:
        long = await RawClient.connect(host.port, name=None)
        frame = await hello_of(long, name="a" + " " * 256)
        assert frame["code"] == "bad_name" and frame["fatal"]
        assert await long.closed()
        spaced = await RawClient.connect(host.port, name=None)
        assert (await hello_of(spaced, name="  al \t  ice ", id=0)) == {"type": "welcome", "name": "al ice", "re": 0}
        await spaced.close()


async def test_every_direct_reply_carries_re_and_an_invalid_id_is_refused_and_never_echoed():
    async with live_host() as host:
        client = await RawClient.connect(host.port, "c")
        for request_id, message in enumerate(({"type": "history"}, {"type": "stats"}, {"type": "leave"})):
            await client.send({**message, "id": request_id})
            frame = await client.next_frame()
            assert frame["re"] == request_id and frame["type"] == {"leave": "left"}.get(
                message["type"], message["type"]
            )
        await client.send({"type": "replay", "game": "t9/1", "id": 5})
        assert await client.next_frame() == {"type": "error", "code": "no_game", "message": ANY, "re": 5}
        for bad in (2**31, -1, "7", 1.5, True):
            await client.send({"type": "ping", "id": bad})
            frame = await client.next_frame()
            assert frame["code"] == "bad_field" and "re" not in frame and not frame.get("fatal")
        await client.close()


async def test_the_21st_refused_message_gets_its_own_error_then_flood_without_re():
    async with live_host() as host:
        client = await RawClient.connect(host.port, "c")
        count = session.MAX_SOFT_ERRORS + 1
        await client.send_bytes(b"".join(encode({"type": "nope", "id": i}) for i in range(count)))
        for i in range(count):
            frame = await client.next_frame()
            assert (frame["code"], frame["re"]) == ("unknown_type", i)
        flood = await client.next_frame()
        assert flood["code"] == "flood" and flood["fatal"] and "re" not in flood
        assert await client.closed()


async def test_floats_from_a_client_are_ignored_in_unknown_keys_and_refused_as_a_field():
    async with live_host() as host:
        client = await RawClient.connect(host.port, "c")
        await client.send({"type": "ping", "id": 1, "extra": 0.5})
        assert await client.next_frame() == {"type": "pong", "re": 1}
        await client.send({"type": "action", "action": "take", "state_id": 0.0, "id": 2})
        frame = await client.next_frame()
        assert frame["code"] == "bad_field" and frame["re"] == 2
        await client.close()


async def test_watching_is_counted_per_connection_even_for_one_table():
    async with live_host(limits=ClientLimits(per_address_spectating=2)) as host:
        owner = await RawClient.connect(host.port, "owner")
        await owner.send({"type": "create_table", "players": 2})
        table = (await owner.until(of_type("joined")))["table"]
        watchers = [await RawClient.connect(host.port, f"w{i}") for i in range(3)]
        for index, watcher in enumerate(watchers):
            await watcher.send({"type": "spectate", "table": table, "id": index})
            frame = await watcher.until(lambda f, index=index: f.get("re") == index)
            assert frame["type"] == ("joined" if index < 2 else "error")
        assert frame["code"] == "too_many" and not frame.get("fatal")
        for client in (owner, *watchers):
            await client.close()


async def test_refusals_come_in_order_a_spectator_is_not_seated_before_not_started():
    async with live_host() as host:
        owner = await RawClient.connect(host.port, "owner")
        await owner.send({"type": "create_table", "players": 2})
        table = (await owner.until(of_type("joined")))["table"]
        watcher = await RawClient.connect(host.port, "w")
        await watcher.send({"type": "spectate", "table": table, "id": 1})
        await watcher.until(of_type("joined"))
        for request_id, message in enumerate(
            ({"type": "action", "action": "take", "state_id": 0}, {"type": "start"}, {"type": "add_bot"}), 10
        ):
            await watcher.send({**message, "id": request_id})
            frame = await watcher.until(of_type("error"))
            assert (frame["code"], frame["re"]) == ("not_seated", request_id)
        for client in (owner, watcher):
            await client.close()


async def test_leave_at_no_table_is_left_and_an_unstarted_table_its_only_player_leaves_is_gone():
    async with live_host(max_tables_per_address=1) as host:
        client = await RawClient.connect(host.port, "c")
        await client.send({"type": "leave", "id": 1})
        assert await client.next_frame() == {"type": "left", "re": 1}
        await client.send({"type": "create_table", "players": 3, "id": 2})
        table = (await client.until(of_type("joined")))["table"]
        await client.send({"type": "leave", "id": 3})
        await client.until(of_type("left"))
        await client.send({"type": "join", "table": table, "id": 4})
        assert (await client.until(of_type("error")))["code"] == "no_table"
        await client.send({"type": "create_table", "players": 2, "bots": 1, "id": 5})  # the old one no longer counts
        await client.until(of_type("joined"))
        await client.send({"type": "start"})
        await client.until(of_type("update"))
        await client.send({"type": "leave", "id": 6})  # a game left to a bot is still open
        await client.until(of_type("left"))
        await client.send({"type": "create_table", "players": 2, "id": 7})
        assert (await client.until(of_type("error")))["code"] == "too_many"
        await client.close()


async def test_resume_gives_the_same_token_and_the_seat_keeps_its_name_and_a_quick_return_leaves_no_event():
    async with live_host() as host:
        alice = await RawClient.connect(host.port, "alice")
        await alice.send({"type": "create_table", "players": 3, "bots": 1})
        table = (await alice.until(of_type("joined")))["table"]
        bob = await RawClient.connect(host.port, "bob")
        await bob.send({"type": "join", "table": table})
        joined = await bob.until(of_type("joined"))
        seat, token = joined["seat"], joined["token"]
        await alice.until(lambda f: f.get("type") == "waiting" and f["can_start"])
        await alice.send({"type": "start"})
        await alice.until(lambda f: f.get("type") == "update" and f["view"]["to_move"] in (0, seat))  # no bot's turn
        await bob.close()
        away = await alice.until(lambda f: f.get("type") == "update" and f["seats"][seat]["away"])
        back = await RawClient.connect(host.port, "robert")
        await back.send({"type": "resume", "token": token, "id": 9})
        joined = await back.until(of_type("joined"))
        assert (joined["seat"], joined["token"], joined["re"]) == (seat, token, 9)
        update = await alice.until(lambda f: f.get("type") == "update" and not f["seats"][seat]["away"])
        assert update["seats"][seat]["name"] == "bob"
        assert update["view"]["state_id"] == away["view"]["state_id"]  # no move between the drop and the return...
        assert "seat_events" not in update  # ...leaves no entry at all
        for client in (alice, back):
            await client.close()


async def test_a_record_holds_the_documented_keys_and_the_lobby_replies_their_floats():
    async with live_host() as host:
        client = await RawClient.connect(host.port, "c")
        await client.send({"type": "create_table", "players": 2, "bots": 1})
        await client.until(lambda f: f.get("type") == "waiting" and f["can_start"])
        await client.send({"type": "start"})
        table = None
        while True:
            view = (frame := await client.until(of_type("update")))["view"]
            table = frame["table"]
            if view["finished"]:
                break
            if view["to_move"] == view["seat"]:
                await client.send({"type": "action", "action": "take", "state_id": view["state_id"]})
        await client.send({"type": "replay", "game": table, "id": 4})
        reply = await client.until(of_type("record"))
        assert (reply["re"], reply["game"]) == (4, table)
        record = reply["record"]
        documented = {"format", "players", "chips_per_player", "seed", "deck", "removed", "first_player", "moves",
                      "final", "winners", "finished", "open_chips", "variant", "table", "bots", "levels",
                      "started_at", "finished_at"}  # fmt: skip
        assert documented <= set(record), documented - set(record)
        assert record["format"] == "nothanks-record/1" and record["finished"] is True
        assert isinstance(record["started_at"], float) and isinstance(record["finished_at"], float)
        assert len(record["final"]) == 2
        for seat in record["final"]:
            assert {"cards", "chips", "score", "runs", "card_total"} <= set(seat)
            assert seat["score"] == seat["card_total"] - seat["chips"]
            assert seat["card_total"] == sum(run[0] for run in seat["runs"])
        await client.send({"type": "history", "id": 5})
        assert isinstance((await client.until(of_type("history")))["games"][0]["finished_at"], float)
        await client.send({"type": "stats", "id": 6})
        stats = await client.until(of_type("stats"))
        assert stats["re"] == 6
        players = stats["players"]
        assert [row["kind"] == "bot" for row in players] == [False, True]  # people first, then bots
        assert all(isinstance(row["mean"], float) for row in players)
        await client.close()


async def test_refusals_of_a_well_formed_request_are_not_counted_as_refused_messages():
    async with live_host() as host:
        client = await RawClient.connect(host.port, "c")
        count = session.MAX_SOFT_ERRORS * 2
        await client.send_bytes(encode({"type": "action", "action": "take", "state_id": 0}) * count)
        for _ in range(count):
            assert (await client.next_frame())["code"] == "not_at_table"
        await client.send({"type": "ping", "id": 1})
        assert await client.next_frame() == {"type": "pong", "re": 1}
        await client.close()


async def test_a_line_said_before_the_deal_has_at_0_and_no_at_in_the_history_once_the_game_is_dealt():
    async with live_host() as host:
        alice = await RawClient.connect(host.port, name=None)
        await hello_of(alice, name="alice", features=["chat"])
        await alice.send({"type": "create_table", "players": 2, "bots": 1})
        table = (await alice.until(of_type("joined")))["table"]
        await alice.send({"type": "chat", "text": "hi"})
        assert (await alice.until(of_type("chat")))["at"] == 0
        await alice.send({"type": "start"})
        await alice.until(of_type("update"))
        late = await RawClient.connect(host.port, name=None)
        await hello_of(late, name="late", features=["chat"])
        await late.send({"type": "spectate", "table": table})
        history = await late.until(of_type("chat_history"))
        assert history["lines"] == [{"name": "alice", "seat": 0, "text": "hi"}]
        for client in (alice, late):
            await client.close()


async def test_an_unstarted_table_whose_only_player_drops_out_closes_at_once():
    async with live_host(max_tables_per_address=1) as host:
        first = await RawClient.connect(host.port, "first")
        await first.send({"type": "create_table", "players": 3, "bots": 1})
        table = (await first.until(of_type("joined")))["table"]
        await first.send({"type": "bye"})  # dropping out, not leaving: the host hangs up once it let go of the seat
        assert await first.closed()
        again = await RawClient.connect(host.port, "again")
        await again.send({"type": "join", "table": table, "id": 1})
        assert (await again.until(of_type("error")))["code"] == "no_table"
        await again.send({"type": "create_table", "players": 2, "id": 2})  # it no longer counts
        assert (await again.until(lambda f: f.get("re") == 2))["type"] == "joined"
        await again.close()


def test_frames_encoded_through_their_structs_keep_their_bytes():
    """Lobby lines, ``waiting``, chat and the history's replies are encoded through the Structs the client decodes
    them with: the bytes are still docs/protocol.md's maps, key for key and in the same order."""
    from nothanks_tui.link.events import ChatHistory, ChatLine, TableSummary
    from nothanks_tui.link.history import GameListing, HistoryPage, PlayerStats
    from nothanks_tui.link.wire import Stats, to_wire

    seats = (SeatInfo("a"), SeatInfo("b", is_bot=True, level="hard"), SeatInfo("", empty=True, left=True))
    seat_maps = [
        {"name": "a", "bot": False, "away": False, "empty": False},
        {"name": "b", "bot": True, "away": False, "empty": False, "level": "hard"},
        {"name": "", "bot": False, "away": False, "empty": True, "left": True},
    ]
    summary = TableSummary("t1", 3, seats, False, False, True, "standard", 2)
    assert encode(to_wire(summary)) == encode(
        {"table": "t1", "players": 3, "seats": seat_maps, "started": False, "finished": False, "open_chips": True,
         "variant": "standard", "spectators": 2, "coach": False, "turn_clock": 0}
    )  # fmt: skip
    waiting = TableWaiting("t1", seats, my_seat=None, can_start=False, variant="tactical")
    assert encode_event(waiting) == encode(
        {"type": "waiting", "table": "t1", "seats": seat_maps, "your_seat": None, "can_start": False,
         "open_chips": False, "variant": "tactical", "coach": False, "invite": None, "removed_players": []}
    )  # fmt: skip
    said, before = ChatLine("a", "hi", 0, at=3, events=1), ChatLine("b", "yo", None, events=2)
    assert encode(to_wire(said)) == encode({"type": "chat", "name": "a", "seat": 0, "text": "hi", "at": 3, "events": 1})
    assert encode(to_wire(ChatHistory((before,)))) == encode(
        {"type": "chat_history", "lines": [{"name": "b", "seat": None, "text": "yo"}]}
    )
    page = HistoryPage((GameListing("t3/2", 17.5, ("a", "b"), (12, 40), (0,), (False, True)),), total=9, offset=4)
    listing = {"game": "t3/2", "finished_at": 17.5, "players": ["a", "b"], "scores": [12, 40], "winners": [0]}
    assert encode(to_wire(page)) == encode(
        {"type": "history", "games": [{**listing, "bots": [False, True]}], "total": 9, "offset": 4}
    )
    row = PlayerStats("a", "key", 12, 5, 18.5, -3, True)
    assert encode(to_wire(Stats(players=[row]))) == encode(
        {"type": "stats", "players": [{"name": "a", "kind": "key", "games": 12, "wins": 5, "mean": 18.5, "best": -3,
                                       "you": True}]}
    )  # fmt: skip


async def test_a_client_that_says_no_hello_in_time_gets_a_fatal_hello_first():
    async with live_host(limits=ClientLimits(hello_timeout=0.2)) as host:  # (10 s by default: the rule is tested)
        reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
        silent = RawClient(reader, writer)
        assert (await silent.next_frame())["type"] == "hello"
        refused = await silent.next_frame()
        assert refused["code"] == "hello_first" and refused["fatal"] and "re" not in refused
        assert await silent.closed()


async def test_at_the_hosts_totals_the_least_used_connection_gets_server_closing_and_a_table_too_many_tables():
    from .test_tcp_fair_shares import played_table

    async with live_host(limits=ClientLimits(max_connections=2), max_tables=1) as host:
        ann, _table = await played_table(host.port, "127.0.0.3")  # a table where a person has moved
        reader, writer = await asyncio.open_connection("127.0.0.1", host.port, local_addr=("127.0.0.2", 0))
        silent = RawClient(reader, writer)
        assert (await silent.next_frame())["type"] == "hello"
        bob = await RawClient.connect(host.port, source="127.0.0.4")  # at the total a newcomer is let in...
        turned_away = await silent.until(of_type("error"))  # ...and the least used connection gives way
        assert turned_away["code"] == "server_closing" and turned_away["fatal"] and "re" not in turned_away
        assert await silent.closed()
        await bob.send({"type": "create_table", "players": 2, "id": 2})
        refused = await bob.until(of_type("error"))
        assert refused == {"type": "error", "code": "too_many_tables", "message": ANY, "re": 2}
        for client in (ann, bob):
            await client.close()


async def test_ping_is_answered_pong_with_its_id_and_bye_ends_the_connection():
    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        await ann.send({"type": "ping", "id": 7})
        assert await ann.until(of_type("pong")) == {"type": "pong", "re": 7}
        await ann.send({"type": "ping"})
        assert (await ann.until(lambda frame: of_type("pong")(frame) and "re" not in frame)) == {"type": "pong"}
        await ann.send({"type": "bye"})
        assert await ann.closed()


def conformance_references() -> list[tuple[str, str]]:
    """(test file, test name) of every test docs/protocol.md's "Conformance" list names: a name's file is the last
    one named before it in its line (``P``, ``W``, ``L`` or a ``tests/...py`` path)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text()
    section = text.split("\n## Conformance\n", 1)[1].split("\n## ", 1)[0]
    files = {"P": "tests/test_protocol.py", "W": "tests/test_host_wire.py", "L": "tests/test_host_limits.py"}
    found = []
    for rule in section.split("\n- ")[1:]:
        current = ""
        for match in re.finditer(r"`(tests/[\w/]+\.py)`|(?<![\w`])([PWL]) (?=`test_)|`(test_\w+)`", rule):
            path, letter, name = match.groups()
            if path or letter:
                current = path or files[letter]
            else:
                assert current, f"no test file named before {name} in: {rule[:80]}"
                found.append((current, name))
    return found


def test_every_test_the_conformance_list_names_exists_where_it_says():
    references = conformance_references()
    assert len(references) >= 60
    root = Path(__file__).resolve().parents[1]
    for path, name in references:
        source = (root / path).read_text()
        assert re.search(rf"^(async )?def {name}\(", source, re.M), f"{path} has no {name}"


async def test_sitting_down_brings_the_tables_view_with_joined_and_a_connection_is_at_one_place_at_a_time():
    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        await ann.send({"type": "create_table", "players": 3, "id": 1})
        table = (await ann.until(of_type("joined")))["table"]
        bob = await RawClient.connect(host.port, "bob")
        await bob.send({"type": "join", "table": table, "id": 2})
        joined = await bob.until(of_type("joined"))
        waiting = next(frame for frame in bob.frames if of_type("waiting")(frame))  # (pushed as the seat is taken:
        assert joined["seat"] == 1 and waiting["your_seat"] == 1  # before `joined`)
        for other in ({"type": "create_table", "players": 2}, {"type": "spectate", "table": table}):
            await bob.send({**other, "id": 3})
            refused = await bob.until(lambda frame: frame.get("re") == 3)
            assert refused["code"] == "already_at_table"
            bob.frames.clear()
        for client in (ann, bob):
            await client.close()


async def test_the_table_list_puts_joinable_tables_before_games_under_way():
    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        await ann.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
        playing = (await ann.until(of_type("joined")))["table"]
        await ann.send({"type": "start"})
        await ann.until(of_type("update"))
        bob = await RawClient.connect(host.port, "bob")
        await bob.send({"type": "create_table", "players": 3, "id": 2})
        joinable = (await bob.until(of_type("joined")))["table"]
        await bob.send({"type": "list_tables", "id": 3})
        listed = await bob.until(of_type("tables"))
        assert [line["table"] for line in listed["tables"]] == [joinable, playing]
        assert listed["total"] == 2 and listed["offset"] == 0
        for client in (ann, bob):
            await client.close()
