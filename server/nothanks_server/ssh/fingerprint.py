"""The SSH host key's fingerprint as ``ssh-keygen -lf`` and a first ``ssh`` show it, for the start-up banner (players
check it). Read from the ``.pub``, or from the public half an OpenSSH private key keeps in the clear: the host
process never imports the workers' SSH library (pyproject.toml's import contract).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from pathlib import Path

OPENSSH_PRIVATE = "OPENSSH PRIVATE KEY"
OPENSSH_MAGIC = b"openssh-key-v1\0"
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
        line = public_line_of_private_key(private_key.read_text(encoding="ascii", errors="replace"))
    kind = line.split()[0]
    fingerprint, name = public_key_fingerprint(line)
    bits = KEY_TYPES.get(kind, ("", 0))[1]
    return f"{bits} {fingerprint} ({name})" if bits else f"{fingerprint} ({name})"


def public_line_of_private_key(text: str) -> str:
    """The public key line (``ssh-ed25519 AAAA...``) of an OpenSSH private key file, read from its unencrypted
    header (``PROTOCOL.key`` in OpenSSH: magic, cipher, KDF, KDF options, key count, then the first public key),
    so even a passphrase-protected key says it. ``ValueError`` for any other file."""
    lines = text.strip().splitlines()
    if (
        len(lines) < 3
        or lines[0] != f"-----BEGIN {OPENSSH_PRIVATE}-----"
        or lines[-1] != f"-----END {OPENSSH_PRIVATE}-----"
    ):
        raise ValueError("not an OpenSSH private key")
    try:
        data = base64.b64decode("".join(lines[1:-1]), validate=True)
    except binascii.Error:
        raise ValueError("not an OpenSSH private key (its base64 is broken)") from None
    if not data.startswith(OPENSSH_MAGIC):
        raise ValueError("not an OpenSSH private key (no openssh-key-v1 header)")
    offset = len(OPENSSH_MAGIC)
    fields: list[bytes] = []
    for _ in range(4):  # cipher, KDF, KDF options, then (after the key count) the first public key
        if len(fields) == 3:
            offset += 4
        if offset + 4 > len(data):
            raise ValueError("not an OpenSSH private key (cut short)")
        (size,) = struct.unpack_from(">I", data, offset)
        offset += 4
        if offset + size > len(data):
            raise ValueError("not an OpenSSH private key (cut short)")
        fields.append(data[offset : offset + size])
        offset += size
    blob = fields[3]
    (kind_size,) = struct.unpack_from(">I", blob, 0) if len(blob) >= 4 else (len(blob) + 1,)
    if kind_size + 4 > len(blob):
        raise ValueError("not an OpenSSH private key (its public key is broken)")
    kind = blob[4 : 4 + kind_size].decode("ascii", "replace")
    return f"{kind} {base64.b64encode(blob).decode()}"
