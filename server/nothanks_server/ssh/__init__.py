"""The SSH front: ``ssh play@host`` runs the game's Textual app for each session, in worker processes (the pieces:
docs/architecture.md, "Over SSH"). Importing this package loads neither Textual nor asyncssh."""
