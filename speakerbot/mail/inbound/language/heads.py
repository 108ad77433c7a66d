"""The heads of the players' commands: how each keyword's line is read.

Each head takes the line number and the rest of the line after the keyword and returns a
plan, a PASSWORD secret, or the reason the line cannot be read (see
:mod:`~speakerbot.mail.inbound.language.spec`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from speakerbot.mail.inbound.language import tokens
from speakerbot.mail.inbound.language.clauses import parse_clauses
from speakerbot.mail.inbound.language.commands import (
    Cfj,
    Command,
    Confirm,
    Consent,
    ConsentTurn,
    Join,
    Judgement,
    Propose,
    Vote,
)
from speakerbot.mail.inbound.language.results import JudgementValue, ParseError
from speakerbot.mail.inbound.language.spec import Block, Build, Head, Outcome, Plan, Secret, plan

PROPOSE_ENDS = ("END PROPOSE", "END PROPOSAL")
CFJ_ENDS = ("END CFJ",)
JUDGEMENT_ENDS = ("END JUDGEMENT", "END JUDGMENT")


def join(line: int, rest: str) -> Outcome:
    """Read ``JOIN <display name>``."""
    try:
        return plan(Join(line, tokens.display_name(rest, "JOIN")))
    except ValueError as exc:
        return str(exc)


def vote(line: int, rest: str) -> Outcome:
    """Read ``VOTE <n> FOR|AGAINST|ABSTAIN``, with a hint for a mistyped choice."""
    words = rest.split()
    if not words:
        return "VOTE needs a proposal number and FOR, AGAINST or ABSTAIN, e.g. VOTE 301 FOR"
    proposal = tokens.number(words[0])
    if proposal is None:
        later = tokens.number(words[1]) if len(words) == 2 else None
        choice = tokens.CHOICES.get(tokens.word(words[0]))
        if later is not None and choice is not None:
            return f"write the proposal number first, e.g. VOTE {later} {choice}"
        return "VOTE needs a proposal number first, e.g. VOTE 301 FOR"
    example = f"e.g. VOTE {proposal} FOR"
    if len(words) == 1:
        return f"VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, {example}"
    choice = tokens.CHOICES.get(tokens.word(words[1]))
    if choice is None:
        written = tokens.word(words[1])
        hint = [c for c in ("FOR", "AGAINST", "ABSTAIN") if tokens.one_edit_apart(written, c)]
        did_you_mean = f" (did you mean {hint[0]}?)" if hint else ""
        return (
            f"VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, {example}{did_you_mean}"
        )
    if len(words) > 2:
        return (
            f"VOTE takes only a proposal number and FOR, AGAINST or ABSTAIN, e.g. "
            f"VOTE {proposal} {choice}; write anything else on a line of its own"
        )
    return plan(Vote(line, proposal, choice))


def propose_build(line: int, title: str, *, from_subject: bool) -> Build:
    """Return the builder of a proposal from its text: its clauses read and checked."""
    where = "in the Subject" if from_subject else f"on line {line}"

    def build(block: Block | None) -> Command | list[ParseError]:
        lines = block.lines if block is not None else ()
        text = tokens.join_text([t for _, t in lines])
        if not text:
            inside = (
                "in the body of the message"
                if from_subject
                else "on the lines between the PROPOSE line and END PROPOSE"
            )
            return [
                ParseError(
                    line,
                    "",
                    f"the proposal “{title}” has no text; write its text {inside}",
                )
            ]
        clauses, errors, unclear = parse_clauses(
            lines, f"in the proposal “{title}” {where}, which was not submitted",
            block.titles if block is not None else None,
        )
        if errors:
            return errors
        return Propose(line, title, text, tuple(clauses), tuple(unclear))

    return build


def with_text(
    opener: str, missing: str, build: Callable[[int, str], Build], *,
    block: Literal["optional", "required"], ends: tuple[str, ...],
) -> Head:
    """Return the head of a keyword whose line carries a title or statement, a block after it.

    White space in the line is folded; an empty line is refused with ``missing``.
    """
    def head(line: int, rest: str) -> Outcome:
        heading = " ".join(rest.split())
        if not heading:
            return missing
        return Plan(build(line, heading), block=block, ends=ends, opener=opener)

    return head


def cfj_build(line: int, statement: str) -> Build:
    """Return the builder of a CFJ from its (optional) arguments."""
    paradox = re.match(r"PARADOX\b", statement, re.IGNORECASE) is not None

    def build(block: Block | None) -> Command | list[ParseError]:
        arguments = block.text() if block is not None else ""
        return Cfj(line, statement, arguments, paradox)

    return build


propose = with_text(
    "PROPOSE",
    "PROPOSE needs a title on the same line, e.g. PROPOSE Fair dice, then the "
    "proposal's text on the next lines and END PROPOSE after it",
    lambda line, title: propose_build(line, title, from_subject=False),
    block="required",
    ends=PROPOSE_ENDS,
)
"""Read ``PROPOSE <title>``; the text follows, ended by ``END PROPOSE``."""

cfj = with_text(
    "CFJ",
    "CFJ needs the statement to be judged on the same line, e.g. CFJ Rule 105 allows dice",
    cfj_build,
    block="optional",
    ends=CFJ_ENDS,
)
"""Read ``CFJ <statement>``; arguments may follow, ended by ``END CFJ``."""


def judgement_build(line: int, cfj: int, value: JudgementValue) -> Build:
    """Return the builder of a judgement from its (optional) reasons."""
    def build(block: Block | None) -> Command | list[ParseError]:
        return Judgement(line, cfj, value, block.text() if block is not None else "")

    return build


def judgement(line: int, rest: str) -> Outcome:
    """Read ``JUDGEMENT <cfj> TRUE|FALSE|UNDECIDED``; reasons may follow."""
    words = rest.split()
    example = "e.g. JUDGEMENT 12 TRUE"
    if not words:
        return f"JUDGEMENT needs a CFJ number and TRUE, FALSE or UNDECIDED, {example}"
    cfj = tokens.number(words[0])
    if cfj is None:
        return f"JUDGEMENT needs the CFJ's number first, {example}"
    example = f"e.g. JUDGEMENT {cfj} TRUE"
    value = tokens.VALUES.get(tokens.word(words[1])) if len(words) > 1 else None
    if value is None:
        return f"JUDGEMENT needs TRUE, FALSE or UNDECIDED after the CFJ number, {example}"
    if len(words) > 2:
        return (
            f"JUDGEMENT takes only a CFJ number and TRUE, FALSE or UNDECIDED, {example}; "
            "give your reasons on the following lines, ended by END JUDGEMENT"
        )
    return Plan(
        judgement_build(line, cfj, value),
        block="optional",
        ends=JUDGEMENT_ENDS,
        opener="JUDGEMENT",
    )


def numbered(verb: str, what: str, make: Callable[[int, int], Command]) -> Head:
    """Return the head of a keyword followed by just one number (``REFUSE 301``)."""
    def head(line: int, rest: str) -> Outcome:
        words = rest.split()
        number = tokens.number(words[0]) if len(words) == 1 else None
        if number is None:
            return (
                f"{verb} needs just {what} number, e.g. {verb} {'12' if 'CFJ' in what else '301'}"
            )
        return plan(make(line, number))

    return head


def consent(line: int, rest: str) -> Outcome:
    """Read ``CONSENT <n>`` or ``CONSENT TURN``."""
    if tokens.word(rest) == "TURN":
        return plan(ConsentTurn(line))
    outcome = numbered("CONSENT", "a proposal", Consent)(line, rest)
    if isinstance(outcome, str):
        return outcome + ", or CONSENT TURN to let the next turn begin"
    return outcome


def bare(make: Callable[[int], Command]) -> Head:
    """Return the head of a keyword that takes no arguments (``STATUS``)."""
    def head(line: int, rest: str) -> Outcome:
        return plan(make(line)) if not rest else "takes no arguments"

    return head


def confirm(line: int, rest: str) -> Outcome:
    """Read ``CONFIRM <code>``."""
    token = rest.strip()
    if not _CONFIRM_CODE.fullmatch(token):
        return ("CONFIRM needs the code from the Speaker's request for confirmation, "
                "e.g. CONFIRM 3f9c2a7d41b0e8c6a5d2f1e0b9c8a7d6")
    return plan(Confirm(line, token.lower()))


_CONFIRM_CODE = re.compile(r"[0-9A-Fa-f]{32}")


def password(line: int, rest: str) -> Outcome:
    """Read ``PASSWORD <secret>``: its outcome is the secret, never a command."""
    if not rest:
        return "PASSWORD needs the Speaker's password after it on the same line"
    return Secret(rest)


