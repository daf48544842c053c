"""Who is a member of the cluster: a front proves to a table host that it knows the cluster's shared secret.

A table host's ``hello`` carries a ``nonce``, new on every connection; a front answers with ``proof``, the
HMAC-SHA256 of the nonce under the secret (lowercase hex). A table host in a cluster refuses any other hello
(``not_member``): only members may speak for players (``via``, ``key``), so a stranger who finds the table port
cannot pose as someone's SSH key. The secret itself never travels, and a proof is worth nothing on another
connection. Standard library only: the host imports this whether or not it is in a cluster.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

NONCE_BYTES = 16  # 32 hex characters


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def proof(secret: str, nonce: str) -> str:
    """What a member sends in its ``hello`` for ``nonce``."""
    return hmac.new(secret.encode(), nonce.encode("ascii", "replace"), hashlib.sha256).hexdigest()


def proves(secret: str, nonce: str, offered: object) -> bool:
    """``offered`` is the proof for ``nonce`` under ``secret`` (compared in constant time)."""
    if not isinstance(offered, str):
        return False
    return hmac.compare_digest(offered.encode("utf-8", "replace"), proof(secret, nonce).encode())
