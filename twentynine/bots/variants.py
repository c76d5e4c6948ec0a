"""A bot with some of its knobs turned: ``expert[read_drops=0,exact_from=99]``.

A level names a bot class (``LEVELS``); a *variant* of it is the level with
a few of its class's ``knobs`` set otherwise, written after the level in
brackets. This is how an ablation switches one piece of the expert off and
measures the rest against the whole in the same run (``bench ablation``),
and how anyone can try a setting in the arena without editing the code.
Only the names a class lists in ``knobs`` can be set; a value is read as the
knob's own type (a switch takes 0/1, no/yes, false/true).
"""

from __future__ import annotations

import re
from typing import Any

SPEC = re.compile(r"^(?P<level>[a-z0-9-]+)(?:\[(?P<knobs>[^\[\]]*)\])?$")
TRUE = {"1", "yes", "true", "on"}
FALSE = {"0", "no", "false", "off"}


def parse(spec: str) -> tuple[str, dict[str, str]]:
    """The level and the knobs a spec names (values as written); ``ValueError`` if malformed."""
    m = SPEC.match(spec.strip())
    if m is None:
        raise ValueError(f"cannot read the bot {spec!r}: write a level, or level[knob=value,...]")
    knobs: dict[str, str] = {}
    for part in (m["knobs"] or "").split(","):
        if not part.strip():
            continue
        name, eq, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name or not value:
            raise ValueError(f"bot {spec!r}: {part.strip()!r} is not knob=value")
        if name in knobs:
            raise ValueError(f"bot {spec!r}: {name!r} is set twice")
        knobs[name] = value
    return m["level"], knobs


def with_knob(spec: str, knob: str) -> str:
    """``spec`` with one more ``name=value`` written in: ``expert[a=1]`` + ``b=0``
    gives ``expert[a=1,b=0]`` (``ValueError`` if ``spec`` is malformed)."""
    level, knobs = parse(spec)
    return f"{level}[{','.join([*(f'{k}={v}' for k, v in knobs.items()), knob])}]"


def convert(level: str, name: str, raw: str, current: Any) -> Any:
    """``raw`` read as the type of the knob's value now."""
    if isinstance(current, bool):
        low = raw.lower()
        if low in TRUE:
            return True
        if low in FALSE:
            return False
        raise ValueError(f"{level}: {name} is a switch (0 or 1), not {raw!r}")
    try:
        if isinstance(current, int):
            return int(raw)
        return float(raw)
    except ValueError:
        kind = "a whole number" if isinstance(current, int) else "a number"
        raise ValueError(f"{level}: {name} is {kind}, not {raw!r}") from None


def settings(cls: type, level: str, knobs: dict[str, str]) -> dict[str, Any]:
    """A variant's knobs checked against ``cls`` and converted (``ValueError`` if not its)."""
    allowed: tuple[str, ...] = getattr(cls, "knobs", ())
    out: dict[str, Any] = {}
    for name, raw in knobs.items():
        if name not in allowed:
            listed = ", ".join(allowed) if allowed else "none"
            raise ValueError(f"{level} has no knob {name!r}; its knobs: {listed}")
        out[name] = convert(level, name, raw, getattr(cls, name))
    return out


__all__ = ["parse", "settings", "with_knob"]
