"""Widgets that draw a table update; no game logic."""
