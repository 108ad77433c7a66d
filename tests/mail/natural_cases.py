"""Issue 26's wordings as players write them, and the clauses the reader must return.

Each form has five or more examples. The ``after`` column is the text of :data:`RULE` once
the clauses are applied, as the engine half of issue 26 (``engine/units.py``, on another
branch) is to apply them. An empty ``after`` is for examples whose rule is not
:data:`RULE` or whose change is no text (a title). Read by ``test_natural_units.py``.
"""

from __future__ import annotations

from speakerbot.mail.inbound.language.results import Clause, ClauseKind

RULE = (
    "Voting lasts one week. Votes may be changed.\n\n"
    "The following persons may vote:\n- players;\n- the Speaker.\n\n"
    "Ties fail."
)
"""Rule 5 as every example with an ``after`` text finds it."""

R, AP, IN, RT = ClauseKind.REPLACE, ClauseKind.APPEND, ClauseKind.INSERT, ClauseKind.RETITLE
P, S, ITEM, L = "paragraph", "sentence", "item", "line"
FIRST = "Voting lasts one week. Votes may be changed."
LIST = "The following persons may vote:\n- players;\n- the Speaker."
LAST = "Ties fail."


def part(kind: ClauseKind, unit: str, anchor: str = "", nth: int = 0, text: str = "",
         rule: int = 5, position: str = "", whole: bool = False) -> Clause:
    """A clause editing a part of ``rule``: REPLACE's text is its ``new``.

    ``whole``: the part is the one whose whole text is ``anchor`` (quoted itself, not by
    its beginning).
    """
    if kind is ClauseKind.REPLACE:
        return Clause(kind, rule, new=text, anchor=anchor, unit=unit, nth=nth, whole=whole)
    return Clause(kind, rule, text, anchor=anchor, unit=unit, nth=nth, position=position,
                  whole=whole)


def rule_of(*paragraphs: str) -> str:
    return "\n\n".join(paragraphs)


Case = tuple[str, str, list[Clause], str]


def joined_to_first(sentence: str) -> tuple[list[Clause], str]:
    """The clause joining ``sentence`` to RULE's first paragraph, and RULE after it."""
    return [part(AP, P, nth=1, text=sentence)], rule_of(f"{FIRST} {sentence}", LIST, LAST)

