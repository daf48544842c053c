"""While the SSH front runs, full garbage collections are rare (see ssh/gc_policy.py); closing it restores them."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from nothanks_server.ssh.gc_policy import FULL_COLLECTION_THRESHOLD


async def test_the_front_makes_full_collections_rare_and_restores_them(start_front: Callable[..., Any]) -> None:
    before = gc.get_threshold()
    front = await start_front()
    young, middle, old = gc.get_threshold()
    assert (young, middle) == before[:2]  # young generations untouched
    assert old >= FULL_COLLECTION_THRESHOLD > before[2]
    await front.close()
    assert gc.get_threshold() == before
