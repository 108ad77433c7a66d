"""Reading a whole message: the Subject shortcuts, the body line by line, and the result.

See the package's docstring for what is counted as a line and what is skipped, and
``docs/email-language.md`` for the language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from speakerbot.mail.inbound.language import heads, tokens
from speakerbot.mail.inbound.language.blocks import Lines
from speakerbot.mail.inbound.language.commands import (
    AdminCommand,
    Command,
    Consent,
    Observe,
    Refuse,
    Unobserve,
    Vote,
)
from speakerbot.mail.inbound.language.grammar import KEYWORDS, NOT_TYPOS, near_candidates
from speakerbot.mail.inbound.language.password import scrub
from speakerbot.mail.inbound.language.prose import RuleTitles
from speakerbot.mail.inbound.language.results import (
    MAX_COMMAND_LINES,
    REDACTED,
    IgnoredLine,
    ParseError,
    ParseResult,
)
from speakerbot.mail.inbound.language.spec import Build, CommandSpec, Plan, Secret

__all__ = ["parse_commands"]

_REPLY_PREFIX = re.compile(r"\s*(?:re|fwd?|aw|sv|wg|tr|vs|antw)\s*(?:\[\d+\])?\s*:", re.IGNORECASE)
_SUBJECT_PROPOSE = re.compile(r"(?:PROPOSE|PROPOSAL)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_SUBJECT_CFJ = re.compile(r"CFJ\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_SUBJECT_JUDGEMENT = re.compile(
    r"(JUDGE?MENT)\s+#?([0-9]{1,9})\s*:\s*(.*)", re.IGNORECASE | re.DOTALL
)

def _shortcut(text: str) -> tuple[Plan | str, tuple[str, ...]] | None:
    """Read a Subject that is a command: its plan (or what is wrong) and its block's ends."""
    match = _SUBJECT_PROPOSE.fullmatch(text)
    if match is not None:
        title = match.group(1).strip()
        build = heads.propose_build(0, title, from_subject=True) if title else None
        return _planned(build, heads.PROPOSE_ENDS, "a Subject PROPOSE: needs the proposal's "
                        "title after the colon, e.g. PROPOSE: Fair dice")
    match = _SUBJECT_CFJ.fullmatch(text)
    if match is not None:
        statement = match.group(1).strip()
        build = heads.cfj_build(0, statement) if statement else None
        return _planned(build, heads.CFJ_ENDS, "a Subject CFJ: needs the statement after the "
                        "colon, e.g. CFJ: Rule 105 allows dice")
    match = _SUBJECT_JUDGEMENT.fullmatch(text)
    if match is not None:
        cfj = int(match.group(2))
        value = tokens.VALUES.get(tokens.word(match.group(3).strip()))
        build = heads.judgement_build(0, cfj, value) if value is not None else None
        return _planned(build, heads.JUDGEMENT_ENDS, f"a Subject JUDGEMENT needs TRUE, FALSE or "
                        f"UNDECIDED after the colon, e.g. JUDGEMENT {cfj}: TRUE")
    return None


_AUDIENCE: dict[str, Callable[[int], Command]] = {"OBSERVE": Observe, "UNOBSERVE": Unobserve}
"""The Subjects that are a bare command by themselves (what List-Unsubscribe's link sends)."""


def _planned(build: Build | None, ends: tuple[str, ...],
             reason: str) -> tuple[Plan | str, tuple[str, ...]]:
    """Return the plan of a Subject shortcut with its builder, or the reason it has none."""
    return (Plan(build, ends=ends) if build is not None else reason), ends


def _split_lines(body: str) -> list[str]:
    body = body.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines




