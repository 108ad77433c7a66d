"""The clauses inside a proposal's text (and ADMIN RULE's): ENACT, AMEND, REPEAL, TRANSMUTE, SET.

A keyword clause's text runs from its line to the next clause line, a line ``END RULE``, or
the end of the proposal (REPEAL and TRANSMUTE take none; ``Amend Rule 5:`` not in capitals
gets no text that may hold a rationale); the forms players write in prose are read by
:mod:`~speakerbot.mail.inbound.language.prose.reading`. The clauses are the engine's
:class:`~speakerbot.engine.model.Clause`; a SET clause keeps its value as ``text``. A
condition on another proposal's fate (``If Proposal 8000 was adopted:``, ``Otherwise:``) is
kept on the changes it governs, for the game to settle at adoption
(:mod:`~speakerbot.mail.inbound.language.prose.conditions`); any other condition (``...
takes effect only if ...``) leaves every change to the host, and a change inside a comment
in brackets is quoted back.
A rule named by its title alone is found among the rules in effect the reader is given
(:mod:`~speakerbot.mail.inbound.language.prose.titles`); a line quoted back that names
one is noted with what the title names, for the host.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from speakerbot.mail.inbound.language import tokens
from speakerbot.mail.inbound.language.prose import (
    RuleTitles,
    Scope,
    is_end_rule,
    names_a_change,
    not_rule_text,
    otherwise,
    read_condition,
    read_natural,
    speaks_of_change,
    title_note,
)
from speakerbot.mail.inbound.language.results import Clause, ClauseKind, Condition, ParseError

_CLAUSE = re.compile(
    r"\s*(ENACT|AMEND|REPEAL|TRANSMUTE)\s+(?:(IMMUTABLE)\s+)?RULE\b(.*)", re.IGNORECASE | re.DOTALL
)
_SET_CLAUSE = re.compile(r"\s*SET\s(.*)", re.IGNORECASE | re.DOTALL)
_SET_BODY = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.-]*)\s*=\s*(\S(?:.*\S)?)\s*")
_ENACT_REST = re.compile(r"\s*(?::\s*(.*))?", re.DOTALL)
_AMEND_REST = re.compile(r"\s+#?([0-9]{1,9})\s*(?::\s*(.*))?", re.DOTALL)
# Possessive spaces: with two runs side by side, a long run of spaces took seconds to refuse.
_NUMBERED_REST = re.compile(r"\s+#?([0-9]{1,9})\s*+[.:]?\s*+")


@dataclass(frozen=True)
class ClauseHead:
    """A clause's first line, read: its kind, rule, and the text or value on that line."""

    kind: ClauseKind
    rule: int | None
    first_text: str
    immutable: bool = False
    parameter: str | None = None
    value: str | None = None


def clause_head(line: str, *, any_set: bool = False) -> ClauseHead | str | None:
    """Read a clause line: None if the line is not a clause, a reason if it is malformed.

    A line is a clause line when it starts with ENACT, AMEND, REPEAL or TRANSMUTE
    followed by RULE (ENACT also by IMMUTABLE RULE), or with SET and holds an
    ``=`` (with ``any_set``: any line starting with SET).
    """
    match = _CLAUSE.match(line)
    if match is not None:
        kind = match.group(1).upper()
        immutable = match.group(2) is not None
        rest = match.group(3)
        if immutable and kind != "ENACT":
            return f"only ENACT takes IMMUTABLE; write {kind} RULE followed by the rule number"
        if kind == "ENACT":
            enact = _ENACT_REST.fullmatch(rest)
            if enact is None:
                words = "ENACT IMMUTABLE RULE" if immutable else "ENACT RULE"
                return (
                    f"{words} takes no rule number (the Speaker numbers new rules); write "
                    f"{words}: followed by the rule's text"
                )
            return ClauseHead(
                ClauseKind.ENACT, None, (enact.group(1) or "").strip(), immutable=immutable
            )
        if kind == "AMEND":
            amend = _AMEND_REST.fullmatch(rest)
            if amend is None:
                return (
                    "AMEND RULE needs a rule number and a colon, e.g. AMEND RULE 205: "
                    "followed by the new text"
                )
            return ClauseHead(
                ClauseKind.AMEND, int(amend.group(1)), (amend.group(2) or "").strip()
            )
        numbered = _NUMBERED_REST.fullmatch(rest)
        if numbered is None:
            return f"{kind} RULE needs just a rule number, e.g. {kind} RULE 105"
        return ClauseHead(ClauseKind(kind), int(numbered.group(1)), "")
    set_match = _SET_CLAUSE.match(line)
    if set_match is not None and (any_set or "=" in line):
        body = _SET_BODY.fullmatch(set_match.group(1))
        if body is None:
            return "SET needs a parameter name, = and a value, e.g. SET quorum_percent = 50"
        parameter, value = body.group(1), body.group(2)
        return ClauseHead(
            ClauseKind.SET, None, f"{parameter} = {value}", parameter=parameter, value=value
        )
    return None


