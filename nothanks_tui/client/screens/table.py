"""The table: the face-up card, every player's cards, your private area, and the keys to play.

A worker reads the connection and posts each event; the latest ``TableUpdate`` is the reactive ``table`` bound into
every widget. A move is sent with the state id it was made in, so a repeated key cannot act twice. Whether a play key
is live, greyed or hidden comes from the view's ``legal``/``refused`` codes: the screen knows no rule.
"""

from __future__ import annotations

import functools
import inspect
import time
from typing import Any, ClassVar, TypeVar

from textual import events, work
from textual.actions import parse
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Size
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from ...engine import STANDARD, Action
from ...i18n import N_, _, ngettext
from ...link import (
    ChatHistory,
    ChatLine,
    Closed,
    CoachAdvice,
    LobbyError,
    Rejected,
    TableConnection,
    TableEvent,
    TableMoving,
    TableUpdate,
    errors,
)
from .. import presentation
from ..error_sentences import error_sentence
from ..safe_text import clean_message
from ..seat_log import CHAT_KEPT, LoggedChat, as_seated, chat_content
from ..widgets.keybar import KeyBar
from ..widgets.table import FaceUpCard, LatestMove, MoveLog, PlayersPanel, PrivatePanel, TableStatus, TableView
from .dialogs import ClosedScreen, HelpScreen
from .score import ScoreScreen
from .steady import CHAT_ACTIONS, CHAT_KEYS, AtTableScreen

PLAY_KEYS = {"t": Action.TAKE, "n": Action.PASS, "space": Action.PASS}
TableViewType = TypeVar("TableViewType", bound=TableView)
SEAT_KEPT = N_(
    "The game goes on without you: a bot plays your seat until you come back, shown to the others as "
    "'(bot playing)'. You can take it back from the lobby (Enter on the table marked 'your seat'), or by joining "
    "this host again. [y] leave, [n] keep playing."
)
TALL, TALLER, WIDE = 30, 36, 110  # terminal sizes from which the table grows (app.tcss: -tall, -taller, -wide)
COMPACT = 16  # rows below which your area shows only your two choices (your chips and cards are in your row)
SMALLEST = (36, 13)  # columns, rows the whole table needs; below, your choices alone and how big it must be
NOTICE_SECONDS = 3.0  # how long a warning toast shows (and is not repeated)
SCORES_AFTER = 0.1  # seconds from the final move on the table to the score screen (the move first)
HIDDEN_WHEN = frozenset({errors.GAME_OVER, errors.NOT_SEATED})  # play keys hidden, not greyed, for these codes
CHAT_REFUSALS = frozenset({errors.CHAT_EMPTY, errors.CHAT_TOO_LONG, errors.CHAT_TOO_FAST})


def rejection_title(code: str) -> str:
    """A refusal's toast title: a chat line not said, a move not played, or news of the host (``closed``)."""
    if code in CHAT_REFUSALS:
        return _("Not said")
    if code == errors.CLOSED:
        return _("Host")
    return _("Not played")


TABLE_MOVING = N_("the table is moving to another server; your seat is kept")


def game_number_of(table: TableUpdate | None, seen: int) -> int:
    """Which game of the table this is: the host's count of the match when sent, else the deals this screen saw."""
    if table is not None and table.match is not None:
        return table.match.games + (0 if table.view.finished else 1)
    return seen


class TitleBar(TableView):
    """One line: the game, how we are connected, the table's settings."""

    game_number: reactive[int] = reactive(0, repaint=False)

    def __init__(self, description: str, *, every_chip_shown: bool = False, **kwargs: object) -> None:
        """``every_chip_shown``: the screen shows every chip count whatever the table's setting (a replay)."""
        super().__init__(**kwargs)
        self.description = description
        self.every_chip_shown = every_chip_shown

    watch_game_number = TableView.watch_table

    def draw_lines(self) -> list[Content]:
        parts = [_(self.description)]
        if (number := game_number_of(self.table, self.game_number)) > 1:
            parts.append(_("game {number}").format(number=number))
        if self.table is not None:
            view = self.table.view
            parts.append(ngettext("{count} player", "{count} players", view.players).format(count=view.players))
            chips = _("open chips") if view.open_chips else _("chips hidden")
            parts.append(_("every chip shown") if self.every_chip_shown else chips)
            parts += [_("coach")] if self.table.coach else []
            parts += [presentation.variant_label(view.variant)] if view.variant != STANDARD else []
        for between in ("  ·  ", " · "):  # a longer language, a narrower terminal: closer together
            line = Content.assemble(("No Thanks!", "bold"), *(between + part for part in parts))
            if line.cell_length <= self.content_region.width:
                break
        return [line]


