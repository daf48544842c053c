"""``nothanks advise``: one JSON position per line in, one JSON answer per line out (see docs/advise.md).

A companion for a real table and a way for other programs to play our bots. Every line is checked against the
rules before any bot sees it; a bad one gets a one-line JSON error and the loop reads on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from .bots import Bot, make_bot
from .bots.knowledge import InfoSet, make_info
from .engine import CARDS_PLAYED, CARDS_REMOVED, IllegalMove, PlayerView, choices, variant_of
from .engine.config import ALL_CARDS, MAX_PLAYERS, MIN_PLAYERS, STANDARD, TOTAL_CHIPS, VARIANTS
from .engine.errors import CodedError

MAX_LINE = 65_536


class BadPosition(CodedError, ValueError):
    """A position that is not valid JSON, not well formed, or impossible under the rules."""


def _int(data: dict[str, Any], key: str, low: int, high: int) -> int:
    if key not in data:
        raise BadPosition("bad_position", f"{key!r} is missing (a whole number {low}..{high})")
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadPosition("bad_position", f"{key!r} must be a whole number")
    if not low <= value <= high:
        raise BadPosition("impossible_position", f"{key!r} must be {low}..{high}, not {value}")
    return value


def parse_position(data: object) -> tuple[InfoSet, PlayerView]:
    """Validate one position and return the deciding seat's InfoSet and an equivalent PlayerView."""
    if not isinstance(data, dict):
        raise BadPosition("bad_position", "a position is a JSON object")
    players = _int(data, "players", MIN_PLAYERS, MAX_PLAYERS)
    seat = _int(data, "seat", 0, players - 1)
    to_move = _int(data, "to_move", 0, players - 1) if "to_move" in data else seat
    if to_move != seat:
        raise BadPosition("impossible_position", f"advice is for the seat to move; seat {to_move} is to move")
    variant = data.get("variant", STANDARD)
    try:
        rules = variant_of(variant)
    except IllegalMove:
        raise BadPosition("bad_position", f"'variant' must be one of {', '.join(map(repr, VARIANTS))}") from None
    chips_each = rules.chips(players)
    if data.get("chips_per_player") is not None:
        chips_each = _int(data, "chips_per_player", 0, TOTAL_CHIPS // players)
    total = chips_each * players
    card = _int(data, "card", ALL_CARDS[0], ALL_CARDS[-1])
    pot = _int(data, "pot", 0, total)
    deck_left = _int(data, "deck_left", 0, CARDS_PLAYED - 1)
    if "removed" in data and _int(data, "removed", 0, len(ALL_CARDS)) != CARDS_REMOVED:
        raise BadPosition("impossible_position", f"{CARDS_REMOVED} cards are always set aside")
    cards = data.get("cards")
    if not isinstance(cards, list) or len(cards) != players or not all(isinstance(hand, list) for hand in cards):
        raise BadPosition("bad_position", f"'cards' must be a list of {players} lists of cards")
    hands: list[tuple[int, ...]] = []
    seen = {card}
    for hand in cards:
        for value in hand:
            if not isinstance(value, int) or isinstance(value, bool) or value not in ALL_CARDS:
                raise BadPosition("bad_position", f"cards are numbers 3..35, not {str(value)[:20]!r}")
            if value in seen:
                raise BadPosition("impossible_position", f"card {value} appears twice")
            seen.add(value)
        hands.append(tuple(sorted(hand)))
    if seen & set(rules.set_aside):
        cards = ", ".join(map(str, rules.set_aside))
        raise BadPosition("impossible_position", f"the {rules.name} variant sets {cards} aside")
    taken = sum(len(hand) for hand in hands)
    if taken != CARDS_PLAYED - 1 - deck_left:
        raise BadPosition(
            "impossible_position",
            f"with {deck_left} cards face down, {CARDS_PLAYED - 1 - deck_left} must have been taken, not {taken}",
        )
    chips = data.get("chips")
    if not isinstance(chips, list) or len(chips) != players:
        raise BadPosition("bad_position", f"'chips' must be a list of {players} numbers or nulls")
    for value in chips:
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise BadPosition("bad_position", "each chip count is a whole number >= 0 or null when hidden")
    if chips[seat] is None:
        raise BadPosition("bad_position", "the advised seat's own chip count must be given")
    known = sum(value for value in chips if value is not None)
    if known + pot > total or (None not in chips and known + pot != total):
        raise BadPosition(
            "impossible_position", f"chips in hands and on the card must add up to {total}, not {known + pot}"
        )
    info = make_info(players, seat, card, pot, deck_left, tuple(hands), chips, chips_each, variant)
    legal, refused = choices(seat, players=players, to_move=seat, mover_chips=chips[seat], finished=False)
    table = (players, seat, None not in chips, chips_each, variant, card, pot, deck_left, tuple(hands), tuple(chips))
    # The seat to move, during the game, with no history (state_id -1: nothing may be replayed from it).
    return info, PlayerView(*table, seat, False, -1, (), legal, refused)


def advise_one(bot: Bot, line: str) -> dict[str, Any]:
    """The answer to one input line (an error object for bad input)."""
    if len(line) > MAX_LINE:
        return {"error": "bad_json", "message": f"line longer than {MAX_LINE} characters"}
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        return {"error": "bad_json", "message": f"not JSON: {str(error)[:80]}"}
    answer: dict[str, Any] = {}
    if isinstance(data, dict) and isinstance(data.get("id"), (str, int)) and not isinstance(data.get("id"), bool):
        answer["id"] = data["id"]
    try:
        info, view = parse_position(data)
    except BadPosition as error:
        return {**answer, "error": error.code, "message": error.message}
    answer["bot"] = bot.name
    evaluate = getattr(bot, "evaluate", None)
    if evaluate is not None and (info.chips[info.seat] or 0) > 0:
        result = evaluate(info)
        answer["action"] = result.action.value
        answer["values"] = {"take": round(result.take, 3), "pass": round(result.pass_, 3)}
        answer["expected_score"] = {"take": round(result.take_score, 2), "pass": round(result.pass_score, 2)}
        answer["worlds"] = result.worlds
    else:
        answer["action"] = bot.choose(view).value
    return answer


def advise_lines(lines: Iterable[str], out: TextIO, bot_name: str = "hard", seed: int = 0) -> int:
    """Answer every non-blank line on ``out`` (flushed per line). Returns how many lines were errors."""
    bot = make_bot(bot_name, seed)
    errors = 0
    for line in lines:
        if not line.strip():
            continue
        answer = advise_one(bot, line)
        errors += "error" in answer
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return errors
