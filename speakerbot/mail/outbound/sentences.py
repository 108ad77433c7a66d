"""Each event's sentence, written once: what mail, HISTORY, SHOW and the archive say it did.

:data:`SENTENCES` holds one entry a kind of event, with up to three named forms:

- ``said``, the line of news in mail (the results, an override's effects, the digest), and
  the public record's line too, unless the entry has its own;
- ``recorded``, the public record's line where it tells the past, or more than mail does;
- ``reply``, what the reply to a command's sender says of the event the command caused.

A sentence is written with :class:`Words`, which name players and quote free text as the
place it is read in does: mail names the players as the game knows them and quotes whole;
the record's lines name them by the names given, cut free text short and add what mail says
elsewhere (by which proposal, the tally, the Judge's deadline).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.debate import predecessors, waiting_for
from speakerbot.engine.draw_events import Draw
from speakerbot.engine.durations import format_duration
from speakerbot.engine.model import GameState, ProposalStatus
from speakerbot.engine.tally import fraction_words
from speakerbot.mail.outbound.compose import format_time, points
from speakerbot.mail.outbound.naming import judge_reason, listed, without_addresses
from speakerbot.mail.outbound.proofs import draw_words, seed_committed, seed_revealed
from speakerbot.mail.outbound.wording import clause_failure_text

SHOWN_TEXT = 120
"""Free text (titles, statements, reasons) is cut to this many characters in the record."""


def shortened(text: str) -> str:
    """One line of free text: white space tidied, cut to :data:`SHOWN_TEXT` characters."""
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_TEXT else text[: SHOWN_TEXT - 1] + "…"


@dataclass(frozen=True)
class Words:
    """How a sentence names players and quotes free text where it is read."""

    name: Callable[[str], str]
    in_record: bool = False  # a line of the public record, rather than of mail

    def text(self, free: str) -> str:
        """Quote free text: whole in mail, cut short in the record."""
        return shortened(free) if self.in_record else free

    def names(self, addresses: Sequence[str]) -> str:
        """Name players as a sentence does: "Alice, Bob and Carol"."""
        return listed([self.name(address) for address in addresses])

    def more(self, detail: str) -> str:
        """Add what the record tells and mail says elsewhere (or needs not say)."""
        return detail if self.in_record else ""

    def draw(self, draw: Draw | None) -> str:
        """Say an event's draw (nothing for an event recorded before draws were provable)."""
        return draw_words(draw, self.names, in_record=self.in_record) if draw else ""

    def drawn(self, draw: Draw | None) -> str:
        """Say an event's draw in brackets after its sentence (nothing without one)."""
        said = self.draw(draw)
        return f" ({said})" if said else ""


Sayer = Callable[[Any, Words], str]
Replier = Callable[[Any, GameState], str]


@dataclass(frozen=True)
class Sentence:
    """What one kind of event says: in mail, in the public record, in the reply."""

    said: Sayer | None = None
    recorded: Sayer | None = None
    reply: Replier | None = None


def news_line(event: e.Event, state: GameState) -> str:
    """Say in one line what an event did, as mail tells it (its kind's name if unsaid)."""
    sentence = SENTENCES.get(type(event))
    if sentence is None or sentence.said is None:
        return type(event).__name__
    return sentence.said(event, Words(state.name_of))


def record_line(event: e.Event, name: Callable[[str], str]) -> str | None:
    """Say in one line what a public event did, as the public record tells it (None: unsaid)."""
    sentence = SENTENCES.get(type(event))
    sayer = sentence and (sentence.recorded or sentence.said)
    return sayer(event, Words(name, in_record=True)) if sayer else None


def reply_line(event: e.Event, state: GameState) -> str | None:
    """Say what an event means to the sender of the command that caused it (None: nothing)."""
    sentence = SENTENCES.get(type(event))
    return sentence.reply(event, state) if sentence and sentence.reply else None


def _as_news(event: e.Event, state: GameState) -> str:
    """Reply with the line of news, as a sentence."""
    return news_line(event, state) + "."


