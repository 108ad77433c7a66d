"""The replay's test data: Agora's adopted proposals with their rules before and after.

``data/agora-replay-dev.jsonl.gz`` (its README cites the sources and gives the format) is
read into typed records: each rule text is a :class:`Version`; each proposal an
:class:`AgoraProposal` with the ruleset it took effect on and the :class:`RecordedChange`
entries the ruleset's history shows for it. Nothing here knows speakerbot.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "agora-replay-dev.jsonl.gz"

LEFT_ASIDE_TYPES = frozenset({"power-change"})
"""Kinds of change a fair comparison leaves aside: a rule's power is Agora's own mechanic."""


@dataclass(frozen=True)
class Version:
    """One text of one rule: its key ``v``, the rule's number, title and text."""

    v: int
    rule: int
    title: str
    text: str
    in_effect: bool


@dataclass(frozen=True)
class RecordedChange:
    """One rule a proposal changed, as the ruleset's history records it.

    ``before`` and ``after`` are version keys (``before`` is None for an enactment);
    ``after_commit`` is the text as it settled before the rule's next recorded change.
    """

    rule: int
    types: tuple[str, ...]
    before: int | None
    after: int
    after_commit: int
    batched: tuple[str, ...]
    reverted: bool

    @property
    def counted(self) -> bool:
        """Whether the replay counts it: not batched, not reverted, not a power alone."""
        return not self.batched and not self.reverted and bool(
            set(self.types) - LEFT_ASIDE_TYPES)

    @property
    def enacts(self) -> bool:
        """Whether it brings a rule into effect (an enactment or a re-enactment)."""
        return any(kind in ("enactment", "reenactment") for kind in self.types)

    @property
    def repeals(self) -> bool:
        """Whether it takes a rule out of effect (and does not bring it in)."""
        return "repeal" in self.types and not self.enacts

    @property
    def retitles(self) -> bool:
        """Whether the record says the rule's title changed."""
        return "retitling" in self.types


@dataclass(frozen=True)
class AgoraProposal:
    """One adopted proposal: its number, title, text, source report, rules and changes."""

    id: str
    title: str
    text: str
    report: str
    ruleset: Mapping[int, int]
    changes: tuple[RecordedChange, ...]

    @property
    def number(self) -> int:
        """Return the proposal's number."""
        return int(self.id)


@dataclass(frozen=True)
class Corpus:
    """Every version by its key, and every proposal in the order of the file."""

    versions: Mapping[int, Version]
    proposals: tuple[AgoraProposal, ...]


def _change(raw: Mapping[str, Any]) -> RecordedChange:
    return RecordedChange(
        rule=int(raw["rule"]), types=tuple(raw["types"]), before=raw["before"],
        after=int(raw["after"]), after_commit=int(raw["after_commit"]),
        batched=tuple(raw["batched"]), reverted=bool(raw["reverted"]))


def _proposal(raw: Mapping[str, Any]) -> AgoraProposal:
    return AgoraProposal(
        id=str(raw["id"]), title=str(raw["title"]), text=str(raw["text"]),
        report=str(raw["report"]),
        ruleset={int(rule): int(v) for rule, v in raw["ruleset"].items()},
        changes=tuple(_change(change) for change in raw["changes"]))


def _version(raw: Mapping[str, Any]) -> Version:
    return Version(v=int(raw["v"]), rule=int(raw["id"]), title=str(raw["name"]),
                   text=str(raw["text"]), in_effect=bool(raw["in_effect"]))


@cache
def load(path: Path = DATA) -> Corpus:
    """Read the gzipped JSON lines at ``path`` (read once, then kept)."""
    versions: dict[int, Version] = {}
    proposals: list[AgoraProposal] = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            raw = json.loads(line)
            if raw["kind"] == "version":
                version = _version(raw)
                versions[version.v] = version
            elif raw["kind"] == "proposal":
                proposals.append(_proposal(raw))
    return Corpus(versions, tuple(proposals))
