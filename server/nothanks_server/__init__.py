"""The authoritative No Thanks! host: a lobby of tables, each the single authority over one game.

Transports are thin plug-ins over the same objects, so the rules are enforced in one place only:

- ``Lobby`` (lobby.py): the tables, player names, seat tokens. ``Lobby.create_table``, ``Lobby.table``,
  ``Lobby.tables()``, ``Lobby.resume(token, member)``.
- ``Table`` (table.py): seats, bots, spectators, one engine state; ``join``/``spectate``/``leave``/``add_bot``/
  ``start``/``submit``/``play_again``. Every change is pushed to every member as the view filtered for that
  member at the moment of sending (``Member.deliver``).
- ``InProcessLobby`` / ``InProcessTable`` (inprocess.py): the client's ``LobbyConnection`` / ``TableConnection``
  talking to a Lobby in this process (``nothanks host``'s own player, each SSH session, tests).
- ``TcpHost`` (tcp.py): the msgpack-over-TCP transport (docs/protocol.md).
- ``storage.py``: finished games written as ``nothanks-record/1`` into the data dir.
- ``archive.py``: finished games in the store, indexed for the history (summaries, per-seat results, totals).
- ``history.py``: local games kept like a host's (``LocalRecords``) and the history read in-process.
"""

from .lobby import Lobby, LobbySettings
from .table import Member, Table, TableSettings

__all__ = ["Lobby", "LobbySettings", "Member", "Table", "TableSettings"]
