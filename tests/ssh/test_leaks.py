"""Many sessions come and go in one long-running host: nothing of them may stay behind.

The visitors run in a separate process, so the RSS measured is the host's alone.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from nothanks_server.ssh.caches import instance_cache_entries
from nothanks_server.ssh.collector import PROCESS_COLLECTOR, give_back_free_memory

ROOT = Path(__file__).resolve().parents[2]
# Sessions before the baseline. Both footprints are taken after a deep collection with the free pages given back
# (settled_footprint), so garbage waiting in frozen cycles is not counted; what the warm-up must reach is the
# allocators' own plateau: memory that Python's arenas and malloc's heap keep around scattered live blocks after 50
# sessions at once. Measured with a warm-up of 60: RSS grew 8-16 MiB with the block count flat (+1,100-1,500); with
# 200: 0.2-0.4 MiB in six runs, 0.0 inside the full suite.
WARM_UP = 200
LEAKED_BLOCKS = 20_000  # memory blocks Python may hold more after 200 sessions than before: about one session's


def settled_footprint() -> tuple[float, int]:
    """(RSS in MiB, Python's allocated blocks) once the host did what it does when its last session has left: a deep
    collection (frozen garbage included, which ``gc.collect`` alone skips) and the allocator's free pages given back.
    Done here rather than waited for, because the idle tick may or may not have run yet when the sessions are gone."""
    PROCESS_COLLECTOR.collect_everything("leak test")
    give_back_free_memory()
    return rss_mib(), sys.getallocatedblocks()


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


async def visitors(port: int, sessions: int, script: str = "probe") -> dict[str, object]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.ssh.visitors", "--port", str(port), "--sessions", str(sessions),
        "--script", script, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )
    output, _ = await process.communicate()
    result = json.loads(output.decode().strip().splitlines()[-1])
    assert process.returncode == 0, result["failures"]
    return result


async def test_200_sessions_leave_no_app_and_no_memory_behind(start_front):
    front = await start_front(max_sessions=50)
    await visitors(front.port, WARM_UP)  # warm up: imports, caches, allocator arenas at this concurrency
    await front.wait_until(lambda: front.running_apps == 0 and front.admitted == 0, timeout=90)
    assert await front.live_apps_after_settling() == 0
    before, blocks_before = settled_footprint()

    result = await visitors(front.port, 200)

    assert len(result["first_frame"]) == 200
    await front.wait_until(lambda: front.running_apps == 0 and front.admitted == 0, timeout=90)
    assert await front.live_apps_after_settling() == 0
    assert instance_cache_entries() == 0
    after, blocks_after = settled_footprint()
    assert blocks_after - blocks_before < LEAKED_BLOCKS, "objects left behind by the sessions"
    grown = after - before
    assert grown < 6, f"the host's RSS grew by {grown:.1f} MiB over 200 sessions (from {before:.1f} MiB)"

