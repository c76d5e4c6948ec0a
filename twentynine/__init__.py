"""twentynine: the card game 29, its rules engine, bots and ways to play."""

from .actions import Action, ActionError
from .cards import CardError, card_text, parse_card
from .engine import Deal, IllegalAction, Match
from .observation import Observation, event_view, observe
from .rules import PROFILES, Rules, RulesError, resolve

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "Action",
    "ActionError",
    "CardError",
    "Deal",
    "IllegalAction",
    "Match",
    "Observation",
    "Rules",
    "RulesError",
    "__version__",
    "card_text",
    "event_view",
    "observe",
    "parse_card",
    "resolve",
]
