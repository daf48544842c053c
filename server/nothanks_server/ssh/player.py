"""Who is on the other end of an SSH session, as far as the game needs to know."""

from __future__ import annotations

from dataclasses import dataclass

ANONYMOUS_USERS = frozenset({"play", "nothanks", "guest", "anonymous"})


@dataclass(frozen=True, slots=True)
class SSHPlayer:
    """One SSH login. ``key_fingerprint`` is set only when the client proved it holds that public key."""

    username: str
    key_fingerprint: str | None
    peer: str
    term: str
    color_system: str
    language: str = "en"  # from the LC_ALL / LC_MESSAGES / LANG the client sent (nothanks_tui.i18n)

    @property
    def suggested_name(self) -> str:
        """The display name to prefill: the SSH user name, unless it is the generic ``play`` (then empty)."""
        name = self.username.strip()
        return "" if name.lower() in ANONYMOUS_USERS else name

    @property
    def address(self) -> str:
        """The client's address without its port (what per-address limits count)."""
        host, _, port = self.peer.rpartition(":")
        return host if host and port.isdigit() else self.peer

    @property
    def identity(self) -> str | None:
        """A stable identity for finding this player's seat again after a reconnect (key logins only)."""
        return f"ssh-key:{self.key_fingerprint}" if self.key_fingerprint else None
