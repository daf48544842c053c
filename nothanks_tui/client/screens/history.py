"""The history: finished games, newest first, each opened in the replay, from any ``HistorySource`` (this
machine's or a host's), fetched a page at a time as the cursor nears the end; and the players' statistics from it.
A player is a name locally; at a host an SSH key or a seat token. Names are drawn as literal text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from ...i18n import N_, _, ngettext
from ...link import LobbyError
from ...link.history import HISTORY_PAGE, GameListing, HistorySource, PlayerStats, Rated
from ..presentation import number
from ..safe_text import clean_message, display_name
from ..widgets.keybar import KeyBar
from .replay import GUESS, open_replay, when_text
from .score import WINNER_MARK
from .steady import SteadyScreen

LOAD_MORE_WITHIN = 10  # rows from the end of what is shown at which the next page is fetched
KINDS = {"bot": N_("bot"), "key": N_("SSH key"), "seat": N_("seat")}  # a name needs no tag


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


def stats_cells(row: PlayerStats) -> tuple[Text, ...]:
    """One row of the table: the player and what it is ("carol (SSH key, you)"), games, wins, win share, mean (to
    one decimal, a real minus sign), best."""
    tags = [_(KINDS[row.kind])] if row.kind in KINDS else []
    if row.you:
        tags.append(_("you"))
    player = Text(display_name(row.name, 16), style="bold" if row.you else "")
    if tags:
        player.append(f" ({', '.join(tags)})", style="dim")
    mean = f"{abs(row.mean):.1f}"
    mean = f"−{mean}" if row.mean < 0 and mean != "0.0" else mean
    numbers = (str(row.games), str(row.wins), f"{row.win_share:.0%}", mean, number(row.best))
    return (player, *(Text(cell, justify="right") for cell in numbers))


class ListScreen(SteadyScreen[None]):
    """A title, a note under it and one table from a ``HistorySource``: the history's games, the statistics."""

    TABLE_ID: ClassVar[str]
    COLUMNS: ClassVar[tuple[tuple[str, str], ...]]  # (label, key)

    def __init__(self, source: HistorySource, title: str) -> None:
        super().__init__()
        self.source = source
        self.title_text = title

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text, style="bold"), classes="screen-title")
        yield Static(_("Loading…"), classes="screen-note")
        table: DataTable[Text] = DataTable(id=self.TABLE_ID, cursor_type="row", zebra_stripes=True)
        for label, key in self.COLUMNS:
            table.add_column(_(label), key=key)
        yield table
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.action_reload()

    def say(self, text: str) -> None:
        self.query_one(".screen-note", Static).update(Text(text))

    def action_reload(self) -> object:
        raise NotImplementedError  # (the rows from the source, again)


