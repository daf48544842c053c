"""Each game's accepted moves in Redis, written only by the table's current lease holder (fenced by its epoch).

Why: a table must outlive its host. Every accepted move is here before its effect is sent (Redis with
``appendfsync always`` answers once it is on disk), so a dead host's table is replayed by its next host to its
last accepted move; and a host that lost its lease without knowing it (cut off, then back) cannot add a move after
the new owner's: every append checks the writer's lease, epoch and all, in the script that writes.

A game's moves are one list (``P:moves:{table}:{game}``), a move's index its place in the game. The same move again
at its index does nothing (a writer that did not hear whether it landed sends it again); another move there, or a
gap, is refused: a move is neither lost nor applied twice. redis_store.py appends a group commit's moves of every
table in one call (``APPEND_MANY``); tools/cluster_log.py's ``MoveLog`` one game's.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgpack

# One game's append: the lease key, the game's list, the writer's lease value, the first move's index, and the
# moves (msgpack) in ARGV[from..to]. The number of moves added, or -1 (not the lease holder), -2 (a gap), -3
# (another move at an index); on a refusal nothing is written.
APPEND_ONE = """
local function append(lease, list, holder, first, from, to)
  if redis.call('GET', lease) ~= holder then return -1 end
  local have = redis.call('LLEN', list)
  if first > have then return -2 end
  for i = from, to do
    local index = first + i - from
    if index < have and redis.call('LINDEX', list, index) ~= ARGV[i] then return -3 end
  end
  local added = 0
  for i = from, to do
    if first + i - from >= have then
      redis.call('RPUSH', list, ARGV[i])
      added = added + 1
    end
  end
  return added
end
"""

# Several games at once (a table host's group commit: one call for every table's moves, each fenced by its own
# lease). KEYS: lease and list of each game. ARGV: for each, its lease value, first index, move count and moves.
# One answer per game, as ``append``'s; a game refused leaves the others written.
APPEND_MANY = (
    APPEND_ONE
    + """
local answers = {}
local at = 1
for game = 1, #KEYS / 2 do
  local count = tonumber(ARGV[at + 2])
  answers[game] = append(KEYS[2 * game - 1], KEYS[2 * game], ARGV[at], tonumber(ARGV[at + 1]), at + 3, at + 2 + count)
  at = at + 3 + count
end
return answers
"""
)


NOT_HOLDER, GAP, OTHER_MOVE = -1, -2, -3  # what an append returns instead of a count


@dataclass(frozen=True)
class LoggedMove:
    seat: int
    action: str
    state_id: int  # the state the move was made on (the table's own check against stale moves)


def moves_key(prefix: str, table_id: str, game_no: int) -> str:
    """The list of game ``game_no``'s moves at ``table_id``."""
    return f"{prefix}:moves:{table_id}:{game_no}"


def pack_move(move: LoggedMove) -> bytes:
    """One move as the log keeps it (msgpack)."""
    return msgpack.packb((move.seat, move.action, move.state_id))
