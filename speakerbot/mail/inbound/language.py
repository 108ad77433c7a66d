"""The command language players and the Speaker write in the body of their mail.

:func:`parse_commands` reads a Subject and a plain-text body into a
:class:`ParseResult`: the commands found, the errors (lines that were meant as
commands but cannot be read), and the prose lines that were ignored. The caller
applies a message atomically: any error means nothing in it is applied.

One table, :data:`COMMANDS` (with :data:`ADMIN_ACTIONS` for the Speaker's
``ADMIN`` actions and :data:`SUBJECT_SHORTCUTS`), drives both the parser and
:func:`help_text`, so the HELP reply always describes what is parsed.

Line numbers
    The body is split into lines at LF, CRLF or a lone CR (nothing else: no
    Unicode line separators), after a leading byte-order mark is removed. The
    first line is line 1; :func:`speakerbot.mail.inbound.reading.read_message` has
    already decoded the transfer encoding and charset and unwrapped
    ``format=flowed`` text, so these are the lines the sender sees in their
    mail client. A command taken from the Subject has line 0, and so have errors
    that concern the whole message.

What is skipped without being listed
    Blank lines; quoted lines (first non-blank character ``>``); everything from
    a signature delimiter (a line that is ``--`` once surrounding white space is
    removed, so ``-- `` and ``--``) on; everything from a line that is only
    ``END``, ``THANKS`` or ``STOP`` (any case, surrounding white space and
    trailing ``.``, ``!`` or ``,`` allowed) on; everything from the start of a
    quoted history that mail clients do not mark with ``>``: a line such as
    ``-----Original Message-----``, ``-------- Forwarded Message --------``,
    ``Begin forwarded message:``, a line of ten or more underscores, or a
    ``From:`` line followed by a ``Sent:`` or ``Date:`` line (the header block
    Outlook puts above the message it replies to).

What is listed as ignored
    Any other line whose first word is not a keyword (prose), and lines that
    start with a keyword taking no arguments but do not hold it alone.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any, ClassVar, Literal, TypeAlias

from speakerbot.engine.durations import parse_duration

__all__ = [
    "ADMIN_ACTIONS",
    "COMMANDS",
    "MAX_COMMAND_LINES",
    "SUBJECT_SHORTCUTS",
    "AdminAdd",
    "AdminClose",
    "AdminCommand",
    "AdminDigest",
    "AdminExtend",
    "AdminJudge",
    "AdminRemove",
    "AdminRule",
    "AdminScore",
    "AdminSet",
    "AdminSpeaker",
    "AdminSpec",
    "AdminVoid",
    "Cfj",
    "Choice",
    "Clause",
    "ClauseKind",
    "Command",
    "CommandSpec",
    "Confirm",
    "Consent",
    "ConsentTurn",
    "Forfeit",
    "Help",
    "IgnoredLine",
    "Join",
    "Judgement",
    "JudgementValue",
    "Overrule",
    "ParseError",
    "ParseResult",
    "Propose",
    "Refuse",
    "Rules",
    "Scores",
    "Status",
    "SubjectShortcut",
    "Vote",
    "Who",
    "help_text",
    "parse_commands",
    "redact",
]

MAX_COMMAND_LINES = 200
"""A message with more command lines than this (commands plus errors) is refused whole."""

MAX_NAME_LENGTH = 60
"""The longest display name JOIN and ADMIN ADD accept."""

MAX_SHOWN = 200
"""Lines quoted back in errors and ignored lines are cut to this many characters."""


class Choice(StrEnum):
    """A ballot's choice (YES and AYE are read as FOR, NO and NAY as AGAINST)."""

    FOR = "FOR"
    AGAINST = "AGAINST"
    ABSTAIN = "ABSTAIN"


class JudgementValue(StrEnum):
    """The value a JUDGEMENT delivers."""

    TRUE = "TRUE"
    FALSE = "FALSE"
    UNDECIDED = "UNDECIDED"


class ClauseKind(StrEnum):
    """What a clause of a proposal (or of ADMIN RULE) does."""

    ENACT = "ENACT"
    AMEND = "AMEND"
    REPEAL = "REPEAL"
    TRANSMUTE = "TRANSMUTE"
    SET = "SET"


Who: TypeAlias = Literal["anyone", "player", "judge", "Speaker"]

_REDACTED = "********"


# =========================================================================== results


def _json_value(value: object) -> object:
    if isinstance(value, Clause):
        return value.to_json()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


@dataclass(frozen=True)
class Clause:
    """One change a proposal (or ``ADMIN RULE``) makes to the ruleset.

    ``rule`` is the rule number for AMEND, REPEAL and TRANSMUTE and None for
    ENACT and SET. ``text`` is the new rule text for ENACT and AMEND, the lines
    that follow the clause line for REPEAL and TRANSMUTE (usually empty), and
    ``"<parameter> = <value>"`` for SET. ``immutable`` is True only for
    ``ENACT IMMUTABLE RULE:``.
    """

    kind: ClauseKind
    rule: int | None
    text: str
    immutable: bool = False
    parameter: str | None = None
    value: str | None = None

    def to_json(self) -> dict[str, object]:
        """Return the clause as in ``speakerbot parse`` output."""
        out: dict[str, object] = {
            "kind": self.kind.value,
            "rule": self.rule,
            "text": self.text,
            "immutable": self.immutable,
        }
        if self.kind == "SET":
            out["parameter"] = self.parameter
            out["value"] = self.value
        return out


@dataclass(frozen=True)
class _CommandBase:
    """Fields and JSON shared by every command: the line it was read from."""

    line: int
    verb: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        out: dict[str, object] = {"line": self.line, "verb": self.verb}
        for item in dataclasses.fields(self):
            if item.name != "line":
                out[item.name] = _json_value(getattr(self, item.name))
        return out


@dataclass(frozen=True)
class Join(_CommandBase):
    """``JOIN <display name>``: join the game."""

    name: str
    verb: ClassVar[str] = "JOIN"


@dataclass(frozen=True)
class Vote(_CommandBase):
    """``VOTE <n> FOR|AGAINST|ABSTAIN``; ABSTAIN withdraws an earlier ballot."""

    proposal: int
    choice: Choice
    verb: ClassVar[str] = "VOTE"


@dataclass(frozen=True)
class Propose(_CommandBase):
    """``PROPOSE <title>``, the proposal's text, ``END PROPOSE``."""

    title: str
    text: str
    clauses: tuple[Clause, ...]
    verb: ClassVar[str] = "PROPOSE"


@dataclass(frozen=True)
class Cfj(_CommandBase):
    """``CFJ <statement>``, optionally arguments ended by ``END CFJ``.

    ``paradox`` is True when the statement's first word is PARADOX; the
    statement is kept as written, PARADOX included. ``arguments`` is "" when
    none were given.
    """

    statement: str
    arguments: str
    paradox: bool
    verb: ClassVar[str] = "CFJ"