_Change = (e.RuleEnacted | e.RuleAmended | e.RuleRetitled | e.RuleRepealed | e.RuleTransmuted
           | e.MechanicSet)


def _by(ev: _Change, w: Words) -> str:
    """Say, in the record, what made a change: its proposal, or the Speaker."""
    if ev.proposal is not None:
        return w.more(f" by proposal {ev.proposal}")
    return w.more(" by the Speaker" if ev.by_speaker else "")


def mutability(mutable: bool) -> str:
    """Say whether a rule is mutable, in one word."""
    return "mutable" if mutable else "immutable"


def _mechanic_changed(ev: e.MechanicChanged, w: Words) -> str:
    said = f"rule {ev.rule} now says “{w.text(ev.words)}”"
    if ev.old == ev.new:
        return f"Mechanic {ev.mechanic} ({ev.new}) now comes from rule {ev.rule}: {said}"
    return f"Mechanic {ev.mechanic} is now {ev.new} (it was {ev.old}): {said}"


def _titled(title: str, w: Words) -> str:
    return f" “{w.text(title)}”" if title else ""


_FATES = {"adopted": "adopted", "rejected": "rejected", "void": "voided"}
"""A proposal's status as a withheld clause's sentence says what became of it."""


def _renumbered(ev: e.RuleAmended | e.RuleTransmuted) -> str:
    return f", now rule {ev.new_number}" if ev.new_number != ev.number else ""


# --- The game and its players ---------------------------------------------------------------


def _game_started(ev: e.GameStarted, w: Words) -> str:
    if ev.imported_from:
        return (f"The game {w.text(ev.title)} was imported from {w.text(ev.imported_from)}, "
                f"with {len(ev.rules)} rules and its next proposal numbered "
                f"{ev.next_proposal}; {ev.host_name or ev.host} is the Speaker")
    # Only the commitment: the seed stays secret until a SeedRevealed publishes it.
    seed = f"; its first seed's commitment is {ev.commitment}" if ev.commitment else ""
    # The event's title is the ruleset's (the preset's), not the game's: the game is named
    # by its configuration, which the record does not hold.
    return (f"The game began from the ruleset {w.text(ev.title)} (the {ev.preset} preset), "
            f"with {len(ev.rules)} rules; {ev.host_name or ev.host} is the Speaker"
            f"{w.more(seed)}")


def _player_joined(ev: e.PlayerJoined, w: Words) -> str:
    added = " (added by the Speaker)" if ev.by_speaker else ""
    role = " as the Speaker" if ev.role.value == "speaker" else ""
    return f"{ev.name} joined the game{w.more(role + added)}"


def _player_left(ev: e.PlayerLeft, w: Words) -> str:
    verb = "forfeited" if ev.reason == "forfeit" else "was removed from the game"
    return f"{w.name(ev.address)} {verb}"


