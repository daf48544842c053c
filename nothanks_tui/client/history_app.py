"""The app for ``nothanks history`` and ``nothanks replay``: the client app opening on the history or a replay."""

from .app import NetApp as HistoryApp

__all__ = ["HistoryApp"]
