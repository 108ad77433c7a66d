"""The host's hand work as mail says it: each open item, and the commands that finish it.

Shared by the Speaker's notice at a vote's close, STATUS by mail and ``speakerbot
handwork``, so that an item is said the same way wherever the host reads it.
"""

from __future__ import annotations

from collections.abc import Sequence

from speakerbot.engine.model import GameState, HandItem
from speakerbot.mail.outbound.compose import format_time


def finishing_line(item: int, proposal: int, words: str, rules: Sequence[int], *,
                   via: str = "ADMIN") -> str:
    """Say one open item and what closes it: ADMIN RULE of a rule it names, or ADMIN DONE.

    ``via``: how the host's commands begin (``speakerbot admin`` where ADMIN by mail is off).
    """
    edit = (f"{via} RULE <clause> of rule {_listed(rules)}, or " if rules else "")
    return (f"Item {item} (proposal {proposal}): “{words}” (to finish it: {edit}"
            f"{via} DONE {item} <reason>)")


def open_items(state: GameState) -> list[HandItem]:
    """Return the open items of the hand work, by number."""
    return [state.handwork[number] for number in sorted(state.handwork)]


def status_lines(state: GameState) -> list[str]:
    """Say each open item for STATUS and ``speakerbot handwork``: its words, since when."""
    return [f"{item.item}. proposal {item.proposal}, since {format_time(item.since)}: "
            f"“{item.words}”" + (f" (rule {_listed(item.rules)})" if item.rules else "")
            for item in open_items(state)]


def item_json(item: HandItem) -> dict[str, object]:
    """Return an open item as ``status --json`` and ``handwork --json`` write it."""
    return {"item": item.item, "proposal": item.proposal, "words": item.words,
            "rules": list(item.rules), "since": item.since.isoformat()}


def _listed(rules: Sequence[int]) -> str:
    numbers = [str(rule) for rule in rules]
    return numbers[0] if len(numbers) == 1 else ", ".join(numbers[:-1]) + " or " + numbers[-1]
