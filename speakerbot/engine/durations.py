"""Durations as players and config files write them: ``7d``, ``36h``, ``90m``, ``1d12h``."""

from __future__ import annotations

import re
from datetime import timedelta

_PART = re.compile(r"(\d{1,6})([wdhms])")
_UNITS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
_ORDER = "wdhms"


def parse_duration(text: str) -> timedelta:
    """Parse a duration such as ``7d``, ``36h`` or ``1d12h``.

    Units are w, d, h, m and s, each at most once and largest first; case and
    surrounding spaces do not matter. Raises ValueError with a message a player
    can act on.
    """
    compact = text.strip().lower().replace(" ", "")
    if not compact:
        raise ValueError("empty duration; write it like 7d, 36h, 90m, 45s or 1d12h")
    position = 0
    seconds = 0
    last_unit = -1
    for match in _PART.finditer(compact):
        unit_rank = _ORDER.index(match.group(2))
        if match.start() != position or unit_rank <= last_unit:
            break
        seconds += int(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
        last_unit = unit_rank
    if position != len(compact):
        raise ValueError(
            f"cannot read {text.strip()!r} as a duration; write it like 7d, 36h, 90m, 45s or 1d12h"
        )
    return timedelta(seconds=seconds)


def format_duration(value: timedelta) -> str:
    """Write a duration in the same notation parse_duration reads (``1d12h``; ``0s`` for zero)."""
    seconds = int(value.total_seconds())
    if seconds < 0:
        raise ValueError("negative duration")
    parts = []
    for unit in "dhms":
        amount, seconds = divmod(seconds, _UNITS[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts) or "0s"
