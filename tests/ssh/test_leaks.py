"""Many sessions come and go in one long-running host: nothing of them may stay behind.

The visitors run in a separate process, so the RSS measured is the host's alone.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from pathlib import Path

from nothanks_server.ssh.caches import instance_cache_entries

ROOT = Path(__file__).resolve().parents[2]
# Sessions before the baseline. Finished apps are swept at once (sweeper.py), but what a session removed while it ran
# (its welcome screen, dialogs) waits in frozen cycles for the collector's "grown" rule, so the heap holds up to
# three quarters of its live size in such garbage between deep collections: the warm-up must reach that plateau
# (Python's allocator keeps its arenas), or the growth measured is the plateau, not a leak. With 60, as before the
# sweep, the growth measured was 1-24 MiB; with 200, 0.3-0.5 MiB in three runs.
WARM_UP = 200
LEAKED_BLOCKS = 20_000  # memory blocks Python may hold more after 200 sessions than before: about one session's


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
    gc.collect()
    before, blocks_before = rss_mib(), sys.getallocatedblocks()

    result = await visitors(front.port, 200)

    assert len(result["first_frame"]) == 200
    await front.wait_until(lambda: front.running_apps == 0 and front.admitted == 0, timeout=90)
    assert await front.live_apps_after_settling() == 0
    assert instance_cache_entries() == 0
    gc.collect()
    assert sys.getallocatedblocks() - blocks_before < LEAKED_BLOCKS, "objects left behind by the sessions"
    grown = rss_mib() - before
    assert grown < 6, f"the host's RSS grew by {grown:.1f} MiB over 200 sessions (from {before:.1f} MiB)"