@dataclass(frozen=True)
class Judgement(_CommandBase):
    """``JUDGEMENT <cfj> TRUE|FALSE|UNDECIDED``, optionally reasons ended by ``END JUDGEMENT``."""

    cfj: int
    value: JudgementValue
    reasons: str
    verb: ClassVar[str] = "JUDGEMENT"


@dataclass(frozen=True)
class Consent(_CommandBase):
    """``CONSENT <n>``."""

    proposal: int
    verb: ClassVar[str] = "CONSENT"


@dataclass(frozen=True)
class ConsentTurn(_CommandBase):
    """``CONSENT TURN``: agree that the next turn may begin while a CFJ is undecided.

    JSON: ``{"line": ..., "verb": "CONSENT", "turn": true}`` (no ``proposal``).
    """

    verb: ClassVar[str] = "CONSENT"

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        return {**super().to_json(), "turn": True}


@dataclass(frozen=True)
class Refuse(_CommandBase):
    """``REFUSE <n>``."""

    proposal: int
    verb: ClassVar[str] = "REFUSE"


@dataclass(frozen=True)
class Overrule(_CommandBase):
    """``OVERRULE <cfj>``."""

    cfj: int
    verb: ClassVar[str] = "OVERRULE"


@dataclass(frozen=True)
class Forfeit(_CommandBase):
    """``FORFEIT``: leave the game."""

    verb: ClassVar[str] = "FORFEIT"


@dataclass(frozen=True)
class Confirm(_CommandBase):
    """``CONFIRM <code>``: confirm mail the Speaker could not authenticate."""

    token: str
    verb: ClassVar[str] = "CONFIRM"


@dataclass(frozen=True)
class Status(_CommandBase):
    """``STATUS``."""

    verb: ClassVar[str] = "STATUS"


@dataclass(frozen=True)
class Rules(_CommandBase):
    """``RULES``."""

    verb: ClassVar[str] = "RULES"


@dataclass(frozen=True)
class Scores(_CommandBase):
    """``SCORES``."""

    verb: ClassVar[str] = "SCORES"


@dataclass(frozen=True)
class Help(_CommandBase):
    """``HELP``."""

    verb: ClassVar[str] = "HELP"


@dataclass(frozen=True)
class _AdminBase(_CommandBase):
    """The Speaker's ``ADMIN <action> ...`` commands; JSON has verb ADMIN and the action."""

    verb: ClassVar[str] = "ADMIN"
    action: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        out = super().to_json()
        return {"line": out.pop("line"), "verb": out.pop("verb"), "action": self.action, **out}


@dataclass(frozen=True)
class AdminAdd(_AdminBase):
    """``ADMIN ADD <email> <name>``: add a player."""

    email: str
    name: str
    action: ClassVar[str] = "add"


@dataclass(frozen=True)
class AdminRemove(_AdminBase):
    """``ADMIN REMOVE <player>``."""

    player: str
    action: ClassVar[str] = "remove"


@dataclass(frozen=True)
class AdminScore(_AdminBase):
    """``ADMIN SCORE <player> <+n|-n> [reason]``; ``reason`` is None when not given."""

    player: str
    delta: int
    reason: str | None
    action: ClassVar[str] = "score"


@dataclass(frozen=True)
class AdminSet(_AdminBase):
    """``ADMIN SET <parameter> <value>`` (an ``=`` between them is allowed)."""

    parameter: str
    value: str
    action: ClassVar[str] = "set"


@dataclass(frozen=True)
class AdminExtend(_AdminBase):
    """``ADMIN EXTEND <n> <duration>``; ``duration`` is kept as written."""

    proposal: int
    duration: str
    action: ClassVar[str] = "extend"

    @property
    def period(self) -> timedelta:
        """The duration as a timedelta (it was checked when parsed)."""
        return parse_duration(self.duration)


@dataclass(frozen=True)
class AdminClose(_AdminBase):
    """``ADMIN CLOSE <n>``."""

    proposal: int
    action: ClassVar[str] = "close"


@dataclass(frozen=True)
class AdminVoid(_AdminBase):
    """``ADMIN VOID <n> [reason]``; ``reason`` is None when not given."""

    proposal: int
    reason: str | None
    action: ClassVar[str] = "void"


@dataclass(frozen=True)
class AdminRule(_AdminBase):
    """``ADMIN RULE <clause>``: change the ruleset directly."""

    clause: Clause
    action: ClassVar[str] = "rule"


@dataclass(frozen=True)
class AdminJudge(_AdminBase):
    """``ADMIN JUDGE <cfj> <player>``: assign a judge."""

    cfj: int
    player: str
    action: ClassVar[str] = "judge"


@dataclass(frozen=True)
class AdminSpeaker(_AdminBase):
    """``ADMIN SPEAKER <player>``: hand the Speaker's role on."""

    player: str
    action: ClassVar[str] = "speaker"


@dataclass(frozen=True)
class AdminDigest(_AdminBase):
    """``ADMIN DIGEST``: send the digest now."""

    action: ClassVar[str] = "digest"


AdminCommand: TypeAlias = (
    AdminAdd | AdminRemove | AdminScore | AdminSet | AdminExtend | AdminClose | AdminVoid
    | AdminRule | AdminJudge | AdminSpeaker | AdminDigest
)  # fmt: skip
Command: TypeAlias = (
    Join | Vote | Propose | Cfj | Judgement | Consent | ConsentTurn | Refuse | Overrule
    | Forfeit | Confirm | Status | Rules | Scores | Help | AdminCommand
)  # fmt: skip


@dataclass(frozen=True)
class ParseError:
    """A line meant as a command that cannot be read; ``reason`` says what to write instead."""

    line: int
    text: str
    reason: str

    def to_json(self) -> dict[str, object]:
        """Return the error as in ``speakerbot parse`` output."""
        return {"line": self.line, "text": self.text, "reason": self.reason}


@dataclass(frozen=True)
class IgnoredLine:
    """A prose line: not a command, listed in the reply so the sender can check."""

    line: int
    text: str

    def to_json(self) -> dict[str, object]:
        """Return the ignored line as in ``speakerbot parse`` output."""
        return {"line": self.line, "text": self.text}


@dataclass(frozen=True)
class ParseResult:
    """Everything read from one message.

    ``password`` is the secret of the message's ``PASSWORD`` line (None if there
    is none). It is left out of :meth:`to_json` and of ``repr``, and the secret
    does not occur in any command, error or ignored line: wherever else it
    appears in the message it is replaced by ``********``.
    """

    commands: tuple[Command, ...]
    errors: tuple[ParseError, ...]
    ignored: tuple[IgnoredLine, ...]
    password: str | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """True when the message has no errors, so its commands may be applied."""
        return not self.errors

    def to_json(self) -> dict[str, object]:
        """Return commands, errors and ignored lines as in ``speakerbot parse`` output."""
        return {
            "commands": [command.to_json() for command in self.commands],
            "errors": [error.to_json() for error in self.errors],
            "ignored": [line.to_json() for line in self.ignored],
        }


# =========================================================================== the table


