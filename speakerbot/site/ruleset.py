"""The ruleset page's rules, each rule's part kept while it reads the same.

The ruleset (``rules/index.html``) is made again after every event, since it marks the
rules changed in the 14 days before the record's last moment, and it holds every rule.
``KeptRuleset`` keeps each rule's part (its entry in the list to jump to, and its section,
made by ``_ruleset.html``) and makes again only those of the rules an event touched and of
those whose mark runs out; the parts stay in the ruleset's order, so that the page is a
join of kept strings. Pure: no files.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup

from speakerbot.site.archive import OWN_FILES, GameArchive, RuleRecord

__all__ = ["KeptRuleset", "RulePart"]


@dataclass(frozen=True)
class RulePart:
    """A rule's part of the ruleset as made, and what it was made from."""

    rule: RuleRecord  # held, so that its id names no other rule while the part is kept
    steps: int
    changed: datetime | None  # the change it is marked for, while recent
    jump: str
    section: str


@dataclass
class KeptRuleset:
    """The parts of a game's ruleset as last made, in its order, and their marks.

    ``macros``: the module of ``_ruleset.html`` (``jump`` and ``section``).
    """

    macros: Any
    parts: dict[int, RulePart] = field(default_factory=dict)  # by id(rule)
    marked: list[tuple[datetime, int]] = field(default_factory=list)  # a heap
    places: dict[int, int] = field(default_factory=dict)  # a rule's number: its place
    jumps: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    laid: bool = False  # the ruleset has been laid out once

    def show(self, game: GameArchive, touched: Iterable[RuleRecord],
             recent: datetime) -> tuple[Markup, Markup]:
        """Return the ruleset's list to jump to and its rules, ``touched`` made again.

        ``recent``: a rule changed since is marked. The first time, every rule is made.
        """
        again = list(touched) if self.laid else list(game.rules.values())
        while self.marked and self.marked[0][0] < recent:
            part = self.parts.get(heapq.heappop(self.marked)[1])
            if part is not None:
                again.append(part.rule)  # its mark runs out
        made: dict[int, RulePart] = {}
        moved = not self.laid
        for rule in again:
            if game.rules.get(rule.number) is not rule:  # repealed, or renumbered since
                self.parts.pop(id(rule), None)
                moved = True
                continue
            self.parts[id(rule)] = made[rule.number] = part = self.make(rule, recent)
            if part.changed is not None:
                heapq.heappush(self.marked, (part.changed, id(rule)))
        if moved or not self._patch(made, len(game.rules)):
            self._order(list(game.rules.values()), recent)
        self.laid = True
        return Markup("".join(self.jumps)), Markup("".join(self.sections))

    def make(self, rule: RuleRecord, recent: datetime) -> RulePart:
        """Make a rule's part of the ruleset as it stands."""
        root, last = "../" * OWN_FILES["rules"].count("/"), rule.history[-1]
        changed = last.at if last.kind not in ("initial", "imported") and (
            last.at >= recent) else None
        return RulePart(rule, len(rule.history), changed,
                        str(self.macros.jump(rule, changed, root)),
                        str(self.macros.section(rule, changed, root)))

    def _patch(self, made: Mapping[int, RulePart], count: int) -> bool:
        """Put the parts ``made`` (by number) in place; False if the ruleset's order moved.

        A rule keeps its place while its number does; rules of numbers above every other
        join the end. ``count``: how many rules the ruleset holds now.
        """
        new = sorted(number for number in made if number not in self.places)
        if new and self.places and new[0] < next(reversed(self.places)):
            return False
        if len(self.places) + len(new) != count:
            return False
        for number, part in made.items():
            if number in self.places:
                place = self.places[number]
                self.jumps[place], self.sections[place] = part.jump, part.section
        for number in new:
            self.places[number] = len(self.jumps)
            self.jumps.append(made[number].jump)
            self.sections.append(made[number].section)
        return True

    def _order(self, rules: list[RuleRecord], recent: datetime) -> None:
        """Lay the ruleset out afresh from ``rules`` (in order), making any part missing."""
        parts = []
        for rule in rules:
            part = self.parts.get(id(rule))
            # Every change of a rule's number, title or text is a step of its history.
            if part is None or part.steps != len(rule.history):
                self.parts[id(rule)] = part = self.make(rule, recent)
            parts.append(part)
        self.places = {rule.number: place for place, rule in enumerate(rules)}
        self.jumps = [part.jump for part in parts]
        self.sections = [part.section for part in parts]
