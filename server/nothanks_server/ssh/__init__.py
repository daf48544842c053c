"""The SSH front: ``ssh play@host`` runs the game's Textual app for each session, in worker processes.

The host process runs only the front (front.py); each worker (worker.py) runs asyncssh and one app per session
(server.py: the gate; session.py: a channel; driver.py: Textual on it, for the client's terminal). The apps reach
the tables over the host's TCP port (game.py). patches.py lists the private library names used. Scripted SSH
players for tests and benchmarks: tools/loadgen/. Importing this package loads neither Textual nor asyncssh.
"""

from .settings import SSHSettings

__all__ = ["SSHSettings"]
