"""The host's refusal of a lobby, seat or protocol request: an engine ``IllegalMove``, so that a transport answers
every refusal in one place, with its stable ``code`` (``nothanks_tui.link.errors``) and a readable message."""

from nothanks_tui.engine import IllegalMove


class HostError(IllegalMove):
    """A request the host refuses; ``code`` is one of ``link.errors.HOST_CODES``."""