PARAGRAPHS: list[Case] = [
    # by replacing the paragraph beginning "X" with: <text>
    ("replace-beginning", 'Amend Rule 5 by replacing the paragraph beginning "Ties" with:\n\n'
     "  Ties pass.", [part(R, P, "Ties", text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("replace-beginning-title", 'Amend Rule 5 (Voting) by replacing the paragraph beginning\n'
     '"Voting lasts" with the following:\n\n  Voting lasts three days.',
     [part(R, P, "Voting lasts", text="Voting lasts three days.")],
     rule_of("Voting lasts three days.", LIST, LAST)),
    ("replace-starting-with", 'Amend R5 by replacing the paragraph starting with “The following”'
     ' with:\n{\n  Every player may vote.\n}', [part(R, P, "The following",
     text="Every player may vote.")], rule_of(FIRST, "Every player may vote.", LAST)),
    ("replace-that-begins", 'In Rule 5, replace the paragraph that begins "Ties" with "Ties '
     'are broken by the Speaker."', [part(R, P, "Ties", text="Ties are broken by the Speaker.")],
     rule_of(FIRST, LIST, "Ties are broken by the Speaker.")),
    ("replace-beginning-quoted-title", 'Amend Rule 5, "Voting", by replacing the paragraph '
     'beginning "Ties fail" with:\n\n  Ties fail, unless the Speaker votes.',
     [part(R, P, "Ties fail", text="Ties fail, unless the Speaker votes.")],
     rule_of(FIRST, LIST, "Ties fail, unless the Speaker votes.")),
    # by replacing the final|first|second|last paragraph with:
    ("replace-final", "Amend Rule 5 by replacing the final paragraph with:\n\n  Ties pass.",
     [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("replace-first", "Amend Rule 5 by replacing the first paragraph with the following:\n\n"
     "  Voting lasts a day.", [part(R, P, nth=1, text="Voting lasts a day.")],
     rule_of("Voting lasts a day.", LIST, LAST)),
    ("replace-second", "Amend Rule 5 (Voting) by replacing the second paragraph with:\n{\n"
     "  Only players may vote.\n}", [part(R, P, nth=2, text="Only players may vote.")],
     rule_of(FIRST, "Only players may vote.", LAST)),
    ("replace-last-inline", 'Amend R5 by replacing the last paragraph with "Ties pass."',
     [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("replace-third-of-rule", "Amend Rule 5 by replacing the third paragraph of the rule with:"
     "\n\n  Ties are re-voted.", [part(R, P, nth=3, text="Ties are re-voted.")],
     rule_of(FIRST, LIST, "Ties are re-voted.")),
    # by appending the following to the paragraph beginning "X":
    ("append-to-beginning", 'Amend Rule 5 by appending the following to the paragraph '
     'beginning "Voting lasts":\n\n  Early votes count.', [part(AP, P, "Voting lasts",
     text="Early votes count.")], rule_of(FIRST + " Early votes count.", LIST, LAST)),
    ("append-to-beginning-inline", 'Amend Rule 5 by appending the following to the paragraph '
     'beginning "Ties": "The Speaker says so."', [part(AP, P, "Ties",
     text="The Speaker says so.")], rule_of(FIRST, LIST, "Ties fail. The Speaker says so.")),
    ("append-to-beginning-after", 'Amend Rule 5 by appending to the paragraph beginning "Ties"'
     " the following sentence:\n\n  So do abstentions.", [part(AP, P, "Ties",
     text="So do abstentions.")], rule_of(FIRST, LIST, "Ties fail. So do abstentions.")),
    ("append-to-beginning-braces", 'Amend R5 ("Voting") by appending the following text to the'
     ' paragraph starting "Voting":\n{\n  Late votes do not.\n}', [part(AP, P, "Voting",
     text="Late votes do not.")], rule_of(FIRST + " Late votes do not.", LIST, LAST)),
    ("append-to-beginning-in-rule", 'In Rule 5, append the following to the paragraph '
     'beginning "Ties fail":\n\n  Always.', [part(AP, P, "Ties fail", text="Always.")],
     rule_of(FIRST, LIST, "Ties fail. Always.")),
    # by appending the following sentence to the last paragraph (or the one beginning)
    ("append-sentence-last", "Amend Rule 5 by appending the following sentence to the last "
     "paragraph:\n\n  So do abstentions.", [part(AP, P, nth=-1, text="So do abstentions.")],
     rule_of(FIRST, LIST, "Ties fail. So do abstentions.")),
    ("append-sentence-first", "Amend Rule 5 by appending the following sentence to the first "
     'paragraph: "Votes are public."', *joined_to_first("Votes are public.")),
    ("append-sentence-final", "Amend R5 by appending the following sentence to the final "
     "paragraph:\n{\n  The Speaker breaks none.\n}", [part(AP, P, nth=-1,
     text="The Speaker breaks none.")],
     rule_of(FIRST, LIST, "Ties fail. The Speaker breaks none.")),
    ("append-sentence-beginning", 'Amend Rule 5 by appending the following sentence to the '
     'paragraph beginning "Voting":\n\n  Votes are secret.', [part(AP, P, "Voting",
     text="Votes are secret.")], rule_of(FIRST + " Votes are secret.", LIST, LAST)),
    ("append-sentence-top-level", "Append the following sentence to the last paragraph of "
     "Rule 5: Really.", [part(AP, P, nth=-1, text="Really.")],
     rule_of(FIRST, LIST, "Ties fail. Really.")),
    # by deleting the paragraph: <block> / by removing the paragraph beginning "X"
    ("delete-paragraph-block", "Amend Rule 5 by deleting the paragraph:\n\n  Ties fail.",
     [part(R, P, "Ties fail.", whole=True)], rule_of(FIRST, LIST)),
    ("remove-beginning", 'Amend Rule 5 by removing the paragraph beginning "Ties"',
     [part(R, P, "Ties")], rule_of(FIRST, LIST)),
    ("delete-beginning", 'Amend Rule 5 by deleting the paragraph beginning "The following'
     '\npersons".', [part(R, P, "The following persons")], rule_of(FIRST, LAST)),
    ("delete-first", "Amend Rule 5 by deleting the first paragraph.", [part(R, P, nth=1)],
     rule_of(LIST, LAST)),
    ("strike-last", "Amend R5 by striking the last paragraph", [part(R, P, nth=-1)],
     rule_of(FIRST, LIST)),
    ("delete-paragraph-braces", "Amend Rule 5 by removing the paragraph:\n{\n  Ties fail.\n}",
     [part(R, P, "Ties fail.", whole=True)], rule_of(FIRST, LIST)),
    # Replace the last paragraph of Rule N with:
    ("top-replace-last", 'Replace the last paragraph of Rule 5 ("Voting")\nwith the following'
     " paragraph:\n\n  Ties pass.", [part(R, P, nth=-1, text="Ties pass.")],
     rule_of(FIRST, LIST, "Ties pass.")),
    ("top-replace-first", "Replace the first paragraph of Rule 5 with:\n\n  Voting is quick.",
     [part(R, P, nth=1, text="Voting is quick.")], rule_of("Voting is quick.", LIST, LAST)),
    ("top-replace-final-r", 'Replace the final paragraph of R5 with "Ties pass."',
     [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("top-replace-beginning", 'Replace the paragraph beginning "Ties" in Rule 5 with:\n\n'
     "  Ties pass.", [part(R, P, "Ties", text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("top-delete-last", "Delete the last paragraph of Rule 5.", [part(R, P, nth=-1)],
     rule_of(FIRST, LIST)),
    # In Rule N, replace the first paragraph with:
    ("in-rule-first", "In Rule 5, replace the first paragraph with:\n\n  Voting is quick.",
     [part(R, P, nth=1, text="Voting is quick.")], rule_of("Voting is quick.", LIST, LAST)),
    ("in-rule-first-quoted", 'In Rule 5, replace the first paragraph with "x".',
     [part(R, P, nth=1, text="x")], rule_of("x", LIST, LAST)),
    ("in-r-last", 'In R5 "Voting", replace the last paragraph with:\n{\n  Ties pass.\n}',
     [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("in-rule-second", "In Rule 5 (Voting), replace the second paragraph with the following:"
     "\n\n  Players vote.", [part(R, P, nth=2, text="Players vote.")],
     rule_of(FIRST, "Players vote.", LAST)),
    ("in-rule-final", "in rule 5, replace the final paragraph with:\n\n  Ties pass.",
     [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    # by prepending the following text:
    ("prepend", "Amend Rule 5 by prepending the following text:\n\n  This rule is about votes.",
     [part(IN, P, nth=1, text="This rule is about votes.", position="before")],
     rule_of("This rule is about votes.", FIRST, LIST, LAST)),
    ("prepend-paragraph", "Amend Rule 5 by prepending the following paragraph:\n{\n  Hello.\n}",
     [part(IN, P, nth=1, text="Hello.", position="before")], rule_of("Hello.", FIRST, LIST, LAST)),
    ("prepend-quoted", 'Amend R5 by prepending "Hello."', [part(IN, P, nth=1, text="Hello.",
     position="before")], rule_of("Hello.", FIRST, LIST, LAST)),
    ("prepend-to-rule", "Amend Rule 5 by prepending to the rule: Hello.", [part(IN, P, nth=1,
     text="Hello.", position="before")], rule_of("Hello.", FIRST, LIST, LAST)),
    ("in-rule-prepend", "In Rule 5, prepend the following text:\n\n  Hello.", [part(IN, P,
     nth=1, text="Hello.", position="before")], rule_of("Hello.", FIRST, LIST, LAST)),
]  # fmt: skip

SENTENCES_AND_LISTS: list[Case] = [
    # by deleting the sentence beginning "X"
    ("delete-sentence", 'Amend Rule 5 by deleting the sentence beginning "Votes may".',
     [part(R, S, "Votes may")], rule_of("Voting lasts one week.", LIST, LAST)),
    ("delete-sentence-wrapped", 'Amend Rule 5 by deleting the sentence beginning "Votes\nmay'
     ' be".', [part(R, S, "Votes may be")], rule_of("Voting lasts one week.", LIST, LAST)),
    ("remove-sentence", 'Amend R5 by removing the sentence starting "Voting lasts"',
     [part(R, S, "Voting lasts")], rule_of("Votes may be changed.", LIST, LAST)),
    ("delete-last-sentence", "Amend Rule 5 by deleting the last sentence.",
     [part(R, S, nth=-1)], rule_of(FIRST, LIST)),
    ("strike-sentence-that-begins", 'In Rule 5, strike the sentence that begins “Ties”.',
     [part(R, S, "Ties")], rule_of(FIRST, LIST)),
    # by replacing the sentence beginning "X" (or the final sentence) with ...
    ("replace-final-sentence", 'Amend Rule 5 by replacing the final sentence with\n'
     '  "Ties pass."', [part(R, S, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("replace-sentence-beginning", 'Amend Rule 5 by replacing the sentence beginning "Votes may"'
     ' with "Votes are final."', [part(R, S, "Votes may", text="Votes are final.")],
     rule_of("Voting lasts one week. Votes are final.", LIST, LAST)),
    # by adding the sentence "X": it joins the rule's last paragraph
    ("add-sentence", 'Amend Rule 5 by adding the sentence "So do abstentions."',
     [part(AP, P, nth=-1, text="So do abstentions.")],
     rule_of(FIRST, LIST, "Ties fail. So do abstentions.")),
    ("add-sentence-at-end", 'Amend Rule 5 by adding the sentence "Really." at the end of the'
     " rule.", [part(AP, P, nth=-1, text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("add-new-sentence", 'Amend R5 by adding the new sentence “Really.”', [part(AP, P, nth=-1,
     text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("append-the-sentence", 'Amend Rule 5 by appending the sentence "Really."',
     [part(AP, P, nth=-1, text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("in-rule-add-sentence", 'In Rule 5, add the sentence "Really." to the end',
     [part(AP, P, nth=-1, text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    # by deleting the list item "X"
    ("delete-item", 'Amend Rule 5 by deleting the list item "the Speaker."',
     [part(R, ITEM, "the Speaker.", whole=True)],
     rule_of(FIRST, "The following persons may vote:\n- players;", LAST)),
    ("delete-item-marker", 'Amend Rule 5 by deleting the list item "- players;"',
     [part(R, ITEM, "- players;", whole=True)],
     rule_of(FIRST, "The following persons may vote:\n- the Speaker.", LAST)),
    ("remove-item-beginning", 'Amend Rule 5 by removing the item beginning "the Speaker"',
     [part(R, ITEM, "the Speaker")],
     rule_of(FIRST, "The following persons may vote:\n- players;", LAST)),
    ("delete-first-item", "Amend R5 by deleting the first list item",
     [part(R, ITEM, nth=1)],
     rule_of(FIRST, "The following persons may vote:\n- the Speaker.", LAST)),
    ("strike-bullet", 'In Rule 5, strike the bullet point "players;"',
     [part(R, ITEM, "players;", whole=True)],
     rule_of(FIRST, "The following persons may vote:\n- the Speaker.", LAST)),
    # by inserting the following list item after "X"
    ("insert-item-after", 'Amend Rule 5 by inserting the following list item after "- players;"'
     ":\n\n  - judges;", [part(IN, ITEM, "- players;", text="- judges;", position="after",
     whole=True)], rule_of(FIRST, "The following persons may vote:\n- players;\n- judges;\n"
     "- the Speaker.", LAST)),
    ("insert-item-before", 'Amend Rule 5 by inserting the following list item before "the '
     'Speaker":\n{\n- judges;\n}', [part(IN, ITEM, "the Speaker", text="- judges;",
     position="before", whole=True)], rule_of(FIRST, "The following persons may vote:\n- players;\n"
     "- judges;\n- the Speaker.", LAST)),
    ("insert-item-after-item", 'Amend R5 by inserting the following item after the item '
     'beginning "players":\n\n  - judges;', [part(IN, ITEM, "players", text="- judges;",
     position="after")], rule_of(FIRST, "The following persons may vote:\n- players;\n"
     "- judges;\n- the Speaker.", LAST)),
    ("insert-new-item", 'Amend Rule 5 by inserting a new list item after "players;": "- '
     'judges;"', [part(IN, ITEM, "players;", text="- judges;", position="after", whole=True)],
     rule_of(FIRST, "The following persons may vote:\n- players;\n- judges;\n- the Speaker.",
             LAST)),
    ("in-rule-insert-item", 'In Rule 5, insert the following list item immediately after '
     '"- players;":\n    - judges;', [part(IN, ITEM, "- players;", text="- judges;",
     position="after", whole=True)], rule_of(FIRST, "The following persons may vote:\n- players;\n"
     "- judges;\n- the Speaker.", LAST)),
    # Insert the following line between the line "A" and the line "B": after A
    ("insert-line-between", 'In R5, Insert the following line between the line starting\n'
     '"- players" and the line starting "- the Speaker":\n    - judges;',
     [part(IN, L, "- players", text="- judges;", position="after")],
     rule_of(FIRST, "The following persons may vote:\n- players;\n- judges;\n- the Speaker.",
             LAST)),
    ("insert-line-between-amend", 'Amend Rule 5 by inserting the following line between the '
     'line "- players;" and the line "- the Speaker.":\n\n  - judges;',
     [part(IN, L, "- players;", text="- judges;", position="after", whole=True)],
     rule_of(FIRST, "The following persons may vote:\n- players;\n- judges;\n- the Speaker.",
             LAST)),
    ("insert-line-after", 'Amend Rule 5 by inserting the following line after the line '
     'beginning "- the Speaker":\n\n  - the host.', [part(IN, L, "- the Speaker",
     text="- the host.", position="after")], rule_of(FIRST, LIST + "\n- the host.", LAST)),
    ("insert-line-before", 'Amend Rule 5 by inserting the following line before "- players;":'
     '\n\n  - judges;', [part(IN, L, "- players;", text="- judges;", position="before",
     whole=True)],
     rule_of(FIRST, "The following persons may vote:\n- judges;\n- players;\n- the Speaker.",
             LAST)),
    ("insert-paragraph-after", 'Amend Rule 5 ("Voting") by inserting the following\nparagraph'
     ' after the paragraph beginning "The following":\n\n  Judges may not vote.',
     [part(IN, P, "The following", text="Judges may not vote.", position="after")],
     rule_of(FIRST, LIST, "Judges may not vote.", LAST)),
]  # fmt: skip


def plain(kind: ClauseKind, rule: int | None, text: str = "", **fields: object) -> Clause:
    return Clause(kind, rule, text, **fields)  # type: ignore[arg-type]


def every(rule: int, old: str, new: str) -> Clause:
    return Clause(R, rule, old=old, new=new, every=True)


def replaced(old: str, new: str, rule: int = 5) -> Clause:
    return Clause(R, rule, old=old, new=new)


HEADINGS: list[Case] = [
    # Amend Rule N (Title) as follows: with the changes below it
    ("as-follows", 'Amend Rule 5 (Voting) as follows:\n\n  - Replace "one week" with "a day".\n'
     '  - Delete the sentence beginning "Votes may".', [replaced("one week", "a day"),
     part(R, S, "Votes may")], rule_of("Voting lasts a day.", LIST, LAST)),
    ("as-follows-numbered", 'Amend Rule 5 as follows:\n  1. replace "one week" with "a day";\n'
     '  2. delete "Ties fail."', [replaced("one week", "a day"), replaced("Ties fail.", "")],
     rule_of("Voting lasts a day. Votes may be changed.", LIST, "")),
    ("as-follows-r", 'Amend R5 "Voting" as follows:\n  * replacing "one" with "two"',
     [replaced("one", "two")], rule_of("Voting lasts two week. Votes may be changed.", LIST, LAST)),
    ("as-follows-append", 'Amend Rule 5 (Voting) as follows:\n  a) replace "fail" with "pass";'
     '\n  b) add the sentence "Really."', [replaced("fail", "pass"), part(AP, P, nth=-1,
     text="Really.")], rule_of(FIRST, LIST, "Ties pass. Really.")),
    ("as-follows-retitle", 'Amend Rule 5 as follows:\n  - change its title to "Votes";\n'
     '  - replace "one week" with "a day".', [plain(RT, 5, "Votes"),
     replaced("one week", "a day")], rule_of("Voting lasts a day. Votes may be changed.", LIST,
     LAST)),
    # Amend Rule N by, as a single amendment: (its sub-items)
    ("single-amendment", 'Amend Rule 5 by, as a single amendment:\n  * replacing "one week" '
     'with "a day"; and\n  * deleting " Votes may be changed."', [replaced("one week", "a day"),
     replaced(" Votes may be changed.", "")], rule_of("Voting lasts a day.", LIST, LAST)),
    ("single-amendment-numbered", 'Amend Rule 5 (Voting) by, as a single amendment:\n'
     '  1. replacing "fail" with "pass";\n  2. replacing "one" with "two".',
     [replaced("fail", "pass"), replaced("one", "two")],
     rule_of("Voting lasts two week. Votes may be changed.", LIST, "Ties pass.")),
    ("single-amendment-r", 'Amend R5 by, as a single amendment:\n  - deleting "one week"\n',
     [replaced("one week", "")], rule_of("Voting lasts. Votes may be changed.", LIST, LAST)),
    ("single-amendment-unit", 'Amend Rule 5 by, as a single amendment:\n  (a) deleting the '
     'last paragraph;\n  (b) replacing "one" with "two".', [part(R, P, nth=-1),
     replaced("one", "two")], rule_of("Voting lasts two week. Votes may be changed.", LIST)),
    ("single-amendment-every", 'Amend Rule 5 by, as a single amendment:\n  - replacing every '
     'occurrence of "Vot" with "Ballot"', [every(5, "Vot", "Ballot")],
     RULE.replace("Vot", "Ballot")),
    # Amend RN "Title" to replace: ... with: ...
    ("r-to-replace", 'Amend R5 "Voting" to replace:\n{\n  Ties fail.\n}\nwith:\n{\n  Ties pass.'
     '\n}', [replaced("Ties fail.", "Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("rule-to-replace", 'Amend Rule 5 to replace "one week" with "a day".',
     [replaced("one week", "a day")], rule_of("Voting lasts a day. Votes may be changed.", LIST,
     LAST)),
    ("r-to-delete", 'Amend R5 (Voting) to delete "Ties fail."', [replaced("Ties fail.", "")],
     rule_of(FIRST, LIST, "")),
    ("r-to-replace-indented", "Amend R5 to replace:\n\n  Ties fail.\n\nwith:\n\n  Ties pass.",
     [replaced("Ties fail.", "Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("r-to-append", 'Amend R5 "Voting" to append the sentence "Really."',
     [part(AP, P, nth=-1, text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    # Amend N by replacing:
    ("number-by-replacing", "Amend 5 by replacing:\n\n  Ties fail.\n\nwith:\n\n  Ties pass.",
     [replaced("Ties fail.", "Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("number-by-quoted", 'Amend 5 by replacing "one week" with "a day".',
     [replaced("one week", "a day")], rule_of("Voting lasts a day. Votes may be changed.", LIST,
     LAST)),
    ("number-title-by", 'Amend 5 (Voting) by deleting "Ties fail."', [replaced("Ties fail.", "")],
     rule_of(FIRST, LIST, "")),
    ("number-hash-by", 'Amend #5 by replacing:\n{\n  Ties fail.\n}\nwith:\n{\n  Ties pass.\n}',
     [replaced("Ties fail.", "Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("number-by-paragraph", "Amend 5 by replacing the last paragraph with:\n\n  Ties pass.",
     [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    # Amend the following rules, in the order listed, by replacing every instance of ...
    ("following-rules", 'Amend the following rules, in the order listed, by replacing every '
     'instance of "Zombie" with "Ghost":\n  Rule 2532\n  Rule 2574 (Zombies)\n  R1885',
     [every(2532, "Zombie", "Ghost"), every(2574, "Zombie", "Ghost"),
      every(1885, "Zombie", "Ghost")], ""),
    ("following-rules-inline", 'Amend the following rules by replacing every occurrence of "a"'
     ' with "b": 1, 2 and 3.', [every(1, "a", "b"), every(2, "a", "b"), every(3, "a", "b")], ""),
    ("following-rules-listed", 'Amend the following rules, in the order listed, by replacing '
     'each instance of "Vot" with "Ballot":\n\n  - Rule 5 (Voting)\n  - Rule 7',
     [every(5, "Vot", "Ballot"), every(7, "Vot", "Ballot")], RULE.replace("Vot", "Ballot")),
    ("following-rules-r", 'Amend the following rules, in the order given, by replacing '
     'every instance of "x" with "y": R1, R2, and R3', [every(1, "x", "y"), every(2, "x", "y"),
     every(3, "x", "y")], ""),
    ("following-rules-semicolons", 'Amend the following rules by replacing all instances of '
     '"dice" with "coins":\n  Rule 10; Rule 11; Rule 12', [every(10, "dice", "coins"),
     every(11, "dice", "coins"), every(12, "dice", "coins")], ""),
    # by changing the text "…" to read "…"
    ("changing-to-read", 'Amend Rule 5 by changing the text "one week" to read "a day".',
     [replaced("one week", "a day")], rule_of("Voting lasts a day. Votes may be changed.", LIST,
     LAST)),
    ("changing-words-to-read", 'Amend R5 by changing the words "Ties fail" to read "Ties pass"',
     [replaced("Ties fail", "Ties pass")], rule_of(FIRST, LIST, "Ties pass.")),
    ("changing-to-read-in-rule", 'In Rule 5, change the text “one week” to read “a day”.',
     [replaced("one week", "a day")], rule_of("Voting lasts a day. Votes may be changed.", LIST,
     LAST)),
    ("changing-to-read-title", 'Amend Rule 5 (Voting) by changing the text "may be" to read '
     '"can be"', [replaced("may be", "can be")], rule_of("Voting lasts one week. Votes can be "
     "changed.", LIST, LAST)),
    ("changing-to-read-two", 'Amend Rule 5 by changing the text "one" to read "two" and "fail"'
     ' to "pass"', [replaced("one", "two"), replaced("fail", "pass")],
     rule_of("Voting lasts two week. Votes may be changed.", LIST, "Ties pass.")),
    # by replacing the text reading: … with: …
    ("text-reading", "Amend Rule 5 by replacing the text reading:\n\n  Ties fail.\n\nwith:\n\n"
     "  Ties pass.", [replaced("Ties fail.", "Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("text-reading-braces", "Amend Rule 5 by replacing the text reading:\n{\n  one week\n}\n"
     "with:\n{\n  a day\n}", [replaced("one week", "a day")],
     rule_of("Voting lasts a day. Votes may be changed.", LIST, LAST)),
    ("text-that-reads", "Amend R5 by replacing the text that reads:\n\n  Ties fail.\n\nwith the "
     "following:\n\n  Ties pass.", [replaced("Ties fail.", "Ties pass.")],
     rule_of(FIRST, LIST, "Ties pass.")),
    ("text-which-reads", "In Rule 5, replace the text which reads:\n\n  one week\n\nwith:\n\n"
     "  a day", [replaced("one week", "a day")],
     rule_of("Voting lasts a day. Votes may be changed.", LIST, LAST)),
    ("words-reading", "Amend Rule 5 (Voting) by replacing the words reading:\n\n  may be\n\n"
     "with:\n\n  can be", [replaced("may be", "can be")],
     rule_of("Voting lasts one week. Votes can be changed.", LIST, LAST)),
]  # fmt: skip

ENACTMENTS: list[Case] = [
    # Create a new power-N rule, "Title":
    ("create-power-title", 'Create a new power-2 rule, "Dice":\n\n  Dice are fair.',
     [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")], "Dice are fair."),
    ("create-power-title-braces", 'Create a new power-1 rule, "Coins":\n{\n  Coins flip.\n}',
     [plain(ClauseKind.ENACT, None, "Coins flip.", title="Coins")], "Coins flip."),
    ("create-power-decimal", 'Create a new power-1.5 rule, “The Bank”:\n\n  The Bank holds.',
     [plain(ClauseKind.ENACT, None, "The Bank holds.", title="The Bank")], "The Bank holds."),
    ("create-power-inline", 'Create a new power-3 rule, "Tax": Taxes are due.',
     [plain(ClauseKind.ENACT, None, "Taxes are due.", title="Tax")], "Taxes are due."),
    ("create-power-no-comma", 'Create a new power-2 rule "Dice":\n\n  Dice are fair.',
     [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")], "Dice are fair."),
    # Create a rule titled "…" with Power N and this text:
    ("create-titled-this-text", 'Create a rule titled "Dice" with Power 2 and this text:\n\n'
     "  Dice are fair.", [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")],
     "Dice are fair."),
    ("create-titled-this-text-braces", 'Create a rule titled "Coins" with Power 1 and this text:'
     "\n{\n  Coins flip.\n}", [plain(ClauseKind.ENACT, None, "Coins flip.", title="Coins")],
     "Coins flip."),
    ("create-titled-power-equals", 'Create a rule titled "Tax" with Power=3 and this text: '
     "Taxes are due.", [plain(ClauseKind.ENACT, None, "Taxes are due.", title="Tax")],
     "Taxes are due."),
    ("create-new-titled", 'Create a new rule titled "The Bank" with power 1 and this text:\n\n'
     "  The Bank holds.", [plain(ClauseKind.ENACT, None, "The Bank holds.", title="The Bank")],
     "The Bank holds."),
    ("create-entitled", 'Create a rule entitled "Dice" with Power 2, and this text:\n\n'
     "  Dice are fair.", [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")],
     "Dice are fair."),
    # Enact a new rule with title "…" and the following text:
    ("enact-with-title", 'Enact a new rule with title "Dice" and the following text:\n\n'
     "  Dice are fair.", [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")],
     "Dice are fair."),
    ("enact-with-title-braces", 'Enact a new rule with title "Coins" and the following text:\n'
     "{\n  Coins flip.\n}", [plain(ClauseKind.ENACT, None, "Coins flip.", title="Coins")],
     "Coins flip."),
    ("enact-with-the-title", 'Enact a new rule with the title "Tax" and the following text: '
     "Taxes are due.", [plain(ClauseKind.ENACT, None, "Taxes are due.", title="Tax")],
     "Taxes are due."),
    ("enact-immutable-with-title", 'Enact a new immutable rule with title "Core" and the '
     "following text:\n\n  This holds.", [plain(ClauseKind.ENACT, None, "This holds.",
     immutable=True, title="Core")], "This holds."),
    ("enact-with-title-power", 'Enact a new rule with title "Dice", with power 2 and the '
     "following text:\n\n  Dice are fair.", [plain(ClauseKind.ENACT, None, "Dice are fair.",
     title="Dice")], "Dice are fair."),
    # Enact a Rule "…" with the following text:
    ("enact-rule-quoted", 'Enact a Rule "Dice" with the following text:\n\n  Dice are fair.',
     [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")], "Dice are fair."),
    ("enact-rule-quoted-braces", 'Enact a Rule "Coins" with the following text:\n{\n'
     "  Coins flip.\n}", [plain(ClauseKind.ENACT, None, "Coins flip.", title="Coins")],
     "Coins flip."),
    ("enact-rule-quoted-curly", 'Enact a rule “The Bank” with the following text:\n\n'
     "  The Bank holds.", [plain(ClauseKind.ENACT, None, "The Bank holds.", title="The Bank")],
     "The Bank holds."),
    ("enact-new-rule-quoted", 'Enact a new Rule "Tax" with the following text: Taxes are due.',
     [plain(ClauseKind.ENACT, None, "Taxes are due.", title="Tax")], "Taxes are due."),
    ("enact-rule-quoted-power", 'Enact a Rule "Dice" with power 2 and the following text:\n\n'
     "  Dice are fair.", [plain(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")],
     "Dice are fair."),
]  # fmt: skip

RETITLES: list[Case] = [
    # Retitle Rule N to "…"
    ("retitle", 'Retitle Rule 2557 to "Sentencing Guidelines".',
     [plain(RT, 2557, "Sentencing Guidelines")], ""),
    ("retitle-r", 'Retitle R5 to "Votes"', [plain(RT, 5, "Votes")], ""),
    ("retitle-with-title", 'Retitle Rule 2221 ("Cleanliness") to "Cleanliness and Tidy '
     'Filing"', [plain(RT, 2221, "Cleanliness and Tidy Filing")], ""),
    ("retitle-curly", "Retitle rule 7 to “Dice”.", [plain(RT, 7, "Dice")], ""),
    ("retitle-as", 'Retitle Rule 9 as "Coins"', [plain(RT, 9, "Coins")], ""),
    # by changing its title to …
    ("changing-title", 'Amend Rule 5 by changing its title to "Votes".', [plain(RT, 5, "Votes")],
     ""),
    ("changing-title-and-text", 'Amend Rule 1728 (Dependent Action Methods) by changing its '
     'title to\n"Tabled Actions" and amending its text to:\n\n  An action is tabled.',
     [plain(RT, 1728, "Tabled Actions"), plain(ClauseKind.AMEND, 1728, "An action is tabled.")],
     ""),
    ("changing-title-and-replace", 'Amend Rule 5 by changing its title to "Votes" and replacing'
     ' "one week" with "a day"', [plain(RT, 5, "Votes"), replaced("one week", "a day")],
     rule_of("Voting lasts a day. Votes may be changed.", LIST, LAST)),
    ("in-rule-change-title", 'In Rule 5, change its title to “Votes”', [plain(RT, 5, "Votes")],
     ""),
    ("retitling-it", 'Amend R5 by retitling it "Votes"', [plain(RT, 5, "Votes")], ""),
]  # fmt: skip

CASES = PARAGRAPHS + SENTENCES_AND_LISTS + HEADINGS + ENACTMENTS + RETITLES