_GAME: dict[type[e.Event], Sentence] = {
    e.GameStarted: Sentence(_game_started),
    # Not the state's title: that is the ruleset's, and the game's own name is in the
    # reply's Subject tag.
    e.PlayerJoined: Sentence(_player_joined, reply=lambda ev, _: (
        f"Welcome to the game, {ev.name}: a letter of welcome follows, with what is open "
        "now and how to play.")),
    e.PlayerLeft: Sentence(_player_left, reply=lambda ev, _: "You have left the game."),
    e.TurnPassed: Sentence(lambda ev, w: (
        f"Turn {ev.number}: it is {w.name(ev.mover)}'s turn to propose"), reply=_as_news),
    e.TurnConsentGiven: Sentence(lambda ev, w: (
        f"{w.name(ev.player)} agreed that turn {ev.turn} may end while a CFJ is undecided"),
        reply=lambda ev, _: "You agree that the next turn may begin."),
    e.SpeakerChanged: Sentence(lambda ev, w: (
        f"{w.name(ev.new)} is now the Speaker{w.more(f', after {w.name(ev.old)}')}")),
    e.DieThrown: Sentence(lambda ev, w: (
        f"{w.name(ev.player)} threw a {ev.sides}-sided die: {ev.value}{w.drawn(ev.draw)}")),
    e.ScoreChanged: Sentence(lambda ev, w: (
        f"{w.name(ev.player)} {points(ev.delta, signed=True)}: {w.text(ev.reason)}")),
    e.GameWon: Sentence(lambda ev, w: f"{w.names(ev.winners)} won: {w.text(ev.reason)}",
                        reply=_as_news),
    e.NewGameBegun: Sentence(lambda ev, w: (
        f"Game {ev.game_number} begins; {w.name(ev.new_speaker)} is the Speaker"
        f"{w.drawn(ev.draw)}"), reply=_as_news),
    e.GameEnded: Sentence(lambda ev, w: f"The game has ended: {w.text(ev.reason)}",
                          reply=_as_news),
    e.SpeakerOverride: Sentence(lambda ev, w: (
        f"The Speaker acted: {w.text(without_addresses(ev.summary, w.name))}"),
        reply=lambda ev, _: f"Done: {ev.summary}. Every player is told."),
    # The seeds of the draws (proofs.py): the revealed seed is said whole, in the record too.
    e.SeedRevealed: Sentence(lambda ev, _: seed_revealed(ev)),
    e.SeedCommitted: Sentence(lambda ev, _: seed_committed(ev)),
}


# --- Proposals and votes --------------------------------------------------------------------


def _proposal_recorded(ev: e.ProposalSubmitted, w: Words) -> str:
    closes = (f"voting closes {format_time(ev.closes_at)}" if ev.closes_at
              else "voting is open until every player has voted")
    if ev.debate_until is not None:
        closes = f"in debate until {format_time(ev.debate_until)} at the latest"
    return (f"Proposal {ev.number} “{w.text(ev.title)}” submitted by {w.name(ev.proposer)}; "
            f"{closes}")


def _proposal_reply(ev: e.ProposalSubmitted, state: GameState) -> str:
    if ev.debate_until is not None:
        return (f"Your proposal is number {ev.number}, \"{ev.title}\"; it has been sent to "
                f"every player and is in debate until {format_time(ev.debate_until)} at the "
                "latest, when its vote starts by itself.")
    deadline = f" Voting closes {format_time(ev.closes_at)}." if ev.closes_at else ""
    return (f"Your proposal is number {ev.number}, \"{ev.title}\"; it has been sent to "
            f"every player.{deadline}")


def _ballot_reply(ev: e.BallotCast, state: GameState) -> str:
    number, choice = ev.proposal, ev.choice.value
    proposal = state.proposals[number]
    if proposal.status is not ProposalStatus.OPEN:
        # The last ballot closed the vote: nothing is sealed any more.
        return f"Your ballot on proposal {number} is {choice}."
    closes = proposal.closes_at
    until = f" until {format_time(closes)}" if closes else " until the vote closes"
    return (f"Your ballot on proposal {number} is {choice}. It stays sealed, and you may "
            f"change it{until}.{_held(ev, state)}")


def _held(event: e.BallotCast, state: GameState) -> str:
    """Say why a ballot cast out of turn order is held (empty when it counts at once).

    Names every player before the voter in the order, not only those who have not voted:
    that a ballot is held says no more than that one of them has yet to vote.
    """
    proposal = state.proposals[event.proposal]
    if not waiting_for(state, proposal, event.voter, event.at):
        return ""
    before = [state.name_of(address)
              for address in predecessors(state, proposal, event.voter, event.at)]
    rule = state.sources.get("vote_in_turn_order")
    per = f" (rule {rule})" if rule is not None else ""
    closes = (f" or when the voting period ends ({format_time(proposal.closes_at)})"
              if proposal.closes_at else " or when the voting period ends")
    return (f" The players vote in their usual turn order{per}, so it is held: it counts once "
            f"the players before you in that order ({', '.join(before)}) have all voted,"
            f"{closes}.")


def _consent_reply(ev: e.ConsentDeclared, state: GameState) -> str:
    number = ev.proposal
    if ev.consent:
        return f"You consent to proposal {number}."
    share = state.rules_mechanics.refused_consent_threshold
    return (f"You refuse consent to proposal {number}: it needs {fraction_words(share)} of the "
            "votes cast. The refusal is announced with the results.")


