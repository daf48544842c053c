"""A table host frozen (SIGSTOP) under its players, on the documented cluster: HAProxy, two fronts, three table
hosts and Redis, as real processes (cluster_processes.py).

A frozen host keeps its sockets open, so nothing but silence tells a front it is gone; its leases run out and
another host adopts its tables within seconds. The promise: every player of the frozen host is playing again
within ``PLAYABLE_WITHIN`` seconds of the freeze (their front noticed the silence and took their seat back at the
new owner), whatever the freeze lasts; the new owner's turn timer (on, and short here: ``TURN_TIMER``) never plays
for a player who is connected and waiting, and a move a player sent into the freeze is played, not replaced.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import pytest_asyncio

from .cluster_processes import WAIT, Cluster, ClusterShape, running_cluster, until
from .tcp_player import TcpPlayer
from .test_e2e_cluster import logged_moves, public, require_programs

PLAYABLE_WITHIN = 5.0  # seconds from the freeze to the player's table playable again
TURN_TIMER = 10  # seconds an away player's turn waits for a stand-in: shorter than the freezes
PLAYERS = 6  # each at a 2-seat table with a bot: two tables on each table host

pytestmark = pytest.mark.asyncio(loop_scope="module")


class Player(TcpPlayer):
    """A scripted player that remembers every move it sent."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.sent: list[str] = []

    def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "action":
            self.sent.append(message["action"])
        super().send(message)

    def my_moves(self, view: dict[str, Any]) -> list[str]:
        return [str(action) for seat, action in public(view["moves"]) if seat == self.seat]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def cluster(tmp_path_factory):
    require_programs()
    shape = ClusterShape(table_options=("--turn-timer", str(TURN_TIMER)))
    async with running_cluster(tmp_path_factory.mktemp("frozen") / "cluster", shape) as started:
        yield started


async def seated_players(cluster: Cluster, tag: int) -> list[Player]:
    """``PLAYERS`` players through the balancer, each at a started table of their own, each at their turn."""
    assert cluster.balancer is not None
    players = [Player(f"p{tag}x{n}") for n in range(PLAYERS)]
    for number, player in enumerate(players):
        welcome = await player.connect(cluster.balancer.game_port, source=f"127.0.{tag}.{number + 10}")
        assert welcome["type"] == "welcome", welcome
        created = await player.request({"type": "create_table", "players": 2, "bots": 1})
        assert created["type"] == "joined", created
        player.send({"type": "start"})
    for player in players:
        await player.move()
        await player.until(player.my_turn)
    return players


@pytest.mark.parametrize("freeze", [15.0, 75.0])
async def test_the_players_of_a_frozen_table_host_play_on_within_seconds(cluster, freeze):
    players = await seated_players(cluster, tag=int(freeze))
    holders = {player.name: await cluster.wait_holder(str(player.table)) for player in players}
    frozen = max(cluster.tables, key=lambda host: sum(holder is host for holder in holders.values()))
    stuck = [player for player in players if holders[player.name] is frozen]
    others = [player for player in players if holders[player.name] is not frozen]
    assert len(stuck) >= 2, holders
    movers, waiters = stuck[::2], stuck[1::2]  # movers send a move into the freeze; waiters think it over
    before = {player.name: player.view for player in stuck}
    directory = await cluster.directory_client()

    frozen.pause()
    stopped = time.monotonic()
    try:
        for player in movers:
            assert player.view is not None
            player.send({"type": "action", "action": "take", "state_id": player.view["state_id"]})
        playable: dict[str, float] = {}

        async def playable_again(player: Player) -> None:
            seen = len(player.frames)
            await player.next_of("table_moving", since=seen)
            start = before[player.name]
            assert start is not None
            if player in movers:  # their move was played at the new owner (and the bot's answer, maybe, after)
                await player.until(lambda: player.view["state_id"] > start["state_id"])
            else:  # the table's first view from the new owner: still their turn
                moved = next(i for i, frame in enumerate(player.frames) if frame.get("type") == "table_moving"
                             and i >= seen)  # fmt: skip
                await player.until(lambda: any(f.get("type") == "update" for f in player.frames[moved:]))
                assert player.my_turn()
            playable[player.name] = time.monotonic() - stopped

        await asyncio.wait_for(asyncio.gather(*(playable_again(player) for player in stuck)), WAIT)
        slowest = max(playable.values())
        assert slowest < PLAYABLE_WITHIN, playable
        for player in stuck:
            assert (await cluster.holder(str(player.table))) is not frozen

        # Until the freeze ends, the waiters' tables wait for them: connected, nobody plays for them.
        await asyncio.sleep(max(0.0, freeze - (time.monotonic() - stopped)))  # (the freeze itself, not a wait)
        for player in waiters:
            assert player.my_turn() and player.view["state_id"] == before[player.name]["state_id"], player.view
    finally:
        frozen.resume()

    async def frozen_let_go() -> bool:  # it wakes up owning nothing: its writes are fenced, its lines withdrawn
        lines = await directory.lobby()
        return not any(line.host_id == frozen.name for line in lines)

    await until(frozen_let_go)
    for player in stuck + others:
        final = await player.play_to_the_end()
        assert player.my_moves(final) == player.sent  # each move sent played once; none made or replaced for them
        assert public(final["moves"]) == await logged_moves(cluster, str(player.table))
        assert not any(kind == "stand_in" for _at, _seat, kind in final_seat_events(player))
        await player.close()
    print(f"\nfrozen {freeze:.0f} s: {len(stuck)} players playable again after " +
          ", ".join(f"{seconds:.2f}" for seconds in sorted(playable.values())) + " s")  # fmt: skip


def final_seat_events(player: Player) -> list[list[Any]]:
    update = next(frame for frame in reversed(player.frames) if frame.get("type") == "update")
    return update.get("seat_events", [])
