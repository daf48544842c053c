"""The plain front, for screen readers and scripts (``--plain``, ``TERM=dumb``, chosen over SSH): no screen drawn, no
cursor moved, no escape sequence. Each event is one line appended; the one question asked (your move, the lobby's
choice) is one line with its keys, the cursor parked after it, asked again below any line that comes meanwhile.
Keys are read a line at a time, only while a question is asked (so ``yes t |`` plays a game). It reads the same
events as the Textual screens and words them with the same functions (presentation.py, seat_log.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from typing import Any, BinaryIO, Protocol

from ..engine import Action
from ..i18n import _
from ..link import LobbyConnection, LobbyError, NewTable, TableConnection, errors
from ..link.events import ChatHistory, ChatLine, Closed, Rejected, TableEvent, TableUpdate, TableWaiting
from ..link.names import MAX_NAME
from . import presentation as words
from .error_sentences import error_sentence, taken_sentence
from .safe_text import clean_message, display_name
from .seat_log import LogEntry, chat_content, clock_text, entry_line, played_by_bot


class Lines(Protocol):
    """Where the plain front writes and reads: this process's stdin and stdout, or an SSH channel."""

    echoes: bool  # what is typed shows on the player's screen, with its end of line

    def write(self, text: str) -> None: ...

    async def readline(self) -> str | None:
        """The next line typed, without its end; None once the input is over."""


class Hangup(Exception):
    """Raised by ``Lines.readline`` when the player's connection is gone: nothing is left on purpose, so a seat in a
    game waits for them (away), as for any dropped connection."""


def safe(text: str) -> str:
    """``text`` with nothing a terminal would act on: every control character (ESC first) dropped."""
    return "".join(ch for ch in text.replace("\u00a0", " ") if ch.isprintable())


