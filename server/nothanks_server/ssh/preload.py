"""Imported once by the front's forkserver before it forks any worker: everything a worker runs, warmed, frozen.

The first screen is drawn once headless, so what Textual computes the first time in a process is inherited (a
fresh worker's first screen p50 169 -> 125 ms); then ``gc.freeze()`` keeps collections from writing to (and
unsharing) those pages, as Python's documentation recommends before forking: idle host PSS 123 -> 98 MiB.
"""

import asyncio
import gc
import threading

from . import patches
from .game import draw_first_screen
from .worker import run_worker  # noqa: F401  (imported to be inherited by every worker, not used here)

patches.install()  # as in each worker (worker.py): the first screen's rule sets, parsed here, are then shared
asyncio.run(draw_first_screen())
if threading.active_count() != 1:
    raise RuntimeError("warming up the SSH workers' forkserver left a thread behind: forking would be unsafe")
gc.collect()
gc.freeze()
