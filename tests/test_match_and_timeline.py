"""The running match across "play again" and the end-of-game score timeline: the host works them out from its own
record, sends them in the views (over real sockets here), and never sends the timeline before the game is over."""

from __future__ import annotations

import msgpack

from nothanks_server.table import Table, TableSettings
from nothanks_server.table.recorder import MatchTally, score_timeline
from nothanks_tui.engine import Action, GameConfig, apply, breakdown, new_game, view_for
from nothanks_tui.link import MatchTotals, SeatInfo, TableUpdate
from nothanks_tui.link.wire import decode_host, encode_event

from .net_helpers import RawClient, live_host, of_type


def played_out(seed: int, players: int = 3):
    """A finished game: everyone passes while they can, then takes."""
    state = new_game(GameConfig(players=players), seed)
    while not state.finished:
        action = Action.PASS if state.chips[state.to_move] > 0 and state.pot < 3 else Action.TAKE
        state = apply(state, action, state.to_move)
    return state


def test_the_timeline_has_a_row_per_card_and_ends_at_the_final_scores():
    state = played_out(5)
    timeline = score_timeline(state)
    assert len(timeline) == 24 and all(len(row) == 3 for row in timeline)
    assert timeline[-1] == state.scores()
    first_take = next(move for move in state.moves if move.action is Action.TAKE)
    passes_before = [m.seat for m in state.moves[: state.moves.index(first_take)]]
    start = state.config.chips
    expected_first = [-(start - passes_before.count(seat)) for seat in range(3)]
    expected_first[first_take.seat] += first_take.card  # its card, and the chips on it
    expected_first[first_take.seat] -= first_take.pot
    assert list(timeline[0]) == expected_first


def test_the_match_counts_a_shared_win_for_each_winner_and_sums_the_scores():
    tally = MatchTally(3)
    assert tally.totals() is None
    tally.add((10, 4, 4))
    tally.add((-2, 30, 7))
    assert tally.totals() == MatchTotals(games=2, wins=(1, 1, 1), scores=(8, 34, 11))


def test_old_frames_without_the_new_keys_still_read_and_new_ones_round_trip():
    state = played_out(7)
    seats = (SeatInfo("a"), SeatInfo("b"), SeatInfo("c"))
    update = TableUpdate(
        view_for(state, 0),
        seats,
        "t1",
        match=MatchTotals(1, (0, 1, 0), (40, 12, 33)),
        timeline=score_timeline(state),
        coach=True,
    )
    frame = msgpack.unpackb(encode_event(update), raw=False)
    assert decode_host(frame).event() == update
    for key in ("match", "timeline", "coach"):
        frame.pop(key)
    old = decode_host(frame).event()
    assert old.match is None and old.timeline == () and old.coach is False


class Seat:
    def __init__(self) -> None:
        self.name = "p"
        self.events: list[object] = []

    def deliver(self, event: object) -> None:
        self.events.append(event)


def test_a_table_sends_the_timeline_only_with_the_end_and_keeps_the_match_across_play_again():
    table = Table("t", TableSettings(players=2, bot_delay=0, turn_timer=None))
    alice, bob = Seat(), Seat()
    table.join(alice)
    table.join(bob)
    for game in (1, 2):
        if game == 1:
            table.start(alice)
        else:
            table.play_again(bob)  # two players here: the next game waits for alice too
            assert table.finished and alice.events[-1].again == (1,)
            table.play_again(alice)
        while not table.finished:
            state = table.state
            assert state is not None
            member = alice if state.to_move == 0 else bob
            table.submit(member, Action.TAKE, state.state_id)
        updates = [event for event in alice.events if isinstance(event, TableUpdate)]
        during = [update for update in updates if not update.view.finished]
        assert during and all(update.timeline == () for update in during)
        final = updates[-1]
        assert final.view.finished and len(final.timeline) == 24
        view = final.view
        assert final.timeline[-1] == tuple(breakdown(h, c or 0).score for h, c in zip(view.hands, view.chips))
        assert final.match is not None and final.match.games == game
        alice.events.clear()
    assert final.match is not None and sum(final.match.wins) >= 2


async def test_over_tcp_no_frame_carries_a_timeline_before_the_end_and_the_match_follows_play_again():
    async with live_host() as host:
        client = await RawClient.connect(host.port, "alice")
        await client.send({"type": "create_table", "players": 3, "bots": 2, "id": 1})
        await client.until(of_type("joined"))
        await client.send({"type": "start"})
        finals = []
        for game in (1, 2):
            while True:
                frame = await client.until(of_type("update"))
                view = frame["view"]
                if not view["finished"]:
                    assert "timeline" not in frame, "the timeline went out before the end"
                    if game == 1:
                        assert "match" not in frame
                    if view["legal"]:
                        await client.send({"type": "action", "action": "take", "state_id": view["state_id"]})
                    continue
                assert len(frame["timeline"]) == 24
                finals.append(frame)
                break
            if game == 1:
                await client.send({"type": "play_again"})
        first, second = (decode_host(frame).event() for frame in finals)
        assert first.match == MatchTotals(1, tuple(first.match.wins), first.timeline[-1])
        assert second.match is not None and second.match.games == 2
        assert second.match.scores == tuple(a + b for a, b in zip(first.timeline[-1], second.timeline[-1]))
        await client.close()
