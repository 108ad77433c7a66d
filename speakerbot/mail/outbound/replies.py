"""The reply to each processed message: what each command did, what to fix, what was ignored.

A reply goes to its sender only and never quotes the original message. A ballot's
confirmation names only the sender's own ballot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState
from speakerbot.engine.receipts import ballot_receipt
from speakerbot.mail.outbound.announcements import scoreboard
from speakerbot.mail.outbound.compose import Renderer
from speakerbot.mail.outbound.handwork import status_lines
from speakerbot.mail.outbound.sentences import reply_line
from speakerbot.mail.outbound.wording import refusal_text

MAX_IGNORED_SHOWN = 10
"""A reply quotes at most this many ignored lines (and as many lines not understood)."""

_RULE_NUMBER = re.compile(r"\brules?\s+(\d+)", re.IGNORECASE)


def not_understood_in(commands: Sequence[object]) -> list[tuple[int, str]]:
    """Return the proposals' lines that speak of changing a rule in no form understood.

    Read from the parsed PROPOSE commands' ``not_understood`` (line, text); other commands
    have none.
    """
    return [item for command in commands for item in getattr(command, "not_understood", ())]


def example_words(state: GameState, rule: str) -> tuple[str, str]:
    """Return two short quotations of rule ``rule`` for the examples of the forms.

    Its first words, and the last words of its first sentence (placeholders when the game
    has no such rule): every example quotes words the rule has, so one copied works.
    """
    found = state.rules.get(int(rule)) if rule.isdigit() else None
    words = found.text.split() if found is not None else []
    if len(words) < 6:
        return "<words of the rule>", "<other words of the rule>"
    first = " ".join(words[:3]).rstrip(".,;:")
    sentence = found.text.split(". ")[0].split() if found is not None else []
    last = " ".join(sentence[-3:]).rstrip(".,;:") if len(sentence) >= 6 else " ".join(
        words[3:6]).rstrip(".,;:")
    return first, last


def example_rule(unclear: Sequence[tuple[int, str]]) -> str:
    """Return the rule number the examples of the forms use: the first the lines name."""
    for _, text in unclear:
        found = _RULE_NUMBER.search(text)
        if found:
            return found.group(1)
    return "205"


@dataclass(frozen=True)
class Outcome:
    """One command of a message and what became of it."""

    line: int
    command: str  # the command as understood, e.g. "VOTE 301 FOR"
    result: str
    receipts: tuple[str, ...] = ()  # of the ballots it cast (see receipts.py)
    refused: bool = False  # refused, so it changed nothing (the message's others stand)


def command_text(command: object) -> str:
    """Write a parsed command back the way a player would (never with a password)."""
    verb = str(getattr(command, "verb", type(command).__name__))
    parts = [verb]
    action = getattr(command, "action", None)
    if action:
        parts.append(str(action).upper())
    # In the order the words are written: ADMIN SET's parameter before its value.
    for name in ("proposal", "cfj", "choice", "email", "player", "parameter", "value", "delta",
                 "duration", "name", "title", "statement"):
        value = getattr(command, name, None)
        if value is None or value == "":
            continue
        text = str(getattr(value, "value", value))
        if name == "delta":
            text = f"{int(value):+d}"
        parts.append(text)
    line = " ".join(parts)
    return line if len(line) <= 68 else line[:65] + "..."


def receipts_of(events: Sequence[e.Event], state: GameState) -> tuple[str, ...]:
    """Return the receipts of the ballots a command cast (none for older, saltless ones)."""
    return tuple(ballot_receipt(state, event.proposal, event.voter, event.choice, event.salt)
                 for event in events if isinstance(event, e.BallotCast) and event.salt)


def sentence(text: str) -> str:
    """End ``text`` with a full stop, unless it ends a sentence already ("did you mean X?")."""
    return text if text.endswith((".", "?", "!")) else text + "."


def outcome_of(events: Sequence[e.Event], state: GameState, actor: str) -> str:
    """Say what a command did, from the events it caused, as its sender should read it."""
    lines: list[str] = []
    for event in events:
        match event:
            case e.CommandRejected():
                reason, remedy = refusal_text(event)
                return f"Refused: {sentence(reason)}" + (
                    f" {sentence(remedy[:1].upper() + remedy[1:])}" if remedy else "")
            case _:
                said = _said(event, state, actor)
                if said:
                    lines.append(said)
    return " ".join(lines) or "Done."


def _said(event: e.Event, state: GameState, actor: str) -> str | None:
    """Say what one event means to the sender of the command, or None if nothing."""
    if isinstance(event, e.PlayerJoined | e.PlayerLeft) and event.address != actor:
        return None  # someone else joining or leaving is news, not this command's outcome
    return reply_line(event, state)


class ReplyWriter:
    """Writes replies and the private answers to STATUS, RULES, SCORES and HELP."""

    def __init__(self, renderer: Renderer, help_text: Callable[[str], str], *,
                 game_name: str | None = None) -> None:
        """Write with ``renderer``; ``game_name``: the game's name as configured.

        ``help_text`` gives HELP's index (of the topic ``""``) or one topic. Without a
        ``game_name``, a game is named by its ruleset's title (the state's).
        """
        self.renderer = renderer
        self.help_text = help_text
        self.game_name = game_name

    def reply(self, state: GameState, sender: str, *, outcomes: Sequence[Outcome],
              errors: Sequence[tuple[int, str, str]], ignored: Sequence[tuple[int, str]],
              answers: Sequence[str], applied: bool, problem: str | None = None,
              notes: Sequence[str] = (), unclear: Sequence[tuple[int, str]] = (),
              suggested: Sequence[tuple[int, str, tuple[str, ...], str]] = ()) -> str:
        """Render a reply: results, errors (nothing applied), ignored lines, answers.

        ``suggested``: lines in plain words that say what a command does, each with the
        exact command lines to send (and a note where no command does it): never applied.

        ``unclear`` are a proposal's lines that speak of changing a rule in no form
        understood (see :func:`not_understood_in`): they are quoted back with an example of
        each form, so that the proposer can write them to apply themselves next time.
        At most :data:`MAX_IGNORED_SHOWN` ignored lines, and as many unclear ones, are
        quoted back, then how many more there were: a reply must not grow with what the
        sender wrote.
        """
        return self.renderer.render(
            "reply.txt", game=state, name=state.name_of(sender), outcomes=outcomes,
            errors=errors, ignored=ignored[:MAX_IGNORED_SHOWN],
            more_ignored=max(0, len(ignored) - MAX_IGNORED_SHOWN), answers=answers,
            applied=applied, problem=problem, notes=notes,
            unclear=unclear[:MAX_IGNORED_SHOWN],
            more_unclear=max(0, len(unclear) - MAX_IGNORED_SHOWN),
            example_rule=example_rule(unclear), suggested=suggested[:MAX_IGNORED_SHOWN],
            example_words=example_words(state, example_rule(unclear)),
        )

    @staticmethod
    def not_understood_in(commands: Sequence[object]) -> list[tuple[int, str]]:
        """Return the proposals' lines not understood, for :meth:`reply`'s ``unclear``."""
        return not_understood_in(commands)

    def answer(self, verb: str, state: GameState, sender: str, topic: str = "") -> str:
        """Answer one query for ``sender`` (``topic``: the one HELP asked for)."""
        if verb == "HELP":
            return self.help_text(topic).rstrip("\n") + "\n"
        if verb == "RULES":
            return self.renderer.render("rules.txt", game=state, rules=list(state.rules.values()),
                                        game_name=self.game_name or state.title)
        if verb == "SCORES":
            return self.renderer.render("scores.txt", game=state, scores=scoreboard(state))
        ballots = [(p.number, p.title, p.ballots[sender].choice.value)
                   for p in state.open_proposals() if sender in p.ballots]
        return self.renderer.render(
            "status.txt", game=state, sender=sender, player=state.players.get(sender),
            proposals=state.open_proposals(), ballots=ballots, cfjs=state.open_cfjs(),
            handwork=status_lines(state),
        )
