"""The commands a message is read into, with their ``speakerbot parse`` JSON.

Every command records the line it was read from and its verb; an ``ADMIN`` action is an
:class:`AdminBase`, so the parser asks for the PASSWORD line by its type. The game's own
values are the engine's: a VOTE carries a :class:`Choice`, a JUDGEMENT a
:data:`JudgementValue` (the engine's verdict enum), a proposal its :class:`Clause` list.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar, Literal, TypeAlias

from speakerbot.engine.durations import parse_duration
from speakerbot.engine.model import Choice, Clause
from speakerbot.engine.model import Judgement as JudgementValue
from speakerbot.mail.inbound.language.json_values import clause_json as clause_json
from speakerbot.mail.inbound.language.json_values import json_value


@dataclass(frozen=True)
class CommandBase:
    """Fields and JSON shared by every command: the line it was read from."""

    line: int
    verb: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output.

        A proposal's (or revision's) ``not_understood`` lines are shown only when there are
        some, as ``[{"line": n, "text": "..."}]``.
        """
        out: dict[str, object] = {"line": self.line, "verb": self.verb}
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name == "not_understood":
                if value:
                    out[item.name] = [{"line": line, "text": text} for line, text in value]
            elif item.name == "topic":  # HELP's: its JSON is as before HELP took topics
                if value:
                    out[item.name] = value
            elif item.name != "line":
                out[item.name] = json_value(value)
        return out


@dataclass(frozen=True)
class AdminBase(CommandBase):
    """The Speaker's ``ADMIN <action> ...`` commands; JSON has verb ADMIN and the action."""

    verb: ClassVar[str] = "ADMIN"
    action: ClassVar[str]

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        out = super().to_json()
        return {"line": out.pop("line"), "verb": out.pop("verb"), "action": self.action, **out}


@dataclass(frozen=True)
class Join(CommandBase):
    """``JOIN <display name>``: join the game."""

    name: str
    verb: ClassVar[str] = "JOIN"


@dataclass(frozen=True)
class Vote(CommandBase):
    """``VOTE <n> FOR|AGAINST|ABSTAIN``; ABSTAIN withdraws an earlier ballot."""

    proposal: int
    choice: Choice
    verb: ClassVar[str] = "VOTE"


@dataclass(frozen=True)
class Propose(CommandBase):
    """``PROPOSE <title>``, the proposal's text, ``END PROPOSE``."""

    title: str
    text: str
    clauses: tuple[Clause, ...]
    not_understood: tuple[tuple[int, str], ...] = ()
    """Lines of the text that speak of changing a rule in a way no form matches: (line, text)."""
    verb: ClassVar[str] = "PROPOSE"


@dataclass(frozen=True)
class Cfj(CommandBase):
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
class Judgement(CommandBase):
    """``JUDGEMENT <cfj> TRUE|FALSE|UNDECIDED``, optionally reasons ended by ``END JUDGEMENT``."""

    cfj: int
    value: JudgementValue
    reasons: str
    verb: ClassVar[str] = "JUDGEMENT"


@dataclass(frozen=True)
class Consent(CommandBase):
    """``CONSENT <n>``."""

    proposal: int
    verb: ClassVar[str] = "CONSENT"


@dataclass(frozen=True)
class ConsentTurn(CommandBase):
    """``CONSENT TURN``: agree that the next turn may begin while a CFJ is undecided.

    JSON: ``{"line": ..., "verb": "CONSENT", "turn": true}`` (no ``proposal``).
    """

    verb: ClassVar[str] = "CONSENT"

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        return {**super().to_json(), "turn": True}


@dataclass(frozen=True)
class Refuse(CommandBase):
    """``REFUSE <n>``."""

    proposal: int
    verb: ClassVar[str] = "REFUSE"


@dataclass(frozen=True)
class Overrule(CommandBase):
    """``OVERRULE <cfj>``."""

    cfj: int
    verb: ClassVar[str] = "OVERRULE"


@dataclass(frozen=True)
class Forfeit(CommandBase):
    """``FORFEIT``: leave the game."""

    verb: ClassVar[str] = "FORFEIT"


@dataclass(frozen=True)
class Confirm(CommandBase):
    """``CONFIRM <code>``: confirm mail the Speaker could not authenticate."""

    token: str
    verb: ClassVar[str] = "CONFIRM"


@dataclass(frozen=True)
class Observe(CommandBase):
    """``OBSERVE``: receive the game's public mail without playing (confirmed by a code)."""

    verb: ClassVar[str] = "OBSERVE"


