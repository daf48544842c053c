"""Imported once by the front's forkserver, before it forks any worker: everything a worker runs, then frozen.

``gc.freeze()`` here moves every object the imports made into Python's permanent generation in the forkserver, so
that no worker's garbage collection ever walks them (a collection writes to each object it visits, and the page it
lies on would stop being shared with the other workers). Python's documentation recommends exactly this before
forking. Never imported by the host process or the tests.
"""

import gc

from . import game, worker  # noqa: F401  (imported to be inherited by every worker, not used here)

gc.freeze()
