"""The client's screens: start, table, score, help, quit confirmation."""
