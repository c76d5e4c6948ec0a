"""What a person may be called at the table: one rule for every name a client sends.

A name is shown to every player and spectator, kept in the store and sent in
every snapshot of a room, so it must be text that any device can encode and
show the same way: Unicode in its composed form (NFC, so that "é" typed two
ways is one name), runs of spaces collapsed, at most ``MAX_NAME``
characters, and nothing invisible that could change how the rest of a
screen reads (control characters, bidirectional overrides, private-use or
non-characters, lone surrogates). Joiners and tag characters stay: emoji
sequences and flags are made of them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_NAME = 24

# format characters (category Cf) a name may hold: the joiners of emoji sequences and
# scripts like Devanagari, and the tag characters of subdivision flags
_JOINERS = {"\u200c", "\u200d"}
_TAGS = range(0xE0020, 0xE0080)
# categories never allowed: controls, surrogates, private use, line and paragraph separators
_REFUSED = {"Cc", "Cs", "Co", "Zl", "Zp"}


class BadName(ValueError):
    """A name that cannot be kept; the message says which character is the trouble."""


def _is_noncharacter(code: int) -> bool:
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


def refused_character(text: str) -> str | None:
    """The first character of ``text`` a name may not hold, described for people."""
    if text.isascii():
        for ch in text:
            if not " " <= ch <= "~":
                return f"the control character U+{ord(ch):04X}"
        return None
    for ch in text:
        code = ord(ch)
        category = unicodedata.category(ch)
        if category == "Cs":
            return f"a lone surrogate (U+{code:04X}): the text is not valid Unicode"
        if category in _REFUSED:
            return f"the invisible character U+{code:04X}"
        if category == "Cf" and ch not in _JOINERS and code not in _TAGS:
            return f"the invisible formatting character U+{code:04X}"
        if category == "Cn" and _is_noncharacter(code):
            return f"the non-character U+{code:04X}"
    return None


def read_name(raw: Any, limit: int = MAX_NAME) -> str | None:
    """A name as a client typed it, made canonical; None if it is empty.

    Raises ``BadName`` (saying why) for anything but text, or for text with a
    character no name may hold. A long name is cut to ``limit`` characters,
    as the page's own field does.
    """
    if not isinstance(raw, str):
        raise BadName("a name must be text")
    if not raw.isascii():
        bad = _lone_surrogate(raw)
        if bad is not None:  # before NFC, which cannot read such text
            raise BadName(f"a name may not contain {bad}")
        raw = unicodedata.normalize("NFC", raw)
    text = " ".join(raw.split())
    bad = refused_character(text)
    if bad is not None:
        raise BadName(f"a name may not contain {bad}")
    return text[:limit].rstrip() or None


def _lone_surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        code = ord(text[e.start])
        return f"a lone surrogate (U+{code:04X}): the text is not valid Unicode"
    return None


__all__ = ["MAX_NAME", "BadName", "read_name", "refused_character"]
