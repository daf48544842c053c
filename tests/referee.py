"""An independent referee for game records, written from the rule texts without importing the project.

It re-plays a ``nothanks-record/1`` record move by move with its own bookkeeping and returns a list of every
problem it finds (an empty list means the record is a legal, correctly scored game).
"""

from __future__ import annotations

from typing import Any

CHIPS_BY_PLAYERS = {2: 11, 3: 11, 4: 11, 5: 11, 6: 9, 7: 7}


def _points(cards: list[int]) -> int:
    points = 0
    for card in sorted(cards):
        if card - 1 not in cards:
            points += card  # only the lowest card of each unbroken run counts
    return points


def check_record(record: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    players = len(record["players"])
    if not 2 <= players <= 7:
        problems.append(f"{players} players")
        return problems
    expected_chips = CHIPS_BY_PLAYERS[players] - (1 if record.get("variant") == "tactical" else 0)
    if record["chips_per_player"] != expected_chips:
        problems.append(f"chips_per_player {record['chips_per_player']} for {players} players")
    deck, removed = record["deck"], record["removed"]
    if len(deck) != 24 or len(removed) != 9 or sorted(deck + removed) != list(range(3, 36)):
        problems.append("the deal is not 24 played + 9 removed of the cards 3..35")
        return problems
    chips = [record["chips_per_player"]] * players
    cards: list[list[int]] = [[] for _ in range(players)]
    turn = record["first_player"]
    flipped = 0
    pot = 0
    for number, move in enumerate(record["moves"]):
        if flipped == 24:
            problems.append(f"move {number} after the last card was taken")
            break
        if move["seat"] != turn:
            problems.append(f"move {number}: seat {move['seat']} moved but it was seat {turn}'s turn")
            break
        if move["action"] == "pass":
            if chips[turn] == 0:
                problems.append(f"move {number}: seat {turn} passed with no chips")
                break
            chips[turn] -= 1
            pot += 1
            turn = (turn + 1) % players  # clockwise, to the left
        elif move["action"] == "take":
            cards[turn].append(deck[flipped])
            chips[turn] += pot
            pot = 0
            flipped += 1  # the taker flips the next card and keeps the turn
        else:
            problems.append(f"move {number}: unknown action {move['action']!r}")
            break
    if flipped != 24:
        problems.append(f"the game stopped after {flipped} cards were taken")
        return problems
    scores = [_points(hand) - left for hand, left in zip(cards, chips)]
    for seat, final in enumerate(record["final"]):
        if sorted(final["cards"]) != sorted(cards[seat]):
            problems.append(f"seat {seat}: cards {final['cards']} but the moves give {sorted(cards[seat])}")
        if final["chips"] != chips[seat]:
            problems.append(f"seat {seat}: {final['chips']} chips but the moves give {chips[seat]}")
        if final["score"] != scores[seat]:
            problems.append(f"seat {seat}: score {final['score']} but the rules give {scores[seat]}")
    best = min(scores)
    if sorted(record["winners"]) != [seat for seat, value in enumerate(scores) if value == best]:
        problems.append(f"winners {record['winners']} but the lowest score is {best}: {scores}")
    if sum(chips) != record["chips_per_player"] * players:
        problems.append("chips were created or lost")
    return problems
