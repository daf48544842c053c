"""Who plays a seat no connected human plays, and when: a table's bots at their pace, for an away player a
stand-in bot once their turn timer runs out, and a present player's one move once the table's turn clock does. It
only decides: the table's authority plays the move (``Table.bot_plays``) or seats the stand-in (``Table.stand_in``).
One task at a time, for the turn the table is at; bots choose off the event loop (thinking.py), in the table's own
context, never a caller's."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import time
from typing import TYPE_CHECKING

from nothanks_tui.engine import Action
from nothanks_tui.engine import view_for as engine_view_for

from .. import thinking

if TYPE_CHECKING:
    from .authority import Table

log = logging.getLogger(__name__)


class BotDriver:
    """The bots' turns at one table, an away player's turn timer and a present one's turn clock."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None  # a human's clock or timer: a task only once it runs out
        self._key: tuple[int, int, str] | None = None  # (state id, seat, "bot", or the human waited: "away", "clock")
        self._pace = random.Random()  # bots' thinking times only: nothing about the deal (see ``wait``)
        self._deadline: tuple[tuple[int, bool], float] | None = None  # ((state id, away), monotonic time) a bot plays

    def wait(self) -> float:
        """How long a bot thinks before this move: ``bot_delay``, give or take ``bot_delay_spread`` of it (its own
        generator: a bot's timing says nothing about the deal)."""
        settings = self.table.settings
        delay = max(0.0, settings.bot_delay)
        spread = delay * min(1.0, max(0.0, settings.bot_delay_spread))
        return self._pace.uniform(delay - spread, delay + spread)

    def deadline(self) -> float | None:
        """When (``time.monotonic``) a bot plays the human's turn now due (an away player's once the turn timer runs
        out, a present one's once the turn clock does), None if none; set once per turn and presence, for every view."""
        table, state = self.table, self.table.state
        if state is None or state.finished:
            return None
        seat = table.seats[state.to_move]
        wait = table.settings.turn_timer if seat.away else table.settings.turn_clock if seat.present else None
        if wait is None or seat.stand_in is not None:
            return None
        if self._deadline is None or self._deadline[0] != (state.state_id, seat.away):
            self._deadline = ((state.state_id, seat.away), time.monotonic() + wait)
        return self._deadline[1]

    def restart_timer(self) -> None:
        """The away player came back (or a game was dealt): should they drop again, their timer starts afresh."""
        self._deadline = None

    def drive(self) -> None:
        """Make sure the turn the table is at is being played, if a bot plays it or a timer waits on it."""
        table, state = self.table, self.table.state
        if table.saving:
            return  # the move being saved decides who is next; the table drives once it is accepted
        if table.closed or state is None or state.finished:
            self.cancel()
            return
        seat = table.seats[state.to_move]
        if seat.player is not None:
            key = (state.state_id, state.to_move, "bot")
        elif self.deadline() is not None:
            key = (state.state_id, state.to_move, "away" if seat.away else "clock")
        else:
            self.cancel()
            return
        if self._key == key and (self._timer is not None or (self.task is not None and not self.task.done())):
            return
        self.cancel()
        self._key = key
        # The table's own context, never the caller's: a player's move would otherwise hand its context (a
        # Textual app keeps itself in context variables) to this task and every turn's task after it, keeping a
        # departed SSH player's whole app in memory for as long as the bots play on.
        if key[2] == "bot":
            self._start(key)
        else:  # a timer handle while a human thinks (cheap to set and cancel at every move), a task once it is due
            delay = max(0.0, (self.deadline() or 0.0) - time.monotonic())
            self._timer = asyncio.get_running_loop().call_later(delay, self._start, key, context=contextvars.Context())

    def _start(self, key: tuple[int, int, str]) -> None:
        self._timer = None
        self.task = asyncio.get_running_loop().create_task(self._turn(*key), context=contextvars.Context())

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = None
        self._key = None

    async def _turn(self, state_id: int, index: int, waiting: str) -> None:
        table = self.table
        try:
            if waiting != "bot":
                deadline = self.deadline()  # the one every view counts down to
                if deadline is not None:
                    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
                seat = table.seats[index]
                if not table.current(state_id) or seat.away != (waiting == "away") or seat.stand_in is not None:
                    return
                if seat.away:
                    table.stand_in(index, note=True)
                log.info("table %s: a bot plays for %s seat %d", table.table_id, waiting, index)
            elif table.settings.bot_delay > 0:
                await asyncio.sleep(self.wait())
            bot = table.seats[index].player or table.stand_in_bot()  # (a clock ran out: for this one move)
            if not table.current(state_id) or bot is None or table.state is None:
                return
            view = engine_view_for(table.state, index)
            try:
                action = await thinking.choose(bot, view)  # a search: in a worker process if the host uses them
            except Exception:  # a broken bot must not stall the table: it takes the card
                log.exception("table %s: bot %s failed; taking instead", table.table_id, bot.name)
                action = Action.TAKE
            self.task = None
            self._key = None
            table.bot_plays(state_id, index, bot, action)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the bot driver failed", table.table_id)
