"""Issue 26's wordings met on a second set of proposals the reader had not seen.

The tables are laid out as those of :mod:`tests.mail.natural_cases_more`, and read with
them by ``test_natural_units.py``.
"""

from __future__ import annotations

from speakerbot.mail.inbound.language.results import Clause, ClauseKind
from tests.mail.natural_cases import (
    AP,
    FIRST,
    IN,
    LAST,
    LIST,
    RULE,
    Case,
    P,
    R,
    every,
    part,
    replaced,
    rule_of,
)

__all__ = ["UNSEEN_CASES", "UNSEEN_NEAR_MISSES"]

EN, AM, RT = ClauseKind.ENACT, ClauseKind.AMEND, ClauseKind.RETITLE
NO_SECOND = "Voting lasts one week."
"""RULE's first paragraph once its second sentence is deleted as text."""


def with_first(first: str, last: str = LAST, items: str = LIST) -> str:
    """RULE with another first paragraph (and last paragraph, and list)."""
    return rule_of(first, items, last)


def appended(*paragraphs: str) -> str:
    """RULE with ``paragraphs`` put at its end."""
    return rule_of(RULE, *paragraphs)


GOING_ON: list[Case] = [
    # after a change of a rule, its edits go on below: "and removing:", a gerund alone
    ("and-replacing-block", "Amend Rule 5 by replacing:\n\n  one week\n\nwith:\n\n  three days"
     "\n\nand replacing:\n\n  Ties fail.\n\nwith:\n\n  Ties pass.", [replaced("one week",
     "three days"), replaced("Ties fail.", "Ties pass.")],
     with_first("Voting lasts three days. Votes may be changed.", "Ties pass.")),
    ("and-adding-block", 'Amend Rule 5 by replacing "one week" with "a day".\n\nand adding:\n\n'
     "  Late votes are void.", [replaced("one week", "a day"), Clause(AP, 5,
     "Late votes are void.")], rule_of("Voting lasts a day. Votes may be changed.", LIST, LAST,
                                      "Late votes are void.")),
    ("and-deleting-quoted", 'In Rule 5, replace "players" with "judges".\nand deleting " Votes '
     'may be changed."', [replaced("players", "judges"), replaced(" Votes may be changed.", "")],
     with_first(NO_SECOND, items=LIST.replace("players", "judges"))),
    ("gerunds-alone", 'Amend Rule 5 by replacing\n\n"one week"\n\nwith\n\n"two weeks",\n\n'
     'replacing\n\n"Ties fail."\n\nwith\n\n"Ties pass.",\n\nand replacing\n\n"players;"\n\nwith'
     '\n\n"judges;"', [replaced("one week", "two weeks"), replaced("Ties fail.", "Ties pass."),
     replaced("players;", "judges;")], with_first("Voting lasts two weeks. Votes may be changed.",
     "Ties pass.", LIST.replace("players", "judges"))),
    ("also-appending", 'Amend Rule 5 by deleting " Votes may be changed."\n\nalso appending:\n\n'
     "  Late votes are void.", [replaced(" Votes may be changed.", ""), Clause(AP, 5,
     "Late votes are void.")], rule_of(NO_SECOND, LIST, LAST, "Late votes are void.")),
    ("and-changing", "Amend R5 (Voting) by replacing:\n  the Speaker\nwith:\n  the host\n\n"
     'and changing "fail" to "pass".', [replaced("the Speaker", "the host"),
     replaced("fail", "pass")], with_first(FIRST, "Ties pass.",
                                           LIST.replace("the Speaker", "the host"))),
]  # fmt: skip

QUOTATION_LINES: list[Case] = [
    # a line that is one quotation is the text, with no colon before it
    ("following-sentence-quoted-lines", "Amend Rule 5 by replacing the following sentence:\n"
     '"Votes may be changed."\nwith\n"Votes are final."',
     [replaced("Votes may be changed.", "Votes are final.")],
     with_first("Voting lasts one week. Votes are final.")),
    ("replacing-quoted-lines", 'Amend Rule 5 by replacing\n"one week"\nwith\n"ten days".',
     [replaced("one week", "ten days")],
     with_first("Voting lasts ten days. Votes may be changed.")),
    ("curly-quoted-lines-apart", "In Rule 5, replace\n\n“the Speaker.”\n\nwith\n\n“the Speaker"
     " and the host.”", [replaced("the Speaker.", "the Speaker and the host.")],
     with_first(FIRST, items=LIST.replace("Speaker.", "Speaker and the host."))),
    ("last-paragraph-quoted-line", "Amend Rule 5 by replacing the last paragraph with\n\"Ties are"
     ' re-voted."', [part(R, P, nth=-1, text="Ties are re-voted.")],
     with_first(FIRST, "Ties are re-voted.")),
    ("changing-to-read-quoted-lines", 'Amend Rule 5 by changing\n"lasts"\nto read\n"runs for"',
     [replaced("lasts", "runs for")], with_first("Voting runs for one week. Votes may be "
                                                   "changed.")),
]  # fmt: skip

