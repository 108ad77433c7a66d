"""More of issue 26's wordings, met on proposals the reader had not seen, with their clauses.

Each form has five or more examples, written for these tests (not copied from a corpus).
The ``after`` column is the text of :data:`~tests.mail.natural_cases.RULE` once the
clauses are applied by the engine ("" where the rule is another or nothing is edited).
Read by ``test_natural_units.py``, with the first table.
"""

from __future__ import annotations

from speakerbot.mail.inbound.language.results import Clause, ClauseKind
from tests.mail.natural_cases import (
    AP,
    FIRST,
    LAST,
    LIST,
    RULE,
    Case,
    P,
    R,
    S,
    joined_to_first,
    part,
    rule_of,
)

__all__ = ["MORE_CASES", "MORE_NEAR_MISSES", "RULE"]

BARE_TITLES: list[Case] = [
    # the rule's title written bare after its number, before "with", "by" or "to"
    ("bare-title-part-of", "Replace the first paragraph of rule 5 Voting Rules with the "
     "following:\n\n  Voting lasts a day.", [part(R, P, nth=1, text="Voting lasts a day.")],
     rule_of("Voting lasts a day.", LIST, LAST)),
    ("bare-title-amend-by", 'Amend Rule 5 Voting by replacing "one week" with "two weeks".',
     [Clause(R, 5, old="one week", new="two weeks")],
     rule_of("Voting lasts two weeks. Votes may be changed.", LIST, LAST)),
    ("bare-title-of-the-rule", "Delete the last paragraph of the rule 5 Ties and Votes.",
     [part(R, P, nth=-1)], rule_of(FIRST, LIST)),
    ("bare-title-comma", "Amend Rule 5 Voting Periods, by deleting the last sentence.",
     [part(R, S, nth=-1)], rule_of(FIRST, LIST)),
    ("bare-title-to-read", "Amend Rule 5 Voting to read as follows:\n\n  Votes are final.",
     [Clause(ClauseKind.AMEND, 5, "Votes are final.")], ""),
    ("bare-title-apostrophe", "Replace the last paragraph of Rule 5 Speaker's Ties with:\n"
     "  Ties pass.", [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
]  # fmt: skip

AT_THE_END: list[Case] = [
    # At the end of <part> of Rule N, append ...
    ("at-end-of-paragraph-two", "At the end of paragraph two of Rule 5, append the following "
     "sentence: Judges may not.", [part(AP, P, nth=2, text="Judges may not.")],
     rule_of(FIRST, LIST, "Judges may not.", LAST)),
    ("at-end-of-first-paragraph", 'At the end of the first paragraph of Rule 5 ("Voting"), add '
     'the following sentence:\n  "Late votes are void."', *joined_to_first("Late votes are void.")),
    ("at-end-of-paragraph-beginning", 'At the end of the paragraph beginning "Ties" in Rule 5,'
     " append:\n\n  Really.", [part(AP, P, "Ties", text="Really.")],
     rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("at-end-of-rule", "At the end of Rule 5, append the following paragraph:\n\n"
     "  The Speaker counts.", [Clause(AP, 5, "The Speaker counts.")],
     RULE + "\n\nThe Speaker counts."),
    ("at-end-of-the-rule-titled", 'At the end of the rule 5 "Voting", add the following text:'
     "\n{\nThe Speaker counts.\n}", [Clause(AP, 5, "The Speaker counts.")],
     RULE + "\n\nThe Speaker counts."),
    ("at-end-of-paragraph-three", "At the end of paragraph three of R5, append the following "
     "sentence\n  Unless the Speaker says otherwise.", [part(AP, P, nth=3,
     text="Unless the Speaker says otherwise.")],
     rule_of(FIRST, LIST, "Ties fail. Unless the Speaker says otherwise.")),
]  # fmt: skip

CARDINALS: list[Case] = [
    # a part counted in words after its kind: "paragraph two"
    ("paragraph-two", "Amend Rule 5 by replacing paragraph two with:\n\n  Anyone may vote.",
     [part(R, P, nth=2, text="Anyone may vote.")], rule_of(FIRST, "Anyone may vote.", LAST)),
    ("delete-paragraph-three", "Amend Rule 5 by deleting paragraph three.",
     [part(R, P, nth=3)], rule_of(FIRST, LIST)),
    ("replace-paragraph-one-of", "Replace paragraph one of Rule 5 with: Voting is open.",
     [part(R, P, nth=1, text="Voting is open.")], rule_of("Voting is open.", LIST, LAST)),
    ("sentence-two", 'In Rule 5, replace sentence two with "Votes are final."',
     [part(R, S, nth=2, text="Votes are final.")],
     rule_of("Voting lasts one week. Votes are final.", LIST, LAST)),
    ("append-to-paragraph-one", "Amend Rule 5 by appending the following sentence to paragraph"
     " one: Early votes count.", *joined_to_first("Early votes count.")),
]  # fmt: skip

QUOTED_BLOCKS: list[Case] = [
    # a text in quotes over several paragraphs, after a colon or "the following sentence"
    ("quoted-paragraphs", 'Amend Rule 5 by replacing the last paragraph with:\n\n"Ties fail.'
     '\n\nThe Speaker breaks no tie."', [part(R, P, nth=-1, text="Ties fail.\n\nThe Speaker "
     "breaks no tie.")], rule_of(FIRST, LIST, "Ties fail.", "The Speaker breaks no tie.")),
    ("quoted-paragraphs-curly", "Amend Rule 5 to read:\n“Votes are open.\n\nTies fail.”",
     [Clause(ClauseKind.AMEND, 5, "Votes are open.\n\nTies fail.")], ""),
    ("quoted-list", 'Replace the second paragraph of Rule 5 with the following:\n\n"These may '
     'vote:\n\n1. players;\n\n2. judges."', [part(R, P, nth=2, text="These may vote:\n\n1. "
     "players;\n\n2. judges.")], rule_of(FIRST, "These may vote:", "1. players;", "2. judges.",
                                       LAST)),
    ("quoted-after-sentence", 'Amend Rule 5 by appending the following sentence to the last '
     'paragraph\n"Unless the Speaker\nsays otherwise."', [part(AP, P, nth=-1, text="Unless the "
     "Speaker\nsays otherwise.")], rule_of(FIRST, LIST, "Ties fail. Unless the Speaker\nsays "
     "otherwise.")),
    ("quoted-full-stop-after", 'Enact a new rule with the following text:\n"Dice are fair.\n\n'
     'Dice are rolled by the Speaker.".', [Clause(ClauseKind.ENACT, None, "Dice are fair.\n\n"
     "Dice are rolled by the Speaker.")], ""),
    ("quoted-never-closed", 'Amend Rule 5 by appending the following sentence to the first '
     'paragraph\n"Early votes count.', *joined_to_first("Early votes count.")),
]  # fmt: skip

JOINED: list[Case] = [
    # text put "at the end of" a paragraph, or "the following text" appended to it, joins it
    ("adding-at-end-of-first", 'Amend Rule 5 by adding at the end of the first paragraph "Late'
     ' votes are void."', *joined_to_first("Late votes are void.")),
    ("text-to-its-first", "Amend Rule 5 (Voting) by appending the following text to its first "
     "paragraph:\n  Late votes are void.", *joined_to_first("Late votes are void.")),
    ("at-end-of-last-block", "At the end of the last paragraph of Rule 5, append:\n\n  Really.",
     [part(AP, P, nth=-1, text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("append-text-at-end-of-last", "Amend R5 by appending the following text at the end of the"
     " last paragraph: Really.", [part(AP, P, nth=-1, text="Really.")],
     rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("in-rule-add-text-to-third", 'In Rule 5, add the following text to the third paragraph: '
     '"Really."', [part(AP, P, nth=3, text="Really.")], rule_of(FIRST, LIST, "Ties fail. Really.")),
    ("replacing-its-last", "Amend Rule 5 (Voting) by replacing its last paragraph with:\n"
     "  Ties pass.", [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
]  # fmt: skip

QUOTES_AND_BRACES: list[Case] = [
    # a brace after the head with no colon; quotation marks that differ; single quotes
    ("enact-brace-no-colon", 'Enact a Power-1 rule titled "Dice" with the following text {\n'
     "  Dice are fair.\n}", [Clause(ClauseKind.ENACT, None, "Dice are fair.", title="Dice")], ""),
    ("to-read-brace-no-colon", "Amend Rule 5 to read {\n  Votes are final.\n}",
     [Clause(ClauseKind.AMEND, 5, "Votes are final.")], ""),
    ("replace-paragraph-brace", "Amend Rule 5 by replacing the last paragraph with {\n"
     "  Ties pass.\n}", [part(R, P, nth=-1, text="Ties pass.")],
     rule_of(FIRST, LIST, "Ties pass.")),
    ("mixed-quote-marks", 'Amend Rule 5 by replacing "one week” with "two weeks”.',
     [Clause(R, 5, old="one week", new="two weeks")],
     rule_of("Voting lasts two weeks. Votes may be changed.", LIST, LAST)),
    ("mixed-quote-title", 'Create a rule titled "Dice, Rule 5,” with the following text: {\n'
     "  Dice are fair.\n}", [Clause(ClauseKind.ENACT, None, "Dice are fair.",
                                   title="Dice, Rule 5,")], ""),
    ("single-quotes-around-double", "Amend Rule 5 by removing the text '(syn. \"vote\")'.",
     [Clause(R, 5, old='(syn. "vote")', new="")], ""),
    ("single-quotes-replace", "Amend Rule 5 by replacing 'a \"tie\"' with 'a \"draw\"'.",
     [Clause(R, 5, old='a "tie"', new='a "draw"')], ""),
    ("replacing-semicolon", "Amend Rule 5 (Voting) by replacing;\n\n  Ties fail.\n\nwith:\n\n"
     "  Ties pass.", [Clause(R, 5, old="Ties fail.", new="Ties pass.")],
     rule_of(FIRST, LIST, "Ties pass.")),
    ("prepending-the-paragraph", "Amend Rule 5 by prepending the paragraph:\n\n  About votes.",
     [part(ClauseKind.INSERT, P, nth=1, text="About votes.", position="before")],
     rule_of("About votes.", FIRST, LIST, LAST)),
    ("appending-the-paragraph", "Amend Rule 5 by appending the paragraph:\n\n  About votes.",
     [Clause(AP, 5, "About votes.")], RULE + "\n\nAbout votes."),
]  # fmt: skip

EN, AM, RT, RP = ClauseKind.ENACT, ClauseKind.AMEND, ClauseKind.RETITLE, ClauseKind.REPEAL


def amended(text: str) -> tuple[list[Clause], str]:
    """The clause giving rule 5 the whole new ``text`` (an ``after`` is for edits only)."""
    return [Clause(AM, 5, text)], ""


IN = ClauseKind.INSERT

HEADS: list[Case] = [
    # an enactment's power before its title, and "Enact the following rule"
    ("enact-power-then-title", 'Create a new rule with Power 2, titled "Dice", with the '
     "following text:\n\n  Dice are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("enact-power-and-the-title", 'Enact a new rule with power 1.5 and the title "Dice", '
     "reading:\n\n  Dice are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("enact-power-equals-and-title", 'Enact a new Rule with Power=3 and title "Dice" with the '
     "text:\n  Dice are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("enact-the-following", 'Enact the following rule, titled "Dice", with Power 1:\n\n'
     "  Dice are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("create-the-following-new", "Create the following new rule:\n{\nDice are fair.\n}",
     [Clause(EN, None, "Dice are fair.")], ""),
    # the passive: "Rule N is hereby amended ..."
    ("passive-amended-by", 'Rule 5 (Voting) is amended by replacing "one week" with "a day".',
     [Clause(R, 5, old="one week", new="a day")],
     rule_of("Voting lasts a day. Votes may be changed.", LIST, LAST)),
    ("passive-hereby-repealed", "Rule 2143 is hereby repealed.", [Clause(RP, 2143)], ""),
    ("passive-to-read", "Rule 5 shall be amended to read:\n\n  Votes are final.",
     *amended("Votes are final.")),
    ("passive-retitled", 'Rule 5, "Voting", is hereby retitled "Votes".',
     [Clause(RT, 5, "Votes")], ""),
    ("passive-deleting-part", "R5 is amended by deleting the last paragraph.",
     [part(R, P, nth=-1)], rule_of(FIRST, LIST)),
    # a title in single quotes; "Amend the text of Rule N to read"; "to read" words in any order
    ("single-quoted-title", "Amend Rule 5, 'Voting', by deleting the last sentence.",
     [part(R, S, nth=-1)], rule_of(FIRST, LIST)),
    ("text-of-rule-to-read", "Amend the text of Rule 5 to read:\n\n  Votes are final.",
     *amended("Votes are final.")),
    ("to-read-as-follows-in-full", "Amend Rule 5 to read as follows, in full:\n\n  Votes.",
     *amended("Votes.")),
    ("to-read-in-full-as-follows", "Amend Rule 5 (Voting) to read in its entirety as follows:\n"
     "  Votes.", *amended("Votes.")),
    ("text-of-r-to-read-quoted", 'Amend the text of R5 to read "Votes."',
     *amended("Votes.")),
]  # fmt: skip

RETITLINGS: list[Case] = [
    ("retitle-no-to", 'Retitle Rule 5 "Votes".', [Clause(RT, 5, "Votes")], ""),
    ("change-the-title-of", 'Change the title of Rule 5 to "Votes".', [Clause(RT, 5, "Votes")],
     ""),
    ("amend-the-title-of", 'Amend the title of Rule 5 (Voting) to read "Votes"',
     [Clause(RT, 5, "Votes")], ""),
    ("rename-rule", "Rename Rule 5 to “Votes”.", [Clause(RT, 5, "Votes")], ""),
    ("set-the-title-of", 'Set the title of R5 to "Votes".', [Clause(RT, 5, "Votes")], ""),
]  # fmt: skip

INSERTIONS: list[Case] = [
    # "adding|appending" what "inserting" puts; "the following" after a part: a part of its kind
    ("adding-after-quote", 'Amend Rule 5 by adding " calendar" after "one"',
     [Clause(IN, 5, " calendar", anchor="one", position="after")],
     rule_of("Voting lasts one calendar week. Votes may be changed.", LIST, LAST)),
    ("inserting-the-text-after-the-text", 'Amend Rule 5 by inserting the text " calendar" '
     'after the text "one".', [Clause(IN, 5, " calendar", anchor="one", position="after")],
     rule_of("Voting lasts one calendar week. Votes may be changed.", LIST, LAST)),
    ("adding-paragraph-after-beginning", "Amend Rule 5 by adding the following paragraph after "
     'the paragraph beginning "Voting":\n\n  Judges may not vote.', [part(IN, P, "Voting",
     text="Judges may not vote.", position="after")],
     rule_of(FIRST, "Judges may not vote.", LIST, LAST)),
    ("inserting-the-following-after-first", "Amend Rule 5 by inserting the following after the"
     " first paragraph:\n\n  Judges may not vote.", [part(IN, P, nth=1,
     text="Judges may not vote.", position="after")],
     rule_of(FIRST, "Judges may not vote.", LIST, LAST)),
    ("inserting-text-after-item", "Amend Rule 5 by inserting the following text immediately "
     'after the list item beginning "- players":\n\n  - judges;', [part(IN, "item",
     "- players", text="- judges;", position="after")], rule_of(FIRST, "The following "
     "persons may vote:\n- players;\n- judges;\n- the Speaker.", LAST)),
    ("appending-following-before-last", "Amend Rule 5 by appending the following before the "
     "last paragraph: Judges may not vote.", [part(IN, P, nth=-1, text="Judges may not vote.",
     position="before")], rule_of(FIRST, LIST, "Judges may not vote.", LAST)),
]  # fmt: skip

EVERYWHERE: list[Case] = [
    # "everywhere" after the new text, when it is the sentence's one edit
    ("with-everywhere-it-appears", 'Amend Rule 5 by replacing "o" with "0" everywhere it '
     "appears.", [Clause(R, 5, old="o", new="0", every=True)], ""),
    ("with-wherever-it-appears", 'Amend Rule 5 by replacing "week" with "month" wherever it '
     "appears", [Clause(R, 5, old="week", new="month", every=True)],
     rule_of("Voting lasts one month. Votes may be changed.", LIST, LAST)),
    ("with-throughout", 'Amend Rule 5 by replacing "Votes" with "Ballots" throughout.',
     [Clause(R, 5, old="Votes", new="Ballots", every=True)],
     rule_of("Voting lasts one week. Ballots may be changed.", LIST, LAST)),
    ("changing-everywhere-comma", 'Amend Rule 5 by changing "fail" to "pass", everywhere it '
     "occurs.", [Clause(R, 5, old="fail", new="pass", every=True)],
     rule_of(FIRST, LIST, "Ties pass.")),
    ("in-rule-throughout-the-rule", 'In Rule 5, replace "Ties" with "Draws" throughout the '
     "rule.", [Clause(R, 5, old="Ties", new="Draws", every=True)],
     rule_of(FIRST, LIST, "Draws fail.")),
]  # fmt: skip

WHOLE_TEXTS: list[Case] = [
    # a rule's whole new text, in other words
    ("so-that-it-reads", "Amend Rule 5 so that it reads:\n\n  Votes are final.",
     *amended("Votes are final.")),
    ("so-that-it-shall-read", "Amend Rule 5 (Voting) so that it shall read:\n  Votes.",
     *amended("Votes.")),
    ("replacing-its-entire-text", "Amend Rule 5 by replacing its entire text with:\n\n  Votes.",
     *amended("Votes.")),
    ("replace-the-text-of", "Replace the text of Rule 5 with:\n\n  Votes are final.",
     *amended("Votes are final.")),
    ("replace-the-entire-text-of", 'Replace the entire text of Rule 5 ("Voting") with the '
     "following:\n{\nVotes.\n}", *amended("Votes.")),
    ("enact-of-power", 'Enact a new Rule of Power 2.0, entitled "Dice", with the following '
     "text:\n\n  Dice are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
]  # fmt: skip

PLACES: list[Case] = [
    # "to the end of" a part; "as a new paragraph" after a part; "a paragraph reading"
    ("to-the-end-of-first", "Amend Rule 5 by appending the following sentence to the end of the"
     ' first paragraph: "Late votes are void."', *joined_to_first("Late votes are void.")),
    ("to-the-end-of-item", 'Amend Rule 5 by adding the following text to the end of the list '
     'item beginning "- players": " and judges;"', [part(AP, "item", "- players",
     text=" and judges;")], ""),
    ("as-a-new-paragraph-after", "Amend Rule 5 by inserting the following text as a new "
     "paragraph after the first paragraph:\n\n  Judges may not vote.", [part(IN, P, nth=1,
     text="Judges may not vote.", position="after")],
     rule_of(FIRST, "Judges may not vote.", LIST, LAST)),
    ("as-a-separate-paragraph-before", "Amend Rule 5 by adding the following, as a separate "
     'paragraph, before the paragraph beginning "Ties": Judges may not vote.', [part(IN, P,
     "Ties", text="Judges may not vote.", position="before")],
     rule_of(FIRST, LIST, "Judges may not vote.", LAST)),
    ("inserting-at-the-end-of-first", "Amend Rule 5 by inserting the following text at the end"
     ' of the first paragraph: "Late votes are void."', *joined_to_first("Late votes are void.")),
    ("adding-a-paragraph-reading", "Amend Rule 5 by adding a paragraph reading:\n\n  Votes.",
     [Clause(AP, 5, "Votes.")], RULE + "\n\nVotes."),
    ("adding-a-new-paragraph-as-follows", "Amend Rule 5 by adding a new paragraph as follows:"
     "\n\n  Votes.", [Clause(AP, 5, "Votes.")], RULE + "\n\nVotes."),
]  # fmt: skip

REPEALS: list[Case] = [
    # "Repeal the following rules:" with the rules after the colon or listed below
    ("repeal-following-inline", "Repeal the following rules: 2143, 2144 and 2145.",
     [Clause(RP, 2143), Clause(RP, 2144), Clause(RP, 2145)], ""),
    ("repeal-each-of-listed", "Repeal each of the following rules:\n* Rule 7 (Dice)\n"
     "* Rule 9 (Coins)", [Clause(RP, 7), Clause(RP, 9)], ""),
    ("repeal-following-indented", "Repeal the following rules:\n\n  R7\n  R9, R11",
     [Clause(RP, 7), Clause(RP, 9), Clause(RP, 11)], ""),
    ("repeal-following-titles", 'Repeal the following rules: Rule 7 ("Dice"), Rule 9 ("Coins")',
     [Clause(RP, 7), Clause(RP, 9)], ""),
    ("repeal-following-numbered", "Repeal the following rules:\n1. 2143\n2. 2144",
     [Clause(RP, 2143), Clause(RP, 2144)], ""),
    # the order they are repealed in named (it changes nothing); the rules apart or wrapped
    ("repeal-each-in-order-apart", "Repeal each of the following rules, in ascending numerical "
     "order by ID:\n\n* Rule 7 (Dice)\n\n* Rule 9 (Coins)", [Clause(RP, 7), Clause(RP, 9)], ""),
    ("repeal-in-order-listed-wrapped", "Repeal the following rules in the order they are listed:"
     " R7 (Dice\nRolling), R9 (Coins), and\nR11 (Cards).", [Clause(RP, 7), Clause(RP, 9),
     Clause(RP, 11)], ""),
    ("repeal-in-numerical-order", "Repeal the following rules, in numerical order: 2143 and "
     "2144.", [Clause(RP, 2143), Clause(RP, 2144)], ""),
    ("repeal-in-given-order-below", "Repeal the following rules in the given order:\n  - R12 "
     "(Bank)\n  - R3 (Votes)", [Clause(RP, 12), Clause(RP, 3)], ""),
    ("repeal-following-spaces", "Repeal the following rules: R7 R9 R11.", [Clause(RP, 7),
     Clause(RP, 9), Clause(RP, 11)], ""),
    ("repeal-in-order-listed-numbered-apart", "Repeal each of the following rules, in the order"
     " listed:\n\n1. Rule 40\n\n2. Rule 41", [Clause(RP, 40), Clause(RP, 41)], ""),
]  # fmt: skip

SMALLER: list[Case] = [
    # a rule's revision after its number; "with the sentence"; "the text of" a part;
    # "the text" before each new text; a retitling "from" the old title
    ("revision-number", 'Amend Rule 5/12 (Voting) by replacing "one week" with "a day".',
     [Clause(R, 5, old="one week", new="a day")],
     rule_of("Voting lasts a day. Votes may be changed.", LIST, LAST)),
    ("with-the-sentence", 'Amend Rule 5 by replacing the sentence beginning "Votes may" with '
     'the sentence "Votes are final."', [part(R, S, "Votes may", text="Votes are final.")],
     rule_of("Voting lasts one week. Votes are final.", LIST, LAST)),
    ("the-text-of-the-part", 'Amend Rule 5 by replacing the text of the last paragraph with '
     '"Ties pass."', [part(R, P, nth=-1, text="Ties pass.")], rule_of(FIRST, LIST, "Ties pass.")),
    ("more-with-the-text", 'Amend Rule 5 by replacing the text "one" with the text "two" and '
     'the text "fail" with the text "pass".', [Clause(R, 5, old="one", new="two"),
     Clause(R, 5, old="fail", new="pass")],
     rule_of("Voting lasts two week. Votes may be changed.", LIST, "Ties pass.")),
    ("retitle-from-to", 'Retitle Rule 5 from "Voting" to "Votes".', [Clause(RT, 5, "Votes")], ""),
    ("changing-title-from-to", 'Amend Rule 5 by changing its title from "Voting" to "Votes".',
     [Clause(RT, 5, "Votes")], ""),
]  # fmt: skip

LISTS_APART: list[Case] = [
    # the edits listed below a heading, with blank lines between the items
    ("as-follows-letters-apart", 'Amend Rule 5 (Voting) as follows:\n\na. Replace "one week" '
     'with "a day".\n\nb. Delete the last paragraph.', [Clause(R, 5, old="one week",
     new="a day"), part(R, P, nth=-1)], rule_of("Voting lasts a day. Votes may be changed.",
                                                 LIST)),
    ("by-figures-apart", 'Amend Rule 5 by:\n\n1. replacing "fail" with "pass";\n\n2. deleting'
     ' " may be changed"; and\n\n3. appending "Really."', [Clause(R, 5, old="fail", new="pass"),
     Clause(R, 5, old=" may be changed", new=""), Clause(AP, 5, "Really.")], ""),
    ("bullets-apart-indented", 'Amend Rule 5 by:\n\n  * replacing "one" with "two";\n\n'
     '  * replacing "fail" with "pass".', [Clause(R, 5, old="one", new="two"),
     Clause(R, 5, old="fail", new="pass")],
     rule_of("Voting lasts two week. Votes may be changed.", LIST, "Ties pass.")),
    ("single-amendment-apart", 'Amend Rule 5 by, as a single amendment:\n\n(a) deleting "one '
     'week"\n\n(b) deleting "Ties fail."', [Clause(R, 5, old="one week", new=""),
     Clause(R, 5, old="Ties fail.", new="")], ""),
    ("apart-then-other-list", 'Amend Rule 5 by:\n\n- deleting "one"\n\n- deleting "two"\n\n'
     "1. This numbered note is not an edit.", [Clause(R, 5, old="one", new=""),
     Clause(R, 5, old="two", new="")], ""),
    ("apart-then-next-change", 'Amend Rule 5 by:\n\n- deleting "one"\n\n- deleting "two"\n\n'
     "- Repeal Rule 6.", [Clause(R, 5, old="one", new=""), Clause(R, 5, old="two", new=""),
     Clause(RP, 6)], ""),
]  # fmt: skip

PART_TEXTS: list[Case] = [
    # "replacing the paragraph:" <block> "with:" <block>: the part's text replaced as text
    ("replacing-the-paragraph-block", "Amend Rule 5 by replacing the paragraph:\n\n  Ties fail."
     "\n\nwith:\n\n  Ties pass.", [Clause(R, 5, old="Ties fail.", new="Ties pass.")],
     rule_of(FIRST, LIST, "Ties pass.")),
    ("replacing-the-sentence-block", "Amend Rule 5 by replacing the sentence:\n  Votes may be "
     "changed.\nwith the sentence:\n  Votes are final.", [Clause(R, 5,
     old="Votes may be changed.", new="Votes are final.")],
     rule_of("Voting lasts one week. Votes are final.", LIST, LAST)),
    ("replacing-the-item-block", "In Rule 5, replace the list item:\n{\n- players;\n}\nwith:\n"
     "{\n- all players;\n}", [Clause(R, 5, old="- players;", new="- all players;")],
     rule_of(FIRST, "The following persons may vote:\n- all players;\n- the Speaker.", LAST)),
    ("replacing-this-paragraph", "Amend Rule 5 (Voting) by replacing this paragraph:\n\n"
     "  Ties fail.\n\nwith this paragraph:\n\n  Ties are re-voted.", [Clause(R, 5,
     old="Ties fail.", new="Ties are re-voted.")], rule_of(FIRST, LIST, "Ties are re-voted.")),
    ("replacing-the-line-block", "Amend Rule 5 by replacing the line:\n  - the Speaker.\nwith "
     "the line:\n  - the host.", [Clause(R, 5, old="- the Speaker.", new="- the host.")],
     rule_of(FIRST, "The following persons may vote:\n- players;\n- the host.", LAST)),
]  # fmt: skip

MORE_CASES = (PART_TEXTS + LISTS_APART + BARE_TITLES + AT_THE_END + CARDINALS + QUOTED_BLOCKS
              + JOINED + QUOTES_AND_BRACES + HEADS + RETITLINGS + INSERTIONS + EVERYWHERE
              + WHOLE_TEXTS + PLACES + REPEALS + SMALLER)

MORE_NEAR_MISSES: list[tuple[str, str]] = [
    # "Section 3" after the number is a part of the rule, not its title.
    ("section-after-number", "Amend Rule 5 Section 3 by deleting the last paragraph."),
    ("part-word-after-number", "Replace the first paragraph of Rule 5 Paragraph B with: x"),
    # "Title" after the number names what is changed, not the rule's title.
    ("title-word-after-number", "Amend Rule 5 Title to read: Votes"),
    ("power-word-after-number", "Amend Rule 5 Power to read: 2"),
    ("condition-word-after-number", "Repeal Rule 5 Only After Midnight."),
    # A figure may be a paragraph's label, not its place.
    ("paragraph-figure", "At the end of paragraph 4 of Rule 5, append the following sentence: x"),
    # Two paragraphs put at the end of a paragraph: joined to it, or new ones?
    ("at-end-paragraphs", "At the end of the last paragraph of Rule 5, append:\n\n  Really."
     "\n\n  Truly."),
    ("text-to-paragraph-paragraphs", "Amend Rule 5 by appending the following text to its first"
     " paragraph:\n\n  Really.\n\n  Truly."),
    # A list item is not joined by "the following text": onto the item, or a new item?
    ("text-to-item", "Amend Rule 5 by appending the following text to the last list item: x"),
    # A semicolon for a colon takes only an indented block (a sentence may go on).
    ("replacing-semicolon-unindented", "Amend Rule 5 by replacing;\nVotes\nwith:\nBallots"),
    # Single quotes around a text with no double quote: an apostrophe is too like them.
    ("single-quotes-plain", "Amend Rule 5 by deleting 'one week'."),
    # A quote never closed with more after it: where does the text end?
    ("quote-open-then-more", 'Amend Rule 5 by appending the following sentence to the last '
     'paragraph\n"Ties fail.\n\nThe Speaker rejoices.'),
    # "everywhere" after one pair of several: does it reach the others?
    ("everywhere-after-pairs", 'Amend Rule 5 by replacing "a" with "b" and "c" with "d" '
     "everywhere it appears."),
    ("everywhere-then-more", 'Amend Rule 5 by replacing "a" with "b" everywhere, and deleting '
     '"c".'),
    # The passive of a change no form makes.
    ("passive-transmuted-power", "Rule 5 is hereby amended by changing its power to 2."),
    # A new part "as a new line" next to a paragraph: which is meant?
    ("as-a-new-line-after-paragraph", "Amend Rule 5 by inserting the following as a new line "
     "after the first paragraph: x"),
    # A list of rules with anything else in it: the host reads it.
    ("repeal-following-not-rules", "Repeal the following rules: 2143, and any rule about dice."),
    # "1.2" is no two rules; an order that is someone's choice is no order of the list.
    ("repeal-rules-decimal", "Repeal Rules 1.2 and 3."),
    ("repeal-in-an-order-chosen", "Repeal the following rules in an order the Speaker picks: "
     "1, 2"),
    # "with the paragraph beginning": a place, not the new text.
    ("with-the-paragraph-beginning", 'Amend Rule 5 by replacing the paragraph beginning "Ties" '
     'with the paragraph beginning "Votes".'),
    # An item apart that is no edit: the list is the host's.
    ("item-apart-not-an-edit", 'Amend Rule 5 as follows:\n\na. Replace "a" with "b".\n\n'
     "b. Renumber the list."),
    ("at-end-then-insert", 'At the end of Rule 5, append "x" and insert "y" after "z".'),
]  # fmt: skip