@dataclass(frozen=True)
class _Block:
    """The lines of a block as (line number, text without trailing space); no quoted lines."""

    lines: tuple[tuple[int, str], ...]

    def text(self) -> str:
        return _join_text([text for _, text in self.lines])


_Build: TypeAlias = Callable[[_Block | None], "Command | list[ParseError]"]


@dataclass(frozen=True)
class _Plan:
    """How to finish reading a command whose first line was read: its block and its builder."""

    build: _Build
    block: Literal["none", "optional", "required"] = "none"
    ends: tuple[str, ...] = ()
    opener: str = ""


@dataclass(frozen=True)
class _Secret:
    """The outcome of a PASSWORD line."""

    value: str


_Outcome: TypeAlias = "_Plan | _Secret | str"
_Head: TypeAlias = Callable[[int, str], _Outcome]


@dataclass(frozen=True)
class CommandSpec:
    """One keyword of the language: its argument syntax, what it does, who may use it.

    ``bare`` keywords take no arguments and count only when alone on their line.
    """

    verb: str
    syntax: str
    summary: str
    who: Who
    head: _Head | None = field(default=None, repr=False)
    aliases: tuple[str, ...] = ()
    bare: bool = False
    example: str = ""
    ends: tuple[str, ...] = ()


@dataclass(frozen=True)
class AdminSpec:
    """One action of the Speaker's ``ADMIN`` command."""

    action: str
    syntax: str
    summary: str
    head: _Head = field(repr=False)


@dataclass(frozen=True)
class SubjectShortcut:
    """A Subject that is a command; the body is the named part of that command."""

    syntax: str
    summary: str


# --------------------------------------------------------------------------- small readers

_NUMBER = re.compile(r"#?([0-9]{1,9}):?")
_SIGNED = re.compile(r"[+\-\u2212\u2013]([0-9]{1,9})")
_EMAIL = re.compile(r"<?([^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+)>?")
_PARAMETER = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_TRAILING = ".!"
_BARE_TRAILING = ".!?"
_CHOICES: Mapping[str, Choice] = {
    "FOR": Choice.FOR, "YES": Choice.FOR, "AYE": Choice.FOR,
    "AGAINST": Choice.AGAINST, "NO": Choice.AGAINST, "NAY": Choice.AGAINST,
    "ABSTAIN": Choice.ABSTAIN,
}  # fmt: skip
_VALUES: Mapping[str, JudgementValue] = {value.value: value for value in JudgementValue}


def _number(token: str) -> int | None:
    match = _NUMBER.fullmatch(token)
    return int(match.group(1)) if match else None


def _word(token: str) -> str:
    """Upper-case a keyword-like token and drop trailing . and !."""
    return token.upper().rstrip(_TRAILING)


def _join_text(lines: list[str]) -> str:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(line.rstrip() for line in lines[start:end])


def _name(value: str, verb: str) -> str:
    """Check a display name; return it with white space tidied, or raise ValueError."""
    name = " ".join(value.split())
    example = (
        f"e.g. {verb} Alice Smith"
        if verb == "JOIN"
        else f"e.g. {verb} alice@example.org Alice Smith"
    )
    if not name:
        raise ValueError(f"{verb} needs a display name, {example}")
    if "@" in name:
        raise ValueError(f"a display name may not contain @; {example}")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"a display name may be at most {MAX_NAME_LENGTH} characters long")
    return name


def _player(value: str) -> str:
    """Tidy a player reference: an email address (lower-cased, <> removed) or a display name."""
    value = " ".join(value.split())
    match = _EMAIL.fullmatch(value)
    return match.group(1).lower() if match else value


def _plan(command: Command) -> _Plan:
    return _Plan(build=lambda _block: command)


def _one_edit(a: str, b: str) -> bool:
    """Tell whether a and b are one Damerau–Levenshtein edit apart (and not equal)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    common = min(len(a), len(b))
    while i < common and a[i] == b[i]:
        i += 1
    if len(a) > len(b):  # a letter added
        return a[i + 1 :] == b[i:]
    if len(a) < len(b):  # a letter left out
        return b[i + 1 :] == a[i:]
    if a[i + 1 :] == b[i + 1 :]:  # a letter changed
        return True
    return (  # two neighbouring letters swapped
        i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    )


# --------------------------------------------------------------------------- clauses

_CLAUSE = re.compile(
    r"\s*(ENACT|AMEND|REPEAL|TRANSMUTE)\s+(?:(IMMUTABLE)\s+)?RULE\b(.*)", re.IGNORECASE | re.DOTALL
)
_SET_CLAUSE = re.compile(r"\s*SET\s(.*)", re.IGNORECASE | re.DOTALL)
_SET_BODY = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.-]*)\s*=\s*(\S.*?)\s*")
_ENACT_REST = re.compile(r"\s*(?::\s*(.*))?", re.DOTALL)
_AMEND_REST = re.compile(r"\s+#?([0-9]{1,9})\s*(?::\s*(.*))?", re.DOTALL)
_NUMBERED_REST = re.compile(r"\s+#?([0-9]{1,9})\s*[.:]?\s*")


@dataclass(frozen=True)
class _ClauseHead:
    kind: ClauseKind
    rule: int | None
    first_text: str
    immutable: bool = False
    parameter: str | None = None
    value: str | None = None


def _clause_head(line: str, *, any_set: bool = False) -> _ClauseHead | str | None:
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
            return _ClauseHead(
                ClauseKind.ENACT, None, (enact.group(1) or "").strip(), immutable=immutable
            )
        if kind == "AMEND":
            amend = _AMEND_REST.fullmatch(rest)
            if amend is None:
                return (
                    "AMEND RULE needs a rule number and a colon, e.g. AMEND RULE 205: "
                    "followed by the new text"
                )
            return _ClauseHead(
                ClauseKind.AMEND, int(amend.group(1)), (amend.group(2) or "").strip()
            )
        numbered = _NUMBERED_REST.fullmatch(rest)
        if numbered is None:
            return f"{kind} RULE needs just a rule number, e.g. {kind} RULE 105"
        return _ClauseHead(ClauseKind(kind), int(numbered.group(1)), "")
    set_match = _SET_CLAUSE.match(line)
    if set_match is not None and (any_set or "=" in line):
        body = _SET_BODY.fullmatch(set_match.group(1))
        if body is None:
            return "SET needs a parameter name, = and a value, e.g. SET quorum = 5"
        parameter, value = body.group(1), body.group(2)
        return _ClauseHead(
            ClauseKind.SET, None, f"{parameter} = {value}", parameter=parameter, value=value
        )
    return None


def _finish_clause(head: _ClauseHead, following: list[str]) -> Clause | str:
    if head.kind == "SET":
        return Clause(
            ClauseKind.SET, None, head.first_text, parameter=head.parameter, value=head.value
        )
    text = _join_text([head.first_text, *following]) if head.first_text else _join_text(following)
    if head.kind in ("ENACT", "AMEND") and not text:
        name = "ENACT RULE" if head.kind == "ENACT" else f"AMEND RULE {head.rule}"
        return f"{name} has no text; write the rule's text after the colon or on the lines below it"
    return Clause(head.kind, head.rule, text, immutable=head.immutable)


def _parse_clauses(
    lines: tuple[tuple[int, str], ...], where: str
) -> tuple[list[Clause], list[ParseError]]:
    """Split a proposal's text into clauses; ``where`` names the proposal in errors."""
    clauses: list[Clause] = []
    errors: list[ParseError] = []
    current: tuple[int, str, _ClauseHead] | None = None
    following: list[str] = []

    def close() -> None:
        if current is None:
            return
        line, text, head = current
        clause = _finish_clause(head, following)
        if isinstance(clause, str):
            errors.append(ParseError(line, _shown(text), f"{clause} ({where})"))
        else:
            clauses.append(clause)

    for line, text in lines:
        head = _clause_head(text)
        if head is None:
            if current is not None:
                following.append(text)
            continue
        close()
        current, following = None, []
        if isinstance(head, str):
            errors.append(ParseError(line, _shown(text), f"{head} ({where})"))
        else:
            current = (line, text, head)
    close()
    return clauses, errors