BRACES_ON_THE_LINE: list[Case] = [
    # the old text's brace opens on the edit's own line: "by replacing {"
    ("replacing-brace-on-line", "Amend Rule 5 by replacing {\nTies fail.\n}\nwith {\nTies "
     "pass.\n}", [replaced("Ties fail.", "Ties pass.")], with_first(FIRST, "Ties pass.")),
    ("removing-brace-on-line", "Amend Rule 5 by removing {\nVotes may be changed.\n}",
     [replaced("Votes may be changed.", "")], with_first(NO_SECOND)),
    ("and-by-replacing-brace", 'Amend Rule 5 by replacing "one" with "two"\n\nand by replacing'
     " {\nTies fail.\n}\n\nwith {\nTies pass.\n}", [replaced("one", "two"),
     replaced("Ties fail.", "Ties pass.")],
     with_first("Voting lasts two week. Votes may be changed.", "Ties pass.")),
    ("replace-brace-with-colon-brace", "In Rule 5, replace {\n  - players;\n}\nwith:\n{\n  - "
     "judges;\n}", [replaced("- players;", "- judges;")],
     with_first(FIRST, items=LIST.replace("players", "judges"))),
    ("replacing-triple-brace-on-line", "Amend Rule 5 by replacing {{{\nTies fail.\n}}}\nwith "
     "{{{\nTies pass.\n}}}", [replaced("Ties fail.", "Ties pass.")],
     with_first(FIRST, "Ties pass.")),
]  # fmt: skip

BLOCK_AFTER_EDITS: list[Case] = [
    # a block edit last, after edits of quoted text: 'removing "X" and replacing:'
    ("removing-then-replacing-block", 'Amend Rule 5 by removing " Votes may be changed." and '
     "replacing:\n\n  Ties fail.\n\nwith:\n\n  Ties pass.", [replaced(" Votes may be changed.",
     ""), replaced("Ties fail.", "Ties pass.")], with_first(NO_SECOND, "Ties pass.")),
    ("replacing-then-deleting-block", 'Amend Rule 5 by replacing "one" with "two" and deleting:'
     "\n  Votes may be changed.", [replaced("one", "two"), replaced("Votes may be changed.",
     "")], with_first("Voting lasts two week.")),
    ("comma-and-replacing-block", 'Amend Rule 5 by replacing "one week" with "a day", and '
     "replacing:\n  players\nwith:\n  judges", [replaced("one week", "a day"),
     replaced("players", "judges")], with_first("Voting lasts a day. Votes may be changed.",
     items=LIST.replace("players", "judges"))),
    ("replace-then-remove-block", 'In Rule 5, replace "fail" with "pass" and remove:\n\n  Votes'
     " may be changed.", [replaced("fail", "pass"), replaced("Votes may be changed.", "")],
     with_first(NO_SECOND, "Ties pass.")),
    ("inserting-then-replacing-block", 'Amend Rule 5 by inserting " calendar" after "one" and '
     "replacing:\n  Ties fail.\nwith:\n  Ties pass.", [Clause(IN, 5, " calendar", anchor="one",
     position="after"), replaced("Ties fail.", "Ties pass.")],
     with_first("Voting lasts one calendar week. Votes may be changed.", "Ties pass.")),
]  # fmt: skip

TEXT_OF_RULE: list[Case] = [
    # "Amend the text of Rule N by ..."
    ("text-of-rule-by-replacing", 'Amend the text of Rule 5 by replacing "one week" with '
     '"a day".', [replaced("one week", "a day")],
     with_first("Voting lasts a day. Votes may be changed.")),
    ("text-of-r-titled-block", 'Amend the text of R5 ("Voting") by replacing:\n\n   Ties fail.'
     "\n\nwith:\n\n   Ties pass.", [replaced("Ties fail.", "Ties pass.")],
     with_first(FIRST, "Ties pass.")),
    ("text-of-rule-deleting", 'Amend the text of Rule 5 (Voting) by deleting " Votes may be '
     'changed."', [replaced(" Votes may be changed.", "")], with_first(NO_SECOND)),
    ("text-of-rule-appending", "Amend the text of rule 5 by appending: Late votes are void.",
     [Clause(AP, 5, "Late votes are void.")], appended("Late votes are void.")),
    ("text-of-rule-last-paragraph", "Amend the text of Rule 5 by replacing the last paragraph "
     "with: Ties pass.", [part(R, P, nth=-1, text="Ties pass.")],
     with_first(FIRST, "Ties pass.")),
]  # fmt: skip

