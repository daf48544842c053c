"""What a host says about itself on the LAN (DNS-SD over mDNS): its name, protocol version and free seats in a TXT
record (server/nothanks_server/advertise.py; client/discovery.py browses). Anyone on the network may write one, so
every value read is bounded and cleaned as names are, and one that cannot be read is left out rather than trusted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .names import MAX_NAME, printable_text

SERVICE_TYPE = "_nothanks._tcp.local."
TXT_NAME = "name"
TXT_PROTOCOL = "proto"
TXT_SEATS = "seats"
MAX_TXT_VALUE = 255  # a TXT string holds at most 255 bytes: nothing longer is read
MAX_NUMBER_DIGITS = 4  # protocol versions and seat counts are small numbers; a longer one is not a number


@dataclass(frozen=True, slots=True)
class HostTxt:
    """What a TXT record said, once read safely: ``None`` where a value was missing or unreadable."""

    name: str | None
    protocol: int | None
    free_seats: int | None


def txt_record(name: str, protocol: int, free_seats: int) -> dict[str, str]:
    """The TXT record a host advertises (its name cut to a name's length, so every client can show it whole)."""
    return {
        TXT_NAME: printable_text(name)[:MAX_NAME] or "nothanks",
        TXT_PROTOCOL: str(protocol),
        TXT_SEATS: str(max(0, free_seats)),
    }


def read_txt(properties: object) -> HostTxt:
    """The TXT record of a host found on the network, read without trusting anything in it. Never raises."""
    if not isinstance(properties, Mapping):
        return HostTxt(None, None, None)
    values: dict[str, bytes] = {}
    for key, value in list(properties.items())[:64]:  # a record with hundreds of keys is not worth reading whole
        if isinstance(key, bytes | str) and isinstance(value, bytes | str):
            raw_key = key.decode("ascii", "replace") if isinstance(key, bytes) else key
            values[raw_key[:16].lower()] = value.encode() if isinstance(value, str) else value
    return HostTxt(_text(values.get(TXT_NAME)), _number(values.get(TXT_PROTOCOL)), _number(values.get(TXT_SEATS)))


def _text(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    text = printable_text(raw[:MAX_TXT_VALUE].decode("utf-8", "replace"))[:MAX_NAME]
    return text or None


def _number(raw: bytes | None) -> int | None:
    if raw is None or not 0 < len(raw) <= MAX_NUMBER_DIGITS or not raw.isdigit():
        return None
    return int(raw)
