"""How others reach a host on this machine: the ``nothanks join`` lines it prints and shows."""

from __future__ import annotations

from nothanks_server.addresses import lan_addresses

from ..defaults import DEFAULT_PORT


def join_lines(bind: str, port: int) -> list[str]:
    """One ``nothanks join`` line per address others can use."""
    if bind in ("0.0.0.0", "::", ""):
        addresses = lan_addresses() or ["<this machine's address>"]
    else:
        addresses = [bind]
    suffix = "" if port == DEFAULT_PORT else f":{port}"
    return [f"  nothanks join {address}{suffix}" for address in addresses]


def hosting_lines(bind: str, port: int, ssh_port: int | None) -> list[str]:
    """What ``nothanks host`` prints before its app starts, given the ports actually bound (``--port 0`` picks one)."""
    lines = [f"Hosting on {bind}:{port}. Others join with:", *join_lines(bind, port)]
    if ssh_port is not None:
        lines.append(f"  ssh -p {ssh_port} play@<this machine>")
    return lines
