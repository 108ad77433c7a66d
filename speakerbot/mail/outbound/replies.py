"""The reply to each processed message: what each command did, what to fix, what was ignored.

A reply goes to its sender only and never quotes the original message. A ballot's
confirmation names only the sender's own ballot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState, ProposalStatus
from speakerbot.engine.tally import fraction_words
from speakerbot.mail.outbound.announcements import describe, scoreboard
from speakerbot.mail.outbound.compose import Renderer, when

MAX_IGNORED_SHOWN = 10
"""A reply quotes at most this many ignored lines."""


@dataclass(frozen=True)
class Outcome:
    """One command of a message and what became of it."""

    line: int
    command: str  # the command as understood, e.g. "VOTE 301 FOR"
    result: str


def command_text(command: object) -> str:
    """Write a parsed command back the way a player would (never with a password)."""
    verb = str(getattr(command, "verb", type(command).__name__))
    parts = [verb]
    action = getattr(command, "action", None)
    if action:
        parts.append(str(action).upper())
    for name in ("proposal", "cfj", "choice", "value", "email", "player", "parameter", "delta",
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


def outcome_of(events: Sequence[e.Event], state: GameState, actor: str) -> str:
    """Say what a command did, from the events it caused, as its sender should read it."""
    lines: list[str] = []
    name = state.name_of
    for event in events:
        match event:
            case e.CommandRejected(reason=reason, remedy=remedy):
                return f"Refused: {reason}." + (f" {remedy[:1].upper()}{remedy[1:]}." if remedy
                                                   else "")
            case e.BallotCast(proposal=number, choice=choice):
                if state.proposals[number].status is not ProposalStatus.OPEN:
                    # The last ballot closed the vote: nothing is sealed any more.
                    lines.append(f"Your ballot on proposal {number} is {choice.value}.")
                    continue
                closes = state.proposals[number].closes_at
                until = f" until {when(closes)}" if closes else " until the vote closes"
                lines.append(f"Your ballot on proposal {number} is {choice.value}. It stays "
                             f"sealed, and you may change it{until}.")
            case e.BallotWithdrawn(proposal=number):
                lines.append(f"Your ballot on proposal {number} is withdrawn: you abstain.")
            case e.ProposalSubmitted(number=number, title=title, closes_at=closes_at):
                deadline = f" Voting closes {when(closes_at)}." if closes_at else ""
                lines.append(f"Your proposal is number {number}, \"{title}\"; it has been sent "
                             f"to every player.{deadline}")
            case e.CfjCalled(number=number):
                lines.append(f"Your call for judgement is CFJ {number}.")
            case e.JudgeAssigned(cfj=number, judge=judge):
                lines.append(f"The Judge of CFJ {number} is {name(judge)}.")
            case e.JudgementDelivered(cfj=number, judgement=judgement):
                lines.append(f"Your judgement on CFJ {number}, {judgement.value}, is recorded "
                             "and sent to every player.")
            case e.ConsentDeclared(proposal=number, consent=consent):
                share = state.rules_mechanics.refused_consent_threshold
                lines.append(f"You consent to proposal {number}." if consent else
                             f"You refuse consent to proposal {number}: it needs "
                             f"{fraction_words(share)} of the votes cast. The refusal is "
                             "announced with the results.")
            case e.TurnConsentGiven():
                lines.append("You agree that the next turn may begin.")
            case e.OverruleSupported(cfj=number):
                lines.append(f"Your vote to overrule the judgement on CFJ {number} is recorded.")
            case e.JudgementOverruled(cfj=number):
                lines.append(f"The judgement on CFJ {number} is overruled.")
            case e.PlayerJoined(address=address, name=player) if address == actor:
                lines.append(f"Welcome to {state.title}, {player}.")
            case e.PlayerLeft(address=address) if address == actor:
                lines.append("You have left the game.")
            case e.SpeakerOverride(summary=summary):
                lines.append(f"Done: {summary}. Every player is told.")
            case e.VoteClosed(proposal=number, adopted=adopted):
                lines.append(f"The vote on proposal {number} closed: "
                             f"{'ADOPTED' if adopted else 'REJECTED'}.")
            case e.GameWon() | e.GameEnded() | e.NewGameBegun() | e.TurnPassed():
                lines.append(describe(event, state) + ".")
    return " ".join(lines) or "Done."


class ReplyWriter:
    """Writes replies and the private answers to STATUS, RULES, SCORES and HELP."""

    def __init__(self, renderer: Renderer, help_text: str) -> None:
        self.renderer = renderer
        self.help_text = help_text

    def reply(self, state: GameState, sender: str, *, outcomes: Sequence[Outcome],
              errors: Sequence[tuple[int, str, str]], ignored: Sequence[tuple[int, str]],
              answers: Sequence[str], applied: bool, problem: str | None = None,
              notes: Sequence[str] = ()) -> str:
        """Render a reply: results, errors (nothing applied), ignored lines, answers.

        At most :data:`MAX_IGNORED_SHOWN` ignored lines are quoted back, then how many more
        there were: a reply must not grow with what the sender wrote.
        """
        return self.renderer.render(
            "reply.txt", game=state, name=state.name_of(sender), outcomes=outcomes,
            errors=errors, ignored=ignored[:MAX_IGNORED_SHOWN],
            more_ignored=max(0, len(ignored) - MAX_IGNORED_SHOWN), answers=answers,
            applied=applied, problem=problem, notes=notes,
        )

    def answer(self, verb: str, state: GameState, sender: str) -> str:
        """Answer one query for ``sender``."""
        if verb == "HELP":
            return self.help_text.rstrip("\n") + "\n"
        if verb == "RULES":
            return self.renderer.render("rules.txt", game=state, rules=list(state.rules.values()))
        if verb == "SCORES":
            return self.renderer.render("scores.txt", game=state, scores=scoreboard(state))
        ballots = [(p.number, p.title, p.ballots[sender].choice.value)
                   for p in state.open_proposals() if sender in p.ballots]
        return self.renderer.render(
            "status.txt", game=state, sender=sender, player=state.players.get(sender),
            proposals=state.open_proposals(), ballots=ballots, cfjs=state.open_cfjs(),
        )