@functools.cache
def reactives(kind: type[Widget]) -> frozenset[str]:
    return frozenset(name for name, _ in inspect.getmembers(kind, lambda value: isinstance(value, Reactive)))


def bound(screen: type[Screen[Any]], widget: TableViewType) -> TableViewType:
    """``widget`` bound to each reactive of ``screen`` it has a reactive of the same name for."""
    names = (reactives(type(widget)) - reactives(Widget)) & reactives(screen)
    return widget.data_bind(**{name: getattr(screen, name) for name in names})


def table_widgets(screen: type[Screen[Any]], title: TitleBar) -> ComposeResult:
    """The table as the table screen and the replay draw it, bound to ``screen``'s reactives."""
    yield bound(screen, title)
    with Horizontal(id="top"):
        yield bound(screen, FaceUpCard(id="card"))
        yield bound(screen, TableStatus(id="status"))
        yield bound(screen, MoveLog(id="log"))
    yield bound(screen, LatestMove(id="log-line"))  # when the log has no room beside the card
    yield bound(screen, PlayersPanel(id="players"))


class TableScreen(AtTableScreen):
    """One seat at one table, through any ``TableConnection``."""

    # Priority play keys: run as the app reads the key, a turn of a busy host's loop sooner (greyed: ``on_key``).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "play('take')", N_("Take"), priority=True),
        Binding("n,space", "play('pass')", N_("No thanks!"), key_display=N_("n/space"), priority=True),
        Binding("i", "coach", N_("Coach")),  # (c is chat)
        Binding("s", "show_score", N_("Scores")),
        Binding("a", "play_again", N_("Play again")),
        Binding("b", "stand_in", N_("Bot plays")),  # the table's creator, while a player is away: a bot plays for them
        Binding("question_mark,h", "help", N_("Rules"), key_display="?/h"),
        # Quit before the keys a narrow terminal's footer may cut (the footer shows them in this order).
        Binding("q", "quit_table", N_("Quit")),
        *CHAT_KEYS,
        Binding("l", "bell(False)", N_("Mute bell")),  # (one of the two at a time: what pressing it does now)
        Binding("l", "bell(True)", N_("Unmute bell")),
    ]

    # No repaint of the whole screen per move (tens of ms per SSH player on the host): the bound widgets redraw.
    table: reactive[TableUpdate | None] = reactive(None, repaint=False)
    game_number: reactive[int] = reactive(0, repaint=False)  # games dealt at this table since the screen opened
    chat: reactive[tuple[LoggedChat, ...]] = reactive((), repaint=False)  # the recent lines said at the table
    advice: reactive[CoachAdvice | None] = reactive(None, repaint=False)  # the coach's last answer (coaching.py)
    # The host is gone for now (restarting, or the connection lost: it reconnects): no move is offered until it is back.
    host_away: reactive[bool] = reactive(False, repaint=False)

    def __init__(self, connection: TableConnection, read: list[TableEvent] | None = None) -> None:
        super().__init__(connection, read)
        self._leaving = False
        self._score_shown_for: int | None = None  # game number whose score screen was shown already
        self._asked_again = False  # this player asked for another game since the last deal
        self._keys_shown: tuple[bool | None, ...] = ()  # what the footer last reflected
        self._notices: dict[str, float] = {}  # a warning toast's text: until when it shows (``_notice_once``)

    def compose(self) -> ComposeResult:
        yield from table_widgets(TableScreen, TitleBar(self.connection.info.description, id="title"))
        yield Static("", id="too-small")
        yield bound(TableScreen, PrivatePanel(id="private"))
        yield self.chat_input
        yield KeyBar()

    def on_mount(self) -> None:
        self.fit(self.app.size)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Below 80x24 the layout tightens rather than hide players or choices; taller terminals get more (app.tcss)."""
        self.set_class(size.height < 24, "-short")
        self.set_class(size.width < 80, "-narrow")
        self.set_class(size.height >= TALL, "-tall")
        self.set_class(size.height >= TALLER, "-taller")
        self.set_class(size.width >= WIDE, "-wide")
        self.set_class(size.height < COMPACT, "-compact")
        for private in self.query(PrivatePanel):
            private.compact = size.height < COMPACT
        # Smaller than the table needs: your two choices and how big the terminal must be (app.tcss: -tiny).
        width, height = SMALLEST
        tiny = size.width < width or size.height < height
        self.set_class(tiny, "-tiny")
        if tiny:
            text = _("The terminal is {width}x{height}: the table needs {min_width}x{min_height}.").format(
                width=size.width, height=size.height, min_width=width, min_height=height
            )
            self.query_one("#too-small", Static).update(Content(text))

    # -- events from the table ------------------------------------------------------------------------------

    def on_at_table_screen_table_event_arrived(self, message: AtTableScreen.TableEventArrived) -> None:
        event = message.event
        if isinstance(event, TableUpdate) or (isinstance(event, Rejected) and event.code == errors.CLOSED):
            self._host_heard(isinstance(event, TableUpdate))
        if isinstance(event, TableUpdate):
            previous = self.table
            new_deal = (
                previous is None
                or event.view.state_id < previous.view.state_id
                or (previous.view.finished and not event.view.finished)
            )
            if new_deal:
                self.game_number += 1  # a new deal
                if previous is not None:
                    self._close_stale_scores(event)
            if previous is not None:
                self._say_comings_and_goings(previous, event)
                if not new_deal:
                    self._say_who_wants_another_game(previous, event)
            if event.view.legal and (previous is None or not previous.view.legal or new_deal):
                your_turn = getattr(self.app, "your_turn", None)  # NoThanksApp: the bell, if wanted
                if callable(your_turn):
                    your_turn()
            self.table = event
            keys = tuple(self.check_action(*parse(b.action)[1:]) for b in self.BINDINGS if isinstance(b, Binding))
            if keys != self._keys_shown:  # rebuilding the footer restyles every key: only when one changed
                self._keys_shown = keys
                self.refresh_bindings()
            if event.view.finished and self._score_shown_for != self.game_number:
                self._score_shown_for = self.game_number
                # The move that ended the game shows at once, the scores just after: drawn in the same frame, they
                # made that move's key the slowest of a game over SSH (30 ms of CPU more; docs/bench/history.md).
                self.set_timer(SCORES_AFTER, self.action_show_score)
        elif isinstance(event, ChatLine):
            self._chat_arrived((event,))
        elif isinstance(event, ChatHistory):
            self.chat = ()  # the table's recent lines, as the host has them now
            self._chat_arrived(event.lines, quietly=True)
        elif isinstance(event, Rejected):
            reason = clean_message(error_sentence(event.code, event.message))
            self.notify(reason, title=rejection_title(event.code), severity="warning", markup=False)
        elif isinstance(event, TableMoving):  # a cluster moves the table to another server: nothing to do but wait
            self.notify(_(TABLE_MOVING), title=_("Table"), markup=False)
        elif isinstance(event, Closed):
            if not self._leaving:
                self.app.push_screen(ClosedScreen(event.reason), lambda _: self._go_back())

    def _host_heard(self, here: bool) -> None:
        """The table is heard from (``here``), or the host is away: the turn line, your area and keys follow."""
        if self.host_away != (not here):
            self.host_away = not here
            self._keys_shown = ()  # (the next update redraws the footer)
            self.refresh_bindings()

    def _chat_arrived(self, lines: tuple[ChatLine, ...], quietly: bool = False) -> None:
        """Put lines in the log where they were said; where the log has no room (narrow terminals), in toasts."""
        moves = len(self.table.view.moves) if self.table is not None else 0
        lines = tuple(as_seated(line, self.table.seats if self.table else ()) for line in lines)

        def logged(line: ChatLine) -> LoggedChat:
            if line.at is not None:  # the host says when it was said: there, whenever it arrives (a history)
                return LoggedChat(line, self.game_number, line.at, line.events)
            if quietly:  # a newcomer's history from before this game: before its moves
                return LoggedChat(line, self.game_number - 1, 0)
            return LoggedChat(line, self.game_number, moves)  # (a host that does not say: where it arrives)

        added = tuple(logged(line) for line in lines)
        self.chat = (self.chat + added)[-CHAT_KEPT:]
        if quietly or self.chat_muted or self.query_one(MoveLog).display:
            return
        for line in lines:
            self.notify(chat_content(line).plain, title=_("Chat"), markup=False)

    def _say_comings_and_goings(self, previous: TableUpdate, update: TableUpdate) -> None:
        """Another player left, dropped out or came back: say so once (the log keeps a line for it too)."""
        for seat, (before, now) in enumerate(zip(previous.seats, update.seats)):
            name = presentation.seat_name(update.seats, seat)
            if seat != update.view.seat and now.empty and now.left and not before.empty:
                text = _("{name} left the table: their seat is free for the next game.")
            elif seat == update.view.seat or before.away == now.away or now.empty or now.is_bot:
                continue
            elif now.left:
                text = _("{name} left the game: a bot plays their seat until they come back.")
            elif now.away:
                text = _("{name} dropped out: their seat waits for them.")
                if update.creator and not update.view.finished:
                    text += " " + _("Press b to let a bot play for them now.")
            else:
                text = _("{name} is back.")
            self.notify(text.format(name=name), title=_("Players"), markup=False)

    def _say_who_wants_another_game(self, previous: TableUpdate, update: TableUpdate) -> None:
        """Someone asked for another game: an open score dialog's note says it; over the table, a toast."""
        for screen in self.app.screen_stack:
            if isinstance(screen, ScoreScreen):
                screen.table_changed(update)
        if presentation.new_askers(previous, update) and not isinstance(self.app.screen, ScoreScreen):
            text = presentation.next_game_text(update)
            if text is not None:
                self.notify(text, title=_("Next game"), markup=False)

    def _close_stale_scores(self, update: TableUpdate) -> None:
        """The next game was dealt: close the last game's score dialog (and what is over it) and toasts (Textual lets
        the app clear them all, not one); a spectator, or a player who was away, is told it began."""
        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, ScoreScreen):
                while self.app.screen is not screen:  # its chart, or a replay of the last game: the game is on
                    self.app.pop_screen()
                if self.app.screen is screen:
                    screen.dismiss("table")
                break
        self.app.clear_notifications()  # the last game's toasts ("bob wants another game: press a...") are over
        asked, self._asked_again = self._asked_again, False
        if asked or (self.table is not None and presentation.asked_by_me(self.table)):
            return
        self.notify(
            _("Game {number} has started: the scores of the last one are gone; it is time to play.").format(
                number=game_number_of(update, self.game_number)
            ),
            title=_("New game"),
            markup=False,
        )

    # -- keys -----------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.chat_input.display or action in CHAT_ACTIONS:
            return self.check_chat(action, parameters)
        view = self.table.view if self.table else None
        if action == "play":
            if view is None:
                return False
            if self.host_away and not view.finished:
                return None  # greyed: a move cannot reach the host now (on_key says so)
            code = view.refusal(Action(str(parameters[0])))
            if code in HIDDEN_WHEN:
                return False  # hidden once the game is over, and for spectators
            return None if code else True  # greyed while refused (not your turn, no chips)
        if action == "stand_in":
            return bool(self.table and _away_seats(self.table))
        if action == "bell":
            if view is not None and view.seat is None:
                return False  # a spectator has no turn to ring for
            return bool(getattr(self.app, "bell_on", True)) != parameters[0]
        if action == "coach":
            if view is None or view.finished or view.seat is None or not (self.table and self.table.coach):
                return False  # hidden where the table does not allow it, for spectators and after the game
            return True if view.legal and not self.host_away else None  # greyed until your turn (and the host)
        if action in ("show_score", "play_again"):
            if view is None or not view.finished:
                return False
            can_ask = self.table is not None and self.table.can_restart and not presentation.asked_by_me(self.table)
            return action == "show_score" or can_ask  # (once asked, the status line says who the next game waits for)
        return True

    def on_key(self, event: events.Key) -> None:
        """Explain a play key that does nothing right now (its binding is greyed), in the words for its code."""
        view, action = (self.table.view if self.table else None), PLAY_KEYS.get(event.key)
        if event.key == "i" and self.check_action("coach", ()) is None:  # greyed: not your turn yet
            notice: str | None = N_("The coach answers on your turn.")
        elif view is None or action is None or self.chat_input.display:
            return
        elif self.host_away and not view.finished:
            notice = N_("The host is away: play once it is back (the table says so).")
        else:
            notice = presentation.REFUSAL_NOTICES.get(view.refusal(action) or "")
        if notice is not None:
            self._notice_once(_(notice))
            event.stop()

    def _notice_once(self, text: str) -> None:
        """A warning toast, not repeated while the same one is still on screen (keys held down, pressed again)."""
        now = time.monotonic()
        self._notices = {said: until for said, until in self._notices.items() if until > now}
        if text in self._notices:
            return
        self._notices[text] = now + NOTICE_SECONDS
        self.notify(text, severity="warning", timeout=NOTICE_SECONDS, markup=False)

    async def action_play(self, move: str) -> None:
        if self.table is not None:
            await self.connection.send_action(Action(move), self.table.view.state_id)

    def action_coach(self) -> None:
        if self.table is not None and self.table.view.legal:
            self._ask_coach(self.table.view.state_id, self.table.view.card)

    @work(exclusive=True, group="coach", exit_on_error=False)
    async def _ask_coach(self, state_id: int, card: int | None) -> None:
        try:
            advice = await self.connection.ask_coach(state_id)
        except LobbyError as error:
            if error.code != errors.STALE_STATE:  # the table moved on: the question no longer matters
                reason = clean_message(error_sentence(error.code, error.message))
                self.notify(reason, title=_("Coach"), severity="warning", markup=False)
            return
        if self.table is None or self.table.view.state_id != advice.state_id:
            return  # advice for a position already gone
        self.advice = advice  # shown after each choice line until the position changes (no toast over them)
        if (note := presentation.advice_note(advice)) is not None:
            self.notify(note, title=presentation.advice_title(advice, card), markup=False)

    def action_bell(self, on: bool) -> None:
        set_bell = getattr(self.app, "set_bell", None)
        if callable(set_bell):
            set_bell(on)
        self.refresh_bindings()
        text = _("Bell on: it rings once when it becomes your turn.") if on else _("Bell off.")
        self.notify(text, title=_("Bell"), timeout=4, markup=False)

    def action_show_score(self) -> None:
        if self.table is None or not self.table.view.finished:
            return
        score = ScoreScreen(self.table, self.action_play_again)
        self.app.push_screen(score, lambda choice: self._leave() if choice == "quit" else None)

    async def action_play_again(self) -> None:
        """Ask for another game: the host deals it once every player at the table has asked."""
        if self.table is not None and self.table.view.finished and self.table.can_restart:
            self._asked_again = True
            await self.connection.play_again()

    def action_mute(self, muted: bool) -> None:
        super().action_mute(muted)
        self.notify(_("Chat muted: m shows it again.") if muted else _("Chat shown again."), markup=False, timeout=3)

    async def action_stand_in(self) -> None:
        """The creator: a bot plays for every away player now (each until they come back)."""
        seats = _away_seats(self.table) if self.table is not None else []
        for seat in seats:
            await self.connection.stand_in_for(seat)
        if seats:
            names = ", ".join(presentation.seat_name(self.table.seats, seat) for seat in seats) if self.table else ""
            self.notify(_("A bot plays for {names} until they come back.").format(names=names), markup=False)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(variant=self.table.view.variant if self.table is not None else STANDARD))

    def action_quit_table(self) -> None:
        watching = self.table is not None and self.table.view.seat is None  # a spectator has nothing to lose
        if not self.hosting and (self.table is None or self.table.view.finished or watching):
            self._leave()
        elif self.connection.seat_kept:  # a host's table: the seat is kept for us (its token, or our SSH key)
            self.ask_to_leave(_("Leave this game?"), _(SEAT_KEPT))
        else:
            self.ask_to_leave()

    def _leave(self) -> None:
        """Close the connection, then go back (in a worker: never from inside a dialog's dismissal)."""
        self._leaving = True
        if self.table is not None and self.table.view.finished and self.table.view.seat is not None:
            # Leaving a finished game gives the seat up for good: the lobby below must not offer it back.
            for screen in self.app.screen_stack:
                forget = getattr(screen, "forget_held_seat", None)
                if callable(forget):
                    forget(self.table.table_id)
        self.app.run_worker(self._close_and_go_back(), group="leave", exclusive=True)

    async def _close_and_go_back(self) -> None:
        await self.connection.close()
        self._go_back()

    def _go_back(self) -> None:
        """Back to the screen below (a host's lobby), or where the app says (the start screen, or out of it)."""
        if len(self.app.screen_stack) > 1 and self.app.screen is self:
            self.app.pop_screen()
            return
        table_left = getattr(self.app, "table_left", None)  # NoThanksApp: maybe back to the start screen
        if callable(table_left) and self.app.screen is self:
            table_left()
        else:
            self.app.exit(0)


def _away_seats(update: TableUpdate) -> list[int]:
    """The seats the creator may let a bot play (away, none playing for them yet), for the creator only."""
    if not update.creator or update.view.finished:
        return []
    return [index for index, seat in enumerate(update.seats) if seat.away and not seat.stand_in and not seat.is_bot]