def finish_clause(head: ClauseHead, following: list[str]) -> Clause | str:
    """Build the clause from its first line and the lines after it, or say what is missing."""
    if head.kind == "SET":
        # The engine keeps a SET clause's value as its text.
        return Clause(ClauseKind.SET, None, head.value or "", parameter=head.parameter)
    text = tokens.join_text([head.first_text, *following] if head.first_text else following)
    if head.kind in ("ENACT", "AMEND") and not text:
        name = "ENACT RULE" if head.kind == "ENACT" else f"AMEND RULE {head.rule}"
        return f"{name} has no text; write the rule's text after the colon or on the lines below it"
    return Clause(head.kind, head.rule, text, immutable=head.immutable)


# A broken keyword clause is an error when written as taught (capitals); in other case it
# is prose the forms did not understand ("Set against the old rule, ..."), and the proposal
# goes on informal.
_CAPITALS = re.compile(r"\s*(?:(?:ENACT|AMEND|REPEAL|TRANSMUTE)\s+(?:IMMUTABLE\s+)?RULE\b|SET\s)")


# A line right under a change that goes on with its sentence: it begins with a small letter,
# a bracket or a quotation mark, or with "and", "or", "but" (a mail client wrapped it there).
_GOES_ON = re.compile(r"\s*+(?:[a-z(\"\u201c]|(?i:and|or|but)\b)")


# A line that makes the proposal's changes depend on something (read outside comments): one
# that opens with a condition, or says anywhere that the changes hang on something.
_CONDITION = re.compile(
    r"(?:\(?[0-9a-z]{1,3}[.)]\s+)?\(?(?:if|unless|otherwise|provided|only\s+if|in\s+the\s+event"
    r"|in\s+case|contingent|conditional)\b",
    re.IGNORECASE,
)
# Words that tie the changes to something wherever they stand, before the changes or after
# (a condition's words are bounded: from each "if" of a long line, a search to its end would
# cost the square of its length).
_GOVERNS = re.compile(
    r"\b(?:ha(?:s|ve)|shall\s+have|takes?)\s+no\s+effect\b|\bdoes\s+nothing\b"
    r"|\bonly\s+(?:\w+\s+){0,3}?if\b|\bonly\s+takes?\s+effect\b|\bon\s+condition\b"
    r"|\bassuming\b"
    r"|\bsubject\s+to\s+(?:the\s+)?(?:adoption|passage|failure)\b"
    r"|\bprovided\s+that\b|\b(?:contingent|conditional)\s+(?:on|upon)\b"
    r"|\btakes?\s+effect\s+(?:only\s+)?(?:if|when|upon|once|after)\b"
    r"|\b(?:if|unless|when|once|upon|after|should)\b[^.;]{0,200}?\b(?:proposals?\s*+#?|p)[0-9]",
    re.IGNORECASE,
)


# "Upon the adoption of this proposal:", "If this proposal passes,": no condition at all.
_ADOPTION = re.compile(
    r"(?:if|upon|on|should|when|once)\s++(?:the\s++)?(?:(?:adoption|passage|enactment)\s++of\s++)?"
    r"this\s++proposal(?:\s++(?:is|being|be))?(?:\s++(?:adopted|passed|passes|enacted))?\s*+[,:]",
    re.IGNORECASE,
)