def _vote_closed(ev: e.VoteClosed, w: Words) -> str:
    verdict = "ADOPTED" if ev.adopted else "REJECTED"
    tally = (f": {ev.for_votes} FOR, {ev.against_votes} AGAINST"
             + ("" if ev.quorum_reached else " (quorum not reached)"))
    return f"Proposal {ev.proposal} {verdict}{w.more(tally)}"


def _vote_started(ev: e.VoteStarted, w: Words) -> str:
    how = " (called by its proposer)" if ev.how == "called" else " (the debate ended)"
    closes = f"; voting closes {format_time(ev.closes_at)}" if ev.closes_at else ""
    return f"The vote on proposal {ev.proposal} began{w.more(how + closes)}"


def _vote_started_reply(ev: e.VoteStarted, state: GameState) -> str:
    closes = f"; it closes {format_time(ev.closes_at)}" if ev.closes_at else ""
    return (f"The vote on proposal {ev.proposal} has begun{closes}. Every player is told, "
            "with its final text.")


_VOTES: dict[type[e.Event], Sentence] = {
    e.ProposalSubmitted: Sentence(
        lambda ev, _: f"Proposal {ev.number} submitted: {ev.title}",
        recorded=_proposal_recorded, reply=_proposal_reply),
    e.BallotCast: Sentence(reply=_ballot_reply),
    e.BallotWithdrawn: Sentence(reply=lambda ev, _: (
        f"Your ballot on proposal {ev.proposal} is withdrawn: you abstain.")),
    e.ConsentDeclared: Sentence(reply=_consent_reply),
    e.RemindersSent: Sentence(lambda ev, _: (
        f"The reminders for proposal {ev.proposal} went out")),
    e.VoteExtended: Sentence(lambda ev, _: (
        f"The vote on proposal {ev.proposal} now closes at {format_time(ev.closes_at)}")),
    e.VoteClosed: Sentence(_vote_closed, reply=lambda ev, _: (
        f"The vote on proposal {ev.proposal} closed: {'ADOPTED' if ev.adopted else 'REJECTED'}.")),
    e.ProposalVoided: Sentence(lambda ev, w: (
        f"Proposal {ev.proposal} was voided" + (f": {w.text(ev.reason)}" if ev.reason else ""))),
    # The debate before the vote.
    e.ProposalRevised: Sentence(
        lambda ev, _: f"Proposal {ev.proposal} revised by its proposer",
        reply=lambda ev, _: (
            f"Proposal {ev.proposal} is revised; every player is sent its new text. The "
            "vote counts the text as it stands when the vote starts.")),
    e.VoteStarted: Sentence(_vote_started, reply=_vote_started_reply),
    e.DebateContributed: Sentence(
        lambda ev, w: f"{w.name(ev.player)} argued about proposal {ev.proposal}",
        reply=lambda ev, _: (
            f"Your argument on proposal {ev.proposal} is sent to every player "
            f"({len(ev.text)} characters; it counts as one of your replies of the day).")),
}


# --- Rules and mechanics --------------------------------------------------------------------


