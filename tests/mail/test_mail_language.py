"""Table-driven tests of the command language (speakerbot.mail.inbound.language.parse_commands)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from speakerbot.mail.inbound.language import (
    ADMIN_ACTIONS,
    COMMANDS,
    MAX_COMMAND_LINES,
    AdminExtend,
    Clause,
    ClauseKind,
    Propose,
    Vote,
    every_help,
    parse_commands,
    redact,
)


@dataclass(frozen=True)
class Case:
    """One message: what it says and what must be read from it.

    ``errors`` holds (line, reason); a reason starting with ``~`` need only occur
    in the actual reason. ``ignored`` holds line numbers.
    """

    id: str
    body: str
    commands: list[dict[str, object]] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    ignored: list[int] = field(default_factory=list)
    subject: str = ""


def vote(line: int, proposal: int, choice: str) -> dict[str, object]:
    return {"line": line, "verb": "VOTE", "proposal": proposal, "choice": choice}


def bare(line: int, verb: str) -> dict[str, object]:
    return {"line": line, "verb": verb}


def clause(kind: str, rule: int | None, text: str, immutable: bool = False) -> dict[str, object]:
    return {"kind": kind, "rule": rule, "text": text, "immutable": immutable}


def propose(line: int, title: str, text: str, *clauses: dict[str, object]) -> dict[str, object]:
    return {"line": line, "verb": "PROPOSE", "title": title, "text": text, "clauses": list(clauses)}


def admin(line: int, action: str, **fields: object) -> dict[str, object]:
    return {"line": line, "verb": "ADMIN", "action": action, **fields}


VOTE_CHOICE = "VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, e.g. VOTE {} FOR"
NEEDS_PASSWORD = "~admin commands need a PASSWORD line"

CASES = [
    # ------------------------------------------------------------------ keywords, numbers
    Case("vote-upper", "VOTE 301 FOR", [vote(1, 301, "FOR")]),
    Case("vote-lower", "vote 301 for", [vote(1, 301, "FOR")]),
    Case("vote-mixed-case", "VoTe 301 AgAiNsT", [vote(1, 301, "AGAINST")]),
    Case("vote-hash-number", "VOTE #301 FOR", [vote(1, 301, "FOR")]),
    Case("vote-leading-zero", "VOTE 0301 FOR", [vote(1, 301, "FOR")]),
    Case("vote-yes", "VOTE 301 YES", [vote(1, 301, "FOR")]),
    Case("vote-aye", "VOTE 301 aye", [vote(1, 301, "FOR")]),
    Case("vote-no", "VOTE 301 NO", [vote(1, 301, "AGAINST")]),
    Case("vote-nay", "VOTE 301 Nay", [vote(1, 301, "AGAINST")]),
    Case("vote-abstain", "VOTE 301 ABSTAIN", [vote(1, 301, "ABSTAIN")]),
    Case("vote-trailing-period", "VOTE 301 FOR.", [vote(1, 301, "FOR")]),
    Case("vote-colon-after-verb", "Vote: 301 for", [vote(1, 301, "FOR")]),
    Case("vote-indented", "    VOTE 301 FOR   ", [vote(1, 301, "FOR")]),
    Case(
        "several-votes",
        "VOTE 301 FOR\nVOTE 302 AGAINST\nVOTE 303 ABSTAIN",
        [vote(1, 301, "FOR"), vote(2, 302, "AGAINST"), vote(3, 303, "ABSTAIN")],
    ),
    Case(
        "vote-same-twice-is-fine",
        "VOTE 301 FOR\nVOTE 301 yes",
        [vote(1, 301, "FOR"), vote(2, 301, "FOR")],
    ),
    Case(
        "vote-conflict",
        "VOTE 301 FOR\nVOTE 301 NO",
        [vote(1, 301, "FOR")],
        [(2, "proposal 301 already has a different VOTE on line 1 of this message; keep only one")],
    ),
    Case("vote-maybe", "VOTE 301 MAYBE", [], [(1, VOTE_CHOICE.format(301))]),
    Case(
        "vote-typo-choice",
        "VOTE 301 FRO",
        [],
        [(1, VOTE_CHOICE.format(301) + " (did you mean FOR?)")],
    ),
    Case(
        "vote-alone",
        "VOTE",
        [],
        [(1, "VOTE needs a proposal number and FOR, AGAINST or ABSTAIN, e.g. VOTE 301 FOR")],
    ),
    Case("vote-no-choice", "VOTE 301", [], [(1, VOTE_CHOICE.format(301))]),
    Case(
        "vote-word-order",
        "VOTE FOR 301",
        [],
        [(1, "write the proposal number first, e.g. VOTE 301 FOR")],
    ),
    Case(
        "vote-not-a-number",
        "VOTE three FOR",
        [],
        [(1, "VOTE needs a proposal number first, e.g. VOTE 301 FOR")],
    ),
    Case("vote-huge-number", "VOTE 12345678901234567890 FOR", [], [(1, "~proposal number")]),
    Case(
        "vote-extra-words",
        "VOTE 301 FOR because dice",
        [],
        [(1, "~VOTE takes only a proposal number")],
    ),
    Case(
        "vote-prose-is-an-error",
        "Vote early and often!",
        [],
        [(1, "~VOTE needs a proposal number")],
    ),
    Case(
        "consent",
        "CONSENT 301\nrefuse #302",
        [
            {"line": 1, "verb": "CONSENT", "proposal": 301},
            {"line": 2, "verb": "REFUSE", "proposal": 302},
        ],
    ),
    Case(
        "consent-turn",
        "consent turn\nCONSENT Turn.",
        [
            {"line": 1, "verb": "CONSENT", "turn": True},
            {"line": 2, "verb": "CONSENT", "turn": True},
        ],
    ),
    Case(
        "consent-turn-near-miss",
        "CONSNET TURN",
        [],
        [(1, "unknown command CONSNET; did you mean CONSENT?")],
    ),
    Case(
        "consent-bad",
        "CONSENT to everything",
        [],
        [
            (
                1,
                "CONSENT needs just a proposal number, e.g. CONSENT 301, "
                "or CONSENT TURN to let the next turn begin",
            )
        ],
    ),
    Case(
        "consent-conflict",
        "CONSENT 301\nREFUSE 301",
        [{"line": 1, "verb": "CONSENT", "proposal": 301}],
        [(2, "~keep only one of CONSENT and REFUSE")],
    ),
    Case("overrule", "OVERRULE #12", [{"line": 1, "verb": "OVERRULE", "cfj": 12}]),
    Case(
        "overrule-bad",
        "OVERRULE 12 13",
        [],
        [(1, "OVERRULE needs just a CFJ number, e.g. OVERRULE 12")],
    ),
    Case("join", "JOIN   Alice   Liddell ", [{"line": 1, "verb": "JOIN", "name": "Alice Liddell"}]),
    Case("join-unicode", "join Zoë Müller", [{"line": 1, "verb": "JOIN", "name": "Zoë Müller"}]),
    Case("join-alone", "JOIN", [], [(1, "JOIN needs a display name, e.g. JOIN Alice Smith")]),
    Case(
        "join-email",
        "JOIN alice@example.org",
        [],
        [(1, "a display name may not contain @; e.g. JOIN Alice Smith")],
    ),
    Case(
        "join-too-long",
        "JOIN " + "x" * 61,
        [],
        [(1, "a display name may be at most 60 characters long")],
    ),
    # ------------------------------------------------------------------ bare keywords vs prose
    Case(
        "bare-keywords",
        "STATUS\nrules\nScores\nhelp\nFORFEIT",
        [
            bare(1, "STATUS"),
            bare(2, "RULES"),
            bare(3, "SCORES"),
            bare(4, "HELP"),
            bare(5, "FORFEIT"),
        ],
    ),
    Case(
        "bare-punctuation",
        "Status?\nHELP!\nrules.",
        [bare(1, "STATUS"), bare(2, "HELP"), bare(3, "RULES")],
    ),
    Case(
        "bare-with-words-is-prose",
        "Rules are fun\nHelp me please\nStatus: confused\nForfeit is for losers",
        [],
        [],
        [1, 2, 3, 4],
    ),
    Case("prose", "Hi all,\nI think 301 is great.", [], [], [1, 2]),
    Case("prose-and-commands", "Hi all,\nVOTE 301 FOR\nCheers", [vote(2, 301, "FOR")], [], [1, 3]),
    Case(
        "list-marker-is-prose", "- VOTE 301 FOR\n* VOTE 302 FOR\n1. VOTE 303 FOR", [], [], [1, 2, 3]
    ),
    # ------------------------------------------------------------------ near misses
    Case(
        "near-miss-transposition",
        "VOET 301 FOR",
        [],
        [(1, "unknown command VOET; did you mean VOTE?")],
    ),
    Case(
        "near-miss-transposition-2",
        "VTOE 301 FOR",
        [],
        [(1, "unknown command VTOE; did you mean VOTE?")],
    ),
    Case(
        "near-miss-substitution",
        "BOTE 301 FOR",
        [],
        [(1, "unknown command BOTE; did you mean VOTE?")],
    ),
    Case(
        "near-miss-insertion",
        "VOTTE 301 FOR",
        [],
        [(1, "unknown command VOTTE; did you mean VOTE?")],
    ),
    Case("near-miss-deletion", "VOT 301 FOR", [], [(1, "unknown command VOT; did you mean VOTE?")]),
    Case(
        "near-miss-lower-case",
        "voet 301 for",
        [],
        [(1, "unknown command voet; did you mean VOTE?")],
    ),
    Case("near-miss-args-do-not-fit-is-prose", "VOET 301 MAYBE\nNote to self", [], [], [1, 2]),
    Case(
        "near-miss-propose-swallows-its-block",
        "PROPSE Free coffee\nEveryone gets coffee.\nEND PROPOSE\nVOTE 301 FOR",
        [vote(4, 301, "FOR")],
        [(1, "unknown command PROPSE; did you mean PROPOSE?")],
    ),
    Case(
        "near-miss-judgment",
        "JUDGMNET 12 TRUE",
        [],
        [(1, "unknown command JUDGMNET; did you mean JUDGEMENT?")],
    ),
    Case("near-miss-bare", "STAUTS", [], [(1, "unknown command STAUTS; did you mean STATUS?")]),
    Case("near-miss-bare-with-words-is-prose", "STAUTS please", [], [], [1]),
    Case("near-miss-join", "JION Alice", [], [(1, "unknown command JION; did you mean JOIN?")]),
    Case(
        "near-miss-admin",
        "ADMN DIGEST\nPASSWORD s3cret-value",
        [],
        [(1, "unknown command ADMN; did you mean ADMIN?")],
    ),
    Case("short-keyword-no-near-miss", "CJF Rule 105 allows dice\nEDN", [], [], [1, 2]),
    Case("real-words-are-not-typos", "John Smith\nJoan Baker\nHell\nRoles", [], [], [1, 2, 3, 4]),
    # ------------------------------------------------------------------ quoting, signatures, END
    Case(
        "quoted-lines",
        "> VOTE 301 FOR\n>VOTE 302 FOR\n  > VOTE 303 FOR\n>> STATUS\nVOTE 304 FOR",
        [vote(5, 304, "FOR")],
    ),
    Case("signature-dash-space", "VOTE 301 FOR\n-- \nAlice\nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case("signature-dash-only", "VOTE 301 FOR\n--\nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case("signature-dash-tab", "VOTE 301 FOR\n--\t\nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case(
        "three-dashes-is-prose",
        "VOTE 301 FOR\n---\nVOTE 302 FOR",
        [vote(1, 301, "FOR"), vote(3, 302, "FOR")],
        [],
        [2],
    ),
    Case("end-stops", "VOTE 301 FOR\nEND\nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case("end-lower-with-period", "VOTE 301 FOR\n  end.  \nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case("thanks-stops", "VOTE 301 FOR\nThanks!\nAlice\nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case("thanks-comma-stops", "VOTE 301 FOR\nthanks,\nJohn Smith", [vote(1, 301, "FOR")]),
    Case("stop-stops", "VOTE 301 FOR\nSTOP\nVOTE 302 FOR", [vote(1, 301, "FOR")]),
    Case(
        "thanks-with-words-is-prose",
        "Thanks, Alice\nVOTE 301 FOR\nThank you",
        [vote(2, 301, "FOR")],
        [],
        [1, 3],
    ),
    Case("end-of-prose", "End of story.\nVOTE 301 FOR", [vote(2, 301, "FOR")], [], [1]),
    Case(
        "original-message",
        "VOTE 301 FOR\n\n-----Original Message-----\nFrom: Bob\nVOTE 302 FOR",
        [vote(1, 301, "FOR")],
    ),
    Case(
        "outlook-underscores",
        "VOTE 301 FOR\n________________________________\nFrom: Bob\nVOTE 302 FOR",
        [vote(1, 301, "FOR")],
    ),
    Case(
        "outlook-header-block",
        "VOTE 301 FOR\nFrom: Bob Marley <bob@contoso.com>\n"
        "Sent: Monday, March 3, 2025\nVOTE 302 FOR",
        [vote(1, 301, "FOR")],
    ),
    Case("from-line-alone-is-prose", "From: me\nVOTE 301 FOR", [vote(2, 301, "FOR")], [], [1]),
    Case("apple-forward", "FYI\nBegin forwarded message:\nVOTE 301 FOR", [], [], [1]),
    Case("thunderbird-forward", "-------- Forwarded Message --------\nVOTE 301 FOR", []),
    # ------------------------------------------------------------------ stray END lines
    Case(
        "stray-end-propose",
        "END PROPOSE",
        [],
        [(1, "END PROPOSE closes nothing here: no PROPOSE begins above it in this message")],
    ),
    Case(
        "stray-end-rule",
        "end rule",
        [],
        [(1, "END RULE closes nothing here: no RULE begins above it in this message")],
    ),
    # ------------------------------------------------------------------ PROPOSE and clauses
    Case(
        "propose-free-text",
        "PROPOSE Be nice\nEveryone must be nice.\n\n  Indented second paragraph.\nEND PROPOSE",
        [propose(1, "Be nice", "Everyone must be nice.\n\n  Indented second paragraph.")],
    ),
    Case(
        "propose-commands-inside-are-text",
        "PROPOSE Meta\nVOTE 301 FOR\nSTATUS\nEND PROPOSE",
        [propose(1, "Meta", "VOTE 301 FOR\nSTATUS")],
    ),
    Case(
        "propose-quoted-lines-are-not-text",
        "PROPOSE Quotes\nLine one.\n> quoted\nLine two.\nEND PROPOSE",
        [propose(1, "Quotes", "Line one.\nLine two.")],
    ),
    Case(
        "propose-end-proposal-spelling",
        "propose Spelling\ntext\nend proposal.",
        [propose(1, "Spelling", "text")],
    ),
    Case(
        "clauses-every-kind",
        "PROPOSE All\nENACT RULE: A.\nENACT IMMUTABLE RULE:\nB.\nC.\nAMEND RULE 205: D.\n"
        "AMEND RULE #206:\nE.\nREPEAL RULE 105\nTRANSMUTE RULE #213\nSET quorum = 4\nEND PROPOSE",
        [
            propose(
                1,
                "All",
                "ENACT RULE: A.\nENACT IMMUTABLE RULE:\nB.\nC.\nAMEND RULE 205: D.\n"
                "AMEND RULE #206:\n"
                "E.\nREPEAL RULE 105\nTRANSMUTE RULE #213\nSET quorum = 4",
                clause("ENACT", None, "A."),
                clause("ENACT", None, "B.\nC.", immutable=True),
                clause("AMEND", 205, "D."),
                clause("AMEND", 206, "E."),
                clause("REPEAL", 105, ""),
                clause("TRANSMUTE", 213, ""),
                {
                    "kind": "SET",
                    "rule": None,
                    "text": "quorum = 4",
                    "immutable": False,
                    "parameter": "quorum",
                    "value": "4",
                },
            )
        ],
    ),
    Case(
        "clause-keywords-any-case",
        "PROPOSE Case\nenact rule: a\nAmend Rule 5: b\nrepeal rule 6\nset Quorum=3\nEND PROPOSE",
        [
            propose(
                1,
                "Case",
                "enact rule: a\nAmend Rule 5: b\nrepeal rule 6\nset Quorum=3",
                clause("ENACT", None, "a"),
                clause("AMEND", 5, "b"),
                clause("REPEAL", 6, ""),
                {
                    "kind": "SET",
                    "rule": None,
                    "text": "Quorum = 3",
                    "immutable": False,
                    "parameter": "Quorum",
                    "value": "3",
                },
            )
        ],
    ),
    Case(
        "clause-text-runs-to-next-clause",
        "PROPOSE Runs\nPreamble.\nREPEAL RULE 1\nbecause it is old\nAMEND RULE 2:\nnew\n\n"
        "Rationale: short.\nEND PROPOSE",
        [
            propose(
                1,
                "Runs",
                "Preamble.\nREPEAL RULE 1\nbecause it is old\nAMEND RULE 2:\nnew\n\n"
                "Rationale: short.",
                clause("REPEAL", 1, ""),  # a repeal has no text: its next line is prose
                clause("AMEND", 2, "new\n\nRationale: short."),
            )
        ],
    ),
    Case(
        "not-clauses",
        "PROPOSE Prose\nAmend the rules carefully.\nSet aside some time.\nEnact rules often.\n"
        "END PROPOSE",
        [
            propose(
                1, "Prose", "Amend the rules carefully.\nSet aside some time.\nEnact rules often."
            )
        ],
    ),
    Case(
        "clause-amend-no-number",
        "PROPOSE X\nAMEND RULE abc: text\nEND PROPOSE",
        [],
        [(2, "~AMEND RULE needs a rule number and a colon")],
    ),
    Case(
        "clause-amend-no-colon",
        "PROPOSE X\nAMEND RULE 5 to say: text\nEND PROPOSE",
        [],
        [(2, "~AMEND RULE needs a rule number and a colon")],
    ),
    Case(
        "clause-amend-no-text",
        "PROPOSE X\nAMEND RULE 5:\nEND PROPOSE",
        [],
        [(2, "~AMEND RULE 5 has no text")],
    ),
    Case(
        "clause-enact-number",
        "PROPOSE X\nENACT RULE 350: text\nEND PROPOSE",
        [],
        [(2, "~ENACT RULE takes no rule number")],
    ),
    Case(
        "clause-repeal-extra",
        "PROPOSE X\nREPEAL RULE 105 and 106\nEND PROPOSE",
        [],
        [(2, "~REPEAL RULE needs just a rule number, e.g. REPEAL RULE 105")],
    ),
    Case(
        "clause-set-malformed",
        "PROPOSE X\nSET = 5\nEND PROPOSE",
        [],
        [(2, "~SET needs a parameter name, = and a value")],
    ),
    Case(
        "clause-immutable-amend",
        "PROPOSE X\nAMEND IMMUTABLE RULE 5: x\nEND PROPOSE",
        [],
        [(2, "~only ENACT takes IMMUTABLE")],
    ),
    Case(
        "clause-error-names-the-proposal",
        "PROPOSE Longer votes\nAMEND RULE abc:\nEND PROPOSE",
        [],
        [(2, "~(in the proposal “Longer votes” on line 1, which was not submitted)")],
    ),
    Case(
        "propose-no-title",
        "PROPOSE\ntext\nEND PROPOSE",
        [],
        [(1, "~PROPOSE needs a title on the same line")],
    ),
    Case(
        "judgement-bad-skips-reasons",
        "JUDGEMENT 12 maybe\nreasons\nEND JUDGEMENT",
        [],
        [(1, "~JUDGEMENT needs TRUE")],
    ),
    Case(
        "admin-rule-bad-skips-block",
        "PASSWORD p\nADMIN RULE ENACT RULE 5: x\ntext\nEND RULE",
        [],
        [(2, "~ENACT RULE takes no rule number")],
    ),
    Case(
        "propose-no-text",
        "PROPOSE Empty\n\nEND PROPOSE",
        [],
        [(1, "~the proposal “Empty” has no text")],
    ),
    Case(
        "propose-unclosed-eof",
        "PROPOSE Open\ntext",
        [],
        [
            (
                1,
                "PROPOSE is never closed: write END PROPOSE on a line of its own after its text "
                "(before any signature)",
            )
        ],
    ),
    Case(
        "propose-unclosed-signature",
        "PROPOSE Open\ntext\n-- \nAlice\nEND PROPOSE",
        [],
        [(1, "~PROPOSE is never closed")],
    ),
    Case(
        "propose-unclosed-end",
        "PROPOSE Open\ntext\nEND\nEND PROPOSE",
        [],
        [(1, "~PROPOSE is never closed")],
    ),
    Case(
        "propose-unclosed-thanks",
        "PROPOSE Open\ntext\nThanks\n",
        [],
        [(1, "~PROPOSE is never closed")],
    ),
    # ------------------------------------------------------------------ CFJ and JUDGEMENT
    Case(
        "cfj-one-line",
        "CFJ Rule 105 allows dice\nVOTE 301 FOR",
        [
            {
                "line": 1,
                "verb": "CFJ",
                "statement": "Rule 105 allows dice",
                "arguments": "",
                "paradox": False,
            },
            vote(2, 301, "FOR"),
        ],
    ),
    Case(
        "cfj-with-arguments",
        "CFJ Rule 105 allows dice\nBecause it says so.\n> quoted\nEND CFJ\nVOTE 301 FOR",
        [
            {
                "line": 1,
                "verb": "CFJ",
                "statement": "Rule 105 allows dice",
                "arguments": "Because it says so.",
                "paradox": False,
            },
            vote(5, 301, "FOR"),
        ],
    ),
    Case(
        "cfj-paradox",
        "CFJ paradox: nothing can happen",
        [
            {
                "line": 1,
                "verb": "CFJ",
                "statement": "paradox: nothing can happen",
                "arguments": "",
                "paradox": True,
            }
        ],
    ),
    Case(
        "cfj-paradoxes-is-not-paradox",
        "CFJ Paradoxes are fun",
        [
            {
                "line": 1,
                "verb": "CFJ",
                "statement": "Paradoxes are fun",
                "arguments": "",
                "paradox": False,
            }
        ],
    ),
    Case(
        "cfj-block-not-stolen-by-next-cfj",
        "CFJ A\nCFJ B\nargs\nEND CFJ",
        [
            {"line": 1, "verb": "CFJ", "statement": "A", "arguments": "", "paradox": False},
            {"line": 2, "verb": "CFJ", "statement": "B", "arguments": "args", "paradox": False},
        ],
    ),
    Case("cfj-no-statement", "CFJ", [], [(1, "~CFJ needs the statement")]),
    Case(
        "judgement",
        "JUDGEMENT 12 TRUE",
        [{"line": 1, "verb": "JUDGEMENT", "cfj": 12, "value": "TRUE", "reasons": ""}],
    ),
    Case(
        "judgment-spelling-with-reasons",
        "judgment #12 undecided\nreason one\nreason two\nEND JUDGEMENT",
        [
            {
                "line": 1,
                "verb": "JUDGEMENT",
                "cfj": 12,
                "value": "UNDECIDED",
                "reasons": "reason one\nreason two",
            }
        ],
    ),
    Case(
        "judgement-colon",
        "JUDGEMENT 12: false",
        [{"line": 1, "verb": "JUDGEMENT", "cfj": 12, "value": "FALSE", "reasons": ""}],
    ),
    Case(
        "judgement-bad-value",
        "JUDGEMENT 12 MAYBE",
        [],
        [
            (
                1,
                "JUDGEMENT needs TRUE, FALSE or UNDECIDED after the CFJ number, "
                "e.g. JUDGEMENT 12 TRUE",
            )
        ],
    ),
    Case(
        "judgement-extra-words",
        "JUDGEMENT 12 TRUE because",
        [],
        [(1, "~give your reasons on the following lines")],
    ),
    # ------------------------------------------------------------------ subject shortcuts
    Case(
        "subject-propose",
        "ENACT RULE: x\n-- \nsig",
        [propose(0, "Title", "ENACT RULE: x", clause("ENACT", None, "x"))],
        subject="PROPOSE: Title",
    ),
    Case("subject-proposal", "text", [propose(0, "Title", "text")], subject="proposal : Title"),
    Case(
        "subject-propose-then-commands",
        "text\nEND PROPOSE\nVOTE 301 FOR",
        [propose(0, "T", "text"), vote(3, 301, "FOR")],
        subject="PROPOSE: T",
    ),
    Case(
        "subject-propose-empty-title",
        "text",
        [],
        [(0, "~a Subject PROPOSE: needs the proposal's title")],
        subject="PROPOSE:",
    ),
    Case(
        "subject-propose-empty-body",
        "",
        [],
        [(0, "the proposal “T” has no text; write its text in the body of the message")],
        subject="PROPOSE: T",
    ),
    Case(
        "subject-propose-clause-error",
        "AMEND RULE x:",
        [],
        [(1, "~in the proposal “T” in the Subject")],
        subject="PROPOSE: T",
    ),
    Case(
        "subject-cfj",
        "because\n",
        [{"line": 0, "verb": "CFJ", "statement": "dice", "arguments": "because", "paradox": False}],
        subject="CFJ: dice",
    ),
    Case("subject-cfj-empty", "", [], [(0, "~a Subject CFJ: needs the statement")], subject="CFJ:"),
    Case(
        "subject-judgement",
        "why",
        [{"line": 0, "verb": "JUDGEMENT", "cfj": 12, "value": "TRUE", "reasons": "why"}],
        subject="JUDGEMENT 12: TRUE",
    ),
    Case(
        "subject-judgment-hash",
        "",
        [{"line": 0, "verb": "JUDGEMENT", "cfj": 12, "value": "UNDECIDED", "reasons": ""}],
        subject="Judgment #12: undecided",
    ),
    Case("subject-re", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="Re: PROPOSE: T"),
    Case("subject-re-bracket", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="RE[2]: CFJ: x"),
    Case("subject-fwd", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="Fwd: JUDGEMENT 12: TRUE"),
    Case("subject-fw", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="FW: Proposal: x"),
    Case("subject-aw", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="AW: Proposal: x"),
    Case(
        "subject-sv-repeated", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="Sv: SV: re: Proposal: x"
    ),
    Case(
        "subject-tagged-is-not-a-command",
        "VOTE 1 FOR",
        [vote(1, 1, "FOR")],
        subject="[Nomic] PROPOSE: x",
    ),
    Case("subject-other", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="VOTE 301 FOR"),
    Case("subject-judgement-day", "VOTE 1 FOR", [vote(1, 1, "FOR")], subject="Judgement day: soon"),
    # ------------------------------------------------------------------ ADMIN and PASSWORD
    Case(
        "admin-actions",
        "PASSWORD pw-1\nADMIN ADD <Zoe@Example.net> Zoë M\nADMIN remove Alice Liddell\n"
        "ADMIN SCORE Alice Liddell +5\nADMIN SCORE bob@x.org −2 late\nADMIN SET quorum = 5\n"
        "ADMIN EXTEND 301 36h\nADMIN CLOSE #302\nADMIN VOID 303\nADMIN JUDGE 12 bob@x.org\n"
        "ADMIN SPEAKER Carol\nADMIN DIGEST",
        [
            admin(2, "add", email="zoe@example.net", name="Zoë M"),
            admin(3, "remove", player="Alice Liddell"),
            admin(4, "score", player="Alice Liddell", delta=5, reason=None),
            admin(5, "score", player="bob@x.org", delta=-2, reason="late"),
            admin(6, "set", parameter="quorum", value="5"),
            admin(7, "extend", proposal=301, duration="36h"),
            admin(8, "close", proposal=302),
            admin(9, "void", proposal=303, reason=None),
            admin(10, "judge", cfj=12, player="bob@x.org"),
            admin(11, "speaker", player="Carol"),
            admin(12, "digest"),
        ],
    ),
    Case(
        "admin-rule-block",
        "PASSWORD pw-1\nADMIN RULE AMEND RULE 205: first\nsecond\nEND RULE\nVOTE 1 FOR",
        [admin(2, "rule", clause=clause("AMEND", 205, "first\nsecond")), vote(5, 1, "FOR")],
    ),
    Case(
        "admin-rule-repeal-one-line",
        "PASSWORD pw-1\nADMIN RULE REPEAL RULE 105\nVOTE 1 FOR",
        [admin(2, "rule", clause=clause("REPEAL", 105, "")), vote(3, 1, "FOR")],
    ),
    Case(
        "admin-rule-unclosed",
        "PASSWORD pw-1\nADMIN RULE ENACT RULE:\ntext",
        [],
        [
            (
                2,
                "ADMIN RULE is never closed: write END RULE on a line of its own after its text "
                "(before any signature)",
            )
        ],
    ),
    Case(
        "admin-rule-two-clauses",
        "PASSWORD pw-1\nADMIN RULE ENACT RULE: a\nREPEAL RULE 3\nEND RULE",
        [],
        [(3, "~takes one clause")],
    ),
    Case(
        "admin-rule-no-clause",
        "PASSWORD pw-1\nADMIN RULE make it so",
        [],
        [(2, "~ADMIN RULE needs a clause")],
    ),
    Case(
        "admin-rule-empty-enact",
        "PASSWORD pw-1\nADMIN RULE ENACT RULE:\nEND RULE",
        [],
        [(2, "~ENACT RULE has no text")],
    ),
    Case("admin-no-action", "PASSWORD pw-1\nADMIN", [], [(2, "~ADMIN needs an action")]),
    Case(
        "admin-unknown-action",
        "PASSWORD pw-1\nADMIN FROB",
        [],
        [(2, "~unknown ADMIN action FROB; ADMIN needs one of")],
    ),
    Case(
        "admin-near-miss-action",
        "PASSWORD pw-1\nADMIN CLSOE 301",
        [],
        [(2, "unknown ADMIN action CLSOE; did you mean CLOSE?")],
    ),
    Case(
        "admin-score-unsigned",
        "PASSWORD pw-1\nADMIN SCORE alice 5",
        [],
        [(2, "~ADMIN SCORE needs a player, a signed number")],
    ),
    Case("admin-extend-zero", "PASSWORD pw-1\nADMIN EXTEND 301 0s", [], [(2, "~longer than zero")]),
    Case(
        "admin-extend-bad",
        "PASSWORD pw-1\nADMIN EXTEND 301 2 days",
        [],
        [(2, "~ADMIN EXTEND: cannot read '2 days' as a duration")],
    ),
    Case(
        "admin-add-bad-email",
        "PASSWORD pw-1\nADMIN ADD alice Alice",
        [],
        [(2, "~ADMIN ADD needs an email address and a display name")],
    ),
    Case(
        "admin-digest-args",
        "PASSWORD pw-1\nADMIN DIGEST now",
        [],
        [(2, "ADMIN DIGEST takes nothing after it")],
    ),
    Case(
        "admin-needs-password",
        "ADMIN DIGEST\nVOTE 1 FOR",
        [vote(2, 1, "FOR")],
        [(1, NEEDS_PASSWORD)],
    ),
    Case("admin-password-after", "ADMIN DIGEST\nPASSWORD: pw-1", [admin(1, "digest")]),
    Case(
        "admin-password-quoted-does-not-count",
        "> PASSWORD pw-1\nADMIN DIGEST",
        [],
        [(2, NEEDS_PASSWORD)],
    ),
    Case(
        "admin-password-in-signature-does-not-count",
        "ADMIN DIGEST\n-- \nPASSWORD pw-1",
        [],
        [(1, NEEDS_PASSWORD)],
    ),
    Case(
        "password-empty",
        "PASSWORD\nADMIN DIGEST",
        [],
        [
            (1, "PASSWORD needs the Speaker's password after it on the same line"),
            (2, NEEDS_PASSWORD),
        ],
    ),
    Case(
        "password-twice-different",
        "PASSWORD pw-1\nPASSWORD pw-2\nADMIN DIGEST",
        [admin(3, "digest")],
        [(2, "this message has two different PASSWORD lines; give the password only once")],
    ),
    Case("password-twice-same", "PASSWORD pw-1\nPASSWORD pw-1\nADMIN DIGEST", [admin(3, "digest")]),
    Case(
        "password-inside-a-block-is-not-text",
        "PROPOSE Secret\nPASSWORD pw-1\nrule text\nEND PROPOSE\nADMIN DIGEST",
        [propose(1, "Secret", "rule text"), admin(5, "digest")],
    ),
    # ------------------------------------------------------------------ line counting
    Case("crlf", "Hi\r\nVOTE 1 FOR\r\n", [vote(2, 1, "FOR")], [], [1]),
    Case("lone-cr", "Hi\rVOTE 1 FOR\r", [vote(2, 1, "FOR")], [], [1]),
    Case("bom", "\ufeffVOTE 1 FOR\nHi", [vote(1, 1, "FOR")], [], [2]),
    Case(
        "unicode-line-separator-is-not-a-line-break",
        "Hi\u2028VOTE 1 FOR\nVOTE 2 FOR",
        [vote(2, 2, "FOR")],
        [],
        [1],
    ),
    Case("blank-lines-count", "\n\n\nVOTE 1 FOR", [vote(4, 1, "FOR")]),
    Case("empty", ""),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_parse_commands(case: Case) -> None:
    result = parse_commands(case.subject, case.body)
    as_json = result.to_json()
    assert as_json["commands"] == case.commands
    errors = [(error.line, error.reason) for error in result.errors]
    assert len(errors) == len(case.errors), errors
    for (line, reason), (want_line, want) in zip(errors, case.errors, strict=True):
        assert line == want_line, errors
        if want.startswith("~"):
            assert want[1:] in reason, reason
        else:
            assert reason == want
    assert [line.line for line in result.ignored] == case.ignored
    assert result.ok == (not case.errors)


def test_case_ids_are_unique() -> None:
    assert len({case.id for case in CASES}) == len(CASES)


# ---------------------------------------------------------------------- whole-message behaviour


def test_error_text_is_the_line() -> None:
    result = parse_commands("", "Hi\n  VOET 301 FOR  \n")
    assert result.to_json()["errors"] == [
        {"line": 2, "text": "VOET 301 FOR", "reason": "unknown command VOET; did you mean VOTE?"}
    ]
    assert result.to_json()["ignored"] == [{"line": 1, "text": "Hi"}]


def test_long_lines_are_cut_in_replies() -> None:
    result = parse_commands("", "x" * 1000)
    assert len(result.ignored[0].text) == 200
    assert result.ignored[0].text.endswith("…")


@pytest.mark.parametrize(
    ("count", "refused"), [(MAX_COMMAND_LINES, False), (MAX_COMMAND_LINES + 1, True)]
)
def test_command_line_limit(count: int, refused: bool) -> None:
    body = "".join(f"VOTE {n} FOR\nsome prose\n" for n in range(1, count + 1))
    result = parse_commands("", body)
    if refused:
        assert result.commands == ()
        assert result.ignored == ()
        assert [(e.line, e.text) for e in result.errors] == [(0, "")]
        assert "more than 200 command lines" in result.errors[0].reason
    else:
        assert len(result.commands) == count
        assert result.ok


def test_error_lines_count_towards_the_limit() -> None:
    result = parse_commands("", "VOTE 1 MAYBE\n" * 201)
    assert len(result.errors) == 1 and result.errors[0].line == 0


def test_typed_commands() -> None:
    result = parse_commands(
        "",
        "VOTE 301 FOR\nPROPOSE T\nENACT RULE: x\nEND PROPOSE\nPASSWORD pw\nADMIN EXTEND 3 1d12h",
    )
    vote_command, proposal, extend = result.commands
    assert isinstance(vote_command, Vote) and vote_command.choice == "FOR"
    assert isinstance(proposal, Propose)
    assert proposal.clauses == (Clause(ClauseKind.ENACT, None, "x"),)
    assert isinstance(extend, AdminExtend)
    assert extend.period == timedelta(days=1, hours=12)
    assert result.password == "pw"


def test_password_never_in_json_repr_or_errors() -> None:
    secret = "hunter2-very-secret"
    body = (
        f"PASSWORD {secret}\n"
        f"My password is {secret}\n"
        f"ADMIN SCORE {secret} +1 {secret}\n"
        f"PASWORD {secret}\n"
        f"PASSWORD other-{secret}\n"
        f"PROPOSE {secret}\n{secret}\nEND PROPOSE\n"
        f"VOET {secret} FOR\n"
    )
    result = parse_commands(f"Re: {secret}", body)
    assert result.password == secret
    assert secret not in json.dumps(result.to_json())
    assert secret not in repr(result)
    assert secret not in str(result.errors)
    assert "********" in json.dumps(result.to_json())


def test_redact() -> None:
    assert redact("Hi\nPASSWORD hunter2\npassword: x y\nsaid hunter2", "hunter2") == (
        "Hi\nPASSWORD ********\npassword: ********\nsaid ********"
    )
    assert redact("PASSWORD abc", None) == "PASSWORD ********"


# ---------------------------------------------------------------------- the table and HELP


def test_help_lists_every_command_and_action() -> None:
    text = every_help()
    for spec in COMMANDS:
        assert f"{spec.verb} {spec.syntax}".strip() in text or spec.verb in text
        for alias in spec.aliases:
            assert alias in text
    for action in ADMIN_ACTIONS:
        assert f"ADMIN {action.action} {action.syntax}".rstrip() in text
    assert "PROPOSE: <title>" in text
    assert all(len(line) <= 80 for line in text.splitlines())


@pytest.mark.parametrize("spec", [s for s in COMMANDS if s.example], ids=lambda s: s.verb)
def test_every_example_in_the_table_parses(spec: object) -> None:
    from speakerbot.mail.inbound.language import CommandSpec

    assert isinstance(spec, CommandSpec)
    block = {"PROPOSE": "\ntext\nEND PROPOSE", "REVISE": "\ntext\nEND REVISE",
             "DEBATE": "\ntext\nEND DEBATE"}
    body = spec.example + block.get(spec.verb, "")
    result = parse_commands("", body)
    assert result.ok, result.errors
    # A keyword's command may be named by two words (CALL VOTE).
    assert [c.verb.split()[0] for c in result.commands] == [spec.verb]


@pytest.mark.parametrize("spec", [s for s in COMMANDS if s.bare], ids=lambda s: s.verb)
def test_every_bare_command_parses_alone(spec: object) -> None:
    from speakerbot.mail.inbound.language import CommandSpec

    assert isinstance(spec, CommandSpec)
    result = parse_commands("", spec.verb.lower())
    assert [c.to_json() for c in result.commands] == [{"line": 1, "verb": spec.verb}]


def _osa_distance(a: str, b: str) -> int:
    rows = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            rows[i][j] = min(
                rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[-1][-1]


def test_one_edit_agrees_with_damerau_levenshtein() -> None:
    from itertools import product

    from speakerbot.mail.inbound.language.tokens import one_edit_apart

    words = ["".join(letters) for size in range(5) for letters in product("abc", repeat=size)]
    for a in words:
        for b in words:
            assert one_edit_apart(a, b) == (_osa_distance(a, b) == 1), (a, b)


def test_enumerations_survive_the_password_scrub() -> None:
    from speakerbot.mail.inbound.language import (
        AdminRule,
        Choice,
        ClauseKind,
        Judgement,
        JudgementValue,
    )

    result = parse_commands(
        "",
        "PASSWORD FOR\nVOTE 1 FOR\nJUDGEMENT 2 TRUE\nADMIN RULE REPEAL RULE 3\n",
    )
    vote_command, judgement, rule = result.commands
    assert isinstance(vote_command, Vote) and vote_command.choice is Choice.FOR
    assert isinstance(judgement, Judgement) and judgement.value is JudgementValue.TRUE
    assert isinstance(rule, AdminRule) and rule.clause.kind is ClauseKind.REPEAL
    assert json.loads(json.dumps(result.to_json()))["commands"][0]["choice"] == "FOR"


def test_the_command_line_limit_can_be_configured() -> None:
    body = "".join(f"VOTE {301 + i} FOR\n" for i in range(6))
    assert len(parse_commands("", body, max_command_lines=6).commands) == 6
    limited = parse_commands("", body, max_command_lines=5)
    assert limited.commands == () and "more than 5 command lines" in limited.errors[0].reason
