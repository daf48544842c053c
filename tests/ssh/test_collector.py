"""The freezing collector: its policy against a fake ``gc``, and against the real one in a running SSH front."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import logging
import weakref
from pathlib import Path

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


async def test_while_sessions_run_each_tick_freezes_everything():
    fake, blocks = FakeGC(), Blocks(1_000_000)
    subject = collector(blocks, fake)
    subject.acquire()
    assert fake.take() == ["freeze"]  # what existed before any session
    subject.tick()
    assert fake.take() == []  # no session, nothing frozen since: nothing to do
    subject.session_started()
    subject.tick()
    subject.tick()
    assert fake.take() == ["freeze"] * 2


async def test_a_deep_collection_once_memory_grew_by_a_quarter_and_by_the_minimum():
    subject, fake, blocks = running(1, growth=0.25, min_growth=100_000, session_blocks=0)
    blocks.count = 1_249_999
    subject.tick()
    assert fake.take() == ["freeze"]
    blocks.count = 1_250_000
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "grown"
    blocks.count = 1_300_000  # measured from what the deep collection left: 1,250,000
    subject.tick()
    assert fake.take() == ["freeze"]


async def test_players_arriving_are_not_mistaken_for_garbage():
    subject, fake, blocks = running(10, growth=0.5, min_growth=100_000, session_blocks=0)
    blocks.count = 1_200_000
    subject.collect_everything()  # measures 20,000 live blocks per running session
    fake.take()
    for _ in range(10):
        subject.session_started()
    blocks.count = 1_400_000  # ten more players' worth: expected
    subject.tick()
    assert fake.take() == ["freeze"]
    blocks.count = 1_400_000 + 699_999  # beyond that, half the expected 1,400,000: not yet
    subject.tick()
    assert fake.take() == ["freeze"]
    blocks.count = 1_400_000 + 700_000
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "grown"


async def test_sessions_are_assumed_at_least_as_big_as_the_setting_says():
    # A deep collection while the players are still in the lobby (small sessions) must not make their growth once
    # seated look like garbage.
    subject, fake, blocks = running(10, growth=0.5, min_growth=100_000, session_blocks=30_000)
    blocks.count = 1_100_000
    subject.collect_everything()  # measures 10,000 per session: the setting's 30,000 is assumed instead
    fake.take()
    for _ in range(10):
        subject.session_started()
    blocks.count = 1_100_000 + 300_000 + 699_999  # ten arrivals at 30,000; growth just under half of 1,400,000
    subject.tick()
    assert fake.take() == ["freeze"]
    blocks.count += 1
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "grown"


async def test_the_minimum_growth_holds_for_a_small_heap():
    subject, fake, blocks = running(1, 100_000, growth=0.25, min_growth=250_000, session_blocks=0)
    blocks.count = 349_999  # +250 % but under the minimum
    subject.tick()
    assert fake.take() == ["freeze"]
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


async def test_a_deep_collection_at_the_tick_after_enough_sessions_ended():
    subject, fake, _blocks = running(5, ended_sessions=3)
    subject.session_ended()
    subject.session_ended()
    fake.take()
    subject.tick()
    assert fake.take() == ["freeze"]
    subject.session_ended()
    subject.tick()
    assert fake.take() == DEEP
    assert subject.deep_collections[-1].reason == "sessions ended"
    subject.tick()
    assert fake.take() == ["freeze"]  # the count starts again


async def test_a_busy_host_waits_for_a_quarter_of_its_sessions_to_end():
    subject, fake, _blocks = running(60, ended_sessions=3)
    for _ in range(11):
        subject.session_ended()  # 49 still running: 12 must end
    fake.take()
    subject.tick()
    assert fake.take() == ["freeze"]
    subject.session_ended()
    subject.tick()
    assert fake.take() == DEEP


async def test_sessions_ending_faster_than_the_ticks_get_their_deep_collection_at_once():
    subject, fake, _blocks = running(5, ended_sessions=3, freeze_interval=3600)
    fake.take()
    for _ in range(3):
        subject.session_ended()
    await asyncio.wait_for(fake.unfrozen.wait(), timeout=10)
    assert fake.take() == DEEP
    subject.release()


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
    assert fake.calls[:1] == ["freeze"]
    task = subject._task
    assert task is not None
    subject.release()
    await asyncio.wait({task}, timeout=10)
    assert task.cancelled()


async def test_a_finished_session_frozen_while_it_ran_is_freed_once_the_host_is_idle(start_front, monkeypatch):
    monkeypatch.setattr(PROCESS_COLLECTOR, "settings", CollectorSettings(freeze_interval=0))  # ticks by hand
    front = await start_front(sweep_finished_apps=False)  # its collector: the process-wide one, with the real gc
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


async def test_the_benchmark_finds_each_deep_collection_in_the_hosts_log(caplog, tmp_path):  # type: ignore[no-untyped-def]
    """scripts/bench_ssh.py reads the host's log for deep collections: its pattern must match what is logged."""
    spec = importlib.util.spec_from_file_location("bench_ssh", Path(__file__).parents[2] / "scripts" / "bench_ssh.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    subject, _fake, _blocks = running(3)
    with caplog.at_level(logging.INFO, logger="nothanks_server.ssh.collector"):
        subject.collect_everything("sessions ended")
        subject.collect_everything("grown")
    log = tmp_path / "host.log"
    log.write_text("the warm-up's line\n" + "\n".join(record.getMessage() for record in caplog.records) + "\n")
    found = bench.deep_collections(log, len("the warm-up's line\n"))
    assert [reason for reason, _pause in found] == ["sessions ended", "grown"]
    assert all(isinstance(pause, int) and pause >= 0 for _reason, pause in found)
    assert bench.deep_summary({"deep_collection_ms": [931, 407]}) == "2 (931, 407)"
    subject.release()


async def test_an_emptied_host_gives_its_free_memory_back_to_the_system(monkeypatch):
    from nothanks_server.ssh import collector as collector_module

    trims: list[int] = []
    monkeypatch.setattr(collector_module, "_MALLOC_TRIM", trims.append)
    subject, fake, _blocks = running(1)
    subject.tick()  # a session runs: everything frozen
    subject.session_ended()
    fake.take()
    subject.tick()  # idle: a deep collection, then the allocator's free pages go back
    assert fake.take() == DEEP and trims == [0]
    subject.tick()
    assert trims == [0], "once per emptying, not at every idle tick"


async def test_a_swept_departure_does_not_count_towards_the_departures_rule():
    subject, fake, _blocks = running(5, ended_sessions=2)
    subject.session_ended(left_garbage=False)
    subject.session_ended(left_garbage=False)
    subject.tick()
    assert fake.take() == ["freeze"], "the sweep freed them: no deep collection"
    subject.garbage_left()  # a sweep that could not free its app
    subject.garbage_left()
    subject.tick()
    assert fake.take() == DEEP and subject.deep_collections[-1].reason == "sessions ended"
