"""A readable, trick-by-trick account of a replayed game."""

from __future__ import annotations

from .cards import SUIT_NAMES, SUITS, card_symbol, format_cards, sort_hand
from .engine import MULTIPLIER, Deal
from .match import Match

SEAT_NAMES = ("South", "West", "North", "East")
TEAM_NAMES = ("North-South", "East-West")


def seat_name(seat: int) -> str:
    return SEAT_NAMES[seat]


def describe_deal(deal: Deal, number: int) -> list[str]:
    lines = [f"Deal {number + 1}: {seat_name(deal.dealer)} deals ({deal.rules.direction})."]
    for s in range(4):
        first = format_cards(sort_hand(deal.hands[s][:4]), symbols=True)
        second = format_cards(sort_hand(deal.hands[s][4:]), symbols=True)
        lines.append(f"  {seat_name(s):<6} {first}  |  {second}")
    if deal.auction:
        calls = ", ".join(f"{seat_name(s)} {b if b else 'pass'}" for s, b in deal.auction)
        lines.append(f"  Auction: {calls}.")
    if deal.bidder < 0:
        if deal.phase == "over":
            lines.append("  Everyone passed: the deal is void and passes on.")
        return lines
    forced = " (forced)" if deal.forced else ""
    lines.append(f"  {seat_name(deal.bidder)} is the bidder at {deal.bid}{forced}.")
    if deal.trump >= 0:
        how = "calls the seventh card" if deal.seventh else "chooses trumps"
        lines.append(f"  {seat_name(deal.bidder)} {how}: {SUIT_NAMES[deal.trump]} (secret).")
    if deal.single >= 0:
        lines.append(f"  {seat_name(deal.single)} plays a single hand and must win every trick.")
    if deal.doubling:
        who = seat_name(deal.doubler)
        lines.append(f"  {who} doubles; stake x{MULTIPLIER[deal.doubling]} ({deal.doubling}).")
    for i, (_leader, cards, seats, winner, pts) in enumerate(deal.tricks, start=1):
        played = ", ".join(
            f"{seat_name(s)} {card_symbol(c)}" for s, c in zip(seats, cards, strict=True)
        )
        note = ""
        if deal.revealed_in_trick == i:
            how = "asks for the reveal" if deal.rules.reveal == "ask" else "cannot follow"
            suit = SUIT_NAMES[deal.trump]
            note = f" [{seat_name(deal.revealer)} {how}: trumps are {suit}]"
        lines.append(f"  Trick {i}: {played} -> {seat_name(winner)} wins {pts}.{note}")
        if deal.pair_seat >= 0 and deal.pair_trick == i:
            lines.append(
                f"    {seat_name(deal.pair_seat)} shows the pair (K Q of "
                f"{SUITS[deal.trump]}): target now {deal.target}."
            )
    if deal.trick_cards:
        played = ", ".join(
            f"{seat_name(s)} {card_symbol(c)}"
            for s, c in zip(deal.trick_seats, deal.trick_cards, strict=True)
        )
        lines.append(f"  Trick {len(deal.tricks) + 1} so far: {played}.")
    team = deal.bidder & 1
    if deal.phase != "over":
        lines.append(
            f"  In progress: {TEAM_NAMES[0]} {deal.points[0]}, {TEAM_NAMES[1]} {deal.points[1]}."
        )
        return lines
    if deal.single >= 0:
        outcome = "made" if deal.result == "single-made" else "lost"
        lines.append(
            f"  Single hand {outcome} after {len(deal.tricks)} tricks: "
            f"{TEAM_NAMES[deal.single & 1]} {deal.delta[deal.single & 1]:+d}."
        )
        return lines
    taken = deal.points[team]
    lines.append(
        f"  Points: {TEAM_NAMES[0]} {deal.points[0]}, {TEAM_NAMES[1]} {deal.points[1]} "
        f"after {len(deal.tricks)} tricks."
    )
    if deal.result == "cancelled":
        lines.append("  Trumps were never revealed: the deal is cancelled, nobody scores.")
    else:
        verb = "makes" if deal.result == "made" else "fails"
        lines.append(
            f"  {TEAM_NAMES[team]} needed {deal.target}, took {taken}: {verb}; "
            f"stake {deal.stake}, {TEAM_NAMES[team]} {deal.delta[team]:+d}."
        )
    return lines


def describe_match(match: Match) -> str:
    lines: list[str] = []
    score = [0, 0]
    for i, deal in enumerate(match.deals):
        lines.extend(describe_deal(deal, i))
        score[0] += deal.delta[0]
        score[1] += deal.delta[1]
        lines.append(f"  Score: {TEAM_NAMES[0]} {score[0]:+d}, {TEAM_NAMES[1]} {score[1]:+d}.")
        lines.append("")
    if match.winner is not None:
        lines.append(f"{TEAM_NAMES[match.winner]} win the match.")
    return "\n".join(lines).rstrip() + "\n"