# A paragraph of its own in parentheses: the proposer's aside (a condition's words in it
# are about the rules, not the changes).
_ASIDE = re.compile(r"\((?![0-9a-z]{1,3}\))[^()]*+\)")
# Words that make an aside a condition after all: it names a proposal ("this proposal has no
# effect if ..."), or ties something to something else.
_NOT_ASIDE = re.compile(
    r"\bproposals?\b|\bp[0-9]|\bonly\b|\bprovided\b|\bunless\b|\bcondition|\bcontingent\b"
    r"|\bsubject\s++to\b|\bassuming\b|\btakes?\s++effect\b|\bupon\b", re.IGNORECASE)


def _edited(clause: Clause) -> int | None:
    """Return the rule a clause changes the text of, if any (what "the same rule" means)."""
    edits = (ClauseKind.AMEND, ClauseKind.REPLACE, ClauseKind.APPEND, ClauseKind.INSERT)
    return clause.rule if clause.kind in edits else None


def _bracket_opens(text: str) -> bool:
    """Whether a line opens a comment in brackets that it does not close."""
    return text.lstrip().startswith("[") and text.count("[") > text.count("]")


def _went_on(clauses: tuple[Clause, ...]) -> int | None:
    """Return the rule edits after these clauses go on editing: none if they change several.

    "Amend Rules 5 and 6 by replacing ...", then "and removing: ...": of one rule, or both?
    """
    last = _edited(clauses[-1])
    return last if all(clause.rule == last for clause in clauses) else None