# --------------------------------------------------------------------------- command heads


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
        clauses, errors = _parse_clauses(
            lines, f"in the proposal “{title}” {where}, which was not submitted"
        )
        if errors:
            return errors
        return Propose(line, title, text, tuple(clauses))

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


# --------------------------------------------------------------------------- ADMIN


def _admin_add(line: int, rest: str) -> _Outcome:
    words = rest.split(None, 1)
    usage = (
        "ADMIN ADD needs an email address and a display name, "
        "e.g. ADMIN ADD alice@example.org Alice Smith"
    )
    if len(words) < 2:
        return usage
    match = _EMAIL.fullmatch(words[0])
    if match is None:
        return usage
    try:
        name = _name(words[1], "ADMIN ADD")
    except ValueError as exc:
        return str(exc)
    return _plan(AdminAdd(line, match.group(1).lower(), name))


def _admin_player(action: str, make: Callable[[int, str], Command]) -> _Head:
    def head(line: int, rest: str) -> _Outcome:
        if not rest.strip():
            return (
                f"ADMIN {action} needs a player's email address or display name, "
                f"e.g. ADMIN {action} alice@example.org"
            )
        return _plan(make(line, _player(rest)))

    return head


_SCORE = re.compile(r"(.+?)\s+([+\-\u2212\u2013][0-9]{1,9})(?:\s+(.*))?", re.DOTALL)


def _admin_score(line: int, rest: str) -> _Outcome:
    match = _SCORE.fullmatch(rest.strip())
    if match is None:
        return (
            "ADMIN SCORE needs a player, a signed number and optionally a reason, "
            "e.g. ADMIN SCORE alice@example.org +5 solved the puzzle"
        )
    digits = int(match.group(2)[1:])
    delta = digits if match.group(2)[0] == "+" else -digits
    reason = " ".join((match.group(3) or "").split()) or None
    return _plan(AdminScore(line, _player(match.group(1)), delta, reason))


_ADMIN_SET = re.compile(r"([A-Za-z][A-Za-z0-9_.-]*)\s*(?:=\s*|\s+)(\S.*?)\s*", re.DOTALL)


def _admin_set(line: int, rest: str) -> _Outcome:
    match = _ADMIN_SET.fullmatch(rest.strip())
    if match is None:
        return "ADMIN SET needs a parameter name and a value, e.g. ADMIN SET quorum 5"
    return _plan(AdminSet(line, match.group(1), match.group(2)))


def _admin_extend(line: int, rest: str) -> _Outcome:
    words = rest.split(None, 1)
    usage = (
        "ADMIN EXTEND needs a proposal number and a duration, "
        "e.g. ADMIN EXTEND 301 2d or ADMIN EXTEND 301 1d12h"
    )
    proposal = _number(words[0]) if words else None
    if proposal is None or len(words) < 2:
        return usage
    duration = words[1].strip()
    try:
        length = parse_duration(duration)
    except ValueError as exc:
        return f"ADMIN EXTEND: {exc}"
    if length <= timedelta(0):
        return "ADMIN EXTEND needs a duration longer than zero, e.g. ADMIN EXTEND 301 2d"
    return _plan(AdminExtend(line, proposal, duration))


def _admin_close(line: int, rest: str) -> _Outcome:
    words = rest.split()
    proposal = _number(words[0]) if len(words) == 1 else None
    if proposal is None:
        return "ADMIN CLOSE needs just a proposal number, e.g. ADMIN CLOSE 301"
    return _plan(AdminClose(line, proposal))


def _admin_void(line: int, rest: str) -> _Outcome:
    words = rest.split(None, 1)
    proposal = _number(words[0]) if words else None
    if proposal is None:
        return (
            "ADMIN VOID needs a proposal number and optionally a reason, "
            "e.g. ADMIN VOID 301 duplicate"
        )
    reason = " ".join(words[1].split()) if len(words) > 1 else None
    return _plan(AdminVoid(line, proposal, reason or None))


def _admin_rule(line: int, rest: str) -> _Outcome:
    head = _clause_head(rest, any_set=True)
    if head is None:
        return (
            "ADMIN RULE needs a clause, e.g. ADMIN RULE REPEAL RULE 105, "
            "ADMIN RULE SET quorum = 5, "
            "or ADMIN RULE AMEND RULE 205: with the text on the next lines and END RULE after it"
        )
    if isinstance(head, str):
        return f"ADMIN RULE: {head}"
    if head.kind not in ("ENACT", "AMEND"):
        clause = _finish_clause(head, [])
        assert isinstance(clause, Clause)  # only ENACT and AMEND can lack text
        return _plan(AdminRule(line, clause))
    clause_head = head

    def build(block: _Block | None) -> Command | list[ParseError]:
        lines = block.lines if block is not None else ()
        for number, text in lines:
            if _clause_head(text) is not None:
                return [
                    ParseError(
                        number,
                        _shown(text),
                        f"ADMIN RULE (line {line}) takes one clause; give each clause its own "
                        "ADMIN RULE line",
                    )
                ]
        clause = _finish_clause(clause_head, [text for _, text in lines])
        if isinstance(clause, str):
            return [ParseError(line, "", f"ADMIN RULE: {clause}, then END RULE")]
        return AdminRule(line, clause)

    return _Plan(build, block="required", ends=("END RULE",), opener="ADMIN RULE")


def _admin_judge(line: int, rest: str) -> _Outcome:
    words = rest.split(None, 1)
    cfj = _number(words[0]) if words else None
    if cfj is None or len(words) < 2:
        return "ADMIN JUDGE needs a CFJ number and a player, e.g. ADMIN JUDGE 12 bob@example.org"
    return _plan(AdminJudge(line, cfj, _player(words[1])))


def _admin_digest(line: int, rest: str) -> _Outcome:
    return "ADMIN DIGEST takes nothing after it" if rest else _plan(AdminDigest(line))


