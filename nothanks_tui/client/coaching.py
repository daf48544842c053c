"""The coach's answer in words a player understands: what the hard bot would play in your place, and the final
score it expects for you after each choice ("Take: expected final score 41; No thanks!: 47").

The client never runs a bot: the host works the advice out from your own view and sends it to you alone
(``TableConnection.ask_coach``); this only says it.
"""

from __future__ import annotations

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


def advice_text(advice: CoachAdvice) -> str:
    """The expected final score after each choice (lower is better), and why the bot picks what it picks."""
    take = _points(advice.take_score, advice.pass_score)
    if advice.pass_score is None:
        return _("You have no chips: you must take. Expected final score {take}.").format(take=take)
    passing = _points(advice.pass_score, advice.take_score)
    text = _("Take: expected final score {take}; No thanks!: {passing} (lower is better).").format(
        take=take, passing=passing
    )
    cheaper = "take" if advice.take_score <= advice.pass_score else "pass"
    if cheaper != advice.action:
        text += " " + _("The bot plays for the win, not only the score: that way it wins more often.")
    return text