class _ClauseReader:
    """Reads a proposal's lines into clauses, errors and the lines that were not understood."""

    def __init__(self, lines: tuple[tuple[int, str], ...], where: str,
                 titles: RuleTitles | None) -> None:
        self.lines = lines
        self.where = where
        self.titles = titles  # the rules in effect, by title (None: none known)
        self.clauses: list[Clause] = []
        self.errors: list[ParseError] = []
        self.unclear: list[tuple[int, str]] = []
        self.current: tuple[int, str, ClauseHead] | None = None
        self.following: list[str] = []
        # The rule the natural change just read edits, while only blank lines follow it:
        # "and by ..." or "Also amend the same rule by ..." go on editing it.
        self.previous: int | None = None
        # Each condition: its line, its text, and whether it governs the changes for sure
        # (else only when a change follows it: "If G. got blots, they are expunged." after
        # the changes speaks of an action, not of them).
        self.conditions: list[tuple[int, str, bool, int]] = []
        self.comment = False  # inside a comment in brackets, over lines
        # The natural change just read: the index of the line after it, where its clauses
        # begin, and its first line (quoted back if the next line turns out to be its rest).
        self.just_read: tuple[int, int, int, str] | None = None
        # Conditions on another proposal's fate (prose/conditions.py): the one governing
        # the changes below, the last read (what "Otherwise" turns round), the lines of those
        # governing every change below, and those governing the whole proposal.
        self.below: Condition | None = None
        self.last_condition: Condition | None = None
        self.settled_lines: list[tuple[int, str]] = []
        self.whole: list[tuple[int, str, Condition]] = []

    def close(self) -> None:
        """Finish the keyword clause being read, if any."""
        if self.current is None:
            return
        line, text, head = self.current
        clause = finish_clause(head, self.following)
        taught = _CAPITALS.match(text) is not None
        if isinstance(clause, str) and taught:
            self.errors.append(ParseError(line, tokens.shown(text), f"{clause} ({self.where})"))
        elif isinstance(clause, str) or (not taught and _unclear_extent(clause.text)):
            # "Amend Rule 205:" in plain English gets no keyword's "to the end": a text of
            # paragraphs, or a comment in it, may be a rationale after the rule's text.
            self.unclear.append((line, tokens.shown(text)))
        else:
            self.clauses.extend(self.conditioned([clause]))
        self.current, self.following = None, []

    def step(self, index: int) -> int:
        """Read the line at ``index``; return the index of the next line to read."""
        line, text = self.lines[index]
        previous, self.previous = self.previous, None
        if not text.strip():
            self.previous = previous
        if self.current is not None and is_end_rule(text):
            self.close()  # what follows, up to the next clause, is the proposal's alone
            return index + 1
        if self.comment or (self.current is None and _bracket_opens(text)):
            self.in_comment(line, text)
            return index + 1
        head = clause_head(text)
        if isinstance(head, ClauseHead):
            self.close()
            self.current = (line, text, head)
            if head.kind in (ClauseKind.REPEAL, ClauseKind.TRANSMUTE):
                self.close()  # no text: what follows is prose (a condition, another change)
            return index + 1
        natural = read_natural(self.lines, index, previous if self.current is None else None,
                               self.titles)
        if natural is not None and natural.unnamed is not None:
            self.close()  # a change of a rule its title names no one of: the host's
            self.quote_back(line, text, natural.unnamed)
            return index + 1
        if natural is not None:
            self.close()
            self.just_read = (natural.next, len(self.clauses), line, text)
            self.clauses.extend(self.conditioned(natural.clauses))
            self.previous = _went_on(natural.clauses)
            return natural.next
        if isinstance(head, str):
            self.close()
            if _CAPITALS.match(text):  # the keyword form, written as taught, but broken
                self.errors.append(ParseError(line, tokens.shown(text), f"{head} ({self.where})"))
            else:
                self.unclear.append((line, tokens.shown(text)))
        elif self.current is not None:
            self.following.append(text)
        elif self.goes_on(index, text):
            self.withdraw(line, text)
        elif (after := self.settled(index)) is not None:
            return after
        else:
            self.prose(line, text)
        return index + 1

    def settled(self, index: int) -> int | None:
        """Read a condition on another proposal's fate at ``index``; return the next line's.

        The change it governs is read too when it is on its line.

        None when the line is no such condition, or governs a change on its line that is not
        read, or would put a second condition on a change: it is then prose (the host's).
        """
        read = read_condition(self.lines, index)
        if read is None and self.last_condition is not None:
            read = otherwise(self.lines, index, self.last_condition)
        if read is None or read.condition is None:
            return read.next if read is not None else None
        line, text = self.lines[index]
        if read.scope is Scope.WHOLE:
            self.whole.append((line, tokens.shown(text), read.condition))
            return read.next
        if read.scope is Scope.BELOW:
            self.close()
            self.below = read.condition
            self.last_condition = read.condition
            self.settled_lines.append((line, tokens.shown(text)))
            return read.next
        natural = read_natural(read.lines, read.next, None, self.titles)
        if natural is None or natural.unnamed is not None or self.below is not None:
            return None
        self.close()
        self.last_condition = read.condition
        after = read.index(natural.next)
        self.just_read = (after, len(self.clauses), line, text)
        self.clauses.extend(replace(clause, condition=read.condition)
                            for clause in natural.clauses)
        self.previous = _went_on(natural.clauses)
        return after

    def conditioned(self, clauses: Sequence[Clause]) -> list[Clause]:
        """Return clauses read under the condition that governs the changes below, if any."""
        if self.below is None:
            return list(clauses)
        return [replace(clause, condition=self.below) for clause in clauses]

    def goes_on(self, index: int, text: str) -> bool:
        """Whether line ``index`` goes on with the sentence of the change just read.

        Only a line right under it, with no blank line between, can; one that speaks of a
        change of its own ("and by deleting ...") is quoted back alone, as prose.
        """
        return (self.just_read is not None and self.just_read[0] == index
                and bool(self.lines[index - 1][1].strip()) and _GOES_ON.match(text) is not None
                and not speaks_of_change(text))

    def withdraw(self, line: int, text: str) -> None:
        """Take back the change just read: the line under it goes on with its sentence.

        That line ("if ...", "in the first paragraph", "and "X" with "Y"") may change what the
        change says, so both are quoted back.
        """
        assert self.just_read is not None  # goes_on saw to it
        _, first, change_line, change_text = self.just_read
        del self.clauses[first:]
        self.unclear += [(change_line, tokens.shown(change_text)), (line, tokens.shown(text))]

    def in_comment(self, line: int, text: str) -> None:
        """Read a line of a comment in brackets: a change in it is quoted back, never made."""
        self.close()
        self.comment = "]" not in text or text.rfind("[") > text.rfind("]")
        if clause_head(text.lstrip(" [")) is not None or speaks_of_change(text.lstrip(" [")):
            self.unclear.append((line, tokens.shown(text)))

    def prose(self, line: int, text: str) -> None:
        """Read a line of the proposal's own text: a condition, or a change unclear."""
        stripped = text.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            return  # a comment on its line
        if _ASIDE.fullmatch(stripped) and not (
                _NOT_ASIDE.search(stripped) or speaks_of_change(stripped[1:])
                or names_a_change(stripped[1:-1])):
            return  # "(Current text does nothing because ...)": an aside, not a condition
        governs = _GOVERNS.search(stripped) is not None
        if governs or (_CONDITION.match(stripped) and not _ADOPTION.match(stripped)):
            governs = governs or speaks_of_change(text)
            self.conditions.append((line, tokens.shown(text), governs, len(self.clauses)))
            if not governs and names_a_change(stripped):
                # It governs no change read, yet makes one of its own ("If there is a rule
                # titled "X", repeal it."): dropped, that change would be lost unsaid.
                self.quote_back(line, text, title_note(stripped, self.titles))
        elif speaks_of_change(text) or names_a_change(stripped):
            self.quote_back(line, text, title_note(stripped, self.titles))

    def quote_back(self, line: int, text: str, note: str) -> None:
        """Quote a line back to the host, with what a title it names stands for, if known."""
        self.unclear.append((line, tokens.shown(text) + (f" [{note}]" if note else "")))

    def natural_read(self) -> list[Clause]:
        """Return the clauses, or none when a condition governs them.

        A proposal that says when its changes are to happen ("If Proposal 8320 has been
        adopted, ...", "Otherwise:", "... takes effect only if ...") is carried out by the
        host: its changes, made unconditionally, would be wrong changes. Its conditions are
        quoted back.
        """
        governing = [(line, text) for line, text, governs, before in self.conditions
                     if governs or before < len(self.clauses)]
        if self.whole and (len(self.whole) > 1 or any(
                clause.condition is not None for clause in self.clauses)):
            governing += [(line, text) for line, text, _ in self.whole]  # two conditions
        elif self.whole:
            self.clauses = [replace(clause, condition=self.whole[0][2])
                            for clause in self.clauses]
        if self.unclear:  # the host, given lines to carry out, is given what governs them
            self.unclear = sorted({*self.unclear, *self.settled_lines,
                                   *((line, text) for line, text, _ in self.whole)})
        if not governing or not self.clauses:
            return self.clauses
        self.unclear = sorted({*self.unclear, *governing})
        return []


