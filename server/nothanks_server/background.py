"""The tasks a host runs beside its clients (a cluster heartbeat, the shared lobby's refresh, the stall watch):
one loop that beats on a clock, and one way to stop such a task, so that each owner does not write them again."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


async def every(interval: float, beat: Callable[[], Awaitable[object]], failed: Callable[[Exception], None]) -> None:
    """Await ``beat()`` every ``interval`` seconds until cancelled (a beat is a clock: nothing else to wait on).
    A beat that fails is told to ``failed`` and the loop goes on: the next beat tries again."""
    while True:
        await asyncio.sleep(interval)
        try:
            await beat()
        except Exception as error:
            failed(error)


async def start_beating(
    interval: float, beat: Callable[[], Awaitable[object]], failed: Callable[[Exception], None], name: str
) -> asyncio.Task[None]:
    """``beat()`` now (its error is the caller's), then every ``interval`` seconds on a task of its own."""
    await beat()
    return asyncio.get_running_loop().create_task(every(interval, beat, failed), name=name)


async def stop_task(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` (None: there is none), again every 0.5 s while it runs on (a cancellation can be lost, as
    3.11's ``wait_for`` or redis-py's pipeline drop one: its owner's ``close`` would hang), until it stopped."""
    while task is not None and not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=0.5)
    if task is not None and not task.cancelled():
        task.result()
