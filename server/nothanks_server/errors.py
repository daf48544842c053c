"""The host's refusal: one exception for lobby, seat and protocol requests, beside the engine's ``IllegalMove``.

``HostError`` subclasses the engine's ``IllegalMove`` so a transport answers every refusal in one place, with
one stable ``code`` (from the registry, ``nothanks_tui.link.errors``) and a readable message.
"""

from __future__ import annotations

from nothanks_tui.engine import IllegalMove


class HostError(IllegalMove):
    """A lobby, seat or protocol request the host refuses; ``code`` is one of ``link.errors.HOST_CODES``."""
