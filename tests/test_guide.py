"""The guided first game's prepared deal: legal through the engine, every rule shown once.

The page walks ``static/guide.json``; these tests prove the file is what the
engine makes of the script, and that the script really shows what the guide
says it shows.
"""

from __future__ import annotations

import json

from twentynine.game.cards import parse_card, points_of
from twentynine.web.guide import PATH, guide_steps, guide_text


def steps() -> list[dict]:
    return guide_steps()["steps"]


def test_the_page_file_is_what_the_engine_makes_of_the_script() -> None:
    assert PATH.read_text(encoding="utf-8") == guide_text()
    assert json.loads(PATH.read_text(encoding="utf-8"))["format"] == "29-guide/1"


def test_every_newcomer_move_is_among_the_legal_moves_and_the_deal_is_made() -> None:
    moves = [s for s in steps() if "do" in s]
    assert moves and all(s["do"] in s["legal"] for s in moves)
    assert steps()[-1]["result"] == "made" and steps()[-1]["end"]
    assert sum(steps()[-1]["view"]["points"]) == 28


def test_following_suit_is_forced_with_a_choice_left() -> None:
    follow = next(s for s in steps() if s["say"] == "guide.follow")
    suit = follow["view"]["trick"][0][1][1]
    legal = [m["play"] for m in follow["legal"]]
    assert len(legal) >= 2 and all(c[1] == suit for c in legal)
    assert len(follow["view"]["hand"]) > len(legal)  # some cards are refused


def test_the_trump_is_hidden_until_the_newcomer_cannot_follow() -> None:
    before = [s for s in steps() if s["say"] in ("guide.lead_jack", "guide.follow")]
    assert all(not s["view"]["revealed"] for s in before)
    reveal = next(s for s in steps() if s["say"] == "guide.reveal")
    led = reveal["view"]["trick"][0][1][1]
    assert reveal["view"]["revealed"] and all(c[1] != led for c in reveal["view"]["hand"])
    won = next(s for s in steps() if s["say"] == "guide.trick_trump")
    assert won["view"]["winner"] == 0  # the jack of trumps took the trick


def test_the_jack_wins_and_the_pair_lowers_the_target_by_four() -> None:
    jack = next(s for s in steps() if s["say"] == "guide.trick_jack")
    cards = [c for _, c in jack["view"]["trick"]]
    assert jack["view"]["winner"] == 0 and "AS" in cards and "TS" in cards
    assert jack["view"]["points"][0] == sum(points_of(parse_card(c)) for c in cards) == 5
    pair = next(s for s in steps() if s["say"] == "guide.pair")
    after = steps()[steps().index(pair) + 1]
    assert pair["do"] == {"pair": True}
    assert pair["view"]["target"] == 19 and after["view"]["target"] == 15
    nine = next(s for s in steps() if s["say"] == "guide.trick_nine")
    assert nine["view"]["winner"] == 0 and [1, "AH"] in nine["view"]["trick"]  # 9 beats A
