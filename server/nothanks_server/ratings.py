"""Players' ratings: every finished game rates its people with openskill's Plackett-Luce model (a maintained
multiplayer rating library, not our own maths), lower score ranking first, equal scores sharing a rank.

Bots take part at a fixed rating per level, which never moves, so that a person's number reads against theirs; a
guest's seat (``guest`` flag) is left out. What players read is a conservative integer, ``1000 + 20 (mu - 3
sigma)``: a newcomer shows 1000 and climbs as games make the model surer. People are keyed by their seat name at
the host (case aside). The stores (archive.py, cluster/redis_store.py) apply ``rate`` in the same transaction
that files the game's record, so a game is rated exactly once, keyed by its record's id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openskill.models import PlackettLuce

from nothanks_tui.link.history import Rated

MODEL = PlackettLuce()
BASE, SCALE = 1000, 20
BOT_SIGMA = 2.0  # bots are known quantities, shown as sure of as a settled player is
BOT_MU = {"random": 14.0, "easy": 20.0, "threshold": 22.0, "rules": 22.0, "medium": 25.0, "hard": 30.0, "expert": 32.0}
BOARD_BOTS = ("easy", "medium", "hard", "expert")  # the levels listed on a leaderboard, as landmarks
Skill = tuple[float, float, int]  # mu, sigma, games rated


def shown(mu: float, sigma: float) -> int:
    """The number players read: conservative (three sigmas under the estimate), scaled around 1000."""
    return round(BASE + SCALE * (mu - 3 * sigma))


NEWCOMER = BASE  # a person's shown rating before their first rated game (mu = 3 sigma in the model's defaults)


def bot_mu(level: str) -> float:
    """A bot level's fixed skill (a searching level ``ismcts:N``/``pubmcts:N`` counts as ``hard``)."""
    return BOT_MU.get(level, BOT_MU["hard"] if ":" in level else BOT_MU["medium"])


def bot_rating(level: str) -> int:
    return shown(bot_mu(level), BOT_SIGMA)


def seat_role(bot_level: str | None, guest: object = False) -> str:
    """How a seat takes part in the ratings: ``person`` (rated), ``bot`` (its level's fixed rating, never
    changed) or ``""`` (a guest: not rated, left out of the game's ranking)."""
    if bot_level is not None:
        return "bot"
    return "" if guest else "person"


def key(name: str) -> str:
    return name.casefold()


def ranked(record: dict[str, Any]) -> list[tuple[str, str, str | None, int]]:
    """(key, name, bot level or None, score) of each rated or bot seat of a ``nothanks-record/1`` record."""
    players = [str(name) for name in record["players"]]
    scores = [int(entry["score"]) for entry in record["final"]]
    bots, levels, guests = (record.get(field) or [None] * len(players) for field in ("bots", "levels", "guests"))
    if not len(players) == len(scores) == len(bots) == len(levels) == len(guests):
        raise ValueError("one final score, bot flag, level and guest flag per player")
    seats = []
    for seat, name in enumerate(players):
        level = str(levels[seat] or name) if bots[seat] else None
        if seat_role(level, guests[seat]):
            seats.append((key(name), name, level, scores[seat]))
    return seats


def rate(record: dict[str, Any], current: Mapping[str, Skill]) -> dict[str, tuple[str, float, float, int]]:
    """The people's new (name, mu, sigma, games) by key after the finished game ``record``, from their ``current``
    skills (a newcomer absent). Nothing for a game with no person or with fewer than two seats ranked."""
    seats = ranked(record)
    if len(seats) < 2 or all(level is not None for *_, level, _score in seats):
        return {}
    teams = []
    for who, _name, level, _score in seats:
        mu, sigma, _games = (bot_mu(level), BOT_SIGMA, 0) if level else current.get(who, (MODEL.mu, MODEL.sigma, 0))
        teams.append([MODEL.rating(mu, sigma)])
    after = MODEL.rate(teams, ranks=[float(score) for *_, score in seats])
    return {
        who: (name, team[0].mu, team[0].sigma, current.get(who, (0, 0, 0))[2] + 1)
        for (who, name, level, _score), team in zip(seats, after, strict=True)
        if level is None
    }


def board(people_rows: list[Rated], limit: int) -> list[Rated]:
    """The leaderboard: people's rows with the main bot levels' fixed ratings among them, best first."""
    bots = [Rated(level, bot_rating(level), 0, bot=True) for level in BOARD_BOTS]
    return sorted([*people_rows, *bots], key=lambda row: (-row.rating, row.bot, row.name))[: max(0, limit)]
