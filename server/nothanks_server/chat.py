"""A table's chat: who may speak, what they may say, and the recent lines a newcomer is shown.

The table is the authority for its chat as for its game: a line is accepted only from a member of the table (a
player's or a spectator's connection), cleaned once here as names are (``link.chat.clean_chat``), and sent to
every member. Each connection's rate is its transport's to check (``chat_bucket``), as its message rate is; the
table bounds its own rate too, whoever speaks: every line is drawn on every screen at the table (and, for SSH
players, by the host's workers), so many connections chatting at once must not multiply that work.

Chat is not game state: the last ``CHAT_HISTORY`` lines live in memory only, for whoever sits down, watches or
comes back. They are not written to the store or into game records: a restart of the host forgets them, and a
shared record never carries what people said.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque

from nothanks_tui.link import ChatHistory, ChatLine, errors
from nothanks_tui.link.chat import (
    CHAT_BURST,
    CHAT_HISTORY,
    CHAT_RATE,
    TABLE_CHAT_BURST,
    TABLE_CHAT_RATE,
    BadChat,
    clean_chat,
)

from .errors import HostError
from .limits import LoopStalls, TokenBucket


class ChatRoom:
    """The recent lines of one table, oldest first, at most ``keep``; ``rate`` lines a second (``burst`` at once)."""

    def __init__(
        self, keep: int = CHAT_HISTORY, rate: float = TABLE_CHAT_RATE, burst: float = TABLE_CHAT_BURST
    ) -> None:
        self._lines: deque[tuple[int, ChatLine]] = deque(maxlen=keep)  # (the game it was said in, the line)
        self._rate = TokenBucket(rate, burst, None, time.monotonic())

    def say(self, name: str, seat: int | None, raw: object, game: int = 0, at: int = 0, events: int = 0) -> ChatLine:
        """The line ``raw`` as everyone will see it, kept; ``HostError`` (chat_empty, chat_too_long, or
        chat_too_fast when the table as a whole is over its rate) if refused. ``game``, ``at``, ``events``: when it
        was said (the table's game number, its moves and the seat events told since the last move)."""
        try:
            text = clean_chat(raw)
        except BadChat as error:
            raise HostError(errors.CHAT_EMPTY if error.empty else errors.CHAT_TOO_LONG, str(error)) from None
        if not self._rate.take(time.monotonic()):
            raise HostError(
                errors.CHAT_TOO_FAST, f"this table says more than {TABLE_CHAT_RATE:g} lines a second: wait a moment"
            )
        line = ChatLine(name=name, text=text, seat=seat, at=at, events=events)
        self._lines.append((game, line))
        return line

    def history(self, game: int = 0) -> ChatHistory | None:
        """The recent lines, or None when nobody has said anything yet; those said before game ``game`` lose
        their place in it (``at`` None: a log shows them before this game's moves)."""
        if not self._lines:
            return None
        return ChatHistory(
            tuple(
                line if said_in == game else dataclasses.replace(line, at=None, events=0)
                for said_in, line in self._lines
            )
        )


def chat_bucket(now: float, stalls: LoopStalls | None = None) -> TokenBucket:
    """One connection's chat budget: ``CHAT_BURST`` lines at once, ``CHAT_RATE`` a second after that."""
    return TokenBucket(CHAT_RATE, CHAT_BURST, stalls, now)


def too_fast() -> HostError:
    return HostError(
        errors.CHAT_TOO_FAST, f"at most {CHAT_BURST:g} chat lines at once, then {CHAT_RATE:g} a second: wait a moment"
    )