@dataclass(frozen=True)
class Unobserve(CommandBase):
    """``UNOBSERVE``: stop receiving the game's public mail as an observer."""

    verb: ClassVar[str] = "UNOBSERVE"


@dataclass(frozen=True)
class DigestMode(CommandBase):
    """``DIGEST ON`` / ``DIGEST OFF``: the game's public mail once a day in one digest, or not."""

    on: bool
    verb: ClassVar[str] = "DIGEST"


@dataclass(frozen=True)
class Status(CommandBase):
    """``STATUS``."""

    verb: ClassVar[str] = "STATUS"


@dataclass(frozen=True)
class Rules(CommandBase):
    """``RULES``."""

    verb: ClassVar[str] = "RULES"


@dataclass(frozen=True)
class Scores(CommandBase):
    """``SCORES``."""

    verb: ClassVar[str] = "SCORES"


@dataclass(frozen=True)
class Help(CommandBase):
    """``HELP [topic]``: the index, or one topic (JSON has ``topic`` only when one is asked)."""

    topic: str = ""
    verb: ClassVar[str] = "HELP"


ShowWhat: TypeAlias = Literal["proposal", "rule", "cfj", "mechanics"]


@dataclass(frozen=True)
class Show(CommandBase):
    """``SHOW PROPOSAL|RULE|CFJ <n>`` or ``SHOW MECHANICS``.

    A proposal, a rule with its history, a CFJ; or every mechanic in force with where it
    comes from. JSON: ``{"line": ..., "verb": "SHOW", "what": "proposal", "proposal": 301}``
    (``"rule"`` or ``"cfj"`` in place of ``"proposal"``: the number is under the name of what
    is shown); ``{"line": ..., "verb": "SHOW", "what": "mechanics"}``.
    """

    what: ShowWhat
    number: int | None
    verb: ClassVar[str] = "SHOW"

    def to_json(self) -> dict[str, object]:
        """Return the command as in ``speakerbot parse`` output."""
        if self.number is None:
            return {"line": self.line, "verb": self.verb, "what": self.what}
        return {"line": self.line, "verb": self.verb, "what": self.what, self.what: self.number}


@dataclass(frozen=True)
class History(CommandBase):
    """``HISTORY [n]``: the last ``count`` events of the public record (as asked, 1 or more)."""

    count: int
    verb: ClassVar[str] = "HISTORY"


@dataclass(frozen=True)
class AdminAdd(AdminBase):
    """``ADMIN ADD <email> <name>``: add a player."""

    email: str
    name: str
    action: ClassVar[str] = "add"


@dataclass(frozen=True)
class AdminRemove(AdminBase):
    """``ADMIN REMOVE <player>``."""

    player: str
    action: ClassVar[str] = "remove"


@dataclass(frozen=True)
class AdminScore(AdminBase):
    """``ADMIN SCORE <player> <+n|-n> [reason]``; ``reason`` is None when not given."""

    player: str
    delta: int
    reason: str | None
    action: ClassVar[str] = "score"


@dataclass(frozen=True)
class AdminSet(AdminBase):
    """``ADMIN SET <parameter> <value>`` (an ``=`` between them is allowed)."""

    parameter: str
    value: str
    action: ClassVar[str] = "set"


@dataclass(frozen=True)
class AdminExtend(AdminBase):
    """``ADMIN EXTEND <n> <duration>``; ``duration`` is kept as written."""

    proposal: int
    duration: str
    action: ClassVar[str] = "extend"

    @property
    def period(self) -> timedelta:
        """The duration as a timedelta (it was checked when parsed)."""
        return parse_duration(self.duration)


@dataclass(frozen=True)
class AdminClose(AdminBase):
    """``ADMIN CLOSE <n>``."""

    proposal: int
    action: ClassVar[str] = "close"


@dataclass(frozen=True)
class AdminVoid(AdminBase):
    """``ADMIN VOID <n> [reason]``; ``reason`` is None when not given."""

    proposal: int
    reason: str | None
    action: ClassVar[str] = "void"


@dataclass(frozen=True)
class AdminRule(AdminBase):
    """``ADMIN RULE <clause>``: change the ruleset directly."""

    clause: Clause
    action: ClassVar[str] = "rule"


@dataclass(frozen=True)
class AdminJudge(AdminBase):
    """``ADMIN JUDGE <cfj> <player>``: assign a judge."""

    cfj: int
    player: str
    action: ClassVar[str] = "judge"


