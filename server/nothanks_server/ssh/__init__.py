"""The SSH front: ``ssh play@host`` runs the game's Textual app for each session, in worker processes (the pieces:
docs/architecture.md, "Over SSH"). Importing this package loads neither Textual nor asyncssh.

It does set one warnings filter: asyncssh 2.24.1 names ``cryptography``'s DSA classes in its type hints, and
cryptography 51 (what pyproject.toml's ``cryptography>=39`` installs today) warns that DSA is deprecated at every
such name: ten lines of warnings on the host's stderr at every start (the forkserver imports asyncssh). DSA is in
none of asyncssh's default algorithms (tests/ssh/test_quiet_import.py checks it) and ssh/server.py sets no
algorithms of its own, so no DSA key is offered or accepted: the warning says nothing to whoever runs the host.
The filter matches that one message from asyncssh's own modules only: any other warning, and this one from our
code, still shows.
"""

import warnings

warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")
