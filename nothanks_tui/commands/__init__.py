"""The subcommands of ``nothanks``, a module for each group (``cli.COMMANDS`` names their runners), and their exit."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App


def run_app(app: App[Any]) -> int:
    """Run ``app`` in this terminal; its exit code."""
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)


def failed(command: str, message: str, code: int = 1) -> int:
    """Say why ``nothanks COMMAND`` stops, on stderr; returns ``code``, its exit status (2: the options are wrong)."""
    print(f"nothanks {command}: {message}", file=sys.stderr)
    return code