_RULES: dict[type[e.Event], Sentence] = {
    e.RuleEnacted: Sentence(lambda ev, w: (
        f"Rule {ev.number}{_titled(ev.title, w)} enacted ({mutability(ev.mutable)})"
        f"{_by(ev, w)}")),
    e.RuleAmended: Sentence(lambda ev, w: (
        f"Rule {ev.number} amended{_by(ev, w)}{_renumbered(ev)}")),
    e.RuleRetitled: Sentence(lambda ev, w: (
        f"Rule {ev.number} retitled “{w.text(ev.title)}”{_by(ev, w)}")),
    e.RuleRepealed: Sentence(lambda ev, w: f"Rule {ev.number} repealed{_by(ev, w)}"),
    e.RuleTransmuted: Sentence(lambda ev, w: (
        f"Rule {ev.number} transmuted to {mutability(ev.mutable)}{_by(ev, w)}{_renumbered(ev)}")),
    e.MechanicSet: Sentence(lambda ev, w: (
        f"Mechanic {ev.name} set to {w.text(ev.value)}{_by(ev, w)}")),
    e.AdoptionSwitchedToMajority: Sentence(lambda ev, _: (
        f"After {ev.circuits} complete circuits rule {ev.rule} now requires only a simple "
        "majority")),
    e.ClauseFailed: Sentence(lambda ev, _: (
        f"Proposal {ev.proposal}: could not {ev.clause.describe()}: {clause_failure_text(ev)}")),
    e.ClauseWithheld: Sentence(lambda ev, _: (
        f"Proposal {ev.proposal}: not carried out, as its condition says (proposal "
        f"{ev.decided_by} was {_FATES.get(ev.fate, ev.fate)}): {ev.clause.describe()}")),
    e.InformalProposalAdopted: Sentence(lambda ev, _: (
        f"Proposal {ev.proposal} has no structured clauses: the Speaker carries it out")),
    e.MechanicChanged: Sentence(_mechanic_changed),
    # The host's hand work: mail names the command that closed an item, the record whether
    # the host said it was done or edited a rule.
    e.HandWorkOpened: Sentence(lambda ev, w: (
        f"Left to the Speaker (item {ev.item}, proposal {ev.proposal}): {w.text(ev.words)}")),
    e.HandWorkDone: Sentence(
        lambda ev, w: f"Item {ev.item} left to the Speaker is closed by {_closed_by(ev, w)}",
        recorded=lambda ev, w: (f"Item {ev.item} left to the Speaker is closed"
                                f"{' by an edit' if ev.how == 'edit' else ''}"
                                f"{': ' + w.text(ev.reason) if ev.reason else ''}"),
        reply=lambda ev, state: _as_news(ev, state)),
    e.MechanicNotRead: Sentence(
        lambda ev, w: (f"Rule {ev.rule} changed, and {ev.mechanic} could not be read from it: "
                       f"{w.text(ev.why)}; it stays as it was unless the Speaker sets it "
                       f"(ADMIN SET {ev.mechanic} = ...)"),
        recorded=lambda ev, w: (f"Rule {ev.rule} changed, and {ev.mechanic} could not be read "
                                f"from it: {w.text(ev.why)}; it stays as it was")),
    # Mail tells the Speaker the command that sets them; the record only what changed.
    e.MechanicsMayHaveChanged: Sentence(
        lambda ev, _: (f"Rule {ev.rule} changed; the Speaker should check "
                       f"{', '.join(ev.mechanics)} (ADMIN SET)"),
        recorded=lambda ev, _: (
            f"Rule {ev.rule} changed; the Speaker should check {', '.join(ev.mechanics)}")),
}


def _closed_by(ev: e.HandWorkDone, w: Words) -> str:
    """Name the command that closed an item of the hand work, with its reason or edit."""
    if ev.how == "edit":
        return f"ADMIN RULE ({w.text(ev.reason)})"
    return "ADMIN DONE" + (f": {w.text(ev.reason)}" if ev.reason else "")


# --- Judgement ------------------------------------------------------------------------------


def _judge_assigned(ev: e.JudgeAssigned, w: Words) -> str:
    due = f", to judge by {format_time(ev.deadline)}" if ev.deadline else ""
    # The draw joins the brackets that say how the Judge was chosen.
    how = w.text(judge_reason(ev.how)) + (f"; {w.draw(ev.draw)}" if ev.draw else "")
    return f"CFJ {ev.cfj}: {w.name(ev.judge)} is the Judge ({how}){w.more(due)}"


