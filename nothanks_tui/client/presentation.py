"""Words and layout for what a table shows: hands as runs, log lines, what each choice means for you, who asked
for another game, the coach's answer.

Pure functions to ``Content`` and text; the arithmetic and what may be played are the engine's (the view's
``legal`` and ``refused`` codes). Every name goes through ``display_name`` and in as literal text, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from ..engine import VARIANTS, Action, Move, PlayerView, breakdown, runs_of
from ..i18n import N_, _, ngettext
from ..link import CoachAdvice, SeatInfo, TableUpdate, errors
from .safe_text import clean_message, display_name

TURN_MARKER = "▶"
HIDDEN_CHIPS = "?"

REFUSAL_NOTICES: dict[str, str] = {
    errors.NOT_SEATED: N_("You are watching this table: spectators do not play."),
    errors.NOT_YOUR_TURN: N_("Not your turn yet: wait for the ▶ to reach you."),
    errors.NO_CHIPS: N_("You have no chips left, so you cannot say No thanks!: you must take (press t)."),
}
"""What a greyed play key says when pressed (translate with ``_``), by the code the view gives for its action. A
code without a sentence (``game_over``: the scores are on screen) says nothing."""


def variant_label(name: str) -> str:
    """The variant ``name`` as players read it; one this client does not know by the host's name for it, cleaned."""
    variant = VARIANTS.get(name)
    return _(variant.label) if variant is not None else clean_message(name, 20)


def chips_count(count: int) -> str:
    return ngettext("{count} chip", "{count} chips", count).format(count=count)


def cards_count(count: int) -> str:
    return ngettext("{count} card", "{count} cards", count).format(count=count)


def points_text(value: int) -> str:
    """ "1 point", "−3 points" (with a real minus sign)."""
    text = ngettext("{count} point", "{count} points", abs(value)).format(count=abs(value))
    return text if value >= 0 else f"−{text}"


def you_tag(name: str) -> str:
    """The marker after your own name, unless your name already says it."""
    you = _("you")
    return "" if name.casefold() in ("you", you.casefold()) else f" ({you})"


def number(value: int) -> str:
    """A score with a real minus sign: 12, −3."""
    return str(value) if value >= 0 else f"−{-value}"


def signed(value: int) -> str:
    """+3, 0, −2 (a real minus sign reads better than a hyphen next to runs like 14-15)."""
    return f"+{value}" if value > 0 else number(value)


def run_text(run: Sequence[int]) -> str:
    return "-".join(str(card) for card in run)


def hand_lines(cards: Sequence[int], width: int, empty: str | None = None) -> list[Content]:
    """Cards as runs (14-15-16 in bold), in lines of at most ``width`` cells, a run never split unless it alone is
    wider. ``empty``: what no cards shows ("no cards")."""
    if not cards:
        return [Content.styled(_("no cards") if empty is None else empty, "dim")]
    lines: list[list[tuple[str, str]]] = [[]]
    used = 0
    for run in runs_of(cards):
        text = run_text(run)
        if lines[-1] and used + 2 + len(text) <= width:
            lines[-1].append(("  ", ""))
            used += 2
        elif lines[-1]:
            lines.append([])
            used = 0
        lines[-1].append((text, "bold" if len(run) > 1 else ""))
        used += len(text)
    return [Content.assemble(*parts) for parts in lines]


def indented_lines(prefix: Content, lines: Sequence[Content]) -> list[Content]:
    """``prefix`` then the first line; later lines indented to line up under the first."""
    pad = " " * prefix.cell_length
    return [Content.assemble(prefix, lines[0])] + [Content.assemble(pad, line) for line in lines[1:]]


def rating_tag(seat: SeatInfo) -> str:
    """A player's rating at the host after their name, " (1042)" (nothing where the host rates nobody)."""
    return "" if seat.rating is None else f" ({seat.rating})"


def seat_name(seats: Sequence[SeatInfo], seat: int, max_cells: int = 14) -> str:
    if 0 <= seat < len(seats):
        return display_name(seats[seat].label, max_cells)
    return _("seat {number}").format(number=seat + 1)


def logged_moves(moves: Sequence[Move], rows: int) -> list[Move]:
    """The moves the log shows, oldest first, at most ``rows``: the take of every card, and the newest move (so a
    pass rewrites one line instead of scrolling the log: most of a move's cost on an SSH host)."""
    if rows <= 0 or not moves:
        return []
    shown = [moves[-1]]
    for move in reversed(moves[:-1]):
        if len(shown) == rows:
            break
        if move.action is Action.TAKE:
            shown.append(move)
    shown.reverse()
    return shown


def move_line(move: Move, seats: Sequence[SeatInfo]) -> Content:
    """One log line: "bo: No thanks! (27, 3 on it)" (chips on the card after paying) or "cy took 27 with 4 chips"."""
    name = seat_name(seats, move.seat, 10)
    if move.action is Action.PASS:
        return Content.assemble(
            (name, "bold"), _(": No thanks! ({card}, {chips} on it)").format(card=move.card, chips=move.pot + 1)
        )
    return Content.assemble(
        (name, "bold"),
        ngettext(" took {card} with {count} chip", " took {card} with {count} chips", move.pot).format(
            card=move.card, count=move.pot
        ),
    )


def turn_content(view: PlayerView, seats: Sequence[SeatInfo]) -> Content:
    """Whose turn it is, with a marker so it never depends on colour."""
    if view.finished:
        return Content.styled(_("Game over"), "bold")
    if view.legal:
        if view.refusal(Action.PASS) == errors.NO_CHIPS:
            return Content.styled(f"{TURN_MARKER} " + _("Your turn: no chips, you must take"), "bold reverse")
        return Content.styled(f"{TURN_MARKER} " + _("Your turn"), "bold reverse")
    return Content.assemble(f"{TURN_MARKER} ", (seat_name(seats, view.to_move), "bold"), _(" to play…"))


