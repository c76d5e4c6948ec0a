"""A cheap stand-in for a contract's solved result, to steady the mean of a few solves.

A contract decision (``contract.ContractJudge``) averages the solved result of
a contract (+1 made, -1 failed) over about 40 sampled deals. Each solve is
exact but the mean is noisy: its standard error (about 0.17 game points) is
larger than the margin a bid is held to. ``proxy`` scores a whole deal for a
contract from counts of its cards: the bidding side's trumps and their
points, its jacks, nines and aces, the longest trump holding of an opponent.
It takes microseconds, so it can be averaged over hundreds of extra deals
for the price of none solved; the judge then adds to that mean the solved
deals' mean *difference* from the proxy (a control variate). The estimate
stays unbiased whatever the proxy's errors, and is steadier by the share of
the solved results' spread the proxy explains within one decision.

The coefficients are a least-squares fit within decisions (each decision's
mean taken out) of the solved worlds (60 each) of half of 738 bid decisions
of the expert in a pagat arena run against ``strong`` (seed 2120), by a
one-off script; on the other half, held out, the proxy explained 48% of the
solved results' spread within a decision. The knob that uses it
(``expert[control_worlds=N]``) is off: it has not been shown to help
(docs/bots.md, *The contract judge against the true deal*).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import mask_points

_SUIT = 0xFF
_JACK, _NINE, _ACE = 7, 6, 5
_JACKS = sum(1 << (8 * s + _JACK) for s in range(4))
_NINES = sum(1 << (8 * s + _NINE) for s in range(4))
_ACES = sum(1 << (8 * s + _ACE) for s in range(4))

# per feature of ``features``, in order
COEFFICIENTS = (
    0.184,  # the bidding side's trumps
    0.036,  # their card points
    -0.007,  # the side's card points in all
    0.015,  # the side holds the trump jack
    0.066,  # ... the trump nine
    0.014,  # ... the trump ace
    0.572,  # the side's jacks
    0.110,  # its nines
    0.026,  # its aces
    -0.201,  # the most trumps one opponent holds
    0.069,  # the bidder's own trumps
    0.009,  # the bidder's partner's card points
)


def features(hands: Sequence[int], bidder: int, trump: int) -> tuple[float, ...]:
    """The counts ``proxy`` weighs, for ``bidder``'s contract with ``trump`` in the deal
    ``hands`` (each seat's eight cards as a mask)."""
    suit = _SUIT << (8 * trump)
    side = hands[bidder] | hands[bidder ^ 2]
    trumps = side & suit
    return (
        float(trumps.bit_count()),
        float(mask_points(trumps)),
        float(mask_points(side)),
        float(trumps >> (8 * trump + _JACK) & 1),
        float(trumps >> (8 * trump + _NINE) & 1),
        float(trumps >> (8 * trump + _ACE) & 1),
        float((side & _JACKS).bit_count()),
        float((side & _NINES).bit_count()),
        float((side & _ACES).bit_count()),
        float(max((hands[bidder ^ 1] & suit).bit_count(), (hands[bidder ^ 3] & suit).bit_count())),
        float((hands[bidder] & suit).bit_count()),
        float(mask_points(hands[bidder ^ 2])),
    )


def proxy(hands: Sequence[int], bidder: int, trump: int) -> float:
    """The proxy's score of ``bidder``'s contract with ``trump`` in the deal ``hands``, on
    the scale of a solved result up to a constant (which a control variate ignores)."""
    return sum(c * f for c, f in zip(COEFFICIENTS, features(hands, bidder, trump), strict=True))


__all__ = ["COEFFICIENTS", "features", "proxy"]
