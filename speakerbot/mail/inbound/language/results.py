"""What the language reads a message into: the commands, errors, ignored lines and result.

The game's own values are the engine's: a VOTE carries a :class:`Choice`, a JUDGEMENT a
:data:`JudgementValue` (the engine's verdict enum), a proposal its :class:`Clause` list.
Only the ``speakerbot parse`` JSON is shaped here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import ClassVar, Literal, TypeAlias

from speakerbot.engine.durations import parse_duration
from speakerbot.engine.model import Choice, Clause, ClauseKind
from speakerbot.engine.model import Judgement as JudgementValue
from speakerbot.mail.inbound.language.command_base import _AdminBase, _CommandBase
from speakerbot.mail.inbound.language.debate_commands import CallVote, Debate, Revise
from speakerbot.mail.inbound.language.json_values import clause_json
from speakerbot.mail.inbound.language.pace_commands import (
    Absent,
    AdminAbsent,
    AdminPause,
    AdminResume,
    AdminSkip,
    Back,
)

__all__ = [
    "HISTORY_DEFAULT",
    "HISTORY_MAX",
    "MAX_COMMAND_LINES",
    "MAX_NAME_LENGTH",
    "MAX_SHOWN",
    "REDACTED",
    "AdminAdd",
    "AdminClose",
    "AdminCommand",
    "AdminDigest",
    "AdminEndGame",
    "AdminExtend",
    "AdminJudge",
    "AdminNewGame",
    "AdminRemove",
    "AdminRule",
    "AdminScore",
    "AdminSet",
    "AdminSpeaker",
    "AdminVoid",
    "CallVote",
    "Cfj",
    "Choice",
    "Clause",
    "ClauseKind",
    "Command",
    "Confirm",
    "Consent",
    "ConsentTurn",
    "Debate",
    "Forfeit",
    "Help",
    "History",
    "IgnoredLine",
    "Join",
    "Judgement",
    "JudgementValue",
    "Overrule",
    "ParseError",
    "ParseResult",
    "Propose",
    "Refuse",
    "Revise",
    "Rules",
    "Scores",
    "Show",
    "ShowWhat",
    "Status",
    "Vote",
    "Who",
    "clause_json",
]

MAX_COMMAND_LINES = 200
"""A message with more command lines than this (commands plus errors) is refused whole."""

MAX_NAME_LENGTH = 60
"""The longest display name JOIN and ADMIN ADD accept."""

MAX_SHOWN = 200
"""Lines quoted back in errors and ignored lines are cut to this many characters."""

HISTORY_DEFAULT = 20
"""How many events ``HISTORY`` alone asks for."""

HISTORY_MAX = 100
"""The most events one HISTORY answer sends; asked for more, it sends these and says so."""


Who: TypeAlias = Literal["anyone", "player", "judge", "Speaker"]

REDACTED = "********"
"""What stands in place of the Speaker's password wherever it would be shown."""


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
    not_understood: tuple[tuple[int, str], ...] = ()
    """Lines of the text that speak of changing a rule in a way no form matches: (line, text)."""
    verb: ClassVar[str] = "PROPOSE"

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output.

        ``not_understood`` is shown only when some line was not understood, as
        ``[{"line": n, "text": "..."}]``.
        """
        out = super().to_json()
        del out["not_understood"]
        if self.not_understood:
            out["not_understood"] = [
                {"line": line, "text": text} for line, text in self.not_understood
            ]
        return out


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


ShowWhat: TypeAlias = Literal["proposal", "rule", "cfj"]


@dataclass(frozen=True)
class Show(_CommandBase):
    """``SHOW PROPOSAL|RULE|CFJ <n>``: a proposal, a rule with its history, or a CFJ.

    JSON: ``{"line": ..., "verb": "SHOW", "what": "proposal", "proposal": 301}`` (``"rule"``
    or ``"cfj"`` in place of ``"proposal"``: the number is under the name of what is shown).
    """

    what: ShowWhat
    number: int
    verb: ClassVar[str] = "SHOW"

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        return {"line": self.line, "verb": self.verb, "what": self.what, self.what: self.number}


@dataclass(frozen=True)
class History(_CommandBase):
    """``HISTORY [n]``: the last ``count`` events of the public record (as asked, 1 or more)."""

    count: int
    verb: ClassVar[str] = "HISTORY"


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


@dataclass(frozen=True)
class AdminEndGame(_AdminBase):
    """``ADMIN END GAME [reason]``: end the game; ``reason`` is None when not given."""

    reason: str | None
    action: ClassVar[str] = "end-game"


@dataclass(frozen=True)
class AdminNewGame(_AdminBase):
    """``ADMIN NEW GAME [ruleset]``: start the next game once the last is over."""

    ruleset: str | None
    action: ClassVar[str] = "new-game"


AdminCommand: TypeAlias = (
    AdminAdd | AdminRemove | AdminScore | AdminSet | AdminExtend | AdminClose | AdminVoid
    | AdminRule | AdminJudge | AdminSpeaker | AdminDigest | AdminEndGame | AdminNewGame
    | AdminPause | AdminResume | AdminAbsent | AdminSkip
)  # fmt: skip
Command: TypeAlias = (
    Join | Vote | Propose | Cfj | Judgement | Consent | ConsentTurn | Refuse | Overrule
    | Forfeit | Confirm | Status | Rules | Scores | Help | Show | History
    | AdminCommand
    | Revise | CallVote | Debate
    | Absent | Back
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

