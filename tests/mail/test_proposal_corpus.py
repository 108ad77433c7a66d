"""Real adopted proposals of an email Nomic, fed to the parser as their authors wrote them.

The corpus (``tests/mail/corpus/proposals/``, described in its README) holds proposals
adopted by Agora Nomic, copied from the Assessor's public reports. Each is put inside a
PROPOSE block, as a player would send it, and read by :func:`parse_commands`. Issue 13
asks that none be refused for its wording: a proposal whose changes match none of the
natural forms is taken as informal text for the host, never rejected.

Run ``.venv/bin/python -m tests.mail.test_proposal_corpus`` to print how many proposals
there are, how many are refused, how many are understood as rule changes and how many
are informal.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from speakerbot.mail.inbound import language as lang

CORPUS = Path(__file__).parent / "corpus" / "proposals"
INDEX = CORPUS / "index.tsv"


@dataclass(frozen=True)
class Entry:
    """One proposal of the corpus: its file, title and text."""

    file: str
    title: str
    text: str


def corpus() -> list[Entry]:
    """Return every proposal listed in the index, in the index's order."""
    with INDEX.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [
        Entry(row["file"], row["title"], (CORPUS / row["file"]).read_text(encoding="utf-8"))
        for row in rows
    ]


def message(entry: Entry) -> str:
    """Return the body a player would send to propose ``entry``."""
    return f"PROPOSE {entry.title}\n{entry.text.rstrip()}\nEND PROPOSE\n"


def verdict(entry: Entry) -> str:
    """Say how the parser took one proposal: ``refused``, ``clauses`` or ``informal``."""
    result = lang.parse_commands("", message(entry))
    proposals = [c for c in result.commands if isinstance(c, lang.Propose)]
    if result.errors or len(proposals) != 1:
        return "refused"
    return "clauses" if proposals[0].clauses else "informal"


def summary() -> dict[str, int]:
    """Count the corpus's proposals by how the parser took them."""
    counts = {"proposals": 0, "refused": 0, "clauses": 0, "informal": 0}
    for entry in corpus():
        counts["proposals"] += 1
        counts[verdict(entry)] += 1
    return counts


def print_summary() -> None:
    """Print the figures the issue's report quotes (see the module docstring)."""
    counts = summary()
    total = counts["proposals"]
    print(f"proposals: {total}")
    for key, label in (
        ("refused", "refused"),
        ("clauses", "understood as rule changes (clauses)"),
        ("informal", "informal (carried out by the host)"),
    ):
        share = 100 * counts[key] / total if total else 0.0
        print(f"{label}: {counts[key]} ({share:.0f}%)")


def test_index_lists_every_file_once() -> None:
    """Every proposal file is in the index (which cites its source), and no other file."""
    listed = [entry.file for entry in corpus()]
    present = sorted(path.name for path in CORPUS.glob("*.txt"))
    assert len(listed) == len(set(listed))
    assert sorted(listed) == present
    assert len(listed) >= 100


def test_parse_never_raises() -> None:
    """Whatever a real proposal says, the parser answers with commands or errors."""
    for entry in corpus():
        result = lang.parse_commands("", message(entry))
        assert result.commands or result.errors, entry.file


def test_none_refused_for_wording() -> None:
    """No adopted proposal is refused: each is understood, or taken as informal."""
    refused = [entry.file for entry in corpus() if verdict(entry) == "refused"]
    assert refused == []


if __name__ == "__main__":
    print_summary()
