"""The Smart Bots contest's HTTP protocol (BHOOS.md): our bots served, and its bots seated.

``notation`` maps cards, suits and rules; ``observation`` rebuilds a deal
from a request; ``server`` answers requests with our bots; ``requests`` and
``adapter`` ask a contest bot for its move at our tables.
"""
