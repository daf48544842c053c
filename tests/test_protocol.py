"""The protocol module: the fast update encoding equals the plain one, and events survive the round trip."""

from __future__ import annotations

import msgpack
import pytest

from nothanks_tui.engine import Action, GameConfig, apply, new_game, spectator_view, view_for
from nothanks_tui.link import SeatInfo, TableUpdate, TableWaiting
from nothanks_tui.link.messages import CLIENT_MESSAGES, decode_client, kind_of
from nothanks_tui.link.wire import (
    ProtocolError,
    _one_more_entry,
    encode,
    encode_event,
    event_from_wire,
    event_to_wire,
)


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
        assert fast == encode(event_to_wire(update))
        assert event_from_wire(msgpack.unpackb(fast, raw=False)) == update


def test_waiting_round_trip():
    waiting = TableWaiting("t1", (SeatInfo("a"), SeatInfo("", empty=True)), my_seat=0, can_start=False)
    assert event_from_wire(msgpack.unpackb(encode_event(waiting), raw=False)) == waiting


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
    view = event_from_wire(frame).view
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
        event_from_wire(frame)
