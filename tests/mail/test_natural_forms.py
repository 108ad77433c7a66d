"""The rule changes players write in prose, END RULE inside a proposal, and lines not understood."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.mail.inbound.language import Propose, parse_commands


def read(text: str) -> Propose:
    """Parse ``text`` inside a PROPOSE block; it must be submitted."""
    result = parse_commands("", f"PROPOSE T\n{text}\nEND PROPOSE\n")
    assert result.errors == (), result.errors
    (command,) = result.commands
    assert isinstance(command, Propose)
    return command


def clauses(text: str) -> list[dict[str, object]]:
    return [dict(c) for c in read(text).to_json()["clauses"]]  # type: ignore[attr-defined]


def replace(rule: int, old: str, new: str, every: bool = False) -> dict[str, object]:
    return {"kind": "REPLACE", "rule": rule, "text": "", "immutable": False,
            "old": old, "new": new, "every": every}  # fmt: skip


def insert(rule: int, text: str, anchor: str, position: str) -> dict[str, object]:
    return {"kind": "INSERT", "rule": rule, "text": text, "immutable": False,
            "anchor": anchor, "position": position}  # fmt: skip


def plain(
    kind: str, rule: int | None, text: str = "", immutable: bool = False
) -> dict[str, object]:
    return {"kind": kind, "rule": rule, "text": text, "immutable": immutable}


FORMS: list[tuple[str, str, list[dict[str, object]]]] = [
    ("replace", 'Amend Rule 205 by replacing "one week" with "three days"',
     [replace(205, "one week", "three days")]),
    ("replace-title-curly", "Amend Rule 2201 (Self-Ratification) by replacing “a b” with “c”.",
     [replace(2201, "a b", "c")]),
    ("replace-quoted-title", 'Amend Rule 2154, "Election Procedure", by replacing "x" with "y".',
     [replace(2154, "x", "y")]),
    ("replace-the-text", 'amend rule 5 by replacing the text "x" with "y"', [replace(5, "x", "y")]),
    ("replace-every", 'AMEND RULE 5 BY REPLACING EVERY OCCURRENCE OF "x" WITH "y"',
     [replace(5, "x", "y", every=True)]),
    ("replace-wherever", 'Amend Rule 5 by replacing "x", wherever it appears, with "y"',
     [replace(5, "x", "y", every=True)]),
    ("changing-to-read", 'Amend Rule 5 by changing the text "x" to read "y".',
     [replace(5, "x", "y")]),
    ("replace-block", "Amend Rule 7 by replacing:\n  old\n  text\nwith:\n  new text",
     [replace(7, "old\ntext", "new text")]),
    ("replace-with-block", 'Amend Rule 7 by replacing "x" with the following text:\n\n    y\n',
     [replace(7, "x", "y")]),
    ("replace-wrapped", 'Amend Rule 2141 by replacing the text\n"a b" with\n"c d".',
     [replace(2141, "a b", "c d")]),
    ("replace-quote-over-lines", 'Amend Rule 9 by replacing "one\ntwo" with "three"',
     [replace(9, "one two", "three")]),
    ("delete", 'Amend Rule 6 by deleting "foo".', [replace(6, "foo", "")]),
    ("remove-every", 'Amend Rule 6 by removing every occurrence of "foo"',
     [replace(6, "foo", "", every=True)]),
    ("delete-block", "Amend Rule 6 by deleting the text:\n    foo bar",
     [replace(6, "foo bar", "")]),
    ("append", "Amend Rule 7 by appending: One more.", [plain("APPEND", 7, "One more.")]),
    ("append-paragraph", "Amend Rule 7 by appending the following paragraph:\nA.\nB.",
     [plain("APPEND", 7, "A.\nB.")]),
    ("append-quoted", 'Amend Rule 7 by appending "Z."', [plain("APPEND", 7, "Z.")]),
    ("insert", 'Amend Rule 9 by inserting "ZZ" after "YY".', [insert(9, "ZZ", "YY", "after")]),
    ("insert-prior", 'Amend Rule 9 by inserting "ZZ" prior to "YY"',
     [insert(9, "ZZ", "YY", "before")]),
    ("insert-block", 'Amend Rule 2532 by inserting the following list item before "* Last":\n'
     "    * Middle",  # a new list item before the item beginning "* Last" (issue 26)
     [{**insert(2532, "* Middle", "* Last", "before"), "unit": "item", "nth": 0}]),
    ("insert-position-first", 'Amend Rule 9 by inserting after "YY":\n  ZZ',
     [insert(9, "ZZ", "YY", "after")]),
    ("to-read", "Amend Rule 8 to read as follows:\n\n    New.\n\n    Second.",
     [plain("AMEND", 8, "New.\n\nSecond.")]),
    ("to-read-inline", "Amend Rule 8 to read: New text.", [plain("AMEND", 8, "New text.")]),
    ("to-read-in-full", 'Amend Rule 2519, "Consent", by changing it to read in full:\nC.',
     [plain("AMEND", 2519, "C.")]),
    # Text after a blank line below an unindented text may be its next paragraph: "to read:"
    # "New." <blank> "Why: because." is informal (tests/mail/test_reader_safety.py).
    ("to-read-stops-at-end-rule", "Amend Rule 8 to read:\nNew.\nEND RULE\n\nWhy: because.",
     [plain("AMEND", 8, "New.")]),
    ("repeal", "Repeal Rule 10 (Old stuff).", [plain("REPEAL", 10)]),
    ("repeal-quoted-title", 'Repeal rule 2609 "Temporary CFJ setup"', [plain("REPEAL", 2609)]),
    ("repeal several", "Repeal Rules 1, 2 and 3.",
     [plain("REPEAL", 1), plain("REPEAL", 2), plain("REPEAL", 3)]),
    ("repeal two", "Repeal Rule 4 and Rule #5",
     [plain("REPEAL", 4), plain("REPEAL", 5)]),
    # The state asked for travels as the clause's text: the engine refuses a rule in it.
    ("transmute", "Transmute Rule 11 to immutable.", [plain("TRANSMUTE", 11, "immutable")]),
    ("transmute to be", "Transmute Rule 11 to be Mutable", [plain("TRANSMUTE", 11, "mutable")]),
    ("enact", 'Enact a new rule titled "Dice" with the following text:\nDice are fair.',
     [plain("ENACT", None, "Dice are fair.")]),
    ("enact-title", 'Enact a new Power-1 Rule with the title "X": Some text.',
     [plain("ENACT", None, "Some text.")]),
    ("enact-immutable", "Enact a new immutable rule:\n  Fixed.",
     [plain("ENACT", None, "Fixed.", True)]),
    ("list-items", '1. Repeal Rule 1\n2. Amend Rule 2 by deleting "x"\na) Repeal Rule 3\n'
     '(b) Amend Rule 4 by appending: y.\n- Transmute Rule 5',
     [plain("REPEAL", 1), replace(2, "x", ""), plain("REPEAL", 3), plain("APPEND", 4, "y."),
      plain("TRANSMUTE", 5)]),
    ("with-keyword-forms", 'REPEAL RULE 1\nAmend Rule 2 by deleting "x"\nAMEND RULE 3: z',
     [plain("REPEAL", 1), replace(2, "x", ""), plain("AMEND", 3, "z")]),
    # Titles in quotes without parentheses, and Agora's "R2622" for Rule 2622.
    ("quoted-title-no-comma", 'Amend rule 2591 "Spaceships" by replacing "x" with "y"',
     [replace(2591, "x", "y")]),
    ("r-number", 'Amend R2496, "Rewards", by replacing "an adopted" with "an\nadopted sponsored".',
     [replace(2496, "an adopted", "an adopted sponsored")]),
    ("repeal-r-number", 'Repeal R2626 "Certifiable Patches".', [plain("REPEAL", 2626)]),
    ("repeal-two-titles", 'Repeal Rule 2604 ("Nothing") and Rule 2600 ("Boo").',
     [plain("REPEAL", 2604), plain("REPEAL", 2600)]),
    # A title naming another rule: only the numbers outside titles are repealed.
    ("repeal-title-with-number", 'Repeal Rule 2604 ("Nothing, Rule 1030,") and Rule 2600 ("B!")',
     [plain("REPEAL", 2604), plain("REPEAL", 2600)]),
    ("repeal-three-titles", 'Repeal Rule 1 "A", Rule 2 (B) and R3.',
     [plain("REPEAL", 1), plain("REPEAL", 2), plain("REPEAL", 3)]),
    # Text in braces, Agora's habit: alone on their lines, around the text, or tripled.
    ("to-read-braces", "Amend Rule 8 to read, in whole:\n\n{\n\n  New.\n\n  Second.\n\n}\n\n[Why.]",
     [plain("AMEND", 8, "New.\n\nSecond.")]),
    ("append-braces", "Amend Rule 7 (T) by adding the following paragraph:\n{\n  A\n  b.\n}",
     [plain("APPEND", 7, "A\nb.")]),
    ("insert-braces-around", 'Amend Rule 9 by inserting the following sentence after\nthe words'
     ' "YY":\n  {ZZ one\n  two.}', [insert(9, "ZZ one\ntwo.", "YY", "after")]),
    ("replace-braces", "Amend Rule 478 by replacing the following:\n\n{\n\n  a\n\n}\n\n"
     "with the following:\n\n{\n  b\n}\n[Why.]", [replace(478, "a", "b")]),
    ("replace-triple-braces", "In rule 7, replace:\n{{{\n    * a\n}}}\nwith\n{{{\n    * b\n}}}",
     [replace(7, "* a", "* b")]),
    ("delete-braces", "Amend Rule 2422 by deleting the following text:\n\n{\n  A b.\n}",
     [replace(2422, "A b.", "")]),
    # The block forms without colons: only indented or braced blocks.
    ("replace-block-no-colon", "Amend Rule 2141 by replacing the text\n\n  Old one.\n\nwith\n\n"
     "  New one.\n\n[Comment.]", [replace(2141, "Old one.", "New one.")]),
    ("replace-this-text", "Amend Rule 107 (I) by replacing this text:\n\n  a\n\nwith this text:"
     "\n\n  b", [replace(107, "a", "b")]),
    ("changing-to-read-blocks", 'Amend Rule 2154, "E", by changing the text:\n\n  "old a\n   b"'
     '\n\nto read:\n\n  "new"', [replace(2154, "old a\nb", "new")]),
    ("changing-colons-inline", 'Amend Rule 5 by changing the text: "X" to read: "Y"',
     [replace(5, "X", "Y")]),
    # Appending after the final sentence is appending; the paragraph verb first.
    ("append-after-final-sentence", 'Amend rule 2588 "Sectors" by appending, after the final'
     " sentence, the\nfollowing:\n\n  If a sector.", [plain("APPEND", 2588, "If a sector.")]),
    ("append-to-rule", 'Append the following paragraph to Rule 2450 "Pledges":\n\nThe Notary.',
     [plain("APPEND", 2450, "The Notary.")]),
    ("append-quoted-to-rule", 'Append "Z." to Rule 7.', [plain("APPEND", 7, "Z.")]),
    ("remove-from-rule", 'Remove the text ", as described" from Rule 2139, "The Registrar".',
     [replace(2139, ", as described", "")]),
    ("remove-in-rule", 'Remove the text "identified in Rule 1728" in Rule 2595.',
     [replace(2595, "identified in Rule 1728", "")]),
    ("replace-in-rule", 'Replace "a" in Rule 5 with "b".', [replace(5, "a", "b")]),
    # Enacting with a power (Agora's; not kept), with or without "new", or creating.
    ("enact-power-equals", 'Enact a rule titled "W" with Power=1 and the following text:\n\n  T.',
     [plain("ENACT", None, "T.")]),
    ("enact-power-decimal", 'Enact a new power 1.0 rule entitled "D" with the\nfollowing text:'
     "\n  T.\n\n  U.", [plain("ENACT", None, "T.\n\nU.")]),
    ("create-bare-title", 'Create a power-1 rule, "G", with the following text:\n\n  T.\n\nNot.',
     [plain("ENACT", None, "T.")]),
    ("enact-text-as-follows", 'Enact a new Rule entitled "B" with power 2 and text as follows:\n'
     "\n{\n\n  T.\n\n}", [plain("ENACT", None, "T.")]),
    # Several edits in one sentence, the verb understood after the first.
    ("replace-two", 'Amend Rule 2553 by, as a single amendment, replacing "a" with "b" and\n'
     'replacing "c" with\n"d".', [replace(2553, "a", "b"), replace(2553, "c", "d")]),
    ("replace-pairs", 'Amend Rule 5 by replacing "a" with "b", and "c" with "d".',
     [replace(5, "a", "b"), replace(5, "c", "d")]),
    ("insert-pairs", 'Amend Rule 5 by inserting "a" after "b", and "c" before "d".',
     [insert(5, "a", "b", "after"), insert(5, "c", "d", "before")]),
    ("delete-several", 'Amend Rule 5 by deleting "a", "b" and "c"; then appending: "Z."',
     [replace(5, "a", ""), replace(5, "b", ""), replace(5, "c", ""), plain("APPEND", 5, "Z.")]),
    ("insert-following", 'Amend Rule 2619, "I" by inserting ", by it," following "CAN".',
     [insert(2619, ", by it,", "CAN", "after")]),
    ("by-by", 'Amend R2646, "Activity" by by replacing "a" with "b"', [replace(2646, "a", "b")]),
    # "In Rule N, ..." with the verbs as commands.
    ("in-rule-replace", 'In Rule 2166 "Assets", replace the text "a" with the following:\n\n  b',
     [replace(2166, "a", "b")]),
    ("in-rule-block", 'In Rule 2561 "VP Wins" replace the following:\n\n  a\n\nwith:\n\n  b',
     [replace(2561, "a", "b")]),
    # A bare title, or a part of the rule, before edits that find their place by quotation.
    ("bare-title", "Amend Rule 2464, Tournaments, by replacing:\n{\n  a\n}\nwith:\n{\n  b\n}",
     [replace(2464, "a", "b")]),
    ("section", 'Amend Rule 2162 (Switches) section 2 by replacing "a" with "b".',
     [replace(2162, "a", "b")]),
    ("by-list", 'Amend R2493 by:\n\n      * replacing "an x" with "a x"; and\n      * deleting'
     ' "an\n        y".\n\nAmend R9 by deleting "z".',
     [replace(2493, "an x", "a x"), replace(2493, "an y", ""), replace(9, "z", "")]),
    # More edits of the rule just changed.
    ("and-by", "Amend rule 2591 \"S\" by changing:\n\n  * a\n\nto:\n\n  * b\n\nand by "
     "appending the following to the end of the rule:\n\n  If c.\n\nFlip every switch.",
     [replace(2591, "* a", "* b"), plain("APPEND", 2591, "If c.")]),
    ("same-rule", 'Amend rule 2450 "P" by inserting "A" after "B".\n\n  Also amend the same rule'
     " by replacing the text\n  {c}\n  with the new text\n  {d}",
     [insert(2450, "A", "B", "after"), replace(2450, "c", "d")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), [f[1:] for f in FORMS], ids=[f[0] for f in FORMS])
def test_natural_form(text: str, expected: list[dict[str, object]]) -> None:
    assert clauses(text) == expected
    assert read(text).not_understood == ()


NEAR_MISSES: list[tuple[str, str]] = [
    ("no-quotes", "Amend Rule 205 by replacing one week with three days"),
    ("unclosed-quote", 'Amend Rule 205 by replacing "one week with "three days'),
    ("unknown-verb", "Amend Rule 2201 by frobbing the text."),
    ("repeal-and-no-number", "Repeal Rule 5 and Rule"),
    ("repeal-and-more-words", "Repeal Rule 5 and 6 of the old ruleset."),
    ("title-with-quote", 'Amend Rule 5 "The "Big" Rule" by replacing "a" with "b"'),
    ("append-to-last-paragraph", 'Amend Rule 649, "Patent Titles", by appending to the last '
     'paragraph: "x"'),
    ("part-before-to-read", "Amend Rule 5, paragraph 2, to read: x"),
    ("part-before-append", "Amend Rule 5 section 2 by appending: x"),
    ("bare-title-before-to-read", "Amend Rule 5, Dice Rolls, to read: x"),
    ("condition-as-title", 'Amend Rule 5, If Adopted Early, by replacing "a" with "b"'),
    ("part-before-every", 'Amend Rule 5, section 2, by replacing every occurrence of "a" with "b"'),
    ("every-then-pairs", 'Amend Rule 5 by replacing every occurrence of "a" with "b", and "c" with '
     '"d"'),
    ("unknown-second-edit", 'Amend Rule 5 by replacing "a" with "b" and frobbing "c"'),
    ("paragraph-break", 'Amend Rule 478 by inserting a paragraph break before "Any action"'),
    ("same-rule-alone", 'Also amend the same rule by deleting "x"'),
    ("create-no-text", 'Create a new rule, "G", at once.'),
    ("broken-keyword-lower", "amend rule abc: text"),
    ("enact-no-text", 'Enact a new rule titled "Dice".'),
    ("insert-no-anchor", 'Amend Rule 9 by inserting "ZZ" somewhere.'),
]


@pytest.mark.parametrize("text", [n[1] for n in NEAR_MISSES], ids=[n[0] for n in NEAR_MISSES])
def test_near_miss_is_informal_and_quoted_back(text: str) -> None:
    proposal = read(f"Preamble.\n{text}\nRationale.")
    assert proposal.clauses == ()
    assert proposal.not_understood == ((3, text),)
    assert proposal.to_json()["not_understood"] == [{"line": 3, "text": text}]


def test_to_read_with_nothing_below_is_not_understood() -> None:
    proposal = read("Preamble.\nAmend Rule 8 to read:")
    assert proposal.clauses == ()
    assert proposal.not_understood == ((3, "Amend Rule 8 to read:"),)


@pytest.mark.parametrize(
    "text",
    ["Amend the rules carefully.", "We should repeal the dice rule.", "Rule 5 is nice.",
     'Create a new office titled "Dice" with the following text: x'],
)
def test_prose_is_neither_clause_nor_not_understood(text: str) -> None:
    proposal = read(text)
    assert proposal.clauses == ()
    assert proposal.not_understood == ()
    assert "not_understood" not in proposal.to_json()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("AMEND RULE abc: x", "AMEND RULE needs a rule number and a colon"),
        ("ENACT RULE 350: x", "ENACT RULE takes no rule number"),
        ("AMEND RULE 5 to say: x", "AMEND RULE needs a rule number and a colon"),
    ],
)
def test_broken_keyword_form_stays_an_error(text: str, reason: str) -> None:
    result = parse_commands("", f"PROPOSE T\n{text}\nEND PROPOSE\n")
    assert result.commands == ()
    assert [e.line for e in result.errors] == [2]
    assert reason in result.errors[0].reason


END_RULE = [
    ("amend", "AMEND RULE 205:\nThe period is three days.\nEND RULE\nThis is a rationale.",
     [plain("AMEND", 205, "The period is three days.")]),
    ("enact-then-text", "ENACT RULE: A.\nB.\nend rule.\nWhy.\nREPEAL RULE 3",
     [plain("ENACT", None, "A.\nB."), plain("REPEAL", 3)]),
    ("without-end-rule", "AMEND RULE 205:\nThree days.\n\nRationale.",
     [plain("AMEND", 205, "Three days.\n\nRationale.")]),
    ("natural-block", "Amend Rule 8 to read:\n  New.\nEND RULE\nWhy.", [plain("AMEND", 8, "New.")]),
    ("alone", "Text.\nEND RULE\nMore.", []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"), [e[1:] for e in END_RULE], ids=[e[0] for e in END_RULE]
)
def test_end_rule_ends_a_clause(text: str, expected: list[dict[str, object]]) -> None:
    proposal = read(text)
    assert clauses(text) == expected
    assert proposal.text == text  # the proposal's text is all of it


_PIECES = st.sampled_from(
    [f[1] for f in FORMS]
    + [n[1] for n in NEAR_MISSES]
    + ["END RULE", "", "    indented", "with:", '"', "“", "”", "Amend Rule 5 by replacing:",
       "Amend Rule 5 to read:", "1.", "(a)", "AMEND RULE 5:", "SET quorum = 3", "ENACT RULE:"]
)  # fmt: skip
_NOISE = st.lists(
    st.sampled_from([*list('abAR "“”:()-.,1259\t'), "Rule ", "Amend ", "by ", "with ", "to read"]),
    max_size=20,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, _NOISE), max_size=12))
def test_parse_never_raises_on_natural_forms(pieces: list[str]) -> None:
    body = "PROPOSE T\n" + "\n".join(pieces) + "\nEND PROPOSE\n"
    result = parse_commands("", body)
    for command in result.commands:
        command.to_json()
    for error in result.errors:
        assert not error.reason.startswith("AMEND RULE needs") or "AMEND RULE" in error.text


def test_help_shows_every_natural_form_and_its_example_parses() -> None:
    from speakerbot.mail.inbound.language import every_help
    from speakerbot.mail.inbound.language.prose import NATURAL_FORMS

    text = every_help()
    assert text.index("Amend Rule <n> by replacing") < text.index("AMEND RULE <n>: <text>")
    for syntax, example in NATURAL_FORMS:
        assert syntax in text and example in text
        proposal = read(example)  # one clause, or one a rule or a title (Rules 5 and 6)
        assert proposal.clauses and proposal.not_understood == (), example
        assert len(proposal.clauses) == 1 or " and " in example, example
