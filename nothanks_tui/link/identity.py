"""A `nothanks join` player's identity: an Ed25519 key pair kept in the config dir, proven in each hello by signing
the host hello's nonce. Its owner id is the key's SSH fingerprint (``SHA256:...``), so the same key used over SSH
owns the same names."""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_ssh_private_key,
)

from .. import paths

CONTEXT = b"nothanks hello key proof 1\0"  # signed before the nonce: a signature made for anything else never fits


def fingerprint(raw: bytes) -> str:
    """The SSH fingerprint of a raw Ed25519 public key (what ``ssh-keygen -lf`` and asyncssh say for it)."""
    blob = b"".join(len(part).to_bytes(4, "big") + part for part in (b"ssh-ed25519", raw))
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


class Identity:
    """The player's key pair; ``prove`` gives the hello's ``public_key`` and ``signature`` for a nonce."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def load(cls, path: Path | None = None) -> Identity:
        """The key at ``path`` (``config_dir()/identity``), made on first use (OpenSSH format, mode 0600)."""
        path = path or paths.config_dir() / "identity"
        try:
            key = load_ssh_private_key(path.read_bytes(), None)
        except FileNotFoundError:
            key = Ed25519PrivateKey.generate()
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}")
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
            with os.fdopen(os.open(temporary, flags, 0o600), "wb") as file:
                file.write(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
            try:
                os.link(temporary, path)  # whole or not at all, never over one another `join` made meanwhile
            except FileExistsError:
                return cls.load(path)
            finally:
                temporary.unlink()
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} is not an Ed25519 key")
        return cls(key)

    @property
    def owner(self) -> str:
        return fingerprint(self.public)

    def prove(self, nonce: str) -> dict[str, str]:
        signature = self._key.sign(CONTEXT + nonce.encode())
        return {"public_key": _b64(self.public), "signature": _b64(signature)}


def proven_owner(public_key: str, signature: str, nonce: str) -> str | None:
    """The owner id of ``public_key`` if ``signature`` signs ``nonce`` with it, else None."""
    try:
        raw = base64.b64decode(public_key, validate=True)
        Ed25519PublicKey.from_public_bytes(raw).verify(
            base64.b64decode(signature, validate=True), CONTEXT + nonce.encode()
        )
    except (ValueError, InvalidSignature):
        return None
    return fingerprint(raw)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
