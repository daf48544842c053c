"""The review of a game (issue 30): the same game gives the same review (twice, in another process, from the record
or from the view a TCP client holds); a clearly worse choice is graded so; the exact endgame agrees with a brute
force through the engine's own rules; ``nothanks review`` as text and JSON; the words in French and Spanish."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import os
import subprocess
import sys
import threading

import msgpack
import pytest

from nothanks_server.archive import LOCAL
from nothanks_server.history import history_database
from nothanks_server.store import SqliteStore
from nothanks_tui import i18n
from nothanks_tui.bots import review
from nothanks_tui.cli import main
from nothanks_tui.client.reviewing import review_lines, review_of
from nothanks_tui.engine import (
    ALL_CARDS,
    Action,
    GameConfig,
    GameState,
    apply,
    from_deal,
    legal_actions,
    replay,
    view_for,
)
from nothanks_tui.link import SeatInfo, TableUpdate
from nothanks_tui.link.wire import decode_host, encode_event

from .history.records import finished_record
from .net_helpers import WAIT

SMALL = {True: (600, 6_000, 2_000), False: (200, 2_000, 600)}  # quick searches: the tests are about the rest


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    monkeypatch.setattr(review, "BUDGETS", SMALL)


def finish(state: GameState) -> GameState:
    """Play on: take when the card carries 2 chips or more (or no chips are left), else pass."""
    while not state.finished:
        take = state.pot >= 2 or Action.PASS not in legal_actions(state)
        state = apply(state, Action.TAKE if take else Action.PASS)
    return state


def test_the_same_game_gives_the_same_review_twice_and_in_another_process():
    record = finished_record(["ann", "bob", "cy"], 7)
    moves = replay(record).moves
    first = review.review_game(moves, 3, 11, "standard", 0)
    assert first == review.review_game(moves, 3, 11, "standard", 0)
    assert any(grade.exact for grade in first) and any(not grade.exact for grade in first)
    code = (
        "import json, sys\n"
        "from nothanks_tui.bots import review\n"
        "from nothanks_tui.engine import replay\n"
        f"review.BUDGETS = {SMALL!r}\n"
        "moves = replay(json.load(sys.stdin)).moves\n"
        "print(json.dumps(review.review_json(review.review_game(moves, 3, 11, 'standard', 0), 0)))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # another process, strings hashed otherwise
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(record), capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(done.stdout) == review.review_json(first, 0)


def test_the_review_of_the_record_is_the_review_of_the_view_a_tcp_client_holds_at_the_end():
    record = finished_record(["ann", "bob", "cy"], 3)
    final = replay(record)
    update = TableUpdate(view_for(final, 1), tuple(SeatInfo(name) for name in record["players"]), "t1")
    frame = msgpack.unpackb(encode_event(update), raw=False)
    held = decode_host(frame).event().view  # what the client decoded: its own view, the public moves
    assert held.seat == 1 and held.moves == final.moves
    assert review.review_view(held) == review.review_json(review.review_game(final.moves, 3, 11, "standard", 1), 1)


def test_moves_that_are_no_finished_game_are_refused():
    final = replay(finished_record(["ann", "bob", "cy"], 3))
    moves = list(final.moves)
    with pytest.raises(ValueError):
        review.review_game(moves[:-1], 3, 11, "standard", 0)  # unfinished
    moves[5] = dataclasses.replace(moves[5], pot=moves[5].pot + 1)
    with pytest.raises(ValueError):
        review.review_game(moves, 3, 11, "standard", 0)  # a pot the moves do not make
    with pytest.raises(ValueError):
        review.review_view(view_for(final, 0).__class__(**{**dataclasses.asdict(view_for(final, 0)), "seat": None}))


async def test_a_review_asked_again_while_it_is_graded_is_graded_once():
    """``v``, Esc, ``v``... on the score screen over SSH: one grading in the worker's threads, not one a key press."""
    final, started, release, runs = (
        replay(finished_record(["ann", "bob", "cy"], 5)),
        threading.Event(),
        threading.Event(),
        [],
    )

    def reviewer(view):
        runs.append(view.seat)
        started.set()
        release.wait(WAIT)
        return review.review_view(view)

    view = view_for(final, 1)
    asked = [asyncio.create_task(review_of(reviewer, view)) for _ in range(5)]
    await asyncio.to_thread(started.wait, WAIT)
    asked[0].cancel()  # (the first screen dismissed meanwhile)
    await asyncio.sleep(0)
    release.set()
    answers = await asyncio.gather(*asked[1:])
    assert runs == [1] and all(answer == answers[0] and answer["seat"] == 1 for answer in answers)
    assert await review_of(reviewer, view) == answers[0] and runs == [1]


def test_taking_the_35_for_nothing_at_the_first_move_is_graded_a_costly_mistake():
    config = GameConfig(players=3)
    deck = [35, *range(3, 26)]  # 35 first, then 3..25; 26..34 set aside
    state = finish(apply(from_deal(config, deck, list(range(26, 35)), 0), Action.TAKE))
    grades = review.review_game(state.moves, 3, 11, "standard", 0)
    first = grades[0]
    assert (first.move, first.card, first.pot, first.played) == (1, 35, 0, Action.TAKE)
    assert first.best is Action.PASS and first.lost > 10 and not first.exact


