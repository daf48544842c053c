"""The SSH front: ``ssh play@host`` runs the game's Textual app for each session inside the host process.

``SSHFront`` (server.py) is the asyncssh server and its policies; ``GameSession`` (session.py) one session channel;
``ChannelDriver`` (driver.py) the Textual driver drawing on an SSH channel; keys.py, terminal.py and stdio.py the
fixes that running many apps in one process needs; collector.py and strips.py keep garbage collection
pauses short with many apps in one heap, and sweeper.py frees a finished session's app as its player leaves.
"""

from .driver import ChannelDriver
from .hostkey import HOST_KEY_NAME, load_or_create_host_key
from .player import SSHPlayer
from .server import SSHFront, SSHSettings
from .session import AppFactory, GameSession

__all__ = [
    "HOST_KEY_NAME",
    "AppFactory",
    "ChannelDriver",
    "GameSession",
    "SSHFront",
    "SSHPlayer",
    "SSHSettings",
    "load_or_create_host_key",
]
