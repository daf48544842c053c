"""A private table's invite code, as players read it aloud and type it: ``12-K7PM-3QDX``, the table's number and a
secret of 8 characters that no two look alike in (30**8, about 6.6e11; the host counts wrong guesses per network)."""

from __future__ import annotations

import re
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"  # no 0/O, 1/I/L, U
SECRET_LENGTH = 8


def new_secret() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(SECRET_LENGTH))


def invite_code(table_id: str, secret: str) -> str:
    """What the creator shares: ``t12`` with ``K7PM3QDX`` is ``12-K7PM-3QDX``."""
    return f"{table_id.removeprefix('t')}-{secret[:4]}-{secret[4:]}"


def parse_invite(code: str) -> tuple[str, str] | None:
    """The table id and secret of a typed code (any case, spaces and dashes anywhere after the number), or None."""
    found = re.fullmatch(r"(\d{1,9})[\s-]+(.*)", code.strip(), re.ASCII)
    secret = re.sub(r"[\s-]", "", found[2]).upper() if found else ""
    return (f"t{int(found[1])}", secret) if found and secret else None
