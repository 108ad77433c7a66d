"""The heads of the players' commands: how each keyword's line is read.

Each head takes the line number and the rest of the line after the keyword and returns a
plan, a PASSWORD secret, or the reason the line cannot be read (see
:mod:`~speakerbot.mail.inbound.language.spec`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from speakerbot.mail.inbound.language.clauses import _parse_clauses
from speakerbot.mail.inbound.language.results import (
    Cfj,
    Command,
    Confirm,
    Consent,
    ConsentTurn,
    Join,
    Judgement,
    JudgementValue,
    ParseError,
    Propose,
    Vote,
)
from speakerbot.mail.inbound.language.spec import (
    _CHOICES,
    _VALUES,
    _Block,
    _Build,
    _Head,
    _join_text,
    _name,
    _number,
    _one_edit,
    _Outcome,
    _Plan,
    _plan,
    _Secret,
    _word,
)

__all__: list[str] = []


def _join(line: int, rest: str) -> _Outcome:
    try:
        return _plan(Join(line, _name(rest, "JOIN")))
    except ValueError as exc:
        return str(exc)


def _vote(line: int, rest: str) -> _Outcome:
    words = rest.split()
    if not words:
        return "VOTE needs a proposal number and FOR, AGAINST or ABSTAIN, e.g. VOTE 301 FOR"
    proposal = _number(words[0])
    if proposal is None:
        if len(words) == 2 and _word(words[0]) in _CHOICES and _number(words[1]) is not None:
            return (
                f"write the proposal number first, e.g. VOTE {_number(words[1])} "
                f"{_CHOICES[_word(words[0])]}"
            )
        return "VOTE needs a proposal number first, e.g. VOTE 301 FOR"
    example = f"e.g. VOTE {proposal} FOR"
    if len(words) == 1:
        return f"VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, {example}"
    choice = _CHOICES.get(_word(words[1]))
    if choice is None:
        hint = [c for c in ("FOR", "AGAINST", "ABSTAIN") if _one_edit(_word(words[1]), c)]
        did_you_mean = f" (did you mean {hint[0]}?)" if hint else ""
        return (
            f"VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, {example}{did_you_mean}"
        )
    if len(words) > 2:
        return (
            f"VOTE takes only a proposal number and FOR, AGAINST or ABSTAIN, e.g. "
            f"VOTE {proposal} {choice}; write anything else on a line of its own"
        )
    return _plan(Vote(line, proposal, choice))


def _propose_build(line: int, title: str, *, from_subject: bool) -> _Build:
    where = "in the Subject" if from_subject else f"on line {line}"

    def build(block: _Block | None) -> Command | list[ParseError]:
        lines = block.lines if block is not None else ()
        text = _join_text([t for _, t in lines])
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
        clauses, errors, unclear = _parse_clauses(
            lines, f"in the proposal “{title}” {where}, which was not submitted"
        )
        if errors:
            return errors
        return Propose(line, title, text, tuple(clauses), tuple(unclear))

    return build


def _propose(line: int, rest: str) -> _Outcome:
    title = " ".join(rest.split())
    if not title:
        return (
            "PROPOSE needs a title on the same line, e.g. PROPOSE Fair dice, then the "
            "proposal's text on the next lines and END PROPOSE after it"
        )
    return _Plan(
        _propose_build(line, title, from_subject=False),
        block="required",
        ends=("END PROPOSE", "END PROPOSAL"),
        opener="PROPOSE",
    )


def _cfj_build(line: int, statement: str) -> _Build:
    paradox = re.match(r"PARADOX\b", statement, re.IGNORECASE) is not None

    def build(block: _Block | None) -> Command | list[ParseError]:
        arguments = block.text() if block is not None else ""
        return Cfj(line, statement, arguments, paradox)

    return build


def _cfj(line: int, rest: str) -> _Outcome:
    statement = " ".join(rest.split())
    if not statement:
        return (
            "CFJ needs the statement to be judged on the same line, e.g. CFJ Rule 105 allows dice"
        )
    return _Plan(_cfj_build(line, statement), block="optional", ends=("END CFJ",), opener="CFJ")


def _judgement_build(line: int, cfj: int, value: JudgementValue) -> _Build:
    def build(block: _Block | None) -> Command | list[ParseError]:
        return Judgement(line, cfj, value, block.text() if block is not None else "")

    return build


_JUDGEMENT_ENDS = ("END JUDGEMENT", "END JUDGMENT")


def _judgement(line: int, rest: str) -> _Outcome:
    words = rest.split()
    example = "e.g. JUDGEMENT 12 TRUE"
    if not words:
        return f"JUDGEMENT needs a CFJ number and TRUE, FALSE or UNDECIDED, {example}"
    cfj = _number(words[0])
    if cfj is None:
        return f"JUDGEMENT needs the CFJ's number first, {example}"
    example = f"e.g. JUDGEMENT {cfj} TRUE"
    value = _VALUES.get(_word(words[1])) if len(words) > 1 else None
    if value is None:
        return f"JUDGEMENT needs TRUE, FALSE or UNDECIDED after the CFJ number, {example}"
    if len(words) > 2:
        return (
            f"JUDGEMENT takes only a CFJ number and TRUE, FALSE or UNDECIDED, {example}; "
            "give your reasons on the following lines, ended by END JUDGEMENT"
        )
    return _Plan(
        _judgement_build(line, cfj, value),
        block="optional",
        ends=_JUDGEMENT_ENDS,
        opener="JUDGEMENT",
    )


def _numbered(verb: str, what: str, make: Callable[[int, int], Command]) -> _Head:
    def head(line: int, rest: str) -> _Outcome:
        words = rest.split()
        number = _number(words[0]) if len(words) == 1 else None
        if number is None:
            return (
                f"{verb} needs just {what} number, e.g. {verb} {'12' if 'CFJ' in what else '301'}"
            )
        return _plan(make(line, number))

    return head


def _consent(line: int, rest: str) -> _Outcome:
    if _word(rest) == "TURN":
        return _plan(ConsentTurn(line))
    outcome = _numbered("CONSENT", "a proposal", Consent)(line, rest)
    if isinstance(outcome, str):
        return outcome + ", or CONSENT TURN to let the next turn begin"
    return outcome


def _bare(make: Callable[[int], Command]) -> _Head:
    def head(line: int, rest: str) -> _Outcome:
        return _plan(make(line)) if not rest else "takes no arguments"

    return head


def _confirm(line: int, rest: str) -> _Outcome:
    token = rest.strip()
    if not _CONFIRM_CODE.fullmatch(token):
        return ("CONFIRM needs the code from the Speaker's request for confirmation, "
                "e.g. CONFIRM 3f9c2a7d41b0e8c6a5d2f1e0b9c8a7d6")
    return _plan(Confirm(line, token.lower()))


_CONFIRM_CODE = re.compile(r"[0-9A-Fa-f]{32}")


def _password(line: int, rest: str) -> _Outcome:
    if not rest:
        return "PASSWORD needs the Speaker's password after it on the same line"
    return _Secret(rest)