WHICH_READS: list[Case] = [
    # "deleting the bullet point which reads:" <block> "and replace it with:" <block>
    ("bullet-which-reads-replace-it", "Amend Rule 5 to delete the bullet point which reads:\n"
     "  the Speaker.\nand replace it with:\n  the host.", [replaced("the Speaker.",
     "the host.")], with_first(FIRST, items=LIST.replace("the Speaker.", "the host."))),
    ("item-that-reads-replacing-it", "Amend Rule 5 by deleting the list item that reads:\n\n"
     "  players;\n\nand replacing it with:\n\n  judges;", [replaced("players;", "judges;")],
     with_first(FIRST, items=LIST.replace("players", "judges"))),
    ("paragraph-which-reads-replace-it", "Amend Rule 5 by removing the paragraph which reads:\n"
     "  Ties fail.\nand replace it with:\n  Ties are re-voted.", [replaced("Ties fail.",
     "Ties are re-voted.")], with_first(FIRST, "Ties are re-voted.")),
    ("line-which-reads-braces", "Amend R5 by deleting the line which reads:\n{\n- players;\n}\n"
     "and replace it with:\n{\n- all players;\n}", [replaced("- players;", "- all players;")],
     with_first(FIRST, items=LIST.replace("players", "all players"))),
    ("sentence-which-reads-then-colon", "Amend Rule 5 by deleting the sentence which reads:\n"
     "  Votes may be changed.\nand then replace it with: Votes are final.",
     [replaced("Votes may be changed.", "Votes are final.")],
     with_first("Voting lasts one week. Votes are final.")),
]  # fmt: skip

PARAGRAPHS_APPENDED: list[Case] = [
    # "appending the following paragraphs", "adding another paragraph", "to the end the following"
    ("following-paragraphs-braces", "Amend Rule 5 by appending the following paragraphs:\n{\n"
     "Late votes are void.\n\nEarly votes count.\n}", [Clause(AP, 5, "Late votes are void.\n\n"
     "Early votes count.")], appended("Late votes are void.", "Early votes count.")),
    ("another-paragraph-quoted", 'Amend Rule 5 by adding another paragraph:\n"Late votes are '
     'void."', [Clause(AP, 5, "Late votes are void.")], appended("Late votes are void.")),
    ("to-the-end-the-following", "Amend Rule 5 by appending to the end the following "
     "paragraphs:\n\n  Late votes are void.\n\n  Early votes count.", [Clause(AP, 5, "Late "
     "votes are void.\n\nEarly votes count.")], appended("Late votes are void.",
                                                        "Early votes count.")),
    ("following-paragraphs-inline", 'Amend Rule 5 (Voting) by adding the following paragraphs: '
     '"Late votes are void."', [Clause(AP, 5, "Late votes are void.")],
     appended("Late votes are void.")),
    ("in-rule-another-paragraph", "In Rule 5, append another paragraph: Late votes are void.",
     [Clause(AP, 5, "Late votes are void.")], appended("Late votes are void.")),
    ("adding-to-the-end-the-text", "Amend Rule 5 by adding to the end the following text: "
     "Really.", [Clause(AP, 5, "Really.")], appended("Really.")),
]  # fmt: skip

