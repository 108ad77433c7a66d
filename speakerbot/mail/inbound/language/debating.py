"""The heads of the debate's lines: ``REVISE <n>``, ``CALL VOTE <n>`` and ``DEBATE <n>``.

A proposal in debate (suber 111, rurru 109, locked-open 111) may be argued about by any
player (``DEBATE <n>`` ... ``END DEBATE``), revised by its proposer (``REVISE <n>`` ...
``END REVISE``, the whole new text, clauses read and checked as in a proposal) and its vote
started by its proposer (``CALL VOTE <n>``). CALL, REVISE and DEBATE are everyday words:
a line that starts with one of them but does not go on with a proposal's number (or, for
CALL, with VOTE) is a sentence, listed as ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from speakerbot.mail.inbound.language import tokens
from speakerbot.mail.inbound.language.clauses import parse_clauses
from speakerbot.mail.inbound.language.commands import CallVote, Command, Debate, Revise
from speakerbot.mail.inbound.language.results import ParseError
from speakerbot.mail.inbound.language.spec import Block, Build, Head, Outcome, Plan, plan

REVISE_ENDS = ("END REVISE", "END REVISION")
DEBATE_ENDS = ("END DEBATE",)
_NUMBERISH = re.compile(r"#?[0-9]+:?[.!]?")


def _starts_with_number(rest: str) -> bool:
    words = rest.split()
    return bool(words) and _NUMBERISH.fullmatch(words[0]) is not None


def revise_is_prose(rest: str) -> bool:
    """REVISE (or DEBATE) not followed by a number is a sentence, or a heading ("Debate:")."""
    return not _starts_with_number(rest)


debate_is_prose = revise_is_prose


def call_is_prose(rest: str) -> bool:
    """CALL not followed by VOTE is a sentence ("Call me tomorrow")."""
    words = rest.split()
    return not words or tokens.word(words[0]) != "VOTE"


def _block_head(verb: str, what: str, build: Callable[[int, int], Build],
                ends: tuple[str, ...]) -> Head:
    """Return the head of a block command whose first line holds one proposal's number.

    ``what`` says what follows the line, for the hints.
    """
    def head(line: int, rest: str) -> Outcome:
        words = rest.split()
        number = tokens.number(words[0].rstrip(".!")) if words else None
        if number is None:
            return f"{verb} needs the proposal's number, e.g. {verb} 301, then {what}"
        if len(words) > 1:
            return (f"{verb} takes only the proposal's number on its line, e.g. {verb} {number}; "
                    f"write {what}")
        return Plan(build(line, number), block="required", ends=ends, opener=verb)

    return head


def _revise_build(line: int, number: int) -> Build:
    def build(block: Block | None) -> Command | list[ParseError]:
        lines = block.lines if block is not None else ()
        text = tokens.join_text([t for _, t in lines])
        if not text:
            return [ParseError(line, "", f"the revision of proposal {number} has no text; "
                               "write the proposal's whole new text on the lines between "
                               f"REVISE {number} and END REVISE")]
        clauses, errors, unclear = parse_clauses(
            lines, f"in the revision of proposal {number} on line {line}, which was not made",
            block.titles if block is not None else None)
        if errors:
            return errors
        return Revise(line, number, text, tuple(clauses), tuple(unclear))

    return build


def _debate_build(line: int, number: int) -> Build:
    def build(block: Block | None) -> Command | list[ParseError]:
        text = block.text() if block is not None else ""
        if not text:
            return [ParseError(line, "", f"the DEBATE on proposal {number} holds no argument; "
                               f"write it on the lines between DEBATE {number} and END DEBATE")]
        return Debate(line, number, text)

    return build


revise = _block_head("REVISE", "the proposal's whole new text on the next lines and END REVISE "
                     "after it", _revise_build, REVISE_ENDS)
"""Read ``REVISE <n>``; the proposal's whole new text follows, ended by ``END REVISE``."""

debate = _block_head("DEBATE", "your argument on the next lines and END DEBATE after it",
                     _debate_build, DEBATE_ENDS)
"""Read ``DEBATE <n>``; the argument follows, ended by ``END DEBATE``."""


def call(line: int, rest: str) -> Outcome:
    """Read ``CALL VOTE <n>``."""
    words = rest.split()
    number = tokens.number(words[1].rstrip(".!")) if len(words) > 1 else None
    if number is None:
        return "CALL VOTE needs the proposal's number, e.g. CALL VOTE 301"
    if len(words) > 2:
        return (f"CALL VOTE takes only the proposal's number, e.g. CALL VOTE {number}; write "
                "anything else on a line of its own")
    return plan(CallVote(line, number))