def _unclear_extent(text: str) -> bool:
    """Whether a text given in plain English may hold more than the rule's text."""
    return "\n\n" in text or any(not_rule_text(line) for line in text.split("\n"))


MAX_CLAUSES = 200
"""The most rule changes one proposal may make (an adopted proposal of a long game rarely
makes more than a few dozen)."""


def parse_clauses(
    lines: tuple[tuple[int, str], ...], where: str, titles: RuleTitles | None = None
) -> tuple[list[Clause], list[ParseError], list[tuple[int, str]]]:
    """Split a proposal's text into clauses; ``where`` names the proposal in errors.

    Returns the clauses, the errors (keyword forms plainly broken) and the lines that speak
    of changing a rule in a way no form matches (line number, text as shown). ``titles``:
    the rules in effect, where a rule named by its title alone is found (None: such a change
    is quoted back).
    """
    reader = _ClauseReader(lines, where, titles)
    index = 0
    while index < len(lines):
        index = reader.step(index)
    reader.close()
    clauses = reader.natural_read()
    if len(clauses) > MAX_CLAUSES:
        # Each change is checked against the rule at submission, at adoption and in the
        # distribution's diff: a proposal of thousands would cost the Speaker seconds each.
        first = lines[0][0] if lines else 0
        return [], [ParseError(first, "", f"{len(clauses)} rule changes {where}: one "
                               f"proposal may make at most {MAX_CLAUSES}; split it into "
                               "several")], reader.unclear
    return clauses, reader.errors, reader.unclear


def clauses_of(text: str, where: str) -> tuple[list[Clause], list[ParseError]]:
    """Read the clauses of a proposal's whole text, as its lines would be read by mail.

    For a proposal that comes by another way than a message (an imported game's open
    proposals): its lines are numbered from 1; ``where`` names it in errors.
    """
    lines = tuple(enumerate(text.splitlines(), start=1))
    clauses, errors, _unclear = parse_clauses(lines, where)
    return clauses, errors