_JUDGEMENT: dict[type[e.Event], Sentence] = {
    e.CfjCalled: Sentence(lambda ev, w: (
        f"CFJ {ev.number} called{w.more(f' by {w.name(ev.caller)}')}: {w.text(ev.statement)}"),
        reply=lambda ev, _: f"Your call for judgement is CFJ {ev.number}."),
    e.JudgeAssigned: Sentence(_judge_assigned, reply=lambda ev, state: (
        f"The Judge of CFJ {ev.cfj} is {state.name_of(ev.judge)}.")),
    e.JudgementDelivered: Sentence(lambda ev, w: (
        f"CFJ {ev.cfj} judged {ev.judgement.value}{w.more(f' by {w.name(ev.judge)}')}"),
        reply=lambda ev, _: (
            f"Your judgement on CFJ {ev.cfj}, {ev.judgement.value}, is recorded and sent to "
            "every player.")),
    e.OverruleSupported: Sentence(lambda ev, w: (
        f"{w.name(ev.player)} voted to overrule the judgement on CFJ {ev.cfj}"),
        reply=lambda ev, _: f"Your vote to overrule the judgement on CFJ {ev.cfj} is recorded."),
    e.JudgementOverruled: Sentence(
        lambda ev, _: f"The judgement on CFJ {ev.cfj} was overruled",
        reply=lambda ev, _: f"The judgement on CFJ {ev.cfj} is overruled."),
    e.JudgeDeadlineMissed: Sentence(lambda ev, w: (
        f"CFJ {ev.cfj}: {w.name(ev.judge)} did not judge in time")),
}


# --- The pace of play: mail says the present, the record the past ---------------------------


def _paused(ev: pe.GamePaused, w: Words) -> str:
    reason = f": {ev.reason}" if ev.reason else ""
    return (f"The game is paused{reason}. No vote closes, no deadline runs and no reminder "
            "goes out until it resumes; proposals and ballots are still taken in")


def _moved(ev: pe.GameResumed) -> str:
    return format_duration(max(ev.at - ev.paused_at, timedelta(0)))


def _absence_declared(ev: pe.AbsenceDeclared, w: Words) -> str:
    # Mail gives the player's reason; the record says only who declared the absence.
    why = ((" (declared by the Speaker)" if ev.by_speaker else "") if w.in_record
           else (f" ({ev.reason})" if ev.reason else ""))
    return f"{w.name(ev.player)} is away until {format_time(ev.until)}{why}"


def _absence_reply(ev: pe.AbsenceDeclared, state: GameState) -> str:
    if ev.by_speaker:
        return _absence_declared(ev, Words(state.name_of)) + "."
    return (f"You are away until {format_time(ev.until)}: you get no reminders and are "
            "not drawn as Judge; a ballot you do not send counts as any missing ballot. "
            "Every player is told. Send BACK if you return earlier.")


_PACE: dict[type[e.Event], Sentence] = {
    pe.GamePaused: Sentence(_paused, recorded=lambda ev, _: (
        "The game was paused" + (f": {ev.reason}" if ev.reason else ""))),
    pe.GameResumed: Sentence(
        lambda ev, _: (f"The game has resumed after a pause since {format_time(ev.paused_at)}: "
                       f"every running deadline moves on by {_moved(ev)}"),
        recorded=lambda ev, _: (
            f"The game resumed; every running deadline moved on by {_moved(ev)}")),
    pe.AbsenceDeclared: Sentence(_absence_declared, reply=_absence_reply),
    pe.AbsenceEnded: Sentence(
        lambda ev, w: f"{w.name(ev.player)} " + (
            "is back" if ev.early else "is back: the absence ended at its date"),
        recorded=lambda ev, w: f"{w.name(ev.player)} is back",
        reply=lambda ev, _: "Welcome back: your absence is over, and every player is told."),
    pe.TurnOverdue: Sentence(
        lambda ev, w: (f"Turn {ev.turn}: {w.name(ev.mover)} has not proposed by "
                       f"{format_time(ev.deadline)}"),
        recorded=lambda ev, w: (f"Turn {ev.turn}: {w.name(ev.mover)} had not proposed by "
                                f"{format_time(ev.deadline)}")),
}


SENTENCES: dict[type[e.Event], Sentence] = {**_GAME, **_VOTES, **_RULES, **_JUDGEMENT, **_PACE}
"""Each kind of event's sentence; a kind not listed says nothing in mail, record or reply."""