ADMIN_ACTIONS: tuple[AdminSpec, ...] = (
    AdminSpec(
        "ADD", "<email> <name>", "add a player with this address and display name", _admin_add
    ),
    AdminSpec(
        "REMOVE",
        "<player>",
        "remove a player (by email address or display name)",
        _admin_player("REMOVE", AdminRemove),
    ),
    AdminSpec(
        "SCORE",
        "<player> <+n|-n> [reason]",
        "add points to or take them from a player",
        _admin_score,
    ),
    AdminSpec("SET", "<parameter> <value>", "change a game parameter", _admin_set),
    AdminSpec(
        "EXTEND",
        "<n> <duration>",
        "extend voting on proposal n by 7d, 36h, 90m, 1d12h...",
        _admin_extend,
    ),
    AdminSpec("CLOSE", "<n>", "close voting on proposal n now", _admin_close),
    AdminSpec("VOID", "<n> [reason]", "void proposal n", _admin_void),
    AdminSpec(
        "RULE",
        "<clause>",
        "change the ruleset directly with one clause; ENACT and AMEND take the text on the "
        "following lines, ended by END RULE",
        _admin_rule,
    ),
    AdminSpec("JUDGE", "<cfj> <player>", "assign a judge to a CFJ", _admin_judge),
    AdminSpec(
        "SPEAKER",
        "<player>",
        "make another player the Speaker",
        _admin_player("SPEAKER", AdminSpeaker),
    ),
    AdminSpec("DIGEST", "", "send the digest now", _admin_digest),
)
_ADMIN_LOOKUP: Mapping[str, AdminSpec] = {spec.action: spec for spec in ADMIN_ACTIONS}
_ADMIN_LIST = (
    ", ".join(spec.action for spec in ADMIN_ACTIONS[:-1]) + " or " + ADMIN_ACTIONS[-1].action
)


def _admin(line: int, rest: str) -> _Outcome:
    words = rest.split(None, 1)
    if not words:
        return f"ADMIN needs an action: {_ADMIN_LIST}"
    action = words[0].upper().rstrip(":")
    action_rest = words[1].strip() if len(words) > 1 else ""
    spec = _ADMIN_LOOKUP.get(action)
    if spec is None:
        for candidate in ADMIN_ACTIONS:
            if _one_edit(action, candidate.action) and not isinstance(
                candidate.head(line, action_rest), str
            ):
                return f"unknown ADMIN action {words[0]}; did you mean {candidate.action}?"
        return f"unknown ADMIN action {words[0]}; ADMIN needs one of {_ADMIN_LIST}"
    return spec.head(line, action_rest)


# --------------------------------------------------------------------------- the table

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("JOIN", "<display name>", "join the game under this name", "anyone", _join,
                example="JOIN Alice Smith"),
    CommandSpec(
        "VOTE",
        "<n> FOR|AGAINST|ABSTAIN",
        "vote on proposal n; YES and AYE mean FOR, NO and NAY mean AGAINST, "
        "ABSTAIN withdraws your earlier vote",
        "player",
        _vote,
        example="VOTE 301 FOR",
    ),
    CommandSpec(
        "PROPOSE",
        "<title>",
        "propose a change: the proposal's text follows on the next lines, ended by a line "
        "END PROPOSE",
        "player",
        _propose,
        example="PROPOSE Fair dice",
        ends=("END PROPOSE", "END PROPOSAL"),
    ),
    CommandSpec(
        "CFJ",
        "<statement>",
        "call for judgement on a statement (start it with PARADOX for a paradox); "
        "arguments may follow on the next lines, ended by END CFJ",
        "player",
        _cfj,
        example="CFJ Rule 105 allows dice",
        ends=("END CFJ",),
    ),
    CommandSpec(
        "JUDGEMENT",
        "<cfj> TRUE|FALSE|UNDECIDED",
        "judge a CFJ assigned to you; reasons may follow on the next lines, ended by "
        "END JUDGEMENT",
        "judge",
        _judgement,
        aliases=("JUDGMENT",),
        example="JUDGEMENT 12 TRUE",
        ends=_JUDGEMENT_ENDS,
    ),
    CommandSpec("CONSENT", "<n> | TURN",
                "give your consent to proposal n where the rules ask for it; CONSENT TURN "
                "agrees that the next turn may begin while a CFJ is undecided",
                "player", _consent, example="CONSENT 301"),
    CommandSpec("REFUSE", "<n>", "refuse your consent to proposal n", "player",
                _numbered("REFUSE", "a proposal", Refuse), example="REFUSE 301"),
    CommandSpec("OVERRULE", "<cfj>", "vote to overrule the judgement of a CFJ", "player",
                _numbered("OVERRULE", "a CFJ", Overrule), example="OVERRULE 12"),
    CommandSpec("FORFEIT", "", "leave the game", "player", _bare(Forfeit), bare=True),
    CommandSpec("CONFIRM", "<code>", "confirm a message the Speaker could not authenticate, "
                "with the code from its request", "anyone", _confirm,
                example="CONFIRM 3f9c2a7d41b0e8c6a5d2f1e0b9c8a7d6"),
    CommandSpec("STATUS", "", "get the state of the game: open proposals, CFJs, deadlines",
                "anyone", _bare(Status), bare=True),
    CommandSpec("RULES", "", "get the current ruleset", "anyone", _bare(Rules), bare=True),
    CommandSpec("SCORES", "", "get the scores", "anyone", _bare(Scores), bare=True),
    CommandSpec("HELP", "", "get this help", "anyone", _bare(Help), bare=True),
    CommandSpec(
        "PASSWORD",
        "<password>",
        "the Speaker's password: needed in any message with ADMIN commands; never echoed",
        "Speaker",
        _password,
    ),
    CommandSpec("ADMIN", "<action> ...", "a Speaker command; the actions are listed below",
                "Speaker", _admin),
)  # fmt: skip
_LOOKUP: Mapping[str, CommandSpec] = {
    name: spec for spec in COMMANDS for name in (spec.verb, *spec.aliases)
}

SUBJECT_SHORTCUTS: tuple[SubjectShortcut, ...] = (
    SubjectShortcut(
        "PROPOSE: <title>", "the body (up to END PROPOSE or the end) is the proposal's text"
    ),
    SubjectShortcut("Proposal: <title>", "the same as PROPOSE: <title>"),
    SubjectShortcut("CFJ: <statement>", "the body (up to END CFJ or the end) holds the arguments"),
    SubjectShortcut(
        "JUDGEMENT <cfj>: TRUE|FALSE|UNDECIDED",
        "the body (up to END JUDGEMENT or the end) holds the reasons",
    ),
)


def _near_names() -> dict[int, list[tuple[CommandSpec, str]]]:
    by_length: dict[int, list[tuple[CommandSpec, str]]] = {}
    for spec in COMMANDS:
        for name in (spec.verb, *spec.aliases):
            if len(name) >= 4:  # keywords of three letters have no near misses
                by_length.setdefault(len(name), []).append((spec, name))
    return by_length


_NEAR_NAMES = _near_names()


