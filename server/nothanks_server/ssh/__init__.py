"""The SSH front: ``ssh play@host`` runs the game's Textual app for each session, in worker processes.

The host process runs only the front (front.py: the SSH port, admission, the workers' lives); each worker
(worker.py) runs asyncssh and one app per session (server.py: the gate and its policies; session.py: one session
channel; driver.py: the Textual driver drawing on a channel; terminal.py: the client's terminal). The apps reach
the tables over the host's TCP port like any ``nothanks join`` client (game.py). patches.py lists the few private
library names relied on. The scripted SSH players the tests and scripts/bench_ssh.py share are in tools/loadgen/
(at the repository's root, not installed).

Importing this package loads neither Textual nor asyncssh: the host process imports only what it runs.
"""

from .settings import SSHSettings

__all__ = ["SSHSettings"]