def brute(state: GameState) -> tuple[float, ...]:
    """Every seat's expected final score, each mover minimising its own and the next card unknown to all: through
    the engine's own rules, the deck rearranged for each card the next one may be."""
    if state.finished:
        return tuple(map(float, state.scores()))
    took = brute_take(state)
    if state.chips[state.to_move] == 0:
        return took
    passed = brute(apply(state, Action.PASS))
    return passed if passed[state.to_move] < took[state.to_move] else took


def brute_take(state: GameState) -> tuple[float, ...]:
    if state.deck_left == 0:
        return brute(apply(state, Action.TAKE))
    seen = {card for hand in state.hands for card in hand} | {state.card}
    outcomes = []
    for card in (card for card in ALL_CARDS if card not in seen):
        deck, removed, at = list(state.deck), list(state.removed), state.taken + 1
        if card in deck:
            where = deck.index(card)
            deck[where], deck[at] = deck[at], card
        else:
            removed[removed.index(card)], deck[at] = deck[at], card
        dealt = dataclasses.replace(state, deck=tuple(deck), removed=tuple(sorted(removed)))
        outcomes.append(brute(apply(dealt, Action.TAKE)))
    return tuple(sum(values) / len(outcomes) for values in zip(*outcomes))


def test_the_exact_endgame_agrees_with_a_brute_force_through_the_engine():
    compared = 0
    for seed in (1, 2):
        record = finished_record(["ann", "bob", "cy"], seed)
        states = [state for state in review.game_states(replay(record).moves, 3, 11, "standard")]
        for seat in range(3):
            grades = {grade.move: grade for grade in review.review_game(states[-1].moves, 3, 11, "standard", seat)}
            for number, state in enumerate(states[:-1], 1):
                if state.to_move != seat or state.chips[seat] == 0 or state.deck_left > 1:
                    continue
                grade = grades[number]
                assert grade.exact and grade.iterations == 0
                assert grade.take == pytest.approx(brute_take(state)[seat])
                assert grade.pass_ == pytest.approx(brute(apply(state, Action.PASS))[seat])
                compared += 1
    assert compared >= 4


def test_review_prints_the_costliest_then_every_decision_and_its_json(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished_record(["ann", "bob", "cy"], 4, bots=[False, True, True])))
    assert main(["review", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "nothanks-review/1" and data["player"] == "ann" and data["seat"] == 0
    decisions = data["decisions"]
    fields = {"move", "card", "pot", "chips", "deck_left", "played", "best", "take", "pass", "lost", "exact"}
    assert all(fields | {"iterations"} == set(decision) for decision in decisions)
    lost = {decision["move"]: decision["lost"] for decision in decisions}
    assert 1 <= len(data["costliest"]) <= 3
    assert [lost[move] for move in data["costliest"]] == sorted((lost[m] for m in data["costliest"]), reverse=True)
    assert max(lost.values()) == lost[data["costliest"][0]]
    assert data["lost"] == pytest.approx(sum(lost.values()), abs=0.1)
    assert main(["review", str(path)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "Review of ann's game" and "The costliest decisions:" in text and "Every decision:" in text
    every = text[text.index("Every decision:") + 1 :]
    assert [line.split(" · ")[0] for line in every] == [f"Move {decision['move']}" for decision in decisions]
    costly = text[text.index("The costliest decisions:") + 1 : text.index("The costliest decisions:") + 4]
    assert (
        costly[0].startswith(f"Move {data['costliest'][0]} ·") and f"lost {lost[data['costliest'][0]]:.1f}" in costly[0]
    )
    assert main(["review", str(path), "--player", "bob", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seat"] == 1


def test_review_of_the_last_game_and_its_refusals(tmp_path, capsys):
    both = finished_record(["ann", "bob"], 2)  # two people: whose review must be said
    store = SqliteStore(history_database(tmp_path), host=False)
    store.add_record("local-x", 1, both, LOCAL)
    store.close()
    assert main(["review", "--last", "--data-dir", str(tmp_path)]) == 2
    assert "give --player NAME, one of: ann, bob" in capsys.readouterr().out
    assert main(["review", "--last", "--data-dir", str(tmp_path), "--player", "bob"]) == 0
    assert capsys.readouterr().out.startswith("Review of bob's game\n")
    assert main(["review"]) == 2 and "--last" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["review", str(tmp_path / "bad.json")]) == 1
    assert capsys.readouterr().out.startswith("nothanks review: ")


@pytest.mark.parametrize("language", ["fr", "es"])
def test_the_review_speaks_french_and_spanish(language):
    data = review.review_json(
        review.review_game(replay(finished_record(["a", "b", "c"], 4)).moves, 3, 11, "standard", 0), 0
    )
    english = "\n".join(review_lines(data))

    def spoken() -> str:
        i18n.use_language(language)
        return "\n".join(review_lines(data))

    said = contextvars.copy_context().run(spoken)
    for phrase in ("The costliest decisions:", "Every decision:", "decisions graded", "Move ", "the better choice"):
        assert phrase in english and phrase not in said