_NEAR_BY_SIZE: dict[int, tuple[tuple[CommandSpec, str], ...]] = {
    size: (
        *_NEAR_NAMES.get(size - 1, ()),
        *_NEAR_NAMES.get(size, ()),
        *_NEAR_NAMES.get(size + 1, ()),
    )
    for size in range(1, max(_NEAR_NAMES) + 2)
}


def _near_candidates(key: str) -> tuple[tuple[CommandSpec, str], ...]:
    """Keywords whose length is within one of ``key``'s: the only possible near misses."""
    return _NEAR_BY_SIZE.get(len(key), ())


NOT_TYPOS: frozenset[str] = frozenset(
    {
        "JOHN", "JOAN", "JOINT", "COIN", "LOIN", "HELL", "HELD", "HELM", "YELP",
        "ROLES", "RULED", "RULER", "STATUE", "SCORED", "STORES",
    }
)  # fmt: skip
"""Real words one edit from a keyword that are never reported as a mistyped keyword."""


# =========================================================================== help


_WHO_NOTE: Mapping[str, str] = {
    "anyone": "",
    "player": " Players only.",
    "judge": " Only the judge assigned to the CFJ.",
    "Speaker": "",
}


def help_text() -> str:
    """Render the HELP reply from the tables the parser uses.

    Those are :data:`COMMANDS`, :data:`ADMIN_ACTIONS` and :data:`SUBJECT_SHORTCUTS`.
    """
    out: list[str] = [
        "Write one command per line in the body of your message. Keywords may be",
        "written in any case; a number may be written 301 or #301. A message is",
        "applied whole or not at all: if any line has an error, nothing in it is",
        "done, and the reply says what to write instead.",
        "",
    ]

    def entry(syntax: str, summary: str, who: str = "anyone") -> None:
        out.append(f"  {syntax}")
        sentence = summary[:1].upper() + summary[1:]
        if not sentence.endswith("."):
            sentence += "."
        sentence += _WHO_NOTE[who]
        out.extend(textwrap.wrap(sentence, width=72, initial_indent=" " * 6,
                                 subsequent_indent=" " * 6))  # fmt: skip

    out.append("Commands:")
    for spec in COMMANDS:
        if spec.who != "Speaker":
            aliases = "".join(f" (or {alias})" for alias in spec.aliases)
            entry(f"{spec.verb}{aliases} {spec.syntax}".rstrip(), spec.summary, spec.who)
    out.extend(["", "Speaker commands (the message must also hold a line PASSWORD <password>):"])
    for spec in COMMANDS:
        if spec.who == "Speaker" and spec.verb != "ADMIN":
            entry(f"{spec.verb} {spec.syntax}".rstrip(), spec.summary)
    for action in ADMIN_ACTIONS:
        entry(f"ADMIN {action.action} {action.syntax}".rstrip(), action.summary)
    out.extend(
        [
            "",
            "Subject shortcuts (a Subject starting with Re:, Fwd: and the like is",
            "never a command):",
        ]
    )
    for shortcut in SUBJECT_SHORTCUTS:
        entry(shortcut.syntax, shortcut.summary)
    out.extend(
        [
            "",
            "Inside a proposal's text, lines like these change the rules (any case):",
            "  ENACT RULE: <text>           ENACT IMMUTABLE RULE: <text>",
            "  AMEND RULE <n>: <text>       REPEAL RULE <n>       TRANSMUTE RULE <n>",
            "  SET <parameter> = <value>",
            "A clause's text runs to the next clause or to the end of the proposal.",
            "",
            "Not read: blank lines; quoted lines (starting with >); everything after a",
            "signature line (-- ), after a line that is only END, THANKS or STOP, or",
            "after the start of quoted history (-----Original Message----- and the like).",
            "Other lines that do not start with a keyword are listed back as ignored.",
        ]
    )
    return "\n".join(out) + "\n"


# =========================================================================== parsing

