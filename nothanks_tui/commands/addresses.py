"""How others reach a host on this machine: the ``nothanks join`` lines it prints and shows."""

from __future__ import annotations

from nothanks_server.addresses import lan_addresses

from ..defaults import DEFAULT_PORT
from ..i18n import _


def reachable_addresses(bind: str) -> list[str]:
    """The addresses others can reach a host bound to ``bind`` at (every LAN address for a wildcard bind)."""
    if bind in ("0.0.0.0", "::", ""):
        return lan_addresses() or [_("<this machine's address>")]
    return [bind]


def join_lines(bind: str, port: int) -> list[str]:
    """One ``nothanks join`` line per address others can use."""
    suffix = "" if port == DEFAULT_PORT else f":{port}"
    return [f"  nothanks join {address}{suffix}" for address in reachable_addresses(bind)]


def ssh_lines(bind: str, ssh_port: int) -> list[str]:
    """One ``ssh`` line per address players can use (``-p`` left out for port 22)."""
    option = "" if ssh_port == 22 else f"-p {ssh_port} "
    return [f"  ssh {option}play@{address}" for address in reachable_addresses(bind)]


def hosting_lines(bind: str, port: int, ssh_port: int | None, fingerprint: str | None = None) -> list[str]:
    """What ``nothanks host`` prints before its app starts, given the ports actually bound (``--port 0`` picks one)
    and the SSH host key's fingerprint."""
    lines = [_("Hosting on {address}. Others join with:").format(address=f"{bind}:{port}"), *join_lines(bind, port)]
    if ssh_port is not None:
        lines.extend(ssh_lines(bind, ssh_port))
    if fingerprint is not None:
        lines.append(
            _("SSH host key fingerprint: {fingerprint} (what players' ssh shows on their first visit)").format(
                fingerprint=fingerprint
            )
        )
    return lines
