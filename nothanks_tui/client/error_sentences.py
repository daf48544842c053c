"""What each error code means to a player, in their language (codes travel as English identifiers). The client's
own codes keep the message it wrote; an unknown code shows the host's message (the caller cleans it)."""

from __future__ import annotations

import errno
import socket

from ..i18n import N_, _
from ..link import LobbyError, errors

SENTENCES: dict[str, str] = {
    errors.NOT_YOUR_TURN: N_("It is not your turn yet."),
    errors.NO_CHIPS: N_("You have no chips left: you must take the card."),
    errors.GAME_OVER: N_("The game is over."),
    errors.UNKNOWN_ACTION: N_("The host did not understand that move."),
    errors.BAD_SEAT: N_("There is no such seat at this table."),
    errors.BAD_CONFIG: N_("Those table settings are not possible (2 to 7 players)."),
    errors.BAD_RECORD: N_("That game record does not replay."),
    errors.STALE_STATE: N_("The table had moved on: look again and play."),
    errors.NOT_STARTED: N_("The game has not started yet."),
    errors.NOT_FINISHED: N_("The game is not over yet."),
    errors.NOT_SEATED: N_("Spectators cannot do that: take a seat first."),
    errors.NOT_AT_TABLE: N_("Join a table first."),
    errors.ALREADY_AT_TABLE: N_("You are already at a table: leave it first."),
    errors.NO_TABLE: N_("That table is gone."),
    errors.TABLE_FULL: N_("Every seat at that table is taken."),
    errors.SEAT_TAKEN: N_("That seat is taken."),
    errors.SEAT_AWAY: N_(
        "A seat there is kept for a player who is away: only their SSH key or seat token takes it back. Watch the "
        "table instead."
    ),
    errors.REMOVED: N_("The table's creator removed you from that table: choose another, or watch it."),
    errors.PRIVATE_TABLE: N_("That table is private: its invite code is missing or wrong."),
    errors.SEATS_EMPTY: N_("Fill every seat (players or bots) before starting."),
    errors.ALREADY_STARTED: N_("That game has started: watch it, or choose another table."),
    errors.NOT_CREATOR: N_("Only the player who set up this table can do that."),
    errors.BAD_TOKEN: N_("Your seat is no longer held (the game may be over)."),
    errors.BAD_BOT: N_("This host does not know that bot."),
    errors.TOO_MANY_TABLES: N_("This host has as many tables as it can hold: join one of them."),
    errors.NOT_SAVED: N_("The host could not save that, so it did not happen: try again."),
    errors.UNKNOWN_TYPE: N_("The host did not understand this client (is it a newer version?)."),
    errors.BAD_FIELD: N_("The host refused a request from this client as malformed."),
    errors.BAD_NAME: N_("That name cannot be used: 1 to 20 printable characters."),
    errors.NAME_TAKEN: N_("That name belongs to another player on this host: choose another."),
    errors.BAD_SIGNATURE: N_("The host could not check your identity key: it may be damaged."),
    errors.BAD_VERSION: N_("This host speaks another version of the game: update one of them."),
    errors.HELLO_FIRST: N_("The host expected this client to introduce itself first."),
    errors.BAD_FRAME: N_("That is not a No Thanks! host, or it sent something unreadable."),
    errors.TOO_BIG: N_("The host refused a message from this client as too long."),
    errors.FLOOD: N_("Too many messages too fast: the host closed the connection."),
    errors.SERVER_CLOSING: N_("The host is full or shutting down."),
    errors.SLOW_READER: N_("The connection was too slow: the host dropped it."),
    errors.SLOW_DOWN: N_("Not so fast: try again in a moment."),
    errors.TOO_MANY: N_("Your address is at one of this host's limits (connections, watched or created tables)."),
    errors.IDLE: N_("You stayed in the lobby a long time without a table: the host closed the connection."),
    errors.NOT_MEMBER: N_("That port is for the servers of a cluster, not for players: use the public port."),
    errors.NOT_AWAY: N_("That player is here, or a bot already plays for them."),
    errors.NO_GAME: N_("That finished game is not in the history (or its record is damaged)."),
    errors.COACH_OFF: N_("This table does not allow the coach."),
    errors.DAILY_PLAYED: N_("You have played today's deal already: come back tomorrow (UTC)."),
    errors.DAILY_NEEDS_KEY: N_(
        "The daily deal counts once a player, so it needs a key: come back with an SSH key (ssh-keygen), or with"
        " nothanks join."
    ),
    errors.CHAT_EMPTY: N_("Nothing to say: the line was empty."),
    errors.CHAT_TOO_LONG: N_("That line is too long: say it in fewer words."),
    errors.CHAT_TOO_FAST: N_("Too many lines too fast: wait a moment."),
    errors.UNREACHABLE: N_("The host could not be reached."),
    errors.TIMEOUT: N_("The host did not answer in time."),
    errors.CLOSED: N_("The connection is closed."),
}
"""A sentence for every code of the registry (tests/test_i18n_errors.py holds them together)."""

OWN_CODES = frozenset(code for code, entry in errors.REGISTRY.items() if entry.sent_by == "client")


def error_sentence(code: str, message: str = "") -> str:
    """What ``code`` means to the player; ``message`` is kept for the client's own codes and unknown ones."""
    if code in OWN_CODES and message:
        return message
    sentence = SENTENCES.get(code)
    if sentence is None:
        return message or code
    return _(sentence)


def taken_sentence(error: LobbyError) -> str:
    """``name_taken``'s sentence with the free name the host offers, if any ("" for any other refusal)."""
    if error.code != errors.NAME_TAKEN or not error.free_name:
        return ""
    return _("That name belongs to another player on this host: how about {name}?").format(name=error.free_name)


# The operating system's errors in a player's words (its own are English and technical); others keep the system's.
OS_REASONS: dict[int, str] = {
    errno.EADDRINUSE: N_("another program is listening on that port already (another host?): choose another port"),
    errno.EADDRNOTAVAIL: N_("this machine has no such address"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.ENOENT: N_("there is no such file or directory"),
    errno.ENOTDIR: N_("a part of that path is a file, not a directory"),
    errno.EEXIST: N_("it is a file, not a directory"),
    errno.EISDIR: N_("it is a directory, not a file"),
    errno.EROFS: N_("the disk is read-only"),
    errno.ENOSPC: N_("the disk is full"),
    errno.ECONNREFUSED: N_("nothing is listening on that port"),
    errno.ENETUNREACH: N_("this machine has no route to that network"),
    errno.EHOSTUNREACH: N_("there is no route to that machine"),
    errno.ETIMEDOUT: N_("it did not answer"),
}
NAME_REASONS: dict[int, str] = {  # getaddrinfo's errors (socket.gaierror)
    socket.EAI_NONAME: N_("no machine of that name is known (check the name, or use its address)"),
    socket.EAI_AGAIN: N_("that name could not be looked up now (is the network down?)"),
}


def os_reason(error: OSError) -> str:
    """Why ``error`` happened, in the player's language, without Python's or the system's technical words."""
    table = NAME_REASONS if isinstance(error, socket.gaierror) else OS_REASONS
    reason = table.get(error.errno) if error.errno is not None else None
    if reason is not None:
        return _(reason)
    return error.strerror or str(error) or type(error).__name__
