"""A table's chat (and a host lobby's): who may speak, what they may say, and the recent lines a newcomer is shown.

A line is accepted only from a member of the table, cleaned once (``link.chat.clean_chat``) and sent to every
member. Each connection's rate is checked where its messages are handled (tcp.py); the table bounds its own too,
whoever speaks, as every line is drawn on every screen at the table. The last ``CHAT_HISTORY`` lines live in
memory only: never in the store nor in a game's record (a restart forgets them)."""

from __future__ import annotations

import dataclasses
import time
from collections import deque

from nothanks_tui.link import ChatHistory, ChatLine, errors
from nothanks_tui.link.chat import CHAT_HISTORY, TABLE_CHAT_BURST, TABLE_CHAT_RATE, BadChat, clean_chat

from .errors import HostError
from .limits import TokenBucket


class ChatRoom:
    """The recent lines of one table (or ``lobby``), at most ``CHAT_HISTORY``; ``rate`` a second, ``burst`` at once."""

    def __init__(self, rate: float = TABLE_CHAT_RATE, burst: float = TABLE_CHAT_BURST, *, lobby: bool = False) -> None:
        self.lobby = lobby
        self._lines: deque[tuple[int, ChatLine]] = deque(maxlen=CHAT_HISTORY)  # (the game it was said in, the line)
        self._rate = TokenBucket(rate, burst, None, time.monotonic())

    def say(self, name: str, seat: int | None, raw: object, game: int = 0, at: int = 0, events: int = 0) -> ChatLine:
        """The line ``raw`` as everyone will see it, kept; ``HostError`` if refused. ``game``, ``at``, ``events``:
        when it was said (the table's game, its moves, and the seat events since the last move)."""
        try:
            text = clean_chat(raw)
        except BadChat as error:
            raise HostError(errors.CHAT_EMPTY if error.empty else errors.CHAT_TOO_LONG, str(error)) from None
        if not self._rate.take(time.monotonic()):
            room = "lobby" if self.lobby else "table"
            raise HostError(errors.CHAT_TOO_FAST, f"this {room} says over {TABLE_CHAT_RATE:g} lines a second: wait")
        line = ChatLine(name=name, text=text, seat=seat, at=None if self.lobby else at, events=events, lobby=self.lobby)
        self._lines.append((game, line))
        return line

    def history(self, game: int = 0) -> ChatHistory | None:
        """The recent lines (None: nothing said yet); those said before game ``game`` lose their place in it
        (``at`` None: a log shows them before this game's moves)."""
        if not self._lines:
            return None
        return ChatHistory(
            tuple(
                line if said_in == game else dataclasses.replace(line, at=None, events=0)
                for said_in, line in self._lines
            )
        )
