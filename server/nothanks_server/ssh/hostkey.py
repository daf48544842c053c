"""The SSH host key: generated once (ed25519, owner-only) into the data dir, then reused on every start, since a
changed key makes OpenSSH refuse with "REMOTE HOST IDENTIFICATION HAS CHANGED". Nothing is written through a
symbolic link: one planted at the key's or ``.pub``'s name is refused, and both are opened with ``O_NOFOLLOW``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import asyncssh

log = logging.getLogger(__name__)

HOST_KEY_NAME = "ssh_host_ed25519_key"


class HostKeyError(RuntimeError):
    """The host key file exists but cannot be used (unreadable, corrupt, or not a private key)."""


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """Read the private key at ``path``; if there is no file yet, generate an ed25519 key and write it (0600)."""
    path = Path(path)
    public = path.with_name(path.name + ".pub")
    if not path.exists():  # (a link to an existing key is the owner's choice: it is only read)
        for written in (path, public):
            if written.is_symlink():
                raise HostKeyError(f"refusing to write the SSH host key through the symbolic link {written}")
    if path.exists():
        try:
            key = asyncssh.read_private_key(str(path))
        except (OSError, asyncssh.KeyImportError, ValueError) as error:
            raise HostKeyError(f"cannot use the SSH host key {path}: {error}") from error
        log.info("SSH host key %s (%s)", path, key.get_fingerprint())
        return key
    key = asyncssh.generate_private_key("ssh-ed25519", comment="nothanks host key")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(key.export_private_key("openssh"))
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # never replaces a key another process wrote meanwhile
        except FileExistsError:
            return load_or_create_host_key(path)
    finally:
        temporary.unlink(missing_ok=True)
    try:
        descriptor = os.open(public, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    except OSError as error:  # ELOOP: a symbolic link appeared there since the check above
        raise HostKeyError(f"cannot write the SSH public host key {public}: {error}") from error
    with os.fdopen(descriptor, "wb") as file:
        file.write(key.export_public_key("openssh"))
    log.info("generated SSH host key %s (%s)", path, key.get_fingerprint())
    return key
