"""Before the deal at a host's table: who sits where, bots to add, the start key for the table's creator; the
first ``TableUpdate`` hands the connection (and what was read) to the table screen."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from ...engine import STANDARD
from ...i18n import N_, _
from ...link import ChatHistory, ChatLine, Closed, Rejected, TableConnection, TableUpdate, TableWaiting, errors
from ...link.chat import CHAT_HISTORY
from ..error_sentences import error_sentence
from ..presentation import rating_tag, variant_label
from ..safe_text import clean_message, display_name
from ..seat_log import as_seated
from ..widgets.chat import ChatLines
from ..widgets.keybar import KeyBar
from .steady import CHAT_ACTIONS, CHAT_KEYS, AtTableScreen


class WaitingScreen(AtTableScreen):
    """Seats filling up. The creator adds bots (b) and starts (s) once every seat is taken."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", N_("Start")),
        Binding("b", "add_bot", N_("Add a bot")),
        Binding("x", "remove", N_("Remove")),  # the creator: then a seat's number
        *CHAT_KEYS,
        Binding("q", "leave", N_("Leave")),
    ]
    AUTO_FOCUS = None  # nothing to focus until the chat line opens
    LAST = (TableUpdate, Closed)

    def __init__(
        self, connection: TableConnection, join_hint: list[str] | None = None, creator: bool | None = None
    ) -> None:
        """``creator``: this player set the table up (True), joined it (False), or came back to it (None: not known
        until the host says so, by letting them start or refusing their bot)."""
        super().__init__(connection, [])
        self.join_hint = join_hint or []
        self.creator = creator
        self.waiting: TableWaiting | None = None
        self._gone = False  # gone back (``_go_back``) already
        self._chat: list[ChatLine | ChatHistory] = []  # said before the game: handed to the table screen with it
        self._removing = False  # x was pressed: the next digit is the seat to free

    def compose(self) -> ComposeResult:
        yield Static("", id="waiting-title")
        yield Static("", id="waiting-seats")
        yield Static("", id="waiting-message")
        if self.join_hint:
            yield Static(Text("\n".join([_("Others join with:"), *self.join_hint])), id="lobby-hint")
        yield ChatLines(id="waiting-chat").data_bind(muted=WaitingScreen.chat_muted)
        yield self.chat_input
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(ChatLines).display = self.connection.can_chat

    def on_at_table_screen_table_event_arrived(self, message: AtTableScreen.TableEventArrived) -> None:
        event = message.event
        if isinstance(event, TableWaiting):
            self.waiting = event
            self._draw(event)
        elif isinstance(event, TableUpdate):
            from .table import TableScreen

            self.app.switch_screen(TableScreen(self.connection, [event, *self._chat]))
        elif isinstance(event, ChatLine | ChatHistory):
            self._chat = [event] if isinstance(event, ChatHistory) else [*self._chat, event][-CHAT_HISTORY:]
            said = [line for item in self._chat for line in (item.lines if isinstance(item, ChatHistory) else [item])]
            seats = self.waiting.seats if self.waiting is not None else ()
            self.query_one(ChatLines).lines = tuple(as_seated(line, seats) for line in said)
        elif isinstance(event, Rejected):
            if event.code == errors.NOT_CREATOR:
                self.creator = False  # (a player who came back: now we know)
                self.refresh_bindings()
            self.say(error_sentence(event.code, event.message))
        elif isinstance(event, Closed):
            self._go_back(_(event.reason) if event.reason else "", told=True)  # (a host's fixed reasons: catalogs)

    def _draw(self, event: TableWaiting) -> None:
        if event.can_start:
            self.creator = True  # (only the creator may start)
        title = Text(
            _("Table {table}: waiting for players").format(table=clean_message(event.table_id, 12)), style="bold"
        )
        if event.open_chips:
            title.append(" ({})".format(_("open chips")))
        if event.coach:
            title.append(" (" + _("coach") + ")")
        if event.variant != STANDARD:
            title.append(f" ({variant_label(event.variant)})")
        self.query_one("#waiting-title", Static).update(title)
        lines = Text()
        for index, seat in enumerate(event.seats):
            lines.append("> " if index == event.my_seat else "  ")
            lines.append(_("seat {number}: ").format(number=index + 1))
            if seat.empty:
                lines.append(_("(free)"), style="dim")
            else:
                lines.append(display_name(seat.label, 21))
                if seat.is_bot:  # "ana  bot (medium)": a host names its bots as people, the level says which
                    level = f" ({display_name(seat.level, 12)})" if seat.level else ""
                    lines.append("  " + _("bot") + level, style="dim")
                lines.append(rating_tag(seat), style="dim")
                if index == event.my_seat:
                    lines.append("  ({})".format(_("you")))
            lines.append("\n")
        if event.invite:
            lines.append(_("Private table: others join with the invite code") + " ")
            lines.append(clean_message(event.invite, 16) + "\n", style="bold")
        if event.removed_players:
            names = ", ".join(display_name(name, 20) for name in event.removed_players)
            lines.append(_("Removed by the table's creator: {names}").format(names=names) + "\n", style="dim")
        self.query_one("#waiting-seats", Static).update(lines)
        free = sum(1 for seat in event.seats if seat.empty)
        if event.my_seat is None:
            self.say(_("You are watching; the game shows here when it starts."))
        elif event.can_start:
            self.say(_("Every seat is filled: press s to start."))
        elif free and self.creator is False:
            self.say(_("Waiting for {count} more: others join, or the table's creator adds bots.").format(count=free))
        elif free:
            self.say(
                _("Waiting for {count} more: others join, or press b to add a bot (the table's creator).").format(
                    count=free
                )
            )
        else:
            self.say(_("Every seat is filled: waiting for the table's creator to start."))
        self.refresh_bindings()

    def say(self, text: str) -> None:
        self.query_one("#waiting-message", Static).update(Text(clean_message(text)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.chat_input.display or action in CHAT_ACTIONS:
            return self.check_chat(action, parameters)
        if action == "start":
            return self.waiting is not None and self.waiting.can_start
        if action in ("add_bot", "remove"):  # the creator's (the host refuses anyone else): a free seat, another player
            waiting, adding = self.waiting, action == "add_bot"
            if waiting is None or self.creator is False or waiting.my_seat is None:
                return False
            return any(seat.empty == adding for i, seat in enumerate(waiting.seats) if adding or i != waiting.my_seat)
        return True

    def action_remove(self) -> None:
        self._removing = True
        self.say(_("Remove whom? Press their seat's number (any other key: nobody)."))

    async def on_key(self, event: events.Key) -> None:
        if not self._removing:
            return
        self._removing = False
        event.stop()
        seats = self.waiting.seats if self.waiting is not None else ()
        if event.character and event.character.isdigit() and 1 <= int(event.character) <= len(seats):
            await self.connection.remove(int(event.character) - 1)
        elif self.waiting is not None:
            self._draw(self.waiting)

    async def action_start(self) -> None:
        await self.connection.start_game()

    async def action_add_bot(self) -> None:
        await self.connection.add_bot()

    async def action_leave(self) -> None:
        if self.hosting:
            self.ask_to_leave()
        else:
            await self._leave()

    async def _leave(self) -> None:
        await self.connection.close()
        self._go_back(_("You left the table."))

    def _go_back(self, reason: str, told: bool = False) -> None:
        """Back to the lobby below, the start screen it came from, or out of the app. Once only: the ``Closed`` of
        our leaving comes after, when going back from the lobby would end the app (over SSH, the session)."""
        if self._gone:
            return
        self._gone = True
        table_left = getattr(self.app, "table_left", None)  # NoThanksApp
        if len(self.app.screen_stack) > 1:
            self.dismiss(reason if told else None)  # (``told``: the lobby says why the table let us go)
        elif callable(table_left) and getattr(self.app, "back_to_start", False):  # hosted from the start screen
            table_left()
        else:
            self.app.exit(0, message=clean_message(reason))
