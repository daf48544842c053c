"""``nothanks advise``: JSON positions in, one JSON answer per line out, errors without stopping."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from nothanks_tui.advise import advise_lines

GOOD = {
    "players": 3, "seat": 0, "to_move": 0, "card": 27, "pot": 4, "deck_left": 20, "removed": 9,
    "cards": [[3, 4], [30], []], "chips": [8, None, None],
}  # fmt: skip


def _answers(lines, bot="medium"):
    out = io.StringIO()
    errors = advise_lines(lines, out, bot_name=bot, seed=1)
    return errors, [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_position_gets_an_action_with_values():
    errors, [answer] = _answers([json.dumps(GOOD)])
    assert errors == 0
    assert answer["action"] in ("take", "pass") and answer["bot"] == "medium"
    assert set(answer["values"]) == {"take", "pass"}
    assert (answer["action"] == "take") == (answer["values"]["take"] >= answer["values"]["pass"])
    assert answer["worlds"] >= 1


def test_bots_without_values_still_answer():
    _, [answer] = _answers([json.dumps(GOOD)], bot="threshold")
    assert answer == {"bot": "threshold", "action": "pass"}  # 27 costs 27, the pot is 4


def test_with_no_chips_the_only_advice_is_take():
    position = dict(GOOD, chips=[0, 12, None], pot=4)
    _, [answer] = _answers([json.dumps(position)], bot="hard")
    assert answer["action"] == "take"


def _error(position) -> dict:
    _, [answer] = _answers([position if isinstance(position, str) else json.dumps(position)])
    assert set(answer) >= {"error", "message"}, answer
    return answer


def test_malformed_and_impossible_positions_get_one_line_errors():
    assert _error("{not json")["error"] == "bad_json"
    assert _error("[1, 2]")["error"] == "bad_position"
    assert _error(dict(GOOD, players=9))["error"] == "impossible_position"
    assert _error(dict(GOOD, players="3"))["error"] == "bad_position"
    assert _error(dict(GOOD, card=30))["error"] == "impossible_position"  # already in a hand
    assert _error(dict(GOOD, deck_left=12))["error"] == "impossible_position"  # 11 taken, 3 in hands
    assert _error(dict(GOOD, chips=[None, 3, 3]))["error"] == "bad_position"  # own chips unknown
    assert _error(dict(GOOD, chips=[30, None, None]))["error"] == "impossible_position"  # more than 33 chips
    assert _error(dict(GOOD, chips=[8, 10, 10]))["error"] == "impossible_position"  # 8+10+10+4 != 33
    assert _error(dict(GOOD, to_move=1))["error"] == "impossible_position"
    assert _error(dict(GOOD, removed=8))["error"] == "impossible_position"
    assert _error(dict(GOOD, cards=[[3, 3], [30], []]))["error"] == "impossible_position"
    missing = {key: value for key, value in GOOD.items() if key != "seat"}
    assert _error(missing)["message"].startswith("'seat' is missing")  # (not "must be a whole number")
    assert _error(dict(GOOD, id="q1", pot=-1)) == {
        "id": "q1", "error": "impossible_position", "message": "'pot' must be 0..33, not -1"
    }  # fmt: skip


def test_the_process_keeps_reading_after_bad_lines():
    lines = ["garbage", json.dumps(dict(GOOD, seat=5)), "", json.dumps(dict(GOOD, id=3)), "x" * 70_000]
    result = subprocess.run(
        [sys.executable, "-m", "nothanks_tui", "advise", "--bot", "medium", "--seed", "2"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == 4  # the blank line is skipped
    assert answers[0]["error"] == "bad_json"
    assert answers[1]["error"] == "impossible_position"
    assert answers[2]["id"] == 3 and answers[2]["action"] in ("take", "pass")
    assert answers[3]["error"] == "bad_json"


def test_expert_and_ismcts_answer_with_values_like_hard():
    for bot in ("expert", "ismcts:50"):
        errors, [answer] = _answers([json.dumps(dict(GOOD, id=7))], bot=bot)
        assert errors == 0 and answer["bot"] == bot and answer["id"] == 7
        assert answer["action"] in ("take", "pass") and set(answer["values"]) == {"take", "pass"}
        assert set(answer["expected_score"]) == {"take", "pass"} and answer["worlds"] >= 50


def test_the_same_seed_gives_the_same_advice_in_every_run_even_with_hidden_chips():
    """``--seed`` promises the same answers: a position with unknown chip counts once got other advice in each run
    (its seed hashed ``None``, whose hash is an address that changes from one process to the next)."""
    lines = "\n".join([json.dumps(GOOD), json.dumps(dict(GOOD, chips=[8, 11, None]))]) + "\n"

    def run(bot: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "nothanks_tui", "advise", "--bot", bot, "--seed", "4"],
            input=lines, capture_output=True, text=True, timeout=60, check=True,
        ).stdout  # fmt: skip

    for bot in ("hard", "medium"):
        first = run(bot)
        assert '"values"' in first and first == run(bot) == run(bot)
