"""The history: finished games, newest first, each opened in the replay, from any ``HistorySource`` (this
machine's or a host's), fetched a page at a time as the cursor nears the end. Names are drawn as literal text."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from ...i18n import N_, _, ngettext
from ...link import LobbyError
from ...link.history import HISTORY_PAGE, GameListing, HistorySource
from ..presentation import number
from ..safe_text import clean_message, display_name
from ..widgets.keybar import KeyBar
from .replay import GUESS, WINNER_MARK, open_replay, when_text
from .stats import StatsScreen
from .steady import SteadyScreen

LOAD_MORE_WITHIN = 10  # rows from the end of what is shown at which the next page is fetched


def players_cell(game: GameListing) -> Text:
    """ "you 12 · ana −3 · bo 20", winners in bold."""
    cells = 10 if len(game.players) <= 4 else 7
    text = Text()
    for seat, (name, score) in enumerate(zip(game.players, game.scores)):
        if seat:
            text.append(" · ")
        style = "bold" if seat in game.winners else ""
        text.append(f"{display_name(name, cells)} {number(score)}", style=style)
    return text


class HistoryScreen(SteadyScreen[None]):
    """Finished games, newest first; Enter opens one in the replay, s shows the players' statistics."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_game", N_("Replay"), priority=True),  # (before the list's own Enter)
        Binding("s", "stats", N_("Statistics")),
        Binding("r", "reload", N_("Refresh")),
        Binding("q,escape", "close", N_("Back"), key_display="q/Esc"),
    ]

    def __init__(self, source: HistorySource, title: str | None = None, player: str | None = None) -> None:
        """``player``: this player's name at the host whose history this is (None: this machine's games)."""
        super().__init__()
        self.source = source
        self.player = player
        self.title_text = title or _("Game history")
        self.games: list[GameListing] = []
        self.total = 0
        self._loading = False

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text, style="bold"), classes="screen-title", id="history-title")
        yield Static(_("Loading…"), classes="screen-note", id="history-note")
        table: DataTable[Text] = DataTable(id="games", cursor_type="row", zebra_stripes=True)
        table.add_column(_("Date"), key="date")
        # The winner before the players: a game of 6 or 7 players is wider than the screen, and pushed it off.
        table.add_column(_("Winner"), key="winner")
        table.add_column(_("Players and scores"), key="players")
        yield table
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#games", DataTable).focus()
        self.load_more()

    @work(exclusive=True, group="history-page", exit_on_error=False)
    async def load_more(self) -> None:
        if self._loading:
            return
        self._loading = True
        try:
            page = await self.source.list_games(len(self.games), HISTORY_PAGE)
        except LobbyError as error:
            self._say(_("The history cannot be read: {reason}").format(reason=clean_message(error.message)))
            return
        finally:
            self._loading = False
        table = self.query_one("#games", DataTable)
        for game in page.games:
            if any(known.game_id == game.game_id for known in self.games[-HISTORY_PAGE:]):
                continue  # a game finished meanwhile shifted the pages: never list one twice
            self.games.append(game)
            won = ", ".join(display_name(game.players[seat], 12) for seat in game.winners if seat < len(game.players))
            winner = Text(f"{WINNER_MARK} {won}" if won else "?")
            table.add_row(Text(when_text(game.finished_at)), winner, players_cell(game), key=game.game_id)
        self.total = page.total
        if not self.games:
            self._say(_("No finished game yet. Play one: it is kept here."))
        else:
            shown = ngettext("{count} finished game", "{count} finished games", self.total).format(count=self.total)
            self._say(shown + " · " + _("newest first; Enter replays the game under the cursor."))
        self.refresh_bindings()

    def _say(self, text: str) -> None:
        self.query_one("#history-note", Static).update(Text(text))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= len(self.games) - LOAD_MORE_WITHIN and len(self.games) < self.total:
            self.load_more()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # a click on a row
        self.action_open_game()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_game":
            return True if self.games else None
        return True

    def action_open_game(self) -> None:
        table = self.query_one("#games", DataTable)
        row = table.cursor_row
        if 0 <= row < len(self.games):
            self.open_game(self.games[row].game_id)

    @work(exclusive=True, group="history-open", exit_on_error=False)
    async def open_game(self, game_id: str) -> None:
        await open_replay(self, self.source.open_game(game_id), GUESS if self.player is None else self.player)

    def action_stats(self) -> None:
        self.app.push_screen(StatsScreen(self.source))

    def action_reload(self) -> None:
        self.games.clear()
        self.total = 0
        self.query_one("#games", DataTable).clear()
        self.load_more()
