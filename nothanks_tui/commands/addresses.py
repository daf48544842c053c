"""How others reach a host on this machine: the ``nothanks join`` lines it prints and shows."""

from __future__ import annotations

from nothanks_server.addresses import lan_addresses

from ..defaults import DEFAULT_PORT
from ..i18n import _


def join_lines(bind: str, port: int) -> list[str]:
    """One ``nothanks join`` line per address others can use."""
    if bind in ("0.0.0.0", "::", ""):
        addresses = lan_addresses() or [_("<this machine's address>")]
    else:
        addresses = [bind]
    suffix = "" if port == DEFAULT_PORT else f":{port}"
    return [f"  nothanks join {address}{suffix}" for address in addresses]


def hosting_lines(bind: str, port: int, ssh_port: int | None) -> list[str]:
    """What ``nothanks host`` prints before its app starts, given the ports actually bound (``--port 0`` picks one)."""
    lines = [_("Hosting on {address}. Others join with:").format(address=f"{bind}:{port}"), *join_lines(bind, port)]
    if ssh_port is not None:
        lines.append("  ssh -p {port} play@{machine}".format(port=ssh_port, machine=_("<this machine>")))
    return lines
