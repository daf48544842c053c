"""``nothanks daily``: today's daily deal on this machine, once a day, ranked against your own past days.

The deal's seed is the day's HMAC under a secret made once for this install (``daily.json`` in the data dir, the
player's alone), so nobody can deal it elsewhere first; starting the game counts as playing the day."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from nothanks_server.inprocess import SoloGame, solo_table

from .. import paths
from ..client.app import NoThanksApp
from ..client.remembered import Remembered
from ..i18n import _
from ..link.daily import DAILY_BOT, DAILY_PLAYERS, daily_seed, rank, share_line, today
from . import run_app
from .launchers import LocalLaunchers


class DailyBook:
    """This install's secret and every day's score (None: started, not finished), in one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            self.secret, self.days = bytes.fromhex(kept["secret"]), dict(kept["days"])
        except FileNotFoundError:
            self.secret, self.days = os.urandom(32), {}

    def start(self, day: str) -> int | None:
        """``day``'s seed, the day now counted as played; None if it was already."""
        if day in self.days:
            return None
        self.days[day] = None
        self._save()
        return daily_seed(self.secret, day)

    def finish(self, day: str, score: int) -> None:
        self.days[day] = score
        self._save()

    def summary(self, day: str) -> list[str]:
        """Today against your own days: the share line (a place among your days), your best and your average."""
        ranked = rank((played, score) for played, score in self.days.items() if score is not None)
        if not ranked:
            return [_("No daily deal finished yet.")]
        lines = [share_line(day, line, len(ranked)) for line in ranked if line.name == day]
        best, mean = ranked[0], sum(line.score for line in ranked) / len(ranked)
        lines.append(
            _("Your days: {count}; best {best} points ({day}); average {mean:.1f}.").format(
                count=len(ranked), best=best.score, day=best.name, mean=mean
            )
        )
        return lines

    def _save(self) -> None:
        paths.write_private(self.path, {"secret": self.secret.hex(), "days": self.days})


def run_daily(args: argparse.Namespace) -> int:
    """Play today's deal (once), then print where it ranks among your days."""
    book, day = DailyBook(paths.data_dir() / "daily.json"), today()
    seed = book.start(day)
    if seed is None:
        print(_("You have played today's deal already ({day}, UTC): come back tomorrow.").format(day=day))
        print("\n".join(book.summary(day)))
        return 1
    remembered = Remembered.of_this_user()
    name = args.name or remembered.name or _("you")
    game = SoloGame(DAILY_PLAYERS, DAILY_BOT, name, seed, bot_pace=args.bot_pace, coach=False, daily=True)
    connection = solo_table(game)
    table = getattr(connection, "table", None)  # (kept: leaving takes the seat's link to it)
    app = NoThanksApp(connection, launchers=LocalLaunchers(args.bot_pace), remembered=remembered, exit_on_signals=True)
    code = run_app(app)
    if table is not None and table.finished:
        book.finish(day, table.state.scores()[0])
    print("\n".join(book.summary(day)))
    return code
