"""Test and benchmark tooling, not part of a running host: scripted SSH players with a terminal screen
(``TerminalClient``: pyte, or the cheap ``FastScreen``), the visitors that scripts/bench_ssh.py sends in crowds, and
``ProbeApp``, a small app standing in for the game. tests/ssh and scripts/bench_ssh.py both import them from here
(scripts never import tests, tests never load scripts). pyte comes with the ``test`` extra.
"""
