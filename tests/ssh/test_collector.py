"""The freezing collector: its policy against a fake ``gc``, and against the real one in a running SSH front."""

from __future__ import annotations

import asyncio
import gc
import weakref

from nothanks_server.ssh.collector import PROCESS_COLLECTOR, CollectorSettings, FreezingCollector

from .terminal_client import TerminalClient


class FakeGC:
    """Records what the collector asks of ``gc``; ``frozen`` is set on every freeze."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.frozen = asyncio.Event()
        self.unfrozen = asyncio.Event()

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect({generation})")
        return 0

    def freeze(self) -> None:
        self.calls.append("freeze")
        self.frozen.set()

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")
        self.unfrozen.set()

    def take(self) -> list[str]:
        calls, self.calls = self.calls, []
        return calls


class Blocks:
    def __init__(self, count: int) -> None:
        self.count = count

    def __call__(self) -> int:
        return self.count


def collector(blocks: Blocks, fake: FakeGC, **settings: float) -> FreezingCollector:
    settings.setdefault("freeze_interval", 0)  # ticks by hand
    return FreezingCollector(CollectorSettings(**settings), fake, blocks)  # type: ignore[arg-type]


DEEP = ["unfreeze", "collect(2)", "freeze"]


def running(sessions: int, blocks: int = 1_000_000, **settings: float) -> tuple[FreezingCollector, FakeGC, Blocks]:
    """A collector in use with ``sessions`` sessions running, its calls so far forgotten."""
    fake, counter = FakeGC(), Blocks(blocks)
    subject = collector(counter, fake, **settings)
    subject.acquire()
    for _ in range(sessions):
        subject.session_started()
    fake.take()
    return subject, fake, counter


async def test_while_sessions_run_each_tick_collects_the_young_and_freezes_the_rest():
    fake, blocks = FakeGC(), Blocks(1_000_000)
    subject = collector(blocks, fake)
    subject.acquire()
    assert fake.take() == ["freeze"]  # what existed before any session
    subject.tick()
    assert fake.take() == []  # no session, nothing frozen since: nothing to do
    subject.session_started()
    subject.tick()
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"] * 2


async def test_a_deep_collection_once_the_garbage_is_as_large_as_the_live_heap():
    subject, fake, blocks = running(1, garbage_share=1.0, min_garbage=100_000, session_blocks=0)
    blocks.count = 1_999_999  # the live heap is what there was at the start: 1,000,000
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"]
    blocks.count = 2_000_000
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "garbage"
    blocks.count = 2_500_000  # measured from what the deep collection left: 2,000,000
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"]


async def test_players_arriving_are_not_mistaken_for_garbage():
    subject, fake, blocks = running(10, garbage_share=0.5, min_garbage=100_000, session_blocks=0)
    blocks.count = 1_200_000
    subject.collect_everything()  # measures 20,000 live blocks per running session
    fake.take()
    for _ in range(10):
        subject.session_started()
    blocks.count = 1_400_000  # ten more players' worth: expected
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"]
    blocks.count = 1_400_000 + 699_999  # beyond that, half the expected 1,400,000: not yet
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"]
    blocks.count = 1_400_000 + 700_000
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "garbage"


async def test_sessions_are_assumed_at_least_as_big_as_the_setting_says():
    # A deep collection while the sessions are small (still in the lobby) must not make their growth at the
    # table look like garbage.
    subject, fake, blocks = running(10, garbage_share=0.5, min_garbage=100_000, session_blocks=30_000)
    blocks.count = 1_100_000
    subject.collect_everything()  # measures 10,000 per session: the setting's 30,000 is assumed instead
    fake.take()
    for _ in range(10):
        subject.session_started()
    blocks.count = 1_100_000 + 300_000 + 699_999  # ten arrivals at 30,000; garbage just under half of 1,400,000
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"]
    blocks.count += 1
    subject.tick()
    assert fake.take() == DEEP


async def test_players_who_leave_count_as_garbage():
    subject, fake, blocks = running(20, garbage_share=0.25, min_garbage=100_000, session_blocks=0)
    blocks.count = 1_400_000
    subject.collect_everything()  # 20,000 per session above the 1,000,000 of the start
    fake.take()
    for _ in range(13):
        subject.session_ended()  # their apps stay allocated (frozen): nothing else grows
    subject.tick()  # expected live 1,140,000; garbage 260,000, under a quarter of it
    assert fake.take() == ["collect(1)", "freeze"]
    subject.session_ended()  # expected live 1,120,000; garbage 280,000: a quarter
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "garbage"


async def test_the_minimum_garbage_holds_for_a_small_heap():
    subject, fake, blocks = running(1, 100_000, garbage_share=0.25, min_garbage=250_000, session_blocks=0)
    blocks.count = 349_999  # +250 % but under the minimum
    subject.tick()
    assert fake.take() == ["collect(1)", "freeze"]
    blocks.count = 350_000
    subject.tick()
    assert fake.take() == DEEP


async def test_an_idle_host_collects_deeply_once_then_rests():
    fake, blocks = FakeGC(), Blocks(1_000_000)
    subject = collector(blocks, fake)
    subject.acquire()
    subject.session_started()
    subject.tick()
    subject.session_ended()
    fake.take()
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "idle"
    subject.tick()
    subject.tick()
    assert fake.take() == []


async def test_the_last_user_to_leave_unfreezes_everything():
    fake, blocks = FakeGC(), Blocks(1_000_000)
    subject = collector(blocks, fake)
    subject.acquire()
    subject.acquire()
    assert fake.take() == ["freeze"]
    subject.release()
    assert fake.take() == []
    subject.release()
    assert fake.take() == ["unfreeze"]
    assert subject.collect_everything().reason == "asked"
    assert fake.take() == ["unfreeze", "collect(2)"]  # no user: nothing is frozen again


async def test_the_periodic_task_ticks_on_its_own_and_stops_with_the_last_user():
    subject, fake, _blocks = running(1, freeze_interval=0.001)
    fake.frozen.clear()
    await asyncio.wait_for(fake.frozen.wait(), timeout=10)
    assert fake.calls[:2] == ["collect(1)", "freeze"]
    task = subject._task
    assert task is not None
    subject.release()
    await asyncio.wait({task}, timeout=10)
    assert task.cancelled()


async def test_a_finished_session_frozen_while_it_ran_is_freed_once_the_host_is_idle(start_front, monkeypatch):
    monkeypatch.setattr(PROCESS_COLLECTOR, "settings", CollectorSettings(freeze_interval=0))  # ticks by hand
    front = await start_front()  # its collector: the process-wide one, with the real gc
    client = await TerminalClient().connect(front.port, "frozen")
    await client.wait_for("No Thanks!")
    [app] = list(front._running_apps)
    gone = weakref.ref(app)
    del app
    PROCESS_COLLECTOR.tick()  # a session runs: its app is frozen
    await client.close()
    await front.wait_until(lambda: front.running_apps == 0 and front.admitted == 0, timeout=30)
    await asyncio.wait(set(front._tasks), timeout=30)  # the session's task has let go of it
    gc.collect()
    assert gone() is not None, "frozen objects are out of the ordinary collector's reach"
    PROCESS_COLLECTOR.tick()  # idle now: a deep collection
    assert gone() is None
    assert PROCESS_COLLECTOR.deep_collections[-1].reason == "idle"
