"""Card-by-card analysis of finished deals, and the valuations behind it.

- ``analyse_record(text, deal=None)`` / ``analyse_deal(deal)``: every action of a
  finished deal valued with every hand known (exact solver) and from the acting
  seat's view (the expert bot's sampling), with the deal's turning points, the
  auction's prospects and the par (see ``docs/analysis.md``).
- ``value_choices(obs)``: every legal choice of one decision from a seat's
  observation alone (for a hint at the table).
- ``bidding_table(obs)``: for a seat's first four cards, the chance to make each
  bid with each trump (for a bidding advisor).
- ``hint_for(obs)`` / ``advice_for(obs)``: the hint at the table and the bidding
  advisor, from the same two.
"""

from .allhands import AllHands, DDChoice, DDDecision
from .auction import bidding_table
from .choices import ChoiceValue, SeatView
from .deal import (
    ALL_HANDS,
    FORMAT,
    SEAT_VIEW,
    ActionAnalysis,
    AnalysisError,
    DealAnalysis,
    RecordAnalysis,
    analyse_deal,
    analyse_record,
)
from .hint import Hint, HintError, advice_for, hint_for, hint_line
from .seatview import DEFAULT_WORLDS, value_choices

__all__ = [
    "ALL_HANDS",
    "DEFAULT_WORLDS",
    "FORMAT",
    "SEAT_VIEW",
    "ActionAnalysis",
    "AllHands",
    "AnalysisError",
    "ChoiceValue",
    "DDChoice",
    "DDDecision",
    "DealAnalysis",
    "Hint",
    "HintError",
    "RecordAnalysis",
    "SeatView",
    "advice_for",
    "analyse_deal",
    "analyse_record",
    "bidding_table",
    "hint_for",
    "hint_line",
    "value_choices",
]
