"""The coach's answer in words a player understands: what the hard bot would play in your place, and the final
score it expects for you after each choice, written after each choice line ("◀ coach: ≈41 final", "≈47 final").

The client never runs a bot: the host works the advice out from your own view and sends it to you alone
(``TableConnection.ask_coach``); this only says it.
"""

from __future__ import annotations

from textual.content import Content

from ..i18n import N_, _
from ..link import CoachAdvice

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
    """What the coach's answer adds after a choice line, for as long as the position lasts (never a toast over the
    choices): "  ◀ coach: ≈52 final" after the bot's choice, "  ≈57 final" after the other."""
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
