"""Waiting on Redis in the cluster tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .conftest import WAIT


async def eventually(condition: Callable[[], Awaitable[bool]], timeout: float = WAIT) -> None:
    """Poll an async ``condition`` until it holds: an expiry in Redis has no event to wait on."""
    async with asyncio.timeout(timeout):
        while not await condition():
            await asyncio.sleep(0.02)