class StdLines:
    """This process's stdin and stdout. A daemon thread reads one line each time one is asked for (a pipe is read
    no further than the game asks: ``yes t`` never runs ahead), so a read still waiting never holds the exit."""

    def __init__(self, stdin: BinaryIO | None = None, stdout: Any = None) -> None:
        self.stdin = stdin or sys.stdin.buffer
        self.stdout = stdout or sys.stdout
        self.echoes = self.stdin.isatty()
        self._asked = threading.Semaphore(0)
        self._lines: asyncio.Queue[str | None] | None = None

    def write(self, text: str) -> None:
        encoding = getattr(self.stdout, "encoding", None) or "utf-8"
        self.stdout.buffer.write(text.encode(encoding, "replace"))
        self.stdout.flush()

    async def readline(self) -> str | None:
        if self._lines is None:
            self._lines = asyncio.Queue()
            loop = asyncio.get_running_loop()
            threading.Thread(target=self._read, args=(loop, self._lines), daemon=True).start()
        self._asked.release()
        return await self._lines.get()

    def _read(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
        while True:
            self._asked.acquire()
            try:
                data = self.stdin.readline(1024)
            except (OSError, ValueError):
                data = b""
            line = data.decode("utf-8", "replace").rstrip("\r\n") if data else None
            loop.call_soon_threadsafe(lines.put_nowait, line)
            if line is None:
                return


class PlainFront:
    """One player's plain lines: ``say`` appends a line, ``ask`` parks the cursor on a question."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.question = ""  # the question on screen, asked again after each line said
        self.parked = False  # the cursor is after a question, not at the start of a line

    def say(self, *texts: str) -> None:
        """Lines, below the question if one is parked (whoever asked it asks again once the lines are said)."""
        self.lines.write(("\n" if self.parked else "") + "".join(safe(text) + "\n" for text in texts))
        self.parked = False

    def ask(self, question: str) -> None:
        """Park the cursor after ``question``; the same question still parked is not written again."""
        asked = safe(question) + " "
        if asked != self.question or not self.parked:
            self.lines.write(("\n" if self.parked else "") + asked)
            self.question, self.parked = asked, True

    def answered(self, line: str | None) -> str | None:
        """``line`` read for the question: the cursor is at a new line again."""
        if self.parked and not self.lines.echoes:
            self.lines.write("\n")
        self.parked, self.question = False, ""
        return None if line is None else line.strip()

    async def answer(self, question: str) -> str | None:
        self.ask(question)
        return self.answered(await self.lines.readline())

    def input_over(self) -> None:
        self.say(_("End of input: leaving."))


class PlainTable:
    """One table in plain lines, until the player leaves it or it closes."""

    def __init__(self, front: PlainFront, connection: TableConnection) -> None:
        self.front = front
        self.connection = connection
        self.update: TableUpdate | None = None
        self.waiting: TableWaiting | None = None
        self.moves_told = self.events_told = 0
        self.card_told: int | None = None
        self.answered_in: int | None = None  # the state our last move or "play again" was sent in: no more keys

    async def run(self) -> bool:
        """Play on; False once the input is over (the player left the table in any case)."""
        events = asyncio.ensure_future(self.connection.next_event())
        keys: asyncio.Future[str | None] | None = None
        try:
            while True:
                question = self.question()
                if question:
                    self.front.ask(question)
                if question or self.front.lines.echoes:  # (a pipe is read only when asked: `yes t` runs no ahead)
                    keys = keys or asyncio.ensure_future(self.front.lines.readline())
                waiting = [task for task in (events, keys) if task is not None]
                done, _pending = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if events in done:
                    event = events.result()
                    if isinstance(event, Closed):
                        self.front.say(clean_message(_(event.reason)) if event.reason else _("The table closed."))
                        return True  # (nothing to leave)
                    self.told(event)
                    events = asyncio.ensure_future(self.connection.next_event())
                if keys is not None and keys in done:
                    line = self.front.answered(keys.result())
                    keys = None
                    if line is None:
                        self.front.input_over()
                    if line is None or not await self.key(line):
                        await self.connection.close()  # (leaving on purpose: during a game a bot plays for us)
                        return line is not None
        finally:
            for task in (events, keys):
                if task is not None:
                    task.cancel()

    def question(self) -> str:
        """The line of keys for what the player may do now ("" while others play)."""
        if self.update is None:  # (a pipe is asked to start once every seat is filled; a terminal types any time)
            asking = self.waiting is not None and self.waiting.can_start and self.answered_in is None
            return _("Keys: s start, b add a bot, q leave.") if asking else ""
        view = self.update.view
        if view.state_id == self.answered_in:
            return ""  # (until the table answers)
        if view.finished:
            return _("Game over. a play again, any other key leaves.")
        if not view.legal or view.card is None:
            return ""
        chat = self.connection.can_chat
        turn = _("Your turn: card {card}, {pot} on it, you have {chips}.").format(
            card=view.card, pot=words.chips_count(view.pot), chips=words.chips_count(view.my_chips or 0)
        )
        if view.refusal(Action.PASS) == errors.NO_CHIPS:
            choices = _("t take ({effect}: no chips, you must take)").format(effect=words.take_effect(view))
        else:
            choices = _("t take ({effect}), p pass (No thanks!)").format(effect=words.take_effect(view))
        more = _("h hands, c TEXT says TEXT, q leave") if chat else _("h hands, q leave")
        clock = "" if self.update.bot_in is None else f" ({clock_text(self.update.bot_in)})"  # the turn clock's time
        return f"{turn}{clock} {choices}, {more}:"

    async def key(self, line: str) -> bool:
        """Do what ``line`` asks; False when it leaves the table."""
        word, _space, text = line.partition(" ")
        word = word.lower()
        view = self.update.view if self.update is not None else None
        if word == "c" and text and self.connection.can_chat:
            await self.connection.send_chat(text)
        elif view is not None and view.finished:
            if word != "a":
                return False
            self.answered_in = view.state_id
            await self.connection.play_again()
        elif word == "q":
            return False
        elif word == "h" and view is not None:
            self.hands()
        elif word in ("t", "p", "n") and view is not None:
            action = Action.TAKE if word == "t" else Action.PASS
            refusal = view.refusal(action)
            if refusal is None:
                self.answered_in = view.state_id
                await self.connection.send_action(action, view.state_id)
            else:
                self.front.say(error_sentence(refusal))
        elif word in ("s", "b") and view is None:
            self.answered_in = -1  # (until the table answers)
            await (self.connection.start_game() if word == "s" else self.connection.add_bot())
        return True

    def told(self, event: TableEvent) -> None:
        say = self.front.say
        if isinstance(event, TableUpdate):
            self.updated(event)
        elif isinstance(event, TableWaiting):
            self.answered_in = None
            if self.waiting is None or event.seats != self.waiting.seats:
                self.seats(event)
            self.waiting = event
        elif isinstance(event, Rejected):
            self.answered_in = None
            say(clean_message(error_sentence(event.code, event.message)))
        elif isinstance(event, ChatLine | ChatHistory):
            say(*(chat_content(line).plain for line in (event.lines if isinstance(event, ChatHistory) else [event])))

    def seats(self, event: TableWaiting) -> None:
        lines = [_("Table {table}: waiting for players").format(table=clean_message(event.table_id, 12))]
        for index, seat in enumerate(event.seats):
            who = _("(free)") if seat.empty else display_name(seat.label, 20)
            mine = " " + _("bot") if seat.is_bot else words.you_tag(who) if index == event.my_seat else ""
            lines.append(_("seat {number}: ").format(number=index + 1) + who + mine)
        if event.invite:
            lines.append(_("Private table: others join with the invite code") + " " + clean_message(event.invite, 16))
        self.front.say(*lines)

    def updated(self, update: TableUpdate) -> None:
        """The lines between the last update and ``update``: moves and seat events in order, the new card, the end."""
        before, self.update, view = self.update, update, update.view
        say = self.front.say
        if before is None or len(view.moves) < self.moves_told or (before.view.finished and not view.finished):
            names = [self.named(seat) for seat in range(view.players)]
            say(_("A new game: {names}.").format(names=", ".join(names)))
            self.moves_told = self.events_told = 0
            self.card_told = None
        moves, events = view.moves, update.seat_events
        while self.moves_told < len(moves) or self.events_told < len(events):
            if self.events_told < len(events) and events[self.events_told].at <= self.moves_told:
                say(entry_line(LogEntry(event=events[self.events_told]), update.seats).plain)
                self.events_told += 1
                continue
            move = moves[self.moves_told]
            by_bot = played_by_bot(events, self.moves_told, move.seat)
            say(entry_line(LogEntry(move=move, by_bot=by_bot), update.seats).plain)
            self.moves_told += 1
        if view.card is not None and view.card != self.card_told:
            left = words.cards_count(view.deck_left)
            say(_("New card: {card} ({cards} left face down).").format(card=view.card, cards=left))
        self.card_told = view.card
        if view.finished and (before is None or not before.view.finished):
            from .screens.score import score_lines

            headline, table = score_lines(update)
            say(headline.plain, *table.plain.splitlines())
        if before is not None and update.again != before.again and (text := words.next_game_text(update)):
            say(text)

    def named(self, seat: int) -> str:
        assert self.update is not None
        name = words.seat_name(self.update.seats, seat)
        return name + words.you_tag(name) if seat == self.update.view.seat else name

    def hands(self) -> None:
        assert self.update is not None
        view = self.update.view
        for seat, chips in enumerate(view.chips):
            count = words.chips_count(chips) if chips is not None else _("chips hidden")
            self.front.say(f"{self.named(seat)}: {words.hand_lines(view.hands[seat], 200)[0].plain}; {count}")
        self.front.say(words.my_score_content(view).plain)


async def plain_lobby(front: PlainFront, lobby: LobbyConnection) -> int:
    """A host's lobby as numbered choices: join a table, a new one against bots, refresh, quit."""
    from .screens.lobby import seat_names, table_status

    tables = None
    while True:
        if tables is None:
            tables = await lobby.list_tables()
            front.say(_("Tables at this host:") if tables else _("No tables yet."))
            for number, summary in enumerate(tables, 1):
                table = clean_message(summary.table_id, 12)
                front.say(f"{number}. {table}: {table_status(summary)}; {seat_names(summary).plain}")
        question = _("A table's number joins it, n plays against bots (n 4: four players), r refreshes, q quits:")
        line = await front.answer(question)
        if line is None or line.lower() == "q":
            if line is None:
                front.input_over()
            return 0
        word, _space, rest = line.lower().partition(" ")
        try:
            if word == "n":
                players = int(rest) if rest.isdigit() and 2 <= int(rest) <= 7 else 3
                seated = await lobby.create_table(NewTable(players=players, bots=players - 1))
            elif word.isdigit() and 1 <= int(word) <= len(tables):
                seated = await lobby.join(tables[int(word) - 1].table_id)
            else:
                tables = None if word == "r" else tables
                continue
        except LobbyError as error:
            front.say(clean_message(error_sentence(error.code, error.message)))
            continue
        if not await PlainTable(front, seated).run():
            return 0
        tables = None


async def plain_welcome(front: PlainFront, door: Any) -> int:
    """Over SSH: a name asked as a plain line (or the seat the host held), then the lobby (``door``: a Doorway)."""
    held = door.held_seat()  # (name, token) of the seat the host holds for the player's key
    name = held[0] if held else door.suggested_name
    while True:
        if not name:
            name = await front.answer(_("Your name at the table:"))
            if name is None:
                front.input_over()
                return 0
        lobby = door.lobby(name[:MAX_NAME])
        try:
            await lobby.start()
            if held and not await PlainTable(front, await lobby.resume(held[1])).run():
                return 0
            return await plain_lobby(front, lobby)
        except LobbyError as error:
            front.say(clean_message(error_sentence(error.code, error.message)))
            door.forget_seat()
            held, name = None, ""
        finally:
            with contextlib.suppress(Exception):
                await lobby.close()


def run_plain(connection: TableConnection | None = None, join: tuple[str, str, str | None] | None = None) -> int:
    """``nothanks play --plain`` (``connection``: the solo table) or ``join --plain`` (``join``: address, name and
    invite code; the seat held there taken back first, else the code's table, as ``join`` does)."""

    async def run() -> int:
        front = PlainFront(StdLines())
        if join is None:
            assert connection is not None
            await connection.start()
            await PlainTable(front, connection).run()
            return 0
        from .netlaunch import join_host
        from .seat_tokens import SeatTokens

        address, name, code = join
        lobby = None
        try:
            lobby, held = await join_host(address, name, SeatTokens(), code)
            return await plain_lobby(front, lobby) if held is None or await PlainTable(front, held).run() else 0
        except ValueError as error:  # (an invite code that is none)
            front.say(safe(str(error)))
            return 2
        except LobbyError as error:  # (name_taken: with the free name offered)
            front.say(clean_message(taken_sentence(error) or error_sentence(error.code, error.message)))
            return 1
        finally:
            if lobby is not None:
                await lobby.close()

    try:
        return asyncio.run(run())
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # whoever read the lines is gone (`| head`): nothing more to say, nor at the exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