_QUOTED = re.compile(r"\s*>")
_STOP_INITIALS = frozenset("-_*eEtTsSbBfFvVdD")  # first characters of the stop patterns below
_FINAL = re.compile(r"(?:END|THANKS|STOP)[.!,]*", re.IGNORECASE)
_HISTORY = re.compile(
    r"-{2,}\s*(?:original|forwarded)\s+message\s*-{2,}|_{10,}|begin forwarded message:",
    re.IGNORECASE,
)
_HEADER_FROM = re.compile(r"\*?(?:from|von|de|da|van|från|fra)\s*:\*?\s*\S.*", re.IGNORECASE)
_HEADER_SENT = re.compile(
    r"\*?(?:sent|date|gesendet|datum|envoyé|enviado|inviato|skickat|sendt|verzonden)\s*:.*",
    re.IGNORECASE,
)
_REPLY_PREFIX = re.compile(r"\s*(?:re|fwd?|aw|sv|wg|tr|vs|antw)\s*(?:\[\d+\])?\s*:", re.IGNORECASE)
_SUBJECT_PROPOSE = re.compile(r"(?:PROPOSE|PROPOSAL)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_SUBJECT_CFJ = re.compile(r"CFJ\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_SUBJECT_JUDGEMENT = re.compile(
    r"(JUDGE?MENT)\s+#?([0-9]{1,9})\s*:\s*(.*)", re.IGNORECASE | re.DOTALL
)


def _shown(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _end_name(text: str) -> str:
    return " ".join(text.upper().rstrip(_TRAILING).split())


def _split_lines(body: str) -> list[str]:
    body = body.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def one_edit_apart(a: str, b: str) -> bool:
    """Tell whether two words are one Damerau–Levenshtein edit apart (and not equal)."""
    return _one_edit(a, b)


def _password_in(text: str) -> str | None:
    """Return the secret if ``text`` (stripped) is a PASSWORD line, else None."""
    words = text.split(None, 1)
    if len(words) == 2 and _keyword(words[0]) == "PASSWORD":
        return words[1].strip()
    return None


def _keyword(first: str) -> str:
    key = first.upper()
    return key[:-1] if len(key) > 1 and key.endswith(":") else key


class _Reader:
    """Reads one message's lines; the state of :func:`parse_commands`."""

    def __init__(self, lines: list[str], max_command_lines: int = MAX_COMMAND_LINES) -> None:
        self.lines = lines
        self.limit = max_command_lines
        self.commands: list[Command] = []
        self.errors: list[ParseError] = []
        self.ignored: list[IgnoredLine] = []
        self.passwords: list[tuple[int, str]] = []
        self.command_lines: set[int] = set()
        self.too_many = False
        self._landmarks: tuple[list[int], dict[str, list[int]], dict[str, list[int]]] | None = None

    # ------------------------------------------------------------------ line kinds

    def stops(self, index: int, text: str | None = None) -> bool:
        """Tell whether line ``index`` ends what is read: signature, END/THANKS/STOP, history.

        ``text`` is the line with white space stripped, if the caller has it.
        """
        if text is None:
            text = self.lines[index].strip()
        if text[:1] not in _STOP_INITIALS:
            return False
        if text == "--" or _FINAL.fullmatch(text) or _HISTORY.fullmatch(text):
            return True
        if _HEADER_FROM.fullmatch(text):
            for following in self.lines[index + 1 : index + 4]:
                if following.strip():
                    return _HEADER_SENT.fullmatch(following.strip()) is not None
        return False

    def collect(self, start: int, ends: tuple[str, ...]) -> tuple[_Block, int, bool]:
        """Read a block from line ``start``: (block, index after it, closed by an end line)."""
        lines: list[tuple[int, str]] = []
        index = start
        while index < len(self.lines):
            raw = self.lines[index]
            text = raw.strip()
            if text and _end_name(text) in ends:
                return _Block(tuple(lines)), index + 1, True
            if self.stops(index):
                return _Block(tuple(lines)), len(self.lines), False
            if not _QUOTED.match(raw):
                secret = _password_in(text)
                if secret is None:
                    lines.append((index + 1, raw.rstrip()))
                else:  # never let the Speaker's password become a block's text
                    self.password_line(index + 1, text.split()[0], secret)
            index += 1
        return _Block(tuple(lines)), index, False

    def block_follows(self, start: int, plan: _Plan) -> bool:
        """Tell whether an optional block is closed before the message ends or the verb recurs.

        Looks up indexes built once per message (see :meth:`landmarks`), so that
        many block commands in one message cost no more than one pass over it.
        """
        stops, ends, verbs = self.landmarks()

        def first(at: list[int]) -> int:
            position = bisect_left(at, start)
            return at[position] if position < len(at) else len(self.lines)

        end = min(first(ends.get(name, [])) for name in plan.ends)
        return (
            end < len(self.lines) and end < first(stops) and end < first(verbs.get(plan.opener, []))
        )

    def landmarks(self) -> tuple[list[int], dict[str, list[int]], dict[str, list[int]]]:
        """Index the lines that can end a block: stop lines, END lines, and lines by verb."""
        if self._landmarks is None:
            stops: list[int] = []
            ends: dict[str, list[int]] = {}
            verbs: dict[str, list[int]] = {}
            for index, raw in enumerate(self.lines):
                text = raw.strip()
                if not text or _QUOTED.match(text):
                    continue
                name = _end_name(text)
                if name.startswith("END "):
                    ends.setdefault(name, []).append(index)
                elif self.stops(index):
                    stops.append(index)
                else:
                    spec = _LOOKUP.get(_keyword(text.split()[0]))
                    if spec is not None:
                        verbs.setdefault(spec.verb, []).append(index)
            self._landmarks = (stops, ends, verbs)
        return self._landmarks

    # ------------------------------------------------------------------ recording

    def error(self, line: int, text: str, reason: str) -> None:
        self.errors.append(ParseError(line, _shown(text), reason))
        self.count(line)

    def count(self, line: int) -> None:
        self.command_lines.add(line)
        if len(self.command_lines) > self.limit:
            self.too_many = True

    def finish_plan(self, plan: _Plan, line: int, text: str, index: int) -> int:
        """Read the block of ``plan`` (if any), build the command; return the next index."""
        block: _Block | None = None
        if plan.block == "required":
            block, index, closed = self.collect(index + 1, plan.ends)
            if not closed:
                self.error(
                    line,
                    text,
                    f"{plan.opener} is never closed: write {plan.ends[0]} on a line of its own "
                    "after its text (before any signature)",
                )
                return len(self.lines)
        elif plan.block == "optional" and self.block_follows(index + 1, plan):
            block, index, _closed = self.collect(index + 1, plan.ends)
        else:
            index += 1
        built = plan.build(block)
        if isinstance(built, list):
            for error in built:
                self.errors.append(
                    error if error.text else ParseError(error.line, _shown(text), error.reason)
                )
            self.count(line)
        else:
            self.commands.append(built)
            self.count(line)
        return index

    # ------------------------------------------------------------------ subject

    def subject(self, subject: str) -> int | None:
        """Read a Subject shortcut; return where the body's commands start (None: nowhere)."""
        text = " ".join(subject.split())
        if not text or _REPLY_PREFIX.match(text):
            return 0
        match = _SUBJECT_PROPOSE.fullmatch(text)
        if match is not None:
            title = match.group(1).strip()
            if not title:
                return self.subject_error(
                    text,
                    "a Subject PROPOSE: needs the proposal's title after the colon, "
                    "e.g. PROPOSE: Fair dice",
                    ("END PROPOSE", "END PROPOSAL"),
                )
            plan = _Plan(
                _propose_build(0, title, from_subject=True), ends=("END PROPOSE", "END PROPOSAL")
            )
            return self.subject_plan(plan, text)
        match = _SUBJECT_CFJ.fullmatch(text)
        if match is not None:
            statement = match.group(1).strip()
            if not statement:
                return self.subject_error(
                    text,
                    "a Subject CFJ: needs the statement after the colon, "
                    "e.g. CFJ: Rule 105 allows dice",
                    ("END CFJ",),
                )
            return self.subject_plan(_Plan(_cfj_build(0, statement), ends=("END CFJ",)), text)
        match = _SUBJECT_JUDGEMENT.fullmatch(text)
        if match is not None:
            cfj = int(match.group(2))
            value = _VALUES.get(_word(match.group(3).strip()))
            if value is None:
                return self.subject_error(
                    text,
                    f"a Subject JUDGEMENT needs TRUE, FALSE or UNDECIDED after the colon, "
                    f"e.g. JUDGEMENT {cfj}: TRUE",
                    _JUDGEMENT_ENDS,
                )
            return self.subject_plan(
                _Plan(_judgement_build(0, cfj, value), ends=_JUDGEMENT_ENDS), text
            )
        return 0

    def subject_plan(self, plan: _Plan, text: str) -> int | None:
        block, index, closed = self.collect(0, plan.ends)
        built = plan.build(block)
        if isinstance(built, list):
            for error in built:
                self.errors.append(
                    error if error.text else ParseError(0, _shown(text), error.reason)
                )
        else:
            self.commands.append(built)
        self.count(0)
        return index if closed else None

    def subject_error(self, text: str, reason: str, ends: tuple[str, ...]) -> int | None:
        self.error(0, text, reason)
        _block, index, closed = self.collect(0, ends)
        return index if closed else None

    # ------------------------------------------------------------------ body

    def body(self, index: int) -> None:
        lines = self.lines
        while index < len(lines) and not self.too_many:
            raw = lines[index]
            line = index + 1
            text = raw.strip()
            if not text or text[0] == ">":
                index += 1
                continue
            if self.stops(index, text):
                return
            parts = text.split(None, 1)
            first = parts[0]
            rest = parts[1] if len(parts) == 2 else ""
            key = _keyword(first)
            spec = _LOOKUP.get(key)
            if spec is None and not rest:
                spec = _LOOKUP.get(key.rstrip(_BARE_TRAILING))
                if spec is not None and not spec.bare:
                    spec = None
            if spec is None:
                index = self.not_a_keyword(index, text, first, key, rest)
                continue
            if spec.bare:
                if rest:
                    self.ignored.append(IgnoredLine(line, _shown(text)))
                else:
                    assert spec.head is not None
                    plan = spec.head(line, "")
                    assert isinstance(plan, _Plan)
                    self.finish_plan(plan, line, text, index)
                index += 1
                continue
            assert spec.head is not None
            outcome = spec.head(line, rest)
            if isinstance(outcome, _Secret):
                self.password_line(line, first, outcome.value)
                index += 1
            elif isinstance(outcome, str):
                shown = f"{first} {_REDACTED}" if spec.verb == "PASSWORD" else text
                self.error(line, shown, outcome)
                index = self.skip_block(spec, rest, index)
            else:
                index = self.finish_plan(outcome, line, text, index)

    def skip_block(self, spec: CommandSpec, rest: str, index: int) -> int:
        """After an error on a block command's first line, pass over its block if it has one."""
        ends = spec.ends
        if spec.verb == "ADMIN" and rest.split()[:1] and _keyword(rest.split()[0]) == "RULE":
            ends = ("END RULE",)
        probe = _Plan(build=lambda _block: [], ends=ends, opener=spec.verb)
        if ends and self.block_follows(index + 1, probe):
            return self.collect(index + 1, ends)[1]
        return index + 1

    def password_line(self, line: int, first: str, secret: str) -> None:
        if self.passwords and self.passwords[0][1] != secret:
            self.error(
                line,
                f"{first} {_REDACTED}",
                "this message has two different PASSWORD lines; give the password only once",
            )
        self.passwords.append((line, secret))

    def not_a_keyword(self, index: int, text: str, first: str, key: str, rest: str) -> int:
        """Handle a line whose first word is no keyword: stray END, near miss, or prose."""
        line = index + 1
        if key == "END" and rest:
            name = _end_name(text)
            if name in ("END PROPOSE", "END PROPOSAL", "END CFJ", "END RULE", *_JUDGEMENT_ENDS):
                opener = name.split()[1].replace("PROPOSAL", "PROPOSE")
                self.error(
                    line,
                    text,
                    f"{name} closes nothing here: no {opener} begins above it in this message",
                )
                return index + 1
        if key not in NOT_TYPOS:
            bare_key = key.rstrip(_BARE_TRAILING)
            candidates = _near_candidates(key)
            if bare_key != key:
                candidates += _near_candidates(bare_key)
            for spec, name in candidates:
                if not _one_edit(bare_key if spec.bare else key, name):
                    continue
                assert spec.head is not None
                fits = spec.head(line, rest)
                if isinstance(fits, str):
                    continue
                shown = f"{first} {_REDACTED}" if spec.verb == "PASSWORD" else text
                self.error(line, shown, f"unknown command {first}; did you mean {spec.verb}?")
                if isinstance(fits, _Plan) and fits.block == "required":
                    return self.collect(index + 1, fits.ends)[1]
                if (
                    isinstance(fits, _Plan)
                    and fits.block == "optional"
                    and self.block_follows(index + 1, fits)
                ):
                    return self.collect(index + 1, fits.ends)[1]
                return index + 1
        self.ignored.append(IgnoredLine(line, _shown(text)))
        return index + 1

    # ------------------------------------------------------------------ result

    def result(self) -> ParseResult:
        if self.too_many:
            return ParseResult(
                (),
                (
                    ParseError(
                        0,
                        "",
                        f"this message has more than {self.limit} command lines; the "
                        f"Speaker reads at most {self.limit} in one message, so none "
                        "was applied. Split them over several messages.",
                    ),
                ),
                (),
                self.passwords[0][1] if self.passwords else None,
            )
        commands: list[Command] = []
        has_password = bool(self.passwords)
        votes: dict[int, tuple[int, str]] = {}
        consents: dict[int, tuple[int, str]] = {}
        for command in self.commands:
            if isinstance(command, _AdminBase) and not has_password:
                self.errors.append(
                    ParseError(
                        command.line,
                        _shown(self.lines[command.line - 1]) if command.line else "",
                        "admin commands need a PASSWORD line; add a line PASSWORD followed by "
                        "the Speaker's password to this message",
                    )
                )
                continue
            if isinstance(command, Vote):
                earlier = votes.setdefault(command.proposal, (command.line, command.choice))
                if earlier[1] != command.choice:
                    self.errors.append(
                        ParseError(
                            command.line,
                            _shown(self.lines[command.line - 1]),
                            f"proposal {command.proposal} already has a different VOTE on line "
                            f"{earlier[0]} of this message; keep only one",
                        )
                    )
                    continue
            if isinstance(command, Consent | Refuse):
                earlier = consents.setdefault(command.proposal, (command.line, command.verb))
                if earlier[1] != command.verb:
                    self.errors.append(
                        ParseError(
                            command.line,
                            _shown(self.lines[command.line - 1]) if command.line else "",
                            f"proposal {command.proposal} already has {earlier[1]} on line "
                            f"{earlier[0]} of this message; keep only one of CONSENT and REFUSE",
                        )
                    )
                    continue
            commands.append(command)
        errors = sorted(self.errors, key=lambda error: error.line)
        password = self.passwords[0][1] if self.passwords else None
        result = ParseResult(tuple(commands), tuple(errors), tuple(self.ignored), password)
        for secret in sorted({s for _, s in self.passwords}, key=len, reverse=True):
            result = _scrub(result, secret)
        return result


def _scrub_value(value: Any, secret: str) -> Any:
    if isinstance(value, StrEnum):
        return value
    if isinstance(value, str):
        return value.replace(secret, _REDACTED)
    if isinstance(value, tuple):
        return tuple(_scrub_value(item, secret) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            item.name: _scrub_value(getattr(value, item.name), secret)
            for item in dataclasses.fields(value)
            if item.name != "password"
        }
        return dataclasses.replace(value, **changes)
    return value


def _scrub(result: ParseResult, secret: str) -> ParseResult:
    scrubbed = _scrub_value(result, secret)
    assert isinstance(scrubbed, ParseResult)
    return scrubbed


def parse_commands(
    subject: str, body: str, *, max_command_lines: int = MAX_COMMAND_LINES
) -> ParseResult:
    """Read the commands of one message from its decoded Subject and plain-text body.

    A message with more than ``max_command_lines`` command lines is refused whole.

    See the module docstring for what is counted as a line and what is skipped,
    and ``docs/email-language.md`` for the language. Never raises.
    """
    reader = _Reader(_split_lines(body), max_command_lines)
    start = reader.subject(subject)
    if start is not None:
        reader.body(start)
    return reader.result()


def redact(text: str, password: str | None) -> str:
    """Hide the Speaker's password in ``text`` (e.g. a body about to be stored or logged).

    Every line whose first word is PASSWORD becomes ``PASSWORD ********``, and any
    other occurrence of ``password`` is replaced by ``********``.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        words = line.split()
        if words and _keyword(words[0]) == "PASSWORD":
            lines[index] = f"{words[0]} {_REDACTED}"
    out = "\n".join(lines)
    return out.replace(password, _REDACTED) if password else out
