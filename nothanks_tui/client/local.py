"""A table in this process: the engine state and the bots live here, the app sees only its seat's view.

``LocalConnection`` is the ``TableConnection`` for local play against bots. It is the authority for its table the
way a host is for a network table: it checks every intent (a stale ``state_id`` is refused so a repeated key cannot
act twice; an illegal move comes back as the engine's error code), paces the bots so a person can follow them, and
runs ``bot.choose`` in a thread so a slow search bot never blocks the event loop the UI runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Sequence

from ..bots import Bot, make_bot
from ..engine import Action, GameConfig, GameState, IllegalMove, apply, new_game, view_for
from ..link import Closed, ConnectionInfo, Rejected, SeatInfo, TableConnection, TableEvent, TableUpdate

log = logging.getLogger(__name__)

STALE_STATE = "stale_state"  # an intent named a state the table has moved past (e.g. a repeated key press)
NOT_FINISHED = "not_finished"  # play again asked while the game is still going
CLOSED = "closed"  # the connection was closed

DEFAULT_BOT_PACE = 0.7  # seconds per bot move: slow enough to follow, quick enough not to bore
BOT_NAMES = ("ana", "bo", "cy", "dee", "eli", "fay", "gus", "hal")


def bot_seat_names(human_name: str, count: int) -> list[str]:
    """Names for ``count`` bot seats that differ from the human's name."""
    names = [name for name in BOT_NAMES if name != human_name.strip().casefold()]
    return names[:count]


class LocalConnection(TableConnection):
    """One human seat at an in-process table with bots in every other seat."""

    def __init__(
        self,
        config: GameConfig,
        bots: Sequence[Bot],
        *,
        human_name: str = "you",
        human_seat: int = 0,
        seed: int | None = None,
        bot_pace: float = DEFAULT_BOT_PACE,
        bot_names: Sequence[str] | None = None,
    ) -> None:
        if len(bots) != config.players - 1:
            raise ValueError(f"a table of {config.players} needs {config.players - 1} bots, got {len(bots)}")
        if not 0 <= human_seat < config.players:
            raise ValueError(f"no seat {human_seat} at a table of {config.players}")
        self.config = config
        self.human_seat = human_seat
        self.bot_pace = max(0.0, bot_pace)
        self.info = ConnectionInfo("local", {"players": str(config.players)})
        names = list(bot_names) if bot_names is not None else bot_seat_names(human_name, len(bots))
        self._bots: dict[int, Bot] = {}
        seats: list[SeatInfo] = []
        bot_iter = iter(zip(bots, names))
        for seat in range(config.players):
            if seat == human_seat:
                seats.append(SeatInfo(human_name))
            else:
                bot, name = next(bot_iter)
                self._bots[seat] = bot
                seats.append(SeatInfo(name, is_bot=True))
        self.seats = tuple(seats)
        self._seeds = random.Random(seed)  # one seed per deal, so a seeded table replays game after game
        self._state: GameState | None = None
        self._events: asyncio.Queue[TableEvent] = asyncio.Queue()
        self._bot_task: asyncio.Task[None] | None = None
        self._closed = False
        self.games_started = 0

    @classmethod
    def against_bots(
        cls,
        players: int = 4,
        bot: str = "rules",
        *,
        seed: int | None = None,
        open_chips: bool = False,
        tactical: bool = False,
        human_name: str = "you",
        bot_pace: float = DEFAULT_BOT_PACE,
    ) -> LocalConnection:
        """A table of ``players`` seats: the human in seat 0 and bots called ``bot`` in the others."""
        config = GameConfig(players=players, open_chips=open_chips, variant="tactical" if tactical else "standard")
        bot_seeds = random.Random(seed)
        bots = [make_bot(bot, None if seed is None else bot_seeds.randrange(2**32)) for _ in range(players - 1)]
        return cls(config, bots, human_name=human_name, seed=seed, bot_pace=bot_pace)

    # -- TableConnection -------------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._state is None and not self._closed:
            self._deal()

    async def next_event(self) -> TableEvent:
        return await self._events.get()

    async def send_action(self, action: Action, state_id: int) -> None:
        if self._closed or self._state is None:
            self._events.put_nowait(Rejected(CLOSED, "this table is closed"))
            return
        state = self._state
        if state_id != state.state_id:
            self._events.put_nowait(
                Rejected(STALE_STATE, "the table moved on before that key press arrived; nothing was played")
            )
            return
        try:
            self._state = apply(state, action, self.human_seat)
        except IllegalMove as error:
            self._events.put_nowait(Rejected(error.code, error.message))
            return
        self._publish()

    async def play_again(self) -> None:
        if self._closed or self._state is None:
            self._events.put_nowait(Rejected(CLOSED, "this table is closed"))
            return
        if not self._state.finished:
            self._events.put_nowait(Rejected(NOT_FINISHED, "this game is still being played"))
            return
        self._deal()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._stop_bots()
        self._events.put_nowait(Closed("you left the table"))

    # -- the table ---------------------------------------------------------------------------------------------

    @property
    def state_id(self) -> int | None:
        """The current state's number (for tests and diagnostics; the state itself never leaves)."""
        return None if self._state is None else self._state.state_id

    def _deal(self) -> None:
        self.games_started += 1
        self._state = new_game(self.config, self._seeds.randrange(2**63))
        self._publish()

    def _publish(self) -> None:
        """Send the human their view and, if a bot is to move, let it play."""
        state = self._state
        assert state is not None
        self._events.put_nowait(
            TableUpdate(
                view=view_for(state, self.human_seat),
                seats=self.seats,
                table_id="local",
                can_restart=state.finished,
            )
        )
        if not state.finished and state.to_move in self._bots and self._bot_task is None:
            self._bot_task = asyncio.get_running_loop().create_task(self._play_bots())

    async def _play_bots(self) -> None:
        """Play bot moves, one every ``bot_pace`` seconds, until the human is to move or the game ends."""
        try:
            while not self._closed:
                state = self._state
                if state is None or state.finished or state.to_move not in self._bots:
                    return
                seat = state.to_move
                bot = self._bots[seat]
                loop = asyncio.get_running_loop()
                started = loop.time()
                action = await asyncio.to_thread(bot.choose, view_for(state, seat))
                remaining = self.bot_pace - (loop.time() - started)
                if remaining > 0:
                    await asyncio.sleep(remaining)  # pacing for the human eye, not synchronisation
                if self._closed or self._state is not state:
                    continue  # the table changed meanwhile (a new deal): decide again on the new state
                try:
                    self._state = apply(state, action, seat)
                except IllegalMove as error:
                    # A bot that breaks the rules must not stall the table: it takes (always legal).
                    log.warning("bot %s in seat %d played an illegal move (%s); taking instead", bot.name, seat, error)
                    self._state = apply(state, Action.TAKE, seat)
                self._events.put_nowait(
                    TableUpdate(view_for(self._state, self.human_seat), self.seats, "local", self._state.finished)
                )
        finally:
            self._bot_task = None

    async def _stop_bots(self) -> None:
        task = self._bot_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._bot_task = None
