"""Imported once by the front's forkserver, before it forks any worker: everything a worker runs, warmed, frozen.

- Everything a worker runs is imported here, once, and inherited by every worker.
- The game's first screen is drawn once, headless (``game.draw_first_screen``: ``App.run_test``, Textual's public
  way to run an app without a terminal): what Textual computes the first time in a process (module-level caches,
  lazily built tables) is then inherited too. With the empty-worker recycling, every newcomer to a quiet host meets
  a fresh worker. Measured (20 visits one after another, each to the lobby and away, load about 5.5): a fresh
  worker's first screen p50 169 ms without this warm-up, 125 ms with it (107 ms once asyncssh's options are also
  built before the worker says it is ready), against 110 ms on a worker that had served before. Each worker now
  draws it once more before it says it is ready (``GameAppFactory.warm_up``): the pages its first app writes to
  are then copied before a player waits for them.
- ``gc.freeze()`` then moves every object made so far into Python's permanent generation, so that no worker's
  garbage collection ever walks them (a collection writes to each object it visits, and the page it lies on would
  stop being shared with the other workers; Python's documentation recommends exactly this before forking).
  Measured: idle host (host, resource tracker, forkserver, two workers) PSS 123 -> 98 MiB.

Never imported by the host process or the tests.
"""

import asyncio
import gc
import threading

from .game import draw_first_screen
from .patches import lazy_strip_caches, share_parsed_css
from .worker import run_worker  # noqa: F401  (imported to be inherited by every worker, not used here)

share_parsed_css()  # the first screen's rule sets, parsed here, are then shared by every worker's apps
lazy_strip_caches()  # (as in each worker: worker.py)
asyncio.run(draw_first_screen())
if threading.active_count() != 1:
    raise RuntimeError("warming up the SSH workers' forkserver left a thread behind: forking would be unsafe")
gc.collect()
gc.freeze()