def take_effect(view: PlayerView) -> str:
    """What taking the face-up card does to your cards, in words: "+27 points", "extends 14-15: +0 points"..."""
    cost = view.take_cost()
    card = view.card
    if cost is None or card is None:
        return ""
    runs = runs_of(view.my_hand)  # the run just below the card, and just above it
    below = next((run for run in runs if run[-1] == card - 1), None)
    above = next((run for run in runs if run[0] == card + 1), None)
    amount = ("+" if cost >= 0 else "") + points_text(cost)
    if below and above:
        return _("bridges {low} and {high}: {amount}").format(low=run_text(below), high=run_text(above), amount=amount)
    if below:
        return _("extends {run}: {amount}").format(run=run_text(below), amount=amount)
    if above:
        return _("extends {run} down: {amount}").format(run=run_text(above), amount=amount)
    return amount


def _score_now(view: PlayerView) -> int:
    return breakdown(view.my_hand, view.my_chips or 0).score


def take_choice(view: PlayerView, short: bool = False) -> Content:
    """ "Take 27: +27 points, +3 chips → score 51 (+24)": the score you would have, then the change; ``short``:
    "Take 27 → score 51 (+24)", for a line that would not fit otherwise."""
    cost = view.take_cost()
    if cost is None or view.card is None:
        return Content("")
    net = cost - view.pot
    outcome = _(" → score {score} ({signed})").format(score=number(_score_now(view) + net), signed=signed(net))
    title = (_("Take {card}").format(card=view.card), "bold")
    if short:
        return Content.assemble(title, outcome)
    return Content.assemble(
        title,
        _(": {effect}, {chips}").format(
            effect=take_effect(view),
            chips=ngettext("{signed} chip", "{signed} chips", view.pot).format(signed=signed(view.pot)),
        ),
        outcome,
    )


def pass_choice(view: PlayerView, short: bool = False) -> Content:
    """ "No thanks!: −1 chip (7 left) → score 52 (+1)", or why you cannot say it (the view's ``no_chips``);
    ``short``: "No thanks! → score 52 (+1)", for a line that would not fit otherwise."""
    if view.refusal(Action.PASS) == errors.NO_CHIPS:
        return Content.assemble((_("No thanks!"), "bold strike"), _(": impossible with no chips, you must take"))
    chips = view.my_chips or 0
    if chips <= 0:  # not your turn, and nothing to pay with when it comes
        return Content.assemble((_("No thanks!"), "bold"), _(": no chip to pay with"))
    score = number(_score_now(view) + 1)
    if short:
        return Content.assemble((_("No thanks!"), "bold"), _(" → score {score} (+1)").format(score=score))
    return Content.assemble(
        (_("No thanks!"), "bold"), _(": −1 chip ({left} left) → score {score} (+1)").format(left=chips - 1, score=score)
    )


def my_score_content(view: PlayerView) -> Content:
    """Your current score, explained: "score 9 (cards 17 − 8 chips)"."""
    chips = view.my_chips or 0
    result = breakdown(view.my_hand, chips)
    return Content.assemble(
        (_("score {score}").format(score=number(result.score)), "bold"),
        _(" (cards {total} − {chips})").format(total=result.card_total, chips=chips_count(chips)),
    )


# -- another game: a finished table deals the next once every player still at it has pressed a


def asked_by_me(update: TableUpdate) -> bool:
    return update.view.seat is not None and update.view.seat in update.again


def next_game_text(update: TableUpdate | None) -> str | None:
    """The sentence for ``update`` of a finished game, or None when nobody has asked (or the game goes on)."""
    if update is None or not update.view.finished or not update.again:
        return None
    every_seat = update.seats

    def names(seats: list[int]) -> str:
        return ", ".join(seat_name(every_seat, seat) for seat in seats)

    if asked_by_me(update):
        seats = enumerate(update.seats)  # (bots and away players are not waited for)
        awaited = [i for i, seat in seats if not (seat.empty or seat.is_bot or seat.away) and i not in update.again]
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


# -- the coach's answer (the host works it out; this only says it)

COACH_LABEL = N_("Coach: a key shows what the hard bot would play")  # the new-table option


def _points(value: float, other: float | None) -> str:
    """A whole number of points, or one decimal when the other choice rounds to the same whole number."""
    if other is not None and round(value) == round(other) and value != other:
        return f"{value:.1f}"
    return str(round(value))


def advice_title(advice: CoachAdvice, card: int | None) -> str:
    if advice.action == "take":
        return _("Coach: take {card}").format(card=card) if card is not None else _("Coach: take")
    return _("Coach: No thanks!")


def choice_mark(advice: CoachAdvice, action: str) -> Content:
    """What the coach's answer adds after a choice line: "  ◀ coach: ≈52 final" after the bot's, "  ≈57 final"."""
    if action == "take":
        score, other = advice.take_score, advice.pass_score
    else:
        if advice.pass_score is None:
            return Content("")
        score, other = advice.pass_score, advice.take_score
    expected = _("≈{score} final").format(score=_points(score, other))
    if action == advice.action:
        return Content.assemble("  ", (_("◀ coach: {expected}").format(expected=expected), "bold $accent"))
    return Content.styled("  " + expected, "dim")


def advice_note(advice: CoachAdvice) -> str | None:
    """The one thing the marks cannot say: the bot's choice is not the one with the lower expected score."""
    if advice.pass_score is None:
        return None
    cheaper = "take" if advice.take_score <= advice.pass_score else "pass"
    if cheaper == advice.action:
        return None
    return _("The bot plays for the win, not only the score: that way it wins more often.")
