"""From the mail language's commands to the engine's commands (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal

from speakerbot.engine import commands as c
from speakerbot.engine.durations import parse_duration
from speakerbot.mail.inbound import language as lang


@dataclass(frozen=True)
class Query:
    """A question answered privately in the reply, changing nothing.

    ``verb``: STATUS, RULES, SCORES, HELP, HISTORY, or SHOW PROPOSAL, SHOW RULE, SHOW CFJ;
    ``number``: what SHOW shows, or how many events HISTORY asked for (None for the rest);
    ``topic``: the topic HELP asked for ("" for the index).
    """

    line: int
    verb: str
    number: int | None = None
    topic: str = ""


@dataclass(frozen=True)
class DigestRequest:
    """ADMIN DIGEST: send the digest now."""

    line: int


@dataclass(frozen=True)
class NewGameRequest:
    """ADMIN NEW GAME [ruleset]: start the next game (the service knows the settings)."""

    line: int
    ruleset: str | None


@dataclass(frozen=True)
class AudienceRequest:
    """OBSERVE (``observe``) or UNOBSERVE: the service keeps the observers, not the engine."""

    line: int
    observe: bool


@dataclass(frozen=True)
class DigestChoice:
    """DIGEST ON (``on``) or DIGEST OFF: the service keeps who reads digests, not the engine."""

    line: int
    on: bool


Translated = (c.Command | Query | DigestRequest | NewGameRequest | AudienceRequest
              | DigestChoice)


def translate(command: lang.Command, sender: str) -> Translated:
    """Translate one parsed command from ``sender``. Raises ValueError for a bad duration."""
    paced = _translate_pace(command, sender)
    if paced is not None:
        return paced
    if isinstance(command, lang.AdminCommand):
        return _translate_admin(command, sender)
    query = _query(command)
    return query if query is not None else _translate_player(command, sender)


def _query(command: lang.Command) -> Query | None:
    """Return a question the command asks (answered in the reply, changing nothing)."""
    match command:
        case lang.Help(topic=topic):
            return Query(command.line, command.verb, topic=topic)
        case lang.Status() | lang.Rules() | lang.Scores():
            return Query(command.line, command.verb)
        case lang.Show(what=what, number=number):
            return Query(command.line, f"SHOW {what.upper()}", number)
        case lang.History(count=count):
            return Query(command.line, "HISTORY", count)
    return None


def _translate_player(command: lang.Command, sender: str) -> Translated:
    # The language already carries the engine's Choice, Judgement and Clause values.
    match command:
        case lang.Vote(proposal=number, choice=choice):
            return c.CastBallot(sender, number, choice)
        case lang.Propose(title=title, text=text, clauses=clauses, not_understood=unclear):
            # The lines left to the host go with it: hand work, should it be adopted.
            return c.Propose(sender, title, text, clauses, tuple(words for _, words in unclear))
        case lang.Cfj(statement=statement, arguments=arguments, paradox=paradox):
            return c.CallForJudgement(sender, statement, arguments, paradox)
        case lang.Judgement(cfj=number, value=value, reasons=reasons):
            return c.DeliverJudgement(sender, number, value, reasons)
        case lang.Revise(proposal=number, text=text, clauses=clauses, not_understood=unclear):
            return c.ReviseProposal(sender, number, text, clauses,
                                    tuple(words for _, words in unclear))
        case lang.CallVote(proposal=number):
            return c.CallVote(sender, number)
        case lang.Debate(proposal=number, text=text):
            return c.DebateProposal(sender, number, text)
        case lang.Consent(proposal=number):
            return c.DeclareConsent(sender, number, True)
        case lang.Refuse(proposal=number):
            return c.DeclareConsent(sender, number, False)
        case lang.ConsentTurn():
            return c.AgreeToNextTurn(sender)
        case lang.Overrule(cfj=number):
            return c.Overrule(sender, number)
        case lang.Forfeit():
            return c.Forfeit(sender)
        case lang.Join(name=name):
            return c.Join(sender, name)
        case lang.Observe() | lang.Unobserve():
            return AudienceRequest(command.line, isinstance(command, lang.Observe))
        case lang.DigestMode(on=on):
            return DigestChoice(command.line, on)
    raise TypeError(f"no translation for {command!r}")


def _translate_admin(command: lang.AdminCommand, sender: str) -> Translated:
    match command:
        case lang.AdminAdd(email=email, name=name):
            return c.AddPlayer(sender, email, name)
        case lang.AdminRemove(player=player):
            return c.RemovePlayer(sender, player)
        case lang.AdminScore(player=player, delta=delta, reason=reason):
            return c.AdjustScore(sender, player, Decimal(delta), reason or "")
        case lang.AdminSet(parameter=parameter, value=value):
            return c.SetMechanic(sender, parameter, value)
        case lang.AdminExtend(proposal=number, duration=duration):
            return c.ExtendVote(sender, number, parse_duration(duration))
        case lang.AdminClose(proposal=number):
            return c.CloseVote(sender, number)
        case lang.AdminVoid(proposal=number, reason=reason):
            return c.VoidProposal(sender, number, reason or "")
        case lang.AdminRule(clause=clause):
            return c.EditRule(sender, clause)
        case lang.AdminJudge(cfj=number, player=player):
            return c.AssignJudge(sender, number, player)
        case lang.AdminSpeaker(player=player):
            return c.HandSpeaker(sender, player)
        case lang.AdminDone(item=item, reason=reason):
            return c.CloseHandWork(sender, item, reason or "")
        case lang.AdminDigest():
            return DigestRequest(command.line)
        case lang.AdminReveal():
            return c.RevealSeed(sender)
        case lang.AdminEndGame(reason=reason):
            return c.EndGame(sender, reason or "")
        case lang.AdminNewGame(ruleset=ruleset):
            return NewGameRequest(command.line, ruleset)
    raise TypeError(f"no translation for {command!r}")


def _translate_pace(command: lang.Command, sender: str) -> c.Command | None:
    """Translate the pace's commands (absences, the pause, a skipped turn); None for others."""
    match command:
        case lang.Absent(until=until, reason=reason):
            return c.DeclareAbsence(sender, _day_start(until), reason or "")
        case lang.Back():
            return c.EndAbsence(sender)
        case lang.AdminPause(reason=reason):
            return c.PauseGame(sender, reason or "")
        case lang.AdminResume():
            return c.ResumeGame(sender)
        case lang.AdminAbsent(player=player, until=until, reason=reason):
            return c.SetAbsence(sender, player, _day_start(until), reason or "")
        case lang.AdminSkip():
            return c.SkipTurn(sender)
    return None


def _day_start(written: str) -> datetime:
    """Return the start (UTC) of a day written YYYY-MM-DD: when an absence until it ends."""
    return datetime.combine(date.fromisoformat(written), time(0), tzinfo=UTC)
