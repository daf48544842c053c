"""A host among others: the parts that share state through Redis (issue 19, docs/scaling.md).

``nothanks server`` alone needs none of this and never imports it: ``redis`` is imported only when a Redis URL
is given (``directory.connect``). What is here now: the directory (directory.py: which table hosts are alive,
which tables each holds, and leases with epochs for a table's owner), a host's presence in it (``Presence``), and
the fenced move log (movelog.py: a game's moves, written only by the table's current lease holder).
"""
