"""``python -m nothanks_tui`` runs the ``nothanks`` command."""

from .cli import main

raise SystemExit(main())
