"""What a chat line (at a table, in a lobby) is, on both sides: its limits, and the one way its text is made safe.

Typed by strangers and shown on everyone's terminal, a line is cleaned as names are (``names.printable_text``) by
the host and drawn as plain text by the client, which checks the same limits first so a player is told at once.
"""

from __future__ import annotations

from .names import printable_text

CHAT = "chat"  # the feature name both hellos list when they speak chat (docs/protocol.md, "Features")
LOBBY_CHAT = "lobby_chat"  # ...and chat in a host's lobby, at no table (a cluster's front does not offer it)
MAX_CHAT = 200  # characters of a line, after cleaning
CHAT_HISTORY = 50  # recent lines a table keeps for whoever sits down or comes back
CHAT_RATE = 1.0  # lines a second, sustained, per connection...
CHAT_BURST = 5.0  # ...and at once
TABLE_CHAT_RATE = 5.0  # lines a second, sustained, at one table whoever says them...
TABLE_CHAT_BURST = 10.0  # ...and at once: every line is drawn on every screen at the table


class BadChat(ValueError):
    """A line that is empty once cleaned (``empty``) or longer than ``MAX_CHAT`` (not ``empty``)."""

    def __init__(self, message: str, empty: bool) -> None:
        super().__init__(message)
        self.empty = empty


def clean_chat(raw: object) -> str:
    """The line as everyone will see it, or ``BadChat``: 1..``MAX_CHAT`` printable characters."""
    if not isinstance(raw, str):
        raise BadChat("a chat line is text", empty=True)
    text = printable_text(raw)
    if not text:
        raise BadChat("a chat line needs at least one printable character", empty=True)
    if len(text) > MAX_CHAT:
        raise BadChat(f"a chat line has at most {MAX_CHAT} characters (this one has {len(text)})", empty=False)
    return text