class HistoryScreen(ListScreen):
    """Finished games, newest first; Enter opens one in the replay, s shows the players' statistics."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_game", N_("Replay"), priority=True),  # (before the list's own Enter)
        Binding("s", "stats", N_("Statistics")),
        Binding("l", "leaderboard", N_("Leaderboard")),
        Binding("r", "reload", N_("Refresh")),
        Binding("q,escape", "close", N_("Back"), key_display="q/Esc"),
    ]
    TABLE_ID = "games"
    # The winner before the players: a game of 6 or 7 players is wider than the screen, and pushed it off.
    COLUMNS = ((N_("Date"), "date"), (N_("Winner"), "winner"), (N_("Players and scores"), "players"))

    def __init__(self, source: HistorySource, title: str | None = None, player: str | None = None) -> None:
        """``player``: this player's name at the host whose history this is (None: this machine's games)."""
        super().__init__(source, title or _("Game history"))
        self.player = player
        self.games: list[GameListing] = []
        self.total = 0
        self._loading = False

    @work(exclusive=True, group="history-page", exit_on_error=False)
    async def load_more(self) -> None:
        if self._loading:
            return
        self._loading = True
        try:
            page = await self.source.list_games(len(self.games), HISTORY_PAGE)
        except LobbyError as error:
            self.say(_("The history cannot be read: {reason}").format(reason=clean_message(error.message)))
            return
        finally:
            self._loading = False
        table = self.query_one(DataTable)
        for game in page.games:
            if any(known.game_id == game.game_id for known in self.games[-HISTORY_PAGE:]):
                continue  # a game finished meanwhile shifted the pages: never list one twice
            self.games.append(game)
            won = ", ".join(display_name(game.players[seat], 12) for seat in game.winners if seat < len(game.players))
            winner = Text(f"{WINNER_MARK} {won}" if won else "?")
            table.add_row(Text(when_text(game.finished_at)), winner, players_cell(game), key=game.game_id)
        self.total = page.total
        if not self.games:
            self.say(_("No finished game yet. Play one: it is kept here."))
        else:
            shown = ngettext("{count} finished game", "{count} finished games", self.total).format(count=self.total)
            self.say(shown + " · " + _("newest first; Enter replays the game under the cursor."))
        self.refresh_bindings()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= len(self.games) - LOAD_MORE_WITHIN and len(self.games) < self.total:
            self.load_more()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # a click on a row
        self.action_open_game()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return True if action != "open_game" or self.games else None

    def action_open_game(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.games):
            self.open_game(self.games[row].game_id)

    @work(exclusive=True, group="history-open", exit_on_error=False)
    async def open_game(self, game_id: str) -> None:
        await open_replay(self, self.source.open_game(game_id), GUESS if self.player is None else self.player)

    def action_stats(self) -> None:
        self.app.push_screen(StatsScreen(self.source))

    def action_leaderboard(self) -> None:
        self.app.push_screen(LeaderboardScreen(self.source))

    def action_reload(self) -> None:
        self.games.clear()
        self.total = 0
        self.query_one(DataTable).clear()
        self.load_more()


class StatsScreen(ListScreen):
    """Each player's games, wins, win share, mean and best score, most games first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reload", N_("Refresh")),
        Binding("q,escape", "close", N_("Back"), key_display="q/Esc"),
    ]
    TABLE_ID = "stats"
    COLUMNS: ClassVar[tuple[tuple[str, str], ...]] = (
        (N_("Player"), "player"),
        (N_("Games"), "games"),
        (N_("Wins"), "wins"),
        (N_("Win share"), "share"),
        (N_("Mean"), "mean"),
        (N_("Best"), "best"),
    )

    FAILED = N_("The statistics cannot be read: {reason}")
    NOTE = N_("Most games first. Lower scores are better: best is the lowest final score.")

    def __init__(self, source: HistorySource, title: str | None = None) -> None:
        super().__init__(source, title or _("Statistics"))
        self.rows: Sequence[Any] = []

    async def fetch(self) -> Sequence[Any]:
        return await self.source.player_stats()

    def cells(self, row: Any, rank: int) -> tuple[Text, ...]:
        return stats_cells(row)

    @work(exclusive=True, group="stats", exit_on_error=False)
    async def action_reload(self) -> None:
        try:
            self.rows = await self.fetch()
        except LobbyError as error:
            self.say(_(self.FAILED).format(reason=clean_message(error.message)))
            return
        table = self.query_one(DataTable)
        table.clear()
        people = 0  # (the rank counts people only: the bots' rows are landmarks)
        for row in self.rows:
            people += not getattr(row, "bot", False)
            table.add_row(*self.cells(row, people))
        self.say(_(self.NOTE) if self.rows else _("No finished game yet."))


class LeaderboardScreen(StatsScreen):
    """Players by rating (the host's, or this machine's games), best first, with the bot levels' fixed ratings."""

    TABLE_ID = "leaderboard"
    COLUMNS = ((N_("Rank"), "rank"), (N_("Player"), "player"), (N_("Rating"), "rating"), (N_("Games"), "games"))
    FAILED = N_("The leaderboard cannot be read: {reason}")
    NOTE = N_("A rating starts at 1000 and rises as you win; bots keep their level's rating.")

    def __init__(self, source: HistorySource) -> None:
        super().__init__(source, _("Leaderboard"))

    async def fetch(self) -> Sequence[Any]:
        return await self.source.leaderboard()

    def cells(self, row: Rated, rank: int) -> tuple[Text, ...]:
        name = Text(display_name(row.name, 20))
        if row.bot:
            name.append(" (" + _("bot") + ")", style="dim")
        figures = ("", str(row.rating), "") if row.bot else (str(rank), str(row.rating), str(row.games))
        return Text(figures[0], justify="right"), name, *(Text(cell, justify="right") for cell in figures[1:])
