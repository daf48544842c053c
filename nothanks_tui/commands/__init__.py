"""Subcommands of ``nothanks`` that live in their own modules: each has ``add_parser(sub)`` and ``run(args)``."""
