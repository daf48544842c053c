"""A host's lobby: its tables, and the ways to a seat (join, create, watch), through any ``LobbyConnection``.

Every name on it is untrusted and drawn as plain text. A table opens in the ``WaitingScreen``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, DataTable, Input, Label, Select, Static
from textual.worker import WorkerCancelled, WorkerFailed

from ...engine import STANDARD
from ...i18n import N_, _, ngettext
from ...link import LobbyConnection, LobbyError, NewTable, SeatInfo, TableConnection, TableSummary, errors
from ...link.chat import CHAT_HISTORY
from ...link.events import ChatHistory, ChatLine, Rejected
from ...link.invites import parse_invite
from ..error_sentences import error_sentence
from ..presentation import COACH_LABEL, rating_tag, variant_label
from ..safe_text import clean_message, display_name
from ..widgets import forms
from ..widgets.chat import LOBBY_PLACEHOLDER, ChatLines
from ..widgets.keybar import KeyBar
from .dialogs import LOBBY_KEYS, DailyScreen, HelpScreen
from .history import HistoryScreen, LeaderboardScreen
from .steady import CHAT_ACTIONS, ChatScreen
from .table import TableScreen
from .waiting import WaitingScreen

REFRESH_SECONDS = 2.0


def table_status(summary: TableSummary) -> str:
    if summary.finished:
        return _("game over")
    if summary.started:
        return _("playing")
    free = summary.free_seats
    if not free:
        return _("full, starting soon")
    return ngettext("{count} seat free", "{count} seats free", free).format(count=free)


def seat_names(summary: TableSummary) -> Text:
    """Who sits at the table, in one line at 80 columns: the people by name, the bots counted by level, then the
    free seats of a game under way or over (a waiting table's status counts them)."""
    text = Text(no_wrap=True, overflow="ellipsis")

    def add(part: str, style: str = "") -> None:
        if text.plain:
            text.append(", ")
        text.append(part, style=style)

    for seat in summary.seats:
        if seat.empty or seat.is_bot:
            continue
        add(display_name(seat.label, 12))
        text.append(rating_tag(seat), style="dim")
        if seat.stand_in:
            text.append(_(" (bot playing)"), style="dim")
        elif seat.away:
            text.append(" " + _("away"), style="dim")
    levels = Counter(display_name(bot_level(seat), 12) for seat in summary.seats if seat.is_bot and not seat.empty)
    for level, count in levels.items():
        add(ngettext("{count} {level} bot", "{count} {level} bots", count).format(count=count, level=level), "dim")
    free = sum(1 for seat in summary.seats if seat.empty)
    if free and summary.started:
        add(ngettext("{count} free", "{count} free", free).format(count=free), "dim")
    return text


def bot_level(seat: SeatInfo) -> str:
    """A bot's level: the host's word, else read from an older host's "hard 2"."""
    base, _space, number = seat.name.rpartition(" ")
    return seat.level or (base if base and number.isdigit() else seat.name)


def held_seats(connection: TableConnection | None) -> dict[str, str]:
    """table id -> token of the seat ``connection`` holds (the lobby marks it as yours)."""
    table_id = getattr(connection, "table_id", None)
    if connection is None or connection.seat_token is None or not isinstance(table_id, str) or not table_id:
        return {}
    return {table_id: connection.seat_token}


SEATS_NOT_FREE = frozenset({errors.SEAT_AWAY, errors.ALREADY_STARTED, errors.TABLE_FULL, errors.SEAT_TAKEN})
"""The refusals that mean: every seat there belongs to someone (older hosts never send ``seat_away``)."""


def join_refusal(code: str, message: str, summary: TableSummary | None) -> list[str]:
    """Why joining ``summary``'s table was refused (``code``), with what the player can do: the seats belong to
    someone (watch, set up a table, or, for an away seat, how its player gets it back), or one line."""
    if code not in SEATS_NOT_FREE or summary is None:
        return [error_sentence(code, message)]
    table = clean_message(summary.table_id, 12)
    if summary.started and not summary.finished:
        lines = [_("The game at {table} is under way: its seats belong to its players.").format(table=table)]
    elif summary.finished:
        lines = [_("The game at {table} is over; its seats are kept for its players' next game.").format(table=table)]
    else:
        lines = [_("Every seat at {table} is taken.").format(table=table)]
    away = [display_name(seat.label, 12) for seat in summary.seats if seat.away and not seat.empty]
    if away:
        lines.append(
            ngettext(
                "{names} is away: the seat waits for them.", "{names} are away: their seats wait for them.", len(away)
            ).format(names=", ".join(away))
        )
    elif code == errors.SEAT_AWAY:  # (the list was older than the host's answer)
        lines.append(_("A seat there waits for a player who is away."))
    lines.append(_("Press w to watch it, or c to set up a table of your own."))
    if away or code == errors.SEAT_AWAY:
        lines.append(
            _(
                "Is it your seat? It goes back only to the SSH key or the computer that took it: log in with that "
                "key, or use nothanks join on that computer."
            )
        )
    return lines


class LobbyScreen(ChatScreen[None]):
    """The host's tables; Enter joins the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "join", N_("Join")),
        Binding("enter", "join", N_("Join"), show=False),
        Binding("c", "create", N_("New table")),
        Binding("w", "watch", N_("Watch")),
        Binding("i", "invited", N_("Code")),  # a private table's invite code
        Binding("r", "refresh", N_("Refresh"), show=False),  # (the list refreshes by itself; ? lists it)
        Binding("h", "history", N_("History")),
        Binding("l", "leaderboard", N_("Ranks")),
        Binding("d", "daily", N_("Daily")),
        Binding("t", "chat", N_("Chat")),
        Binding("m", "mute(True)", N_("Mute chat"), show=False),
        Binding("m", "mute(False)", N_("Unmute chat"), show=False),
        Binding("question_mark", "help", N_("Help"), key_display="?"),
        Binding("q", "quit_lobby", N_("Quit")),
    ]

    def __init__(
        self, lobby: LobbyConnection, join_hint: list[str] | None = None, held: dict[str, str] | None = None
    ) -> None:
        """``held``: table id -> seat token of the seats this player holds at this host."""
        super().__init__(lobby, LOBBY_PLACEHOLDER)
        self.lobby = lobby
        self.join_hint = join_hint or []
        self.held: dict[str, str] = dict(held or {})
        self.summaries: list[TableSummary] = []
        self._listed = False  # the table list has been drawn at least once
        self._listings = 0  # the host's answers to list_tables so far
        self._refresh_timer: Timer | None = None
        self._daily = False  # at today's daily deal (back in the lobby, its ranking shows)
        # A refusal stays until the player moves to another table: whether one is shown, and its table's id.
        self._refused = False
        self._refused_at: str | None = None

    def compose(self) -> ComposeResult:
        name = self.lobby.info.extras.get("name", "")
        title = Text(_("No Thanks! lobby at {where}").format(where=_(self.lobby.info.description)))
        if name:
            title.append(_(" - you are "))
            title.append(display_name(name), style="bold")
        yield Static(title, id="lobby-title")
        table: DataTable[object] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="lobby-message")
        yield ChatLines(id="lobby-chat").data_bind(muted=LobbyScreen.chat_muted)
        yield self.chat_input
        if self.join_hint:
            yield Static(Text("\n".join([_("Others join with:"), *self.join_hint])), id="lobby-hint")
        yield KeyBar(rows=2)  # (every key of the lobby whole, in every language)

    def on_mount(self) -> None:
        self.query_one(ChatLines).display = self.lobby.can_chat
        self.lobby.on_chat = self._heard
        self.refresh_tables()
        self._refresh_timer = self.set_interval(REFRESH_SECONDS, self.refresh_tables)

    def _heard(self, event: ChatLine | ChatHistory | Rejected) -> None:
        """A line said in the lobby, its recent lines (on arriving), or a line of ours refused."""
        chat = self.query_one(ChatLines)
        if isinstance(event, Rejected):
            self.say(error_sentence(event.code, event.message))
        else:
            chat.lines = event.lines if isinstance(event, ChatHistory) else (*chat.lines, event)[-CHAT_HISTORY:]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # (while the chat line is open, keys type into it: its own keys show)
        return self.check_chat(action, parameters) if self.chat_input.display or action in CHAT_ACTIONS else True

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(LOBBY_KEYS))

    def action_history(self) -> None:
        title = _("Games finished at {host}").format(host=_(self.lobby.info.description))
        self.app.push_screen(HistoryScreen(self.lobby, title, self.lobby.info.extras.get("name") or None))

    def action_leaderboard(self) -> None:
        self.app.push_screen(LeaderboardScreen(self.lobby))

    def action_daily(self) -> None:
        async def chosen(play: bool | None) -> None:
            if not play:
                return
            try:
                connection = await self.lobby.daily()
            except LobbyError as error:
                self.refuse([error_sentence(error.code, error.message)])
                return
            self._daily = True  # (dealt already: straight to the table)
            self.app.push_screen(TableScreen(connection))

        self.app.push_screen(DailyScreen(self.lobby), chosen)

    def on_screen_suspend(self) -> None:
        if self._refresh_timer is not None:
            self._refresh_timer.pause()  # under a table for a whole game: no list to keep fresh (one per SSH player)

    def on_screen_resume(self) -> None:
        if self._refresh_timer is not None:
            self._refresh_timer.resume()
        self.refresh_tables()  # back from a table: show the lobby as it is now
        if self._daily and self.app.screen is self:  # back from the daily deal: where it ranks
            self._daily = False
            self.action_daily()

    def say(self, *lines: str, refused: bool = False) -> None:
        self._refused = refused
        message = self.query_one("#lobby-message", Static)
        message.set_class(refused, "-refused")
        message.update(Text("\n".join(clean_message(line) for line in lines)))

    def refuse(self, lines: Sequence[str], about: TableSummary | None = None) -> None:
        """Something asked at table ``about`` (by default the highlighted one) was refused: said so it stands out,
        and kept until the player moves to another table."""
        table = about or self._highlighted()
        self._refused_at = None if table is None else table.table_id
        self.say(*lines, refused=True)

    def _refusal_stays(self, summary: TableSummary | None) -> bool:
        """Is a refusal on screen about ``summary``, the table highlighted now?"""
        return self._refused and (None if summary is None else summary.table_id) == self._refused_at

    @work(exclusive=True, group="lobby-refresh")
    async def refresh_tables(self) -> None:
        if self.app.screen is not self:  # (under a table or a dialog: its timer is paused too, on_screen_suspend)
            return
        closed = getattr(self.lobby, "closed_reason", None)  # (TcpLobby: the connection ended, and why)
        if isinstance(closed, str) and self._host_gone(_(closed)):
            return
        try:
            summaries = await self.lobby.list_tables()
        except LobbyError as error:
            reason = error_sentence(error.code, error.message)
            known = errors.REGISTRY.get(error.code)
            gone = error.code == errors.CLOSED or (known is not None and known.fatal)
            if gone and self._host_gone(reason):
                return  # the host hung up for good: to the start screen's Join tab (an SSH session's lobby says why)
            self.say(_("Cannot list tables: {reason}").format(reason=reason))
            return
        self._listings += 1
        if summaries == self.summaries and self._listed:
            return  # nothing changed: redrawing would only send the same screen again (costly over SSH)
        self._listed = True
        self.summaries = summaries
        listed = {summary.table_id for summary in summaries}
        self.held = {table_id: token for table_id, token in self.held.items() if table_id in listed}
        self._draw_tables()

    def _host_gone(self, reason: str) -> bool:
        """The host is gone for good: to the start screen's Join tab where the app allows it (``host_gone``)."""
        host_gone = getattr(self.app, "host_gone", None)
        if not callable(host_gone):
            return False
        sentence = _("The host at {where} is gone: {reason}.")  # (the Join tab it opens says the rest)
        return bool(host_gone(sentence.format(where=_(self.lobby.info.description), reason=reason)))

    def on_resize(self, _event: events.Resize) -> None:
        if self._listed:
            self._draw_tables()  # the seats' column follows the screen's width

    def _draw_tables(self) -> None:
        summaries = self.summaries
        table = self.query_one("#tables", DataTable)
        row = table.cursor_row
        rows = [  # every cell is a Text: host-sent strings are never parsed as markup
            (
                Text(clean_message(summary.table_id, 12)),
                Text(
                    f"{summary.players}"
                    + (" " + variant_label(summary.variant) if summary.variant != STANDARD else "")
                    + (" " + _("open chips") if summary.open_chips else "")
                    + (" " + _("coach") if summary.coach else "")
                    + (" " + _("{seconds} s per move").format(seconds=summary.turn_clock) if summary.turn_clock else "")
                ),
                Text(table_status(summary) + (" · " + _("your seat") if self._mine(summary) else "")),
                seat_names(summary),
            )
            for summary in summaries
        ]
        # Widths measured here: DataTable's own measuring waits for an idle moment and could keep the header's.
        headers = (_("Table"), _("Players"), _("Status"), _("Seats"))
        columns = list(zip(*rows)) or [() for _header in headers]
        widths = [max([len(header), *(cell.cell_len for cell in cells)]) for header, cells in zip(headers, columns)]
        # The seats get what is left (a cell of padding each side, the scroll bar): never scrolled sideways.
        room = self.app.size.width - sum(width + 2 for width in widths[:-1]) - 2 - 2
        widths[-1] = max(len(headers[-1]), min(widths[-1], room))
        table.clear(columns=True)
        for header, width in zip(headers, widths):
            table.add_column(header, width=width)
        for summary, cells in zip(summaries, rows):
            table.add_row(*cells, key=summary.table_id)
        if summaries:
            table.move_cursor(row=min(max(row, 0), len(summaries) - 1))
            self._advise()
        elif not self._refusal_stays(None):
            self.say(_("No tables yet: press c to set one up."))

    def forget_held_seat(self, table_id: str) -> None:
        """The player gave up their seat at ``table_id`` (they left its finished game)."""
        self.held.pop(table_id, None)

    def _mine(self, summary: TableSummary) -> bool:
        """Does this player hold a seat in this table's running game (left it, or dropped out)?"""
        return summary.table_id in self.held and summary.started and not summary.finished

    def _advise(self) -> None:
        summary = self._highlighted()
        if self._refusal_stays(summary):
            return
        if summary is not None and self._mine(summary):
            self.say(_("Your seat at {table} is waiting: Enter or j takes it back.").format(table=summary.table_id))
        else:
            self.say(_("Enter or j joins the highlighted table, w watches it, c sets up a new one."))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        if self.summaries:
            self._advise()

    async def action_refresh(self) -> None:
        """List the tables now; when nothing changed the message line says so (unless a refusal stands there)."""
        before, listings = self.summaries, self._listings
        try:
            await self.refresh_tables().wait()
        except (WorkerCancelled, WorkerFailed):  # (a newer listing took over)
            return
        listed = self._listings > listings  # (else the host did not answer, and the message line says why)
        if listed and self.summaries and self.summaries == before and not self._refusal_stays(self._highlighted()):
            count = len(self.summaries)
            up_to_date = ngettext("Up to date: {count} table here.", "Up to date: {count} tables here.", count)
            self.say(up_to_date.format(count=count))

    def _highlighted(self, none: str = "") -> TableSummary | None:
        """The table under the cursor; none: ``none`` said, if given."""
        table = self.query_one("#tables", DataTable)
        if not self.summaries or table.cursor_row < 0 or table.cursor_row >= len(self.summaries):
            if none:
                self.say(none)
            return None
        return self.summaries[table.cursor_row]

    async def action_join(self) -> None:
        if (summary := self._highlighted(_("No table to join: press c to set one up."))) is None:
            return
        if self._mine(summary):
            token = self.held[summary.table_id]
            await self._enter(lambda: self.lobby.resume(token), forget=summary.table_id)
            return
        # The host decides (a seat may have freed up); its refusal is worded with what the list knows of the table.
        await self._enter(lambda: self.lobby.join(summary.table_id), about=summary, creator=False)

    async def action_watch(self) -> None:
        if (summary := self._highlighted(_("No table to watch: press c to set one up."))) is not None:
            await self._enter(lambda: self.lobby.spectate(summary.table_id))

    def action_invited(self) -> None:
        """Sit at (or watch) a private table: its invite code names it."""

        async def chosen(choice: tuple[str, bool] | None) -> None:
            code, watch = choice or ("", False)
            if choice is None or (parsed := parse_invite(code)) is None:
                if choice is not None:
                    self.refuse([_("That is not an invite code: one reads like 12-K7PM-3QDX.")])
            elif watch:
                await self._enter(lambda: self.lobby.spectate(parsed[0], code))
            else:
                await self._enter(lambda: self.lobby.join(parsed[0], code=code), creator=False)

        self.app.push_screen(InviteScreen(), chosen)

    def action_create(self) -> None:
        async def chosen(settings: NewTable | None) -> None:
            if settings is not None:
                await self._enter(lambda: self.lobby.create_table(settings), creator=True)

        choices: Sequence[tuple[str, str]] = getattr(self.app, "bot_choices", ())
        self.app.push_screen(NewTableScreen(choices, getattr(self.app, "default_bot", "")), chosen)

    async def _enter(
        self,
        sit: Callable[[], Awaitable[TableConnection]],
        forget: str | None = None,
        about: TableSummary | None = None,
        creator: bool | None = None,
    ) -> None:
        """Sit (or watch) and open the table's screen; ``forget``: the held seat to drop if that fails; ``about``:
        the table a ``join`` asked for; ``creator``: whether this player set the table up (None: not known)."""
        try:
            connection: TableConnection = await sit()
        except LobbyError as error:
            if forget is not None:
                self.held.pop(forget, None)
            self.refuse(join_refusal(error.code, error.message, about), about)
            self.refresh_tables()
            return
        self._refused = False  # (back from the table, the lobby advises again)
        self.held.update(held_seats(connection))
        self.app.push_screen(WaitingScreen(connection, self.join_hint, creator), self._back_in_lobby)

    def _back_in_lobby(self, result: object) -> None:
        """``result``: why the table let us go, if it did (its creator removed us)."""
        if isinstance(result, str) and result:
            self.refuse([result], None)
        self.refresh_tables()

    async def action_quit_lobby(self) -> None:
        await self.lobby.close()
        self.app.exit(0)

    def on_data_table_row_selected(self, _event: DataTable.RowSelected) -> None:
        self.run_worker(self.action_join(), exclusive=True, group="lobby-enter")


class NewTableScreen(ModalScreen[NewTable | None]):
    """How many seats, how many bots, open chips."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "create", N_("Create")),
        Binding("q,escape", "dismiss", N_("Cancel"), key_display="q/Esc"),
    ]

    def __init__(self, bot_choices: Sequence[tuple[str, str]] = (), default_bot: str = "") -> None:
        super().__init__()
        self.bot_choices = bot_choices
        self.default_bot = default_bot

    def compose(self) -> ComposeResult:
        with Vertical(id="new-table", classes="dialog"):
            yield Label(_("New table"))
            yield from forms.table_size_fields()
            yield from forms.bot_field(self.bot_choices, self.default_bot, compact=True)
            yield from forms.variant_field(compact=True)
            yield from forms.turn_clock_field()
            yield forms.open_chips_box()
            yield forms.TickBox(_(COACH_LABEL), id="coach", compact=True)
            yield forms.TickBox(_("Private: only an invite code lets players in"), id="private", compact=True)
            with Horizontal(classes="field"):
                yield Button(_("Create"), id="create", variant="primary")
                yield Button(_("Cancel"), id="cancel")
        yield KeyBar()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            self.action_create()
        else:
            self.dismiss(None)

    def on_select_changed(self, event: Select.Changed) -> None:
        forms.fit_bots_to_players(event, self)

    def action_create(self) -> None:
        self.dismiss(forms.new_table(self))


class InviteScreen(ModalScreen[tuple[str, bool] | None]):
    """A private table's invite code, to sit there (Enter) or watch it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", N_("Cancel"), key_display="Esc")]

    def compose(self) -> ComposeResult:
        with Vertical(id="invite-box", classes="dialog"):
            yield Label(_("The invite code of a private table"))
            yield Input(placeholder="12-K7PM-3QDX", max_length=24, id="invite-code")
            with Horizontal(classes="field"):
                yield Button(_("Sit"), id="sit", variant="primary")
                yield Button(_("Watch"), id="watch")
        yield KeyBar()

    def on_input_submitted(self, _event: Input.Submitted) -> None:
        self.dismiss((self.query_one("#invite-code", Input).value, False))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss((self.query_one("#invite-code", Input).value, event.button.id == "watch"))
