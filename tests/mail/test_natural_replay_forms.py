"""Wordings met in the replay of Agora's adopted proposals (issue 38), and the clauses read.

Each case is a form a real proposal used, cut down to a rule of the table's own: the text a
player writes, read inside a PROPOSE block with :data:`TITLES` as the rules in effect, and
the clauses the reader must return (nothing quoted back). Each near miss is a wording the
reader must leave to the host, its first line quoted back and no clause read.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from speakerbot.mail.inbound.language import Propose, parse_commands
from speakerbot.mail.inbound.language.results import Clause, ClauseKind
from tests.support.hostile_lines import assert_read_in_linear_time

TITLES = {5: "Voting", 6: "Dice", 7: "Victory Auctions", 8: "Coins"}
"""The rules in effect, by number, each with its title."""

EN, AM, RP, R = ClauseKind.ENACT, ClauseKind.AMEND, ClauseKind.REPEAL, ClauseKind.REPLACE
IN = ClauseKind.INSERT


def read(text: str, titles: Mapping[int, str] | None = TITLES) -> Propose:
    """Read ``text`` inside a PROPOSE block, with ``titles`` the rules in effect."""
    result = parse_commands("", f"PROPOSE T\n{text}\nEND PROPOSE\n", titles=titles)
    assert result.errors == (), result.errors
    (command,) = result.commands
    assert isinstance(command, Propose)
    return command


def enacted(text: str, title: str) -> Clause:
    return Clause(EN, None, text, title=title)


def replaced(old: str, new: str, rule: int = 5) -> Clause:
    return Clause(R, rule, old=old, new=new)


def part(kind: ClauseKind, unit: str, anchor: str, new: str, rule: int = 5) -> Clause:
    """A REPLACE of the part of ``rule`` that begins with ``anchor``."""
    return Clause(kind, rule, new=new, anchor=anchor, unit=unit)


Case = tuple[str, str, list[Clause]]

ENACTMENTS: list[Case] = [
    # a power written bare between commas, before or after the title (8521, 8662)
    ("power-bare-then-title", 'Enact a new rule, power 2, title "Stones", with the following '
     "text:\n{\n  Stones are hard.\n}", [enacted("Stones are hard.", "Stones")]),
    ("title-then-power-bare", 'Create a rule with title "Birds", power 1.0, and the following\n'
     "text:\n{\n\n  Birds fly.\n\n}", [enacted("Birds fly.", "Birds")]),
    # "the the following text" (8517), "with text" (8928), "which reads (in full)" (8670)
    ("the-the-following", 'Enact a new power 3.0 rule entitled "Zombies" with the the following'
     "\ntext:\n\n  Zombies walk.", [enacted("Zombies walk.", "Zombies")]),
    ("with-text", 'Enact a rule with power=1.0 entitled "Acting" with text:\n\n{\nActs count.\n}',
     [enacted("Acts count.", "Acting")]),
    ("which-reads-in-full", 'Enact a new Power=1 rule titled "L&FD Auctions" which reads (in '
     "full):\n\n  Lots are sold.", [enacted("Lots are sold.", "L&FD Auctions")]),
    # a title written bare after "rule," right before the colon (8476, 8532, 8636)
    ("following-rule-bare-title", "Enact the following rule, Charities:\n\n  Charities give.",
     [enacted("Charities give.", "Charities")]),
    ("following-power-rule-bare-title", "Create the following power=1.5 rule, Points:\n\n"
     "  Points count.", [enacted("Points count.", "Points")]),
    ("following-rule-bare-title-words", "Create the following Rule, Zombie Auctions:\n\n"
     "  Zombies are sold.", [enacted("Zombies are sold.", "Zombie Auctions")]),
]  # fmt: skip

REPEALS: list[Case] = [
    # "in this order", the rules listed below (8229)
    ("following-in-this-order", "Repeal the following rules in this order:\n  Rule 5 (Voting)\n"
     "  Rule 6 (Dice)", [Clause(RP, 5), Clause(RP, 6)]),
]  # fmt: skip

TO_READ: list[Case] = [
    # a title written bare between commas, the rule's own (8670); "(in full)"
    ("bare-title-to-read-in-full", "Amend R7, Victory Auctions, to read (in full):\n\n"
     "  Auctions end.", [Clause(AM, 7, "Auctions end.")]),
    ("bare-title-to-read", "Amend Rule 6, Dice, to read: Dice are fair.",
     [Clause(AM, 6, "Dice are fair.")]),
]  # fmt: skip

AS_FOLLOWS: list[Case] = [
    # "Amend Rule N as follows:" with the edits as indented paragraphs, commands (8241)
    ("as-follows-delete-and-replace", 'Amend Rule 5 as follows:\n\n  Delete the text "Ties '
     'fail.".\n\n  Replace the text\n\n    one week\n\n  with the text\n\n    three days\n',
     [replaced("Ties fail.", ""), replaced("one week", "three days")]),
    ("as-follows-replace-quoted", 'Amend Rule 5 (Voting) as follows:\n\n  Delete the text '
     '"x".\n\n  Replace the text "Voting is a" with the text\n  "Voting is a secured"\n\n'
     "Repeal Rule 6.", [replaced("x", ""), replaced("Voting is a", "Voting is a secured"),
                        Clause(RP, 6)]),
]  # fmt: skip

AS_FOLLOWS += [
    # "Replace the sentence beginning "X" with the sentence" <block> (8240)
    ("as-follows-sentence-block", 'Amend Rule 5 ("Voting") as follows:\n\n  Replace the '
     'sentence beginning "Votes may" with the sentence\n    Votes are final.',
     [part(R, "sentence", "Votes may", new="Votes are final.")]),
    # "Amend the list item beginning "X" to read:" <block>, twice (8222)
    ("as-follows-amend-items", 'Amend Rule 5 as follows:\n\n  Amend the list item beginning '
     '"players" to read:\n\n    judges;\n\n  Amend the list item beginning "the\n  Speaker" '
     "to read:\n\n    the host.\n", [part(R, "item", "players", new="judges;"),
                                    part(R, "item", "the Speaker", new="the host.")]),
]  # fmt: skip

PARTS: list[Case] = [
    # "the paragraph beginning, "X," to read in full:" (8439)
    ("beginning-comma-to-read-in-full", 'Amend Rule 5, "Voting" by changing the paragraph\n'
     'beginning, "Ties fail," to read in full:\n\n  Ties pass.',
     [part(R, "paragraph", "Ties fail,", new="Ties pass.")]),
    # "adding the sentence "X" before the sentence that begins "Y"" (8488)
    ("sentence-before-sentence", 'Amend Rule 5 by adding the sentence "Votes are secret." '
     'before the sentence that begins "Votes may".', [Clause(IN, 5, "Votes are secret.",
     anchor="Votes may", position="before", unit="sentence")]),
    ("sentence-after-sentence", 'Amend Rule 5 by inserting a sentence "Votes are secret." '
     'after the sentence beginning "Voting lasts".', [Clause(IN, 5, "Votes are secret.",
     anchor="Voting lasts", position="after", unit="sentence")]),
]  # fmt: skip

BLOCKS: list[Case] = [
    # "inserting, after the text:" <block> "the text:" <block>: joined as a sentence (8549)
    ("inserting-after-the-text", 'Amend Rule 5, "Voting", by inserting, after the text:\n\n'
     "  Voting lasts one\n  week.\n\nthe text:\n\n  Votes are secret.",
     [Clause(IN, 5, "Votes are secret.", anchor="Voting lasts one\nweek.",
             position="after")]),
    ("inserting-before-the-text", "Amend Rule 5 by inserting before the text:\n\n  Ties fail."
     "\n\nthe following text:\n\n  Ties are rare.", [Clause(IN, 5, "Ties are rare.",
     anchor="Ties fail.", position="before")]),
]  # fmt: skip

NO_VERB: list[Case] = [
    # "Rule N (T) by replacing:": "Amend" left out (8368)
    ("no-amend-by-replacing", "Rule 5 (Voting) by replacing:\n\n  one week\n\nwith:\n\n"
     "  two weeks", [replaced("one week", "two weeks")]),
    ("no-amend-quoted-title", 'Rule 5 "Voting" by deleting " one week".',
     [replaced(" one week", "")]),
]  # fmt: skip

NO_VERB += [
    # "Amend 1607 Distribution by": the rule's number alone, a title written bare (8408)
    ("number-bare-title-by", "Amend 5 Voting by replacing:\n\n  one week\n\nwith:\n\n"
     "  two weeks", [replaced("one week", "two weeks")]),
]  # fmt: skip

PARTS += [
    # "removing the following line:" <block>: the line and its break go (8408)
    ("removing-the-following-line", "Amend rule 5 \"Voting\" by removing the following line:"
     "\n\n  - the Speaker.", [Clause(R, 5, new="", anchor="- the Speaker.", unit="line",
                                    whole=True)]),
]  # fmt: skip

CASES = ENACTMENTS + REPEALS + TO_READ + AS_FOLLOWS + PARTS + BLOCKS + NO_VERB


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_replayed_form_is_read(text: str, expected: list[Clause]) -> None:
    proposal = read(text)
    assert list(proposal.clauses) == expected
    assert proposal.not_understood == ()


NEAR_MISSES: list[tuple[str, str]] = [
    # A title written bare between commas that is not the rule's own: a part of it?
    ("bare-title-not-the-rules", "Amend Rule 5, Section Two, to read: Votes are final."),
    # "as follows:" with a paragraph that is no edit: the whole is the host's.
    ("as-follows-renumber", 'Amend Rule 5 as follows:\n\n  Delete the text "x".\n\n'
     "  Renumber the list items."),
    ("as-follows-comment", 'Amend Rule 5 as follows:\n\n  Delete the text "x".\n\n'
     "  [This was bothering me.]"),
    # An edit that reads past its paragraph: its sentence goes on.
    ("as-follows-goes-on", 'Amend Rule 5 as follows:\n\n  Delete the text "x"\n'
     "  in the first paragraph."),
    # "as follows:" and the rule's new text: not edits.
    ("as-follows-new-text", "Amend Rule 5 as follows:\n\n  Votes are final."),
    # A text inserted next to a text, in paragraphs of its own or next to no sentence's end.
    ("inserting-paragraphs", "Amend Rule 5 by inserting, after the text:\n\n  Ties fail.\n\n"
     "the text:\n\n  {\n  A.\n\n  B.\n  }"),
    ("inserting-mid-sentence", "Amend Rule 5 by inserting, after the text:\n\n  Voting lasts"
     "\n\nthe text:\n\n  at least"),
    # A new rule's bare title with a word of the form in it.
    ("following-rule-power-word", "Enact the following rule, Power:\n\n  Dice."),
]  # fmt: skip


@pytest.mark.parametrize("text", [n[1] for n in NEAR_MISSES], ids=[n[0] for n in NEAR_MISSES])
def test_a_replayed_near_miss_is_quoted_back(text: str) -> None:
    proposal = read(f"Preamble.\n{text}\nRationale.")
    assert proposal.clauses == ()
    assert (3, text.split("\n")[0]) in proposal.not_understood


def test_a_bare_title_between_commas_is_not_read_without_the_rules() -> None:
    """Read with no rules (intake), the title cannot be checked: the line is quoted back."""
    text = "Amend Rule 6, Dice, to read: Dice are fair."
    proposal = read(text, titles=None)
    assert proposal.clauses == ()
    assert proposal.not_understood == ((2, text),)


@pytest.mark.parametrize(
    "line",
    ["Enact the following rule, " + "Word " * 4, "Amend R5, " + "a" * 40 + " ",
     "Create a rule, power 2, " * 2, "Amend Rule 5 as follows:\n  Delete the text\n",
     'Amend Rule 5 as follows:\n\n  Replace the text\n\n    a\n\n  with the text "b"\n\n'],
    ids=["bare-title", "between-commas", "powers", "as-follows", "as-follows-blocks"],
)
def test_a_hostile_line_is_read_in_linear_time(line: str) -> None:
    assert_read_in_linear_time(line, TITLES)
