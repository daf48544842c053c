"""The coach: what the hard bot would play in your place, from your seat's view alone, worked out in the host's
coach threads and sent to you alone; refused where the table does not allow it (over real sockets here)."""

from __future__ import annotations

import threading

import pytest

from nothanks_server import thinking as host_coach
from nothanks_tui.bots.coaching import coach
from nothanks_tui.engine import Action, GameConfig, PlayerView, apply, new_game, view_for
from nothanks_tui.link import errors

from .net_helpers import RawClient, live_host, of_type


def test_the_coach_gives_the_bots_move_and_an_expected_final_score_for_each_choice():
    state = new_game(GameConfig(players=3), 4)
    for _ in range(5):
        state = apply(state, Action.PASS, state.to_move)
    view = view_for(state, state.to_move)
    advice = coach(view)
    assert advice == coach(view)  # deterministic for one view
    assert advice.action in (Action.TAKE, Action.PASS) and advice.pass_score is not None
    # Scores a player can read: what this seat's final score could be (its cards less its chips).
    assert -40 < advice.take_score < 250 and -40 < advice.pass_score < 250
    other = view_for(state, (state.to_move + 1) % 3)
    with pytest.raises(ValueError):
        coach(other)


def test_with_no_chips_the_coach_says_take_and_has_no_pass_score():
    state = new_game(GameConfig(players=3, chips_per_player=0), 4)
    advice = coach(view_for(state, state.to_move))
    assert advice.action is Action.TAKE and advice.pass_score is None


async def sit_two(host, coach_option: bool):
    """alice creates a 2-seat table (coach as asked), bob joins, alice starts: (alice, bob, first update each)."""
    alice = await RawClient.connect(host.port, "alice")
    bob = await RawClient.connect(host.port, "bob")
    await alice.send({"type": "create_table", "players": 2, "coach": coach_option, "id": 1})
    joined = await alice.until(of_type("joined"))
    await bob.send({"type": "join", "table": joined["table"], "id": 2})
    await bob.until(of_type("joined"))
    waiting = await alice.until(lambda f: f.get("type") == "waiting" and f["can_start"])
    assert waiting["coach"] is coach_option
    await alice.send({"type": "start"})
    first = [await client.until(of_type("update")) for client in (alice, bob)]
    assert all(update["coach"] is coach_option for update in first)
    return alice, bob, first


async def test_a_table_without_the_coach_refuses_it_with_its_code():
    async with live_host() as host:
        alice, bob, first = await sit_two(host, coach_option=False)
        mover = alice if first[0]["view"]["legal"] else bob
        state_id = first[0]["view"]["state_id"]
        await mover.send({"type": "coach", "state_id": state_id, "id": 7})
        refusal = await mover.until(of_type("error"))
        assert refusal["code"] == errors.COACH_OFF and refusal["re"] == 7
        await mover.send({"type": "list_tables", "id": 8})
        [summary] = (await mover.until(of_type("tables")))["tables"]
        assert summary["coach"] is False


async def test_the_coach_answers_the_asking_seat_alone_from_its_own_view_in_a_coach_thread(monkeypatch):
    seen: list[tuple[PlayerView, str]] = []

    def spy(view: PlayerView, *args: object, **kwargs: object):
        seen.append((view, threading.current_thread().name))
        return coach(view, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(host_coach, "coach", spy)
    async with live_host() as host:
        alice, bob, first = await sit_two(host, coach_option=True)
        movers = {0: alice, 1: bob}
        to_move = first[0]["view"]["to_move"]
        mover, waiter = movers[to_move], movers[1 - to_move]
        state_id = first[0]["view"]["state_id"]

        await waiter.send({"type": "coach", "state_id": state_id, "id": 3})
        assert (await waiter.until(of_type("error")))["code"] == errors.NOT_YOUR_TURN
        await mover.send({"type": "coach", "state_id": state_id + 5, "id": 4})
        assert (await mover.until(of_type("error")))["code"] == errors.STALE_STATE

        await mover.send({"type": "coach", "state_id": state_id, "id": 5})
        advice = await mover.until(of_type("advice"))
        assert advice["re"] == 5 and advice["state_id"] == state_id and advice["action"] in ("take", "pass")
        assert isinstance(advice["take"], int) and isinstance(advice["pass"], int)  # tenths of a point

        [(view, thread)] = seen
        assert isinstance(view, PlayerView) and view.seat == to_move
        assert view.chips[1 - to_move] is None  # the other seat's chips stay hidden from the coach too
        assert thread.startswith("coach")  # off the event loop

        await mover.send({"type": "coach", "state_id": state_id, "id": 6})
        again = await mover.until(of_type("advice"))
        assert again["re"] == 6 and again["action"] == advice["action"] and len(seen) == 1  # answered from memory

        await waiter.send({"type": "ping", "id": 9})
        await waiter.until(of_type("pong"))  # everything sent to the other seat before this has arrived
        assert not any(isinstance(f, dict) and f.get("type") == "advice" for f in waiter.frames)
        assert b"advice" not in bytes(waiter.received)


async def test_a_spectator_cannot_ask_the_coach():
    async with live_host() as host:
        _alice, _bob, first = await sit_two(host, coach_option=True)
        eve = await RawClient.connect(host.port, "eve")
        await eve.send({"type": "spectate", "table": first[0]["table"], "id": 1})
        await eve.until(of_type("joined"))
        await eve.send({"type": "coach", "state_id": first[0]["view"]["state_id"], "id": 2})
        assert (await eve.until(of_type("error")))["code"] == errors.NOT_SEATED
