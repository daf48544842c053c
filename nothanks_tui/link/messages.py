"""The messages a client may send, as msgspec Structs: decoded and checked once at the edge (``decode_client``:
``bad_field``, ``unknown_type``), then each run by its one handler, ``on_<type>``; ``UNSET`` marks a field whose
absence means something no value says. Adding a message: docs/architecture.md, "Adding a message"."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from . import errors
from .history import HISTORY_PAGE
from .wire import ProtocolError
from .wire import kind_of as kind_of  # (a client message's type, as a host frame's)

MAX_ID = 2**31 - 1
RequestId = Annotated[int, msgspec.Meta(ge=0, le=MAX_ID)]


class ClientMessage(msgspec.Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """One message from a client; ``id``, if given, comes back as ``re`` on its reply."""

    id: RequestId | None = None


class Hello(ClientMessage, tag="hello"):
    protocol: int
    name: str
    client: str | UnsetType = UNSET
    via: str | UnsetType = UNSET  # a host's own front (or a cluster member) only, with proxy_key / proof
    proxy_key: str | UnsetType = UNSET
    key: str | UnsetType = UNSET  # the player's SSH key fingerprint: a host's own front only, with via
    features: list[Any] | UnsetType = UNSET  # str names of what the client speaks beyond the version
    proof: str | UnsetType = UNSET  # a cluster member: HMAC of the host hello's nonce (cluster/membership.py)
    public_key: str | UnsetType = UNSET  # a join player's Ed25519 key (base64), with its signature of the nonce
    signature: str | UnsetType = UNSET  # (link/identity.py)
    owner: str | UnsetType = UNSET  # the key a front (via) vouches owns the name; absent: the player is a guest


class ListTables(ClientMessage, tag="list_tables"):
    offset: int = 0


class CreateTable(ClientMessage, tag="create_table"):
    players: int
    bots: int = 0
    bot: str | UnsetType = UNSET  # absent: the host's default bot
    open_chips: bool = False
    variant: str = "standard"
    coach: bool = False
    turn_clock: int | None = None  # whole seconds per move (0: off; absent or null: the host's default)
    private: bool = False  # not listed; joined or watched with its invite code only


class Join(ClientMessage, tag="join"):
    table: str
    seat: int | None = None
    code: str | None = None  # a private table's invite code


class Spectate(ClientMessage, tag="spectate"):
    table: str
    code: str | None = None


class Resume(ClientMessage, tag="resume"):
    token: str


class ResumeKey(ClientMessage, tag="resume_key"):
    """The seat bound to the hello's key (a host's own front only)."""


class Leave(ClientMessage, tag="leave"):
    pass


class AddBot(ClientMessage, tag="add_bot"):
    bot: str | None = None


class Remove(ClientMessage, tag="remove"):
    """The creator, before the deal: seat ``seat`` frees up (a bot, or a player sent back to the lobby)."""

    seat: int


class Start(ClientMessage, tag="start"):
    pass


class Act(ClientMessage, tag="action"):
    action: str
    state_id: int


class PlayAgain(ClientMessage, tag="play_again"):
    pass


class Chat(ClientMessage, tag="chat"):
    text: str


class StandIn(ClientMessage, tag="stand_in"):
    """The creator: a bot plays for this away player until they come back."""

    seat: int


class Coach(ClientMessage, tag="coach"):
    """What the hard bot would play for you (tables that allow it)."""

    state_id: int


class Ping(ClientMessage, tag="ping"):
    pass


class Bye(ClientMessage, tag="bye"):
    pass


class History(ClientMessage, tag="history"):
    """A page of the host's finished games."""

    offset: Annotated[int, msgspec.Meta(le=MAX_ID)] = 0  # (a store's offset is at most 64 bits)
    limit: int = HISTORY_PAGE


class Replay(ClientMessage, tag="replay"):
    game: str


class Stats(ClientMessage, tag="stats"):
    pass


class Leaderboard(ClientMessage, tag="leaderboard"):
    """Players by rating (the host's store)."""


class Daily(ClientMessage, tag="daily"):
    """Play today's daily deal, once (the reply is ``joined``, at a table of your own)."""


class DailyRanking(ClientMessage, tag="daily_ranking"):
    """Today's ranking of the daily deal (and the asker's place, if they finished it)."""


CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {kind_of(cls): cls for cls in ClientMessage.__subclasses__()}
SIT = (CreateTable, Join, Spectate, Resume, ResumeKey, Daily)  # the requests that seat (or place) a client at a table
LOBBY_READS = (History, Replay, Stats, Leaderboard, DailyRanking)  # the host's store, read: counted like list_tables


class _Envelope(msgspec.Struct):
    """What every message has: its type, and maybe an id."""

    type: str
    id: RequestId | None = None


def decode_client(message: object) -> ClientMessage:
    """The Struct of a decoded client frame, or ``ProtocolError`` saying exactly what is wrong."""
    if not isinstance(message, dict):
        raise ProtocolError(errors.BAD_FIELD, "a message is a map with a 'type' key")
    try:
        kind = msgspec.convert(message, _Envelope, strict=True).type
    except msgspec.ValidationError as error:
        raise ProtocolError(errors.BAD_FIELD, f"'type' is a string and 'id' an integer 0..{MAX_ID}: {error}") from None
    cls = CLIENT_MESSAGES.get(kind)
    if cls is None:
        raise ProtocolError(errors.UNKNOWN_TYPE, f"unknown message type {kind[:32]!r}")
    try:
        return msgspec.convert(message, cls, strict=True)
    except msgspec.ValidationError as error:
        raise ProtocolError(errors.BAD_FIELD, f"'{kind}': {error}") from None


def request_id_of(message: object) -> int | None:
    """The id of a frame that may not decode: what its error answers (``re``), if it is a valid id (an int
    0..``MAX_ID``); an invalid one is never echoed."""
    request_id = message.get("id") if isinstance(message, dict) else None
    valid = isinstance(request_id, int) and not isinstance(request_id, bool) and 0 <= request_id <= MAX_ID
    return request_id if valid else None


def encode_message(message: ClientMessage) -> bytes:
    """One client frame (its ``type`` first, then the fields not left at their default)."""
    return msgspec.msgpack.encode(message)


def with_id(message: ClientMessage, request_id: int | None) -> ClientMessage:
    return msgspec.structs.replace(message, id=request_id)


def features_of(value: object) -> frozenset[str]:
    """The feature names a ``hello`` lists (its ``features``): strings only, anything else left out."""
    return frozenset(item for item in value if isinstance(item, str)) if isinstance(value, list) else frozenset()
