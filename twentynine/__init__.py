"""twentynine: the card game 29, its rules engine, bots and ways to play."""

from .game.actions import Action, ActionError
from .game.cards import CardError, card_text, parse_card
from .game.engine import Deal, IllegalAction
from .game.match import Match
from .game.observation import Observation, event_view, observe
from .game.rules import PROFILES, Rules, RulesError, resolve

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