@dataclass(frozen=True)
class AdminSpeaker(AdminBase):
    """``ADMIN SPEAKER <player>``: hand the Speaker's role on."""

    player: str
    action: ClassVar[str] = "speaker"


@dataclass(frozen=True)
class AdminDigest(AdminBase):
    """``ADMIN DIGEST``: send the digest now."""

    action: ClassVar[str] = "digest"


@dataclass(frozen=True)
class AdminReveal(AdminBase):
    """``ADMIN REVEAL``: publish the seed the game draws with now, and commit the next."""

    action: ClassVar[str] = "reveal"


@dataclass(frozen=True)
class AdminEndGame(AdminBase):
    """``ADMIN END GAME [reason]``: end the game; ``reason`` is None when not given."""

    reason: str | None
    action: ClassVar[str] = "end-game"


@dataclass(frozen=True)
class AdminDone(AdminBase):
    """``ADMIN DONE <item> [reason]``: close an item of the hand work; ``reason`` may be None."""

    item: int
    reason: str | None
    action: ClassVar[str] = "done"


@dataclass(frozen=True)
class AdminNewGame(AdminBase):
    """``ADMIN NEW GAME [ruleset]``: start the next game once the last is over."""

    ruleset: str | None
    action: ClassVar[str] = "new-game"


# The debate (read by debating.py).


@dataclass(frozen=True)
class Revise(CommandBase):
    """``REVISE <n>``, the proposal's whole new text, ``END REVISE``: its proposer's revision."""

    proposal: int
    text: str
    clauses: tuple[Clause, ...]
    not_understood: tuple[tuple[int, str], ...] = ()
    """Lines of the text that speak of changing a rule in a way no form matches: (line, text)."""
    verb: ClassVar[str] = "REVISE"


@dataclass(frozen=True)
class CallVote(CommandBase):
    """``CALL VOTE <n>``: the proposer ends the debate; the vote starts."""

    proposal: int
    verb: ClassVar[str] = "CALL VOTE"


@dataclass(frozen=True)
class Debate(CommandBase):
    """``DEBATE <n>``, an argument, ``END DEBATE``: forwarded to every player."""

    proposal: int
    text: str
    verb: ClassVar[str] = "DEBATE"


# The pace of play (read by pace.py).


@dataclass(frozen=True)
class Absent(CommandBase):
    """``ABSENT UNTIL <YYYY-MM-DD> [reason]``: away until that day (it ends at its start, UTC)."""

    until: str
    reason: str | None
    verb: ClassVar[str] = "ABSENT"


@dataclass(frozen=True)
class Back(CommandBase):
    """``BACK``: back before the declared date."""

    verb: ClassVar[str] = "BACK"


@dataclass(frozen=True)
class AdminPause(AdminBase):
    """``ADMIN PAUSE [reason]``: pause the game; ``reason`` is None when not given."""

    reason: str | None
    action: ClassVar[str] = "pause"


@dataclass(frozen=True)
class AdminResume(AdminBase):
    """``ADMIN RESUME``: resume a paused game."""

    action: ClassVar[str] = "resume"


@dataclass(frozen=True)
class AdminAbsent(AdminBase):
    """``ADMIN ABSENT <player> UNTIL <YYYY-MM-DD> [reason]``: declare a player absent."""

    player: str
    until: str
    reason: str | None
    action: ClassVar[str] = "absent"


@dataclass(frozen=True)
class AdminSkip(AdminBase):
    """``ADMIN SKIP``: pass the turn of a mover who has not proposed."""

    action: ClassVar[str] = "skip"


AdminCommand: TypeAlias = (
    AdminAdd | AdminRemove | AdminScore | AdminSet | AdminExtend | AdminClose | AdminVoid
    | AdminRule | AdminJudge | AdminSpeaker | AdminDigest | AdminReveal | AdminEndGame
    | AdminNewGame | AdminDone
    | AdminPause | AdminResume | AdminAbsent | AdminSkip
)  # fmt: skip
Command: TypeAlias = (
    Join | Vote | Propose | Cfj | Judgement | Consent | ConsentTurn | Refuse | Overrule
    | Forfeit | Confirm | Status | Rules | Scores | Help | Show | History
    | Observe | Unobserve | DigestMode
    | AdminCommand
    | Revise | CallVote | Debate
    | Absent | Back
)  # fmt: skip
