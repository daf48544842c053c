"""The SSH host key's fingerprint, as ``ssh-keygen -lf`` and a connecting ``ssh`` show it, for the start-up banner.

Players check it against what their ``ssh`` shows on the first connection ("ED25519 key fingerprint is
SHA256:..."), so nobody in between can pretend to be the host. The host process reads it from the public key file
(``.pub``, written next to the key), without importing the SSH library the workers use; only a key given without
its ``.pub`` needs that library to derive the public half.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

KEY_TYPES = {"ssh-ed25519": ("ED25519", 256)}  # the key type as ssh-keygen names it, and its bits


def public_key_fingerprint(line: str) -> tuple[str, str]:
    """(``SHA256:...``, key type) of one OpenSSH public key line (``ssh-ed25519 AAAA... comment``)."""
    kind, blob = line.split()[:2]
    digest = hashlib.sha256(base64.b64decode(blob)).digest()
    name = KEY_TYPES.get(kind, (kind.removeprefix("ssh-").upper(), 0))[0]
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("="), name


def host_key_fingerprint(private_key: Path) -> str:
    """``256 SHA256:... (ED25519)`` for the host key at ``private_key`` (from its ``.pub`` when there is one)."""
    public = private_key.with_name(private_key.name + ".pub")
    try:
        line = public.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        import asyncssh  # (only for a key given without its public half)

        line = asyncssh.read_private_key(str(private_key)).export_public_key("openssh").decode()
    kind = line.split()[0]
    fingerprint, name = public_key_fingerprint(line)
    bits = KEY_TYPES.get(kind, ("", 0))[1]
    return f"{bits} {fingerprint} ({name})" if bits else f"{fingerprint} ({name})"
