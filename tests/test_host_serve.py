"""host.py's ``start`` and ``serve``, which run a single host, a cluster's front, a table host, or a front and a
table host together: started in order, closed in the other (a signal as a restart, the host player leaving as the
tables' end), and nothing left started when one part fails to start."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from nothanks_server.host import RESTART_REASON, SHUTDOWN_REASON, YOUNG_COLLECTION, serve, start


class Part:
    def __init__(self, name: str, said: list[tuple[object, ...]], fails: bool = False) -> None:
        self.name = name
        self.said = said
        self.fails = fails

    async def start(self) -> None:
        if self.fails:
            raise OSError("address in use")
        self.said.append(("start", self.name))

    async def close(self, reason: str = "", *, restart: bool = False, forget: bool = False) -> None:
        self.said.append(("close", self.name, reason, restart, forget))


async def test_a_part_that_fails_to_start_closes_those_started_before_it() -> None:
    said: list[tuple[object, ...]] = []
    with pytest.raises(OSError):
        await start([Part("table", said), Part("front", said, fails=True), Part("never", said)])
    assert said == [("start", "table"), ("close", "table", "", False, False)]


async def test_a_signal_closes_every_part_as_a_restart_front_first() -> None:
    said: list[tuple[object, ...]] = []
    parts = [Part("table", said), Part("front", said)]
    await start(parts)
    await serve(parts, ready=lambda: os.kill(os.getpid(), signal.SIGTERM))
    assert said[2:] == [
        ("close", "front", RESTART_REASON, True, False),
        ("close", "table", RESTART_REASON, True, False),
    ]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handler is given back


async def test_the_host_player_leaving_ends_the_tables() -> None:
    said: list[tuple[object, ...]] = []

    async def main() -> None:
        await asyncio.sleep(0)

    await serve([Part("host", said)], main=main)
    assert said == [("close", "host", SHUTDOWN_REASON, False, True)]


async def test_while_serving_what_starting_left_is_frozen_out_of_full_collections_and_thawed_after() -> None:
    import gc

    frozen: list[int] = []
    before = gc.get_threshold()

    async def main() -> None:
        frozen.append(gc.get_freeze_count())
        frozen.append(gc.get_threshold()[0])

    await serve([Part("host", [])], main=main)
    assert frozen[0] > 1000  # the modules, the host's parts: never walked by a collection while it serves
    assert frozen[1] == YOUNG_COLLECTION > before[0]  # young collections rarer: fewer short-lived objects grow old
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
