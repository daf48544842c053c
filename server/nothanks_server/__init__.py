"""The authoritative No Thanks! host: a lobby of tables (lobby.py), each the single authority over one game
(table/), served over TCP (tcp.py, session.py), SSH (ssh/) and in-process (inprocess.py) through the same handlers."""

from .lobby import Lobby, LobbySettings

__all__ = ["Lobby", "LobbySettings"]
