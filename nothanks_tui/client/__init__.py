"""The Textual client: one app for every way of playing, talking to a table through a ``TableConnection``."""
