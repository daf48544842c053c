"""nothanks: the card game No Thanks! played in the terminal, alone against bots or together over the network."""

__version__ = "0.1.0"
