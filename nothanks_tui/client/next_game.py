"""Who asked for another game, in words: a finished table deals the next game only when every player still at it
has pressed ``a`` (the host's ``again``), so each of them should read who is waiting for whom.

One sentence, for the score dialog, the table's status and a toast: for a player who asked, who is still awaited;
for one who has not, who wants another game and the key to join them; for a spectator, who wants one.
"""

from __future__ import annotations

from ..i18n import ngettext
from ..link import TableUpdate
from .presentation import seat_name


def awaited_seats(update: TableUpdate) -> list[int]:
    """The seats whose players are here and have not asked for another game yet (bots and away players are not
    waited for)."""
    return [
        index
        for index, seat in enumerate(update.seats)
        if not (seat.empty or seat.is_bot or seat.away) and index not in update.again
    ]


def asked_by_me(update: TableUpdate) -> bool:
    """This recipient's seat has asked for another game."""
    return update.view.seat is not None and update.view.seat in update.again


def next_game_text(update: TableUpdate | None) -> str | None:
    """The sentence for ``update`` of a finished game, or None when nobody has asked (or the game goes on)."""
    if update is None or not update.view.finished or not update.again:
        return None
    every_seat = update.seats

    def names(seats: list[int]) -> str:
        return ", ".join(seat_name(every_seat, seat) for seat in seats)

    if asked_by_me(update):
        awaited = awaited_seats(update)
        if not awaited:
            return None  # everyone has asked: the deal is on its way
        return ngettext(
            "You asked for another game: waiting for {names} to press a.",
            "You asked for another game: waiting for {names} to press a.",
            len(awaited),
        ).format(names=names(awaited))
    askers = [seat for seat in update.again if seat != update.view.seat]
    if update.view.seat is None:
        return ngettext("{names} wants another game.", "{names} want another game.", len(askers)).format(
            names=names(askers)
        )
    return ngettext(
        "{names} wants another game: press a to play again.",
        "{names} want another game: press a to play again.",
        len(askers),
    ).format(names=names(askers))


def new_askers(previous: TableUpdate, update: TableUpdate) -> list[int]:
    """Seats (not the recipient's) that asked for another game between two updates of the same finished game."""
    if not update.view.finished or not previous.view.finished:
        return []
    return [seat for seat in update.again if seat not in previous.again and seat != update.view.seat]
