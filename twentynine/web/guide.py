"""The guided first game: one prepared deal that shows every rule once.

The newcomer sits South in a pagat deal whose four hands are fixed here and
whose every move is written down: South bids, is outbid, bids again and
chooses trumps in secret; leads a jack to win against an ace and a ten (rank
order and card points), gives away a low club, must follow a diamond lead,
finds itself void in clubs so that the hidden trump is revealed, wins that
trick with the jack of trumps and, still holding the king and queen of
trumps, declares the pair that lowers the target by 4; then plays out.

``guide_steps()`` plays that script through the real engine (so a move the
rules refuse can never reach the page) and writes, for each step the page
shows, what the table looks like then, the catalog key of its one sentence,
and, when it is the newcomer's turn, the move the guide asks for together with
every legal move (the page explains a refused move by which of the two it
misses). The page (``static/js/guide.js``) reads the result from
``static/guide.json``; ``tests/test_guide.py`` checks that the file is what
this module produces, and ``python -m twentynine.web.guide`` rewrites it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..game.actions import BID, PLAY, TRUMP, Action
from ..game.cards import SUITS, card_text, parse_card, parse_suit
from ..game.engine import OVER, Deal
from ..game.observation import observe_deal
from ..game.rules import PROFILES

PATH = Path(__file__).resolve().parent / "static" / "guide.json"
FORMAT = "29-guide/1"
YOU = 0  # South
DEALER = 3  # East deals, so South speaks and leads first

# Each hand: the first batch of four, then the second batch.
HANDS_TEXT = (
    "JH 9H KH QH JS 7C AD 8D",  # South
    "AS JC 9D AC AH 8H 9S KD",  # West
    "7S 8C JD KC 7H KS QS TD",  # North
    "TS 9C 7D QC TH TC 8S QD",  # East
)

# The deal's moves in order: (seat, move, sentence). A sentence on one of
# South's moves is said when South is to make it; a sentence on another seat's
# move is said once that move is on the table, and waits for "Next".
SCRIPT: tuple[tuple[int, str, str | None], ...] = (
    (0, "bid 16", "guide.bid_open"),
    (1, "bid 17", None),
    (2, "pass", None),
    (3, "pass", None),
    (0, "bid 19", "guide.bid_raise"),
    (1, "pass", None),
    (2, "pass", None),
    (3, "pass", None),
    (0, "trump H", "guide.trump"),
    # trick 1: the jack is the highest card
    (0, "play JS", "guide.lead_jack"),
    (1, "play AS", None),
    (2, "play 7S", None),
    (3, "play TS", "guide.trick_jack"),
    # trick 2: a low lead, the other side takes it
    (0, "play 7C", "guide.lead_low"),
    (1, "play JC", None),
    (2, "play 8C", None),
    (3, "play 9C", "guide.trick_lost"),
    # trick 3: follow suit
    (1, "play 9D", None),
    (2, "play JD", None),
    (3, "play 7D", None),
    (0, "play AD", "guide.follow"),
    # trick 4: South cannot follow clubs, the trump is revealed
    (2, "play KC", None),
    (3, "play QC", None),
    (0, "play JH", "guide.reveal"),
    (1, "play AC", "guide.trick_trump"),
    (0, "pair", "guide.pair"),
    # trick 5: the nine of trumps beats the ace
    (0, "play 9H", "guide.lead_nine"),
    (1, "play AH", None),
    (2, "play 7H", None),
    (3, "play TH", "guide.trick_nine"),
    (0, "play KH", "guide.play_on"),
    (1, "play 8H", None),
    (2, "play QS", None),
    (3, "play 8S", None),
    (0, "play QH", "guide.play_on"),
    (1, "play 9S", None),
    (2, "play KS", None),
    (3, "play TC", None),
    (0, "play 8D", "guide.last_card"),
    (1, "play KD", None),
    (2, "play TD", None),
    (3, "play QD", None),
)


def hands() -> list[list[int]]:
    """The four fixed hands, first batch first."""
    return [[parse_card(c) for c in text.split()] for text in HANDS_TEXT]


def parse_move(seat: int, text: str) -> Action:
    """``"bid 16"``, ``"pass"``, ``"trump H"``, ``"play JS"``, ``"pair"`` as an action."""
    word, _, arg = text.partition(" ")
    if word == BID:
        return Action.bid(seat, int(arg))
    if word == TRUMP:
        return Action.trump(seat, parse_suit(arg))
    if word == PLAY:
        return Action.play(seat, parse_card(arg))
    return Action.flag(seat, word)


def move_json(action: Action) -> dict[str, Any]:
    """The action as the page compares it: the record's object without the seat."""
    out = action.to_json()
    out.pop("seat")
    return out


def _view(deal: Deal, finished: bool = False) -> dict[str, Any]:
    """What the page draws, from South's own observation: the hand, the trick on
    the table (with ``finished``, the trick just completed, until "Next"), the
    auction so far and the contract."""
    obs = observe_deal(deal, YOU)
    trick = list(obs.trick)
    winner = None
    if finished and not trick and obs.tricks:
        _, cards, seats, winner, _ = obs.tricks[-1]  # (leader, cards, seats, winner, points)
        trick = list(zip(seats, cards, strict=True))
    return {
        "hand": [card_text(c) for c in obs.hand],
        "trick": [[s, card_text(c)] for s, c in trick],
        "winner": winner,
        "auction": [
            {"seat": s, "bid": b} if b else {"seat": s, "pass": True} for s, b in obs.auction
        ],
        "bidder": obs.bidder,
        "bid": obs.bid,
        "target": obs.target,
        "trump": SUITS[obs.trump] if obs.trump is not None and obs.trump >= 0 else None,
        "revealed": obs.trump_revealed,
        "points": list(obs.points),
    }


def guide_steps() -> dict[str, Any]:
    """Play the script through the engine; the steps the page walks through."""
    rules = PROFILES["pagat"]
    deal = Deal(rules, DEALER, hands())
    steps: list[dict[str, Any]] = [
        {"say": "guide.intro", "view": _view(deal)},
        {"say": "guide.ranks", "view": _view(deal), "ranks": True},
    ]
    for seat, text, say in SCRIPT:
        action = parse_move(seat, text)
        if deal.to_act != seat:
            raise ValueError(f"the script has {seat} move ({text}) but {deal.to_act} is to act")
        if seat == YOU:
            legal = deal.legal_actions()
            if action not in legal:
                raise ValueError(f"the script's move {text} is not legal here")
            steps.append(
                {
                    "say": say,
                    "view": _view(deal),
                    "phase": deal.phase,
                    "do": move_json(action),
                    "legal": [move_json(a) for a in legal],
                }
            )
            deal.apply(action)
        else:
            deal.apply(action)
            if say:
                steps.append({"say": say, "view": _view(deal, finished=True)})
    if deal.phase != OVER:
        raise ValueError("the script stops before the end of the deal")
    steps.append(
        {"say": "guide.end", "view": _view(deal, finished=True), "result": deal.result, "end": True}
    )
    return {
        "format": FORMAT,
        "profile": rules.profile,
        "you": YOU,
        "dealer": DEALER,
        "steps": steps,
    }


def guide_text() -> str:
    """The file ``static/guide.json`` holds: the steps as indented JSON."""
    return json.dumps(guide_steps(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(guide_text(), encoding="utf-8")
    print(f"wrote {PATH}")