POWERS_AS_P: list[Case] = [
    # a power written "P=0.5" (not kept)
    ("titled-at-p", 'Enact a new rule titled "Dice" at P=0.5 with the following text:\n\n  Dice'
     " are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("titled-with-p", 'Enact a new rule titled "Coins" with P=2: Coins are round.',
     [Clause(EN, None, "Coins are round.", title="Coins")], ""),
    ("create-titled-at-p-spaced", 'Create a new rule, titled "Dice", at P = 1.5, with the '
     "following text: Dice are fair.", [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("at-p-then-titled", 'Enact a new rule at P=3, titled "Bank", with the following text:\n{\n'
     "The bank holds coins.\n}", [Clause(EN, None, "The bank holds coins.", title="Bank")], ""),
    ("bare-title-at-p", 'Enact a new rule "Dice" at P=1 with the following text: Dice are fair.',
     [Clause(EN, None, "Dice are fair.", title="Dice")], ""),
    ("with-p-then-titled", 'Enact a new rule with P=2, titled "Bank": The bank holds coins.',
     [Clause(EN, None, "The bank holds coins.", title="Bank")], ""),
]  # fmt: skip

TITLED_AND_TO_READ: list[Case] = [
    # "Amend Rule N to be titled "T" and to read in full:": RETITLE, then AMEND
    ("to-be-titled-and-to-read", 'Amend Rule 5 to be titled "Votes" and to read in full:\n\n'
     "  Votes are final.", [Clause(RT, 5, "Votes"), Clause(AM, 5, "Votes are final.")], ""),
    ("titled-wrapped-before-to-read", 'Amend R5, "Voting", to be titled "Ballots" and\nto read '
     "in full:\n  Ballots are secret.", [Clause(RT, 5, "Ballots"), Clause(AM, 5,
     "Ballots are secret.")], ""),
    ("retitled-and-to-read-braces", 'Amend Rule 5 (Voting) to be retitled "Votes" and to read:'
     "\n{\nVotes are final.\n}", [Clause(RT, 5, "Votes"), Clause(AM, 5, "Votes are final.")],
     ""),
    ("titled-comma-as-follows", 'Amend Rule 5 to be titled "Votes", and to read as follows: '
     "Votes are final.", [Clause(RT, 5, "Votes"), Clause(AM, 5, "Votes are final.")], ""),
    ("titled-so-as-to-read-quoted", 'Amend rule 5 to be titled "Votes" and so as to read '
     '"Votes are final."', [Clause(RT, 5, "Votes"), Clause(AM, 5, "Votes are final.")], ""),
]  # fmt: skip

RULES_NAMED_FIRST: list[Case] = [
    # "Amend Rules A, B and C [in the given order] by replacing every instance of ..."
    ("rules-titled-given-order", "Amend Rules 5 (Voting), 6 (Dice), and 7 (Coins) in the given "
     'order by replacing every instance of the word "crime" with "infraction".',
     [every(5, "crime", "infraction"), every(6, "crime", "infraction"),
      every(7, "crime", "infraction")], ""),
    ("two-rules-every-occurrence", 'Amend Rules 5 and 6 by replacing every occurrence of '
     '"Speaker" with "host".', [every(5, "Speaker", "host"), every(6, "Speaker", "host")], ""),
    ("rules-order-listed-commas", "Amend Rules 5, 6 and 7, in the order listed, by replacing "
     'each instance of "coin" with "token".', [every(5, "coin", "token"),
     every(6, "coin", "token"), every(7, "coin", "token")], ""),
    ("rules-quoted-titles-wherever", 'Amend Rules 12 ("Bank") and 13 ("Vault") by replacing '
     '"coin" with "token" wherever it appears.', [every(12, "coin", "token"),
     every(13, "coin", "token")], ""),
    ("rules-wrapped", "Amend Rules 5 (Voting), 6\n(Dice Rolling), and 7 in the given order by "
     'replacing every instance of\n"a" with "b".', [every(5, "a", "b"), every(6, "a", "b"),
     every(7, "a", "b")], ""),
]  # fmt: skip

UNSEEN_CASES = (GOING_ON + QUOTATION_LINES + BRACES_ON_THE_LINE + BLOCK_AFTER_EDITS
                + TEXT_OF_RULE + WHICH_READS + PARAGRAPHS_APPENDED + POWERS_AS_P
                + TITLED_AND_TO_READ + RULES_NAMED_FIRST)

UNSEEN_NEAR_MISSES: list[tuple[str, str]] = [
    # Edits going on with no change before them: of which rule?
    ("and-removing-first", "and removing:\n  Ties fail."),
    # A line that is a quotation and more is no text: where would it end?
    ("quotation-and-more", 'Amend Rule 5 by replacing\n"one week" and more\nwith\n"a day"'),
    # Braces opened and closed twice on one line: which brace closes the old text?
    ("braces-twice-on-line", "Amend Rule 5 (Voting) by replacing {one week} with {three days}"),
    # A part deleted by its text alone would leave its marker or its break behind.
    ("bullet-which-reads-deleted", "Amend Rule 5 by deleting the bullet point which reads:\n"
     "  the Speaker."),
    ("paragraph-which-reads-moved", "Amend Rule 5 by deleting the paragraph which reads:\n"
     "  Ties fail.\nand put it after the first paragraph."),
    # A retitling with any other change than a new text.
    ("titled-and-repealed", 'Amend Rule 5 to be titled "Votes" and to be repealed.'),
    # Several rules, each to be found once: only "every" is read.
    ("rules-named-first-once", 'Amend Rules 5 and 6 by replacing "a" with "b".'),
    # A rule enacted again under its old number: the engine gives new rules new numbers.
    ("reenact", 'Reenact Rule 5 ("Voting") with the following text:\n  Votes.'),
    # "P" with no figure is no power.
    ("at-p-no-figure", 'Enact a new rule titled "Dice" at P with the following text: Dice.'),
]  # fmt: skip
