"""Tooling next to the tests, never installed (``pip install .`` takes only nothanks_tui and nothanks_server):
the scripted SSH players and their crowds (``tools.loadgen``), the host's chaos run (``tools.chaos``), the bots'
benchmark settings and pooling (``tools.ismcts_levels``, ``tools.pooling``). Tests and scripts/ import it from the
repository root (scripts put the root on ``sys.path``); it imports the packages, never tests/.
"""