class _Reader(Lines):
    """Reads one message: the Subject, then the body; the state of :func:`parse_commands`."""

    # The host at the server's desk (``speakerbot admin``): ADMIN needs no PASSWORD line.
    host = False

    # ------------------------------------------------------------------ subject

    def subject(self, subject: str) -> int | None:
        """Read a Subject shortcut; return where the body's commands start (None: nowhere)."""
        text = " ".join(subject.split())
        audience = _AUDIENCE.get(tokens.keyword(text)) if " " not in text else None
        if audience is not None:
            # A mail client's unsubscribe link (List-Unsubscribe: mailto:...?subject=
            # UNOBSERVE) sends the keyword as the Subject and nothing else.
            self.record(audience(0), 0, text)
            return 0
        shortcut = _shortcut(text) if text and not _REPLY_PREFIX.match(text) else None
        if shortcut is None:
            return 0
        outcome, ends = shortcut
        block, index, closed = self.collect(0, ends)
        if isinstance(outcome, str):
            self.error(0, text, outcome)
        else:
            self.record(outcome.build(block), 0, text)
        return index if closed else None

    # ------------------------------------------------------------------ body

    def body(self, index: int) -> None:
        lines = self.lines
        while index < len(lines) and not self.too_many:
            raw = lines[index]
            text = raw.strip()
            if not text or text[0] == ">":
                index += 1
                continue
            if self.stops(index, text):
                return
            parts = text.split(None, 1)
            first = parts[0]
            rest = parts[1] if len(parts) == 2 else ""
            key = tokens.keyword(first)
            spec = KEYWORDS.get(key)
            if spec is None and not rest:
                spec = KEYWORDS.get(key.rstrip(tokens.BARE_TRAILING))
                if spec is not None and not (spec.bare or spec.alone):
                    spec = None
            if spec is None:
                index = self.not_a_keyword(index, text, first, key, rest)
            else:
                index = self.keyword_line(spec, index, text, first, rest)

    def keyword_line(self, spec: CommandSpec, index: int, text: str, first: str,
                     rest: str) -> int:
        """Read a line that starts with a keyword; return the index of the next line to read."""
        line = index + 1
        if (spec.bare and rest) or (spec.prose is not None and spec.prose(rest)):
            self.ignored.append(IgnoredLine(line, tokens.shown(text)))
            return index + 1
        assert spec.head is not None
        if spec.bare:
            plan = spec.head(line, "")
            assert isinstance(plan, Plan)
            self.finish_plan(plan, line, text, index)
            return index + 1
        outcome = spec.head(line, rest)
        if isinstance(outcome, Secret):
            self.password_line(line, first, outcome.value)
            return index + 1
        if isinstance(outcome, str):
            shown = f"{first} {REDACTED}" if spec.verb == "PASSWORD" else text
            self.error(line, shown, outcome)
            return self.skip_block(spec, rest, index)
        return self.finish_plan(outcome, line, text, index)

    def skip_block(self, spec: CommandSpec, rest: str, index: int) -> int:
        """After an error on a block command's first line, pass over its block if it has one."""
        ends = spec.ends
        if spec.verb == "ADMIN" and rest.split()[:1] and tokens.keyword(rest.split()[0]) == "RULE":
            ends = ("END RULE",)
        probe = Plan(build=lambda _block: [], ends=ends, opener=spec.verb)
        if ends and self.block_follows(index + 1, probe):
            return self.collect(index + 1, ends)[1]
        return index + 1

    def not_a_keyword(self, index: int, text: str, first: str, key: str, rest: str) -> int:
        """Handle a line whose first word is no keyword: stray END, near miss, or prose."""
        line = index + 1
        if key == "END" and rest:
            name = tokens.end_name(text)
            if name in ("END PROPOSE", "END PROPOSAL", "END CFJ", "END RULE", *heads.JUDGEMENT_ENDS,
                        "END REVISE", "END DEBATE"):
                opener = name.split()[1].replace("PROPOSAL", "PROPOSE")
                self.error(
                    line,
                    text,
                    f"{name} closes nothing here: no {opener} begins above it in this message",
                )
                return index + 1
        if key not in NOT_TYPOS:
            bare_key = key.rstrip(tokens.BARE_TRAILING)
            candidates = near_candidates(key)
            if bare_key != key:
                candidates += near_candidates(bare_key)
            for spec, name in candidates:
                if not tokens.one_edit_apart(bare_key if spec.bare or spec.alone else key, name):
                    continue
                if spec.prose is not None and spec.prose(rest):
                    continue
                assert spec.head is not None
                fits = spec.head(line, rest)
                if isinstance(fits, str):
                    continue
                shown = f"{first} {REDACTED}" if spec.verb == "PASSWORD" else text
                self.error(line, shown, f"unknown command {first}; did you mean {spec.verb}?")
                if isinstance(fits, Plan) and fits.block == "required":
                    return self.collect(index + 1, fits.ends)[1]
                if (
                    isinstance(fits, Plan)
                    and fits.block == "optional"
                    and self.block_follows(index + 1, fits)
                ):
                    return self.collect(index + 1, fits.ends)[1]
                return index + 1
        self.ignored.append(IgnoredLine(line, tokens.shown(text)))
        return index + 1

    # ------------------------------------------------------------------ result

    def result(self) -> ParseResult:
        """Check what was read as a whole and return it, the password scrubbed everywhere."""
        password = self.passwords[0][1] if self.passwords else None
        if self.too_many:
            refused = ParseError(
                0,
                "",
                f"this message has more than {self.limit} command lines; the "
                f"Speaker reads at most {self.limit} in one message, so none "
                "was applied. Split them over several messages.",
            )
            return ParseResult((), (refused,), (), password)
        commands = self.consistent_commands()
        errors = sorted(self.errors, key=lambda error: error.line)
        result = ParseResult(tuple(commands), tuple(errors), tuple(self.ignored), password)
        for secret in sorted({s for _, s in self.passwords}, key=len, reverse=True):
            result = scrub(result, secret)
        return result

    def consistent_commands(self) -> list[Command]:
        """Keep the commands that fit with the rest of the message; record the others as errors.

        ADMIN needs a PASSWORD line, and one proposal gets one VOTE choice and one of
        CONSENT and REFUSE.
        """
        commands: list[Command] = []
        votes: dict[int, tuple[int, str]] = {}
        consents: dict[int, tuple[int, str]] = {}
        for command in self.commands:
            reason = None
            if isinstance(command, AdminCommand) and not (self.passwords or self.host):
                reason = (
                    "admin commands need a PASSWORD line; add a line PASSWORD followed by "
                    "the Speaker's password to this message"
                )
            elif isinstance(command, Vote):
                earlier = votes.setdefault(command.proposal, (command.line, command.choice))
                if earlier[1] != command.choice:
                    reason = (
                        f"proposal {command.proposal} already has a different VOTE on line "
                        f"{earlier[0]} of this message; keep only one"
                    )
            elif isinstance(command, Consent | Refuse):
                earlier = consents.setdefault(command.proposal, (command.line, command.verb))
                if earlier[1] != command.verb:
                    reason = (
                        f"proposal {command.proposal} already has {earlier[1]} on line "
                        f"{earlier[0]} of this message; keep only one of CONSENT and REFUSE"
                    )
            if reason is None:
                commands.append(command)
            else:
                shown = tokens.shown(self.lines[command.line - 1]) if command.line else ""
                self.errors.append(ParseError(command.line, shown, reason))
        return commands


def parse_commands(
    subject: str, body: str, *, max_command_lines: int = MAX_COMMAND_LINES, host: bool = False,
    titles: Mapping[int, str] | None = None,
) -> ParseResult:
    """Read the commands of one message from its decoded Subject and plain-text body.

    A message with more than ``max_command_lines`` command lines is refused whole.
    ``host``: the words come from the host at the server (``speakerbot admin``), who is
    trusted without a password: ADMIN needs no PASSWORD line. ``titles``: the title of
    each rule in effect, by number, so that a proposal's change naming a rule by its title
    alone is read as a change of that rule (None, as at intake and in ``speakerbot
    parse``: such a change is quoted back, for the host).

    See the module docstring for what is counted as a line and what is skipped,
    and ``docs/email-language.md`` for the language. Never raises.
    """
    reader = _Reader(_split_lines(body), max_command_lines)
    reader.host = host
    reader.titles = RuleTitles(titles) if titles is not None else None
    start = reader.subject(subject)
    if start is not None:
        reader.body(start)
    return reader.result()


