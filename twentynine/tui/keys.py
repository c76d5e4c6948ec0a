"""The keys of the terminal app and the help that lists them for the rules in play.

A key is listed only if the rules can ever use it (no V without the seventh
card, no R without reveal on request, no double without doubling); the
footer narrows this further to what may be pressed at this moment.
"""

from __future__ import annotations

from ..game.rules import Rules

FLAG_KEYS = {"single": "a", "double": "d", "redouble": "r", "set": "s", "pair": "k"}
FLAG_LABELS = {
    "single": "play alone",
    "double": "double",
    "redouble": "redouble",
    "set": "set",
    "pair": "show the pair",
}
TRUMP_KEYS = "shdc"


def flags_of(rules: Rules) -> list[str]:
    """The yes/no questions these rules may ask, in the order of a deal."""
    out = []
    if rules.single_hand:
        out.append("single")
    if rules.doubling:
        out += ["double", "redouble"]
    if rules.allow_set:
        out.append("set")
    if rules.pair != "off":
        out.append("pair")
    return out


def help_keys(rules: Rules) -> str:
    """The keys section of the help (Rich markup), for ``rules``."""
    rows = [
        "[b]Keys[/b]",
        "  [b]1-8[/b]        pick the n-th playable card (numbered above the hand)",
        "  [b]← →[/b]        move the pick          [b]Enter[/b]  play the picked card",
        "  [b]Esc[/b]        put the picked card back",
        "  [b]↑ ↓ + −[/b]    change the bid; or type it (1 then 7)",
        "  [b]B[/b] bid  [b]P[/b] pass  [b]Enter[/b] bids the value shown",
    ]
    trumps = "  [b]S H D C[/b]    choose trumps"
    if rules.seventh_card:
        trumps += "         [b]V[/b]  the seventh card"
    rows.append(trumps)
    flags = flags_of(rules)
    if flags:
        named = ", ".join(f"{FLAG_LABELS[f]} ({FLAG_KEYS[f].upper()})" for f in flags)
        rows.append(f"  [b]Y[/b]          yes: {named}")
        rows.append("  [b]P[/b] or [b]N[/b]     no")
    if rules.reveal == "ask":
        rows.append(
            "  [b]R[/b]          ask for trumps (when you cannot follow and they are hidden)"
        )
    rows += [
        "  [b]N[/b] / Enter  next deal when a deal is over",
        "  [b]L[/b]          the whole log of the game",
        "  [b]I[/b]          a hint: the expert's choice and why (single deals against bots)",
        "  [b]T[/b]          the chance of each bid with your four cards (auction)",
        "  [b]A[/b]          after a deal: its turning points and what your cards cost",
        "  [b]?[/b]          this help            [b]Q[/b]  quit (asks first during a match)",
    ]
    return "\n".join(rows)
