"""Why a seat could not be had at a host's table, in words a player can act on.

The host names the reason of a refused ``join`` by its code (``seat_away``, ``already_started``, ``table_full``,
``seat_taken``); the lobby knows the rest from the table's line: whether its game is under way or over, and whose
seats wait for players who are away. Put together, the player reads what happened, what they can do now (watch,
or set up a table of their own) and, when an away player's seat is in the way, how that seat's player gets it
back: with the SSH key or from the computer that took it, never by joining as a newcomer.
"""

from __future__ import annotations

from ..i18n import _, ngettext
from ..link import TableSummary, errors
from .error_sentences import error_sentence
from .safe_text import clean_message, display_name

SEATS_NOT_FREE = frozenset({errors.SEAT_AWAY, errors.ALREADY_STARTED, errors.TABLE_FULL, errors.SEAT_TAKEN})
"""The refusals that mean: every seat there belongs to someone (older hosts never send ``seat_away``)."""


def away_names(summary: TableSummary) -> list[str]:
    """The players whose seats at this table wait for them (dropped out, left a running game, not back since a
    restart), as plain text."""
    return [display_name(seat.name, 12) for seat in summary.seats if seat.away and not seat.empty]


def join_refusal(code: str, message: str, summary: TableSummary | None) -> list[str]:
    """The lines that say why joining ``summary``'s table was refused (``code``, with the host's ``message``), in
    the player's language: one line only for reasons that are not about the seats."""
    if code not in SEATS_NOT_FREE or summary is None:
        return [error_sentence(code, message)]
    table = clean_message(summary.table_id, 12)
    if summary.started and not summary.finished:
        lines = [_("The game at {table} is under way: its seats belong to its players.").format(table=table)]
    elif summary.finished:
        lines = [_("The game at {table} is over; its seats are kept for its players' next game.").format(table=table)]
    else:
        lines = [_("Every seat at {table} is taken.").format(table=table)]
    away = away_names(summary)
    if away:
        lines.append(
            ngettext(
                "{names} is away: the seat waits for them.", "{names} are away: their seats wait for them.", len(away)
            ).format(names=", ".join(away))
        )
    elif code == errors.SEAT_AWAY:  # (the list was older than the host's answer)
        lines.append(_("A seat there waits for a player who is away."))
    lines.append(_("Press w to watch it, or c to set up a table of your own."))
    if away or code == errors.SEAT_AWAY:
        lines.append(
            _(
                "Is it your seat? It goes back only to the SSH key or the computer that took it: log in with that "
                "key, or use nothanks join on that computer."
            )
        )
    return lines
