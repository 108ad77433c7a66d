"""The game engine: ``apply(state, command, now)`` and ``tick(state, now)``.

Both are pure: the state passed in is never changed; a new state and the events that led to
it come back. Time is passed in (timezone-aware); randomness comes from a source passed in,
and every draw is recorded in the event it decided, so a game's record replays exactly.
A refused command comes back as the unchanged state and one ``CommandRejected`` event that
says what was wrong and what to do instead.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.durations import format_duration
from speakerbot.engine.mechanics import (
    PARAMETERS,
    Adoption,
    Flow,
    JudgePolicy,
    Mechanics,
    OnWin,
    ParadoxWinner,
    TurnAward,
    parse_setting,
)
from speakerbot.engine.model import (
    Cfj,
    Choice,
    Clause,
    ClauseKind,
    GameState,
    Judgement,
    Player,
    Proposal,
    ProposalStatus,
    Role,
    RuleSpec,
)
from speakerbot.engine.tally import count_vote, transmutation_needs_unanimity

MAX_TITLE = 200
MAX_NAME = 64
MAX_TEXT = 100_000


class RandomSource(Protocol):
    """Where die rolls and random draws come from (``random.Random`` will do)."""

    def randint(self, a: int, b: int) -> int:
        """Return a whole number from a to b inclusive."""
        ...


class _NoRandomness:
    """The default source: a command that needs a draw without a source is a caller's bug."""

    def randint(self, a: int, b: int) -> int:
        raise RuntimeError("this move needs randomness: pass a RandomSource to apply or tick")


NO_RANDOMNESS: RandomSource = _NoRandomness()


class GameError(Exception):
    """A command the rules do not allow: what was wrong, and what to do instead."""

    def __init__(self, reason: str, remedy: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.remedy = remedy


def apply(
    state: GameState, command: c.Command, now: datetime, rng: RandomSource = NO_RANDOMNESS
) -> tuple[GameState, list[e.Event]]:
    """Apply one command at time ``now``; return the new state and the events it caused."""
    _require_aware(now)
    work = copy.deepcopy(state)
    play = _Play(work, now, rng)
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"not an engine command: {command!r}")
    try:
        if not isinstance(command, c.StartGame):
            play.require_running()
        if isinstance(command, c.SPEAKER_COMMANDS):
            play.require_speaker(command)
        handler(play, command)
        if isinstance(command, c.SPEAKER_COMMANDS):
            # Announced first, though composed last: only a valid override is described.
            override = e.SpeakerOverride(now, command.actor, type(command).__name__,
                                         _override_summary(command))
            play.events.insert(0, override)
    except GameError as error:
        rejected = e.CommandRejected(
            now, command.actor, type(command).__name__, error.reason, error.remedy
        )
        return state, [rejected]
    return work, play.events


def tick(
    state: GameState, now: datetime, rng: RandomSource = NO_RANDOMNESS
) -> tuple[GameState, list[e.Event]]:
    """Let time pass up to ``now``: send reminders, close votes, enforce judge deadlines.

    Idempotent: a second tick at the same time changes nothing.
    """
    _require_aware(now)
    if not state.started or state.ended:
        return state, []
    due = _earliest_due(state)
    if due is None or due[0] > now:
        return state, []  # nothing to do: no copy (every message ticks first)
    work = copy.deepcopy(state)
    play = _Play(work, now, rng)
    for _ in range(100_000):
        due = _earliest_due(work)
        if due is None or due[0] > now or work.ended:
            break
        _, what, number = due
        actions = (play.remind_voters, play.close_vote, play.remind_judge, play.judge_missed)
        actions[what](number)
    if not play.events:
        return state, []
    return work, play.events


def next_deadline(state: GameState) -> datetime | None:
    """Return when ``tick`` next has something to do (None when nothing is scheduled)."""
    if not state.started or state.ended:
        return None
    due = _earliest_due(state)
    return due[0] if due is not None else None


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("the engine needs timezone-aware times")


# What time brings, in the order it is done when several fall due at the same moment.
_REMIND_VOTERS, _CLOSE_VOTE, _REMIND_JUDGE, _JUDGE_MISSED = range(4)


def _earliest_due(state: GameState) -> tuple[datetime, int, int] | None:
    """Find the earliest scheduled thing: (when, what, proposal or CFJ number)."""
    before = state.rules_mechanics.reminder_before
    found: list[tuple[datetime, int, int]] = []
    for proposal in state.open_proposals():
        if proposal.closes_at is None:
            continue
        found.append((proposal.closes_at, _CLOSE_VOTE, proposal.number))
        remind_at = proposal.closes_at - before if before is not None else None
        if remind_at is not None and not proposal.reminded and remind_at > proposal.submitted_at:
            found.append((remind_at, _REMIND_VOTERS, proposal.number))
    for cfj in state.open_cfjs():
        if cfj.deadline is None:
            continue
        found.append((cfj.deadline, _JUDGE_MISSED, cfj.number))
        remind_at = cfj.deadline - before if before is not None else None
        if remind_at is not None and not cfj.reminded and (
            cfj.assigned_at is None or remind_at > cfj.assigned_at
        ):
            found.append((remind_at, _REMIND_JUDGE, cfj.number))
    return min(found) if found else None


class _Play:
    """One decision in progress: the state as it evolves, and the events emitted so far."""

    def __init__(self, state: GameState, now: datetime, rng: RandomSource) -> None:
        self.state = state
        self.now = now
        self.rng = rng
        self.events: list[e.Event] = []

    @property
    def mechanics(self) -> Mechanics:
        return self.state.rules_mechanics

    def emit(self, event: e.Event) -> None:
        e.evolve(self.state, event)
        self.events.append(event)

    def draw(self, candidates: Sequence[str]) -> str:
        return candidates[self.rng.randint(0, len(candidates) - 1)]

    def per(self, mechanic: str) -> str:
        """Name the rule a mechanic comes from, for messages: " (rule 206)"."""
        number = self.state.sources.get(mechanic)
        return f" (rule {number})" if number is not None else ""

    # --- checks shared by many commands ---

    def require_running(self) -> None:
        if not self.state.started:
            raise GameError("no game has started", "the Speaker starts one with speakerbot init")
        if self.state.ended:
            reason = f": {self.state.end_reason}" if self.state.end_reason else ""
            raise GameError(f"the game has ended{reason}")

    def require_speaker(self, command: c.Command) -> None:
        # The host keeps the Speaker's authority across games: rule 203 moves the in-game
        # Speaker role, not the power to correct the game.
        if command.actor not in (self.state.speaker, self.state.host):
            raise GameError(
                "only the Speaker may do that",
                "ask the Speaker, " + self.state.name_of(self.state.speaker),
            )

    def player(self, address: str) -> Player:
        player = self.state.players.get(address)
        if player is None or not player.active:
            remedy = "send JOIN <your name> to join" if self.state.open_registration else (
                "ask the Speaker to add you"
            )
            raise GameError("you are not a player in this game", remedy)
        return player

    def find(self, reference: str) -> Player:
        player = self.state.find_player(reference)
        if player is None:
            raise GameError(f"there is no player {reference!r}",
                            "name a player by address or display name; SCORES lists them")
        return player

    def proposal(self, number: int, *, open_only: bool = True) -> Proposal:
        proposal = self.state.proposals.get(number)
        if proposal is None:
            raise GameError(f"there is no proposal {number}", "STATUS lists the open proposals")
        if open_only and proposal.status is not ProposalStatus.OPEN:
            raise GameError(f"the vote on proposal {number} is over ({proposal.status.value})")
        return proposal

    def cfj(self, number: int) -> Cfj:
        cfj = self.state.cfjs.get(number)
        if cfj is None:
            raise GameError(f"there is no CFJ {number}", "STATUS lists the open CFJs")
        return cfj

    # --- players and turns ---

    def add_player(self, address: str, name: str, *, by_speaker: bool) -> None:
        address = address.strip().lower()
        name = " ".join(name.split())
        if "@" not in address or any(ch.isspace() for ch in address):
            raise GameError(f"{address!r} is not an email address")
        if not name or len(name) > MAX_NAME:
            raise GameError(f"a display name needs 1 to {MAX_NAME} characters")
        existing = self.state.players.get(address)
        if existing is not None and existing.active:
            raise GameError(f"{address} is already a player, as {existing.name}")
        if existing is not None and not by_speaker:
            raise GameError("you have left this game", "ask the Speaker to add you again")
        if address == self.state.speaker and self.mechanics.speaker_role:
            raise GameError(f"{address} is the Speaker")
        clash = self.state.find_player(name)
        if clash is not None:
            raise GameError(f"the name {name!r} is taken", "choose another display name")
        role = Role.PLAYER if self.mechanics.flow is Flow.TURNS else Role.VOTER
        self.emit(e.PlayerJoined(self.now, address, name, role, by_speaker))
        turn = self.state.turn
        if self.mechanics.flow is Flow.TURNS and (
            turn is None or not self.state.players[turn.mover].active
        ):
            # The first player, or the first after everyone left: their turn now.
            number = 1 if turn is None else turn.number + 1
            self.emit(e.TurnPassed(self.now, number, address, self.state.circuits_completed))

    def leave(self, address: str, reason: str) -> None:
        if self.mechanics.speaker_role and address == self.state.speaker:
            raise GameError("the Speaker cannot leave while holding the role",
                            "hand the Speaker role to another player first (ADMIN SPEAKER)")
        turn = self.state.turn
        was_mover = turn is not None and turn.mover == address
        self.emit(e.PlayerLeft(self.now, address, reason))
        if was_mover and turn is not None:
            if turn.proposal is not None and self.state.proposals[turn.proposal].status is (
                ProposalStatus.OPEN
            ):
                self.emit(e.ProposalVoided(self.now, turn.proposal, "its proposer left the game"))
            self.pass_turn()
        for cfj in self.state.open_cfjs():
            if cfj.judge == address:
                self.replace_judge(cfj, "the Judge left the game")
        for proposal in self.state.open_proposals():
            self.close_if_all_voted(proposal)

    def pass_turn(self) -> None:
        everyone = list(self.state.players)
        active = [p.address for p in self.state.active_players()]
        turn = self.state.turn
        if not active or turn is None:
            return
        here = everyone.index(turn.mover)
        following = everyone[here + 1:] + everyone[: here + 1]
        mover = next(a for a in following if self.state.players[a].active)
        wrapped = everyone.index(mover) <= here
        circuits = self.state.circuits_completed + (1 if wrapped else 0)
        self.emit(e.TurnPassed(self.now, turn.number + 1, mover, circuits))
        mechanics = self.mechanics
        if (
            wrapped
            and mechanics.majority_after_circuits is not None
            and circuits >= mechanics.majority_after_circuits
            and mechanics.adoption is Adoption.UNANIMOUS
            and not self.state.adoption_rule_amended
        ):
            self.emit(e.AdoptionSwitchedToMajority(
                self.now, self.state.sources.get("adoption", 0), circuits))

    def turn_may_begin(self) -> None:
        """Refuse a new turn while a CFJ is undecided, where the rules say so."""
        mechanics = self.mechanics
        pending = [cfj.number for cfj in self.state.open_cfjs()]
        if not pending or not mechanics.cfj_blocks_turn:
            return
        turn = self.state.turn
        assert turn is not None
        others = [p.address for p in self.state.active_players() if p.address != turn.mover]
        agreed = [a for a in turn.consenters if a in others]
        if mechanics.turn_consent_overrides_cfj and 2 * len(agreed) > len(others):
            return
        listed = ", ".join(str(n) for n in pending)
        remedy = (
            f"wait for the judgement, or for a majority of the other players to agree "
            f"(each sends CONSENT TURN); {len(agreed)} of {len(others)} have"
            if mechanics.turn_consent_overrides_cfj
            else "play resumes once the Judge has settled it"
        )
        raise GameError(f"the next turn cannot begin while CFJ {listed} is undecided"
                        f"{self.per('cfj_blocks_turn')}", remedy)

    # --- proposals and votes ---

    def check_clauses(self, clauses: Sequence[Clause], proposal: int | None) -> None:
        """Refuse clauses that could not be carried out, with the reason and the remedy."""
        state, mechanics = self.state, self.mechanics
        touched: set[int] = set()
        numbered = 0
        mutable_delta = 0
        renumber = mechanics.renumber_on_amend and proposal is not None
        for clause in clauses:
            if clause.kind is ClauseKind.SET:
                try:
                    parse_setting(clause.parameter or "", clause.text)
                except ValueError as error:
                    raise GameError(f"SET {clause.parameter}: {error}") from None
                continue
            if clause.kind is ClauseKind.ENACT:
                if not clause.text.strip():
                    raise GameError("ENACT RULE needs the new rule's text")
                if clause.immutable and not mechanics.immutability:
                    raise GameError("this ruleset has no immutable rules", "enact it as a rule")
                numbered += 1
                mutable_delta += self.mutable_delta(clause)
                continue
            number = clause.rule
            rule = state.rules.get(number) if number is not None else None
            if rule is None or number is None:
                raise GameError(f"there is no rule {number} in effect", "RULES lists them")
            if number in touched:
                raise GameError(f"rule {number} is changed by two clauses",
                                "make it one clause, or split the proposal")
            touched.add(number)
            kind = clause.kind.value
            if clause.kind in (ClauseKind.AMEND, ClauseKind.REPEAL) and not rule.mutable:
                raise GameError(
                    f"rule {number} is immutable, so it cannot be {kind.lower()}ed",
                    f"transmute it first: propose TRANSMUTE RULE {number}, and once that is "
                    f"adopted, {kind} RULE {number}",
                )
            if clause.kind is ClauseKind.AMEND:
                if not clause.text.strip():
                    raise GameError(f"AMEND RULE {number} needs the rule's new full text")
                if clause.text.strip() == rule.text.strip():
                    raise GameError(f"AMEND RULE {number} would make no difference")
                numbered += 1 if renumber else 0
            elif clause.kind is ClauseKind.TRANSMUTE:
                if not mechanics.immutability:
                    raise GameError("this ruleset has no immutability, so nothing can be "
                                    "transmuted")
                numbered += 1 if renumber else 0
            mutable_delta += self.mutable_delta(clause)
        if numbered > 1 and proposal is not None:
            raise GameError(
                f"this proposal would give {numbered} rules the number {proposal}",
                "under this ruleset a proposal may enact or renumber only one rule: "
                "split it into several proposals",
            )
        after = state.mutable_rule_count() + mutable_delta
        limit = mechanics.max_mutable_rules
        if limit is not None and mutable_delta > 0 and after > limit:
            raise GameError(
                f"there would be {after} mutable rules; at most {limit} are allowed"
                f"{self.per('max_mutable_rules')}",
                "repeal a mutable rule in the same proposal",
            )
        if after < 1 and mutable_delta < 0:
            raise GameError("there must always be at least one mutable rule")

    def mutable_delta(self, clause: Clause) -> int:
        """Say how a clause would change the number of mutable rules."""
        rule = self.state.rules.get(clause.rule) if clause.rule is not None else None
        if clause.kind is ClauseKind.ENACT:
            return 0 if clause.immutable else 1
        if rule is None:
            return 0
        if clause.kind is ClauseKind.REPEAL:
            return -1 if rule.mutable else 0
        if clause.kind is ClauseKind.TRANSMUTE:
            return -1 if rule.mutable else 1
        return 0

    def submit(self, actor: str, title: str, text: str, clauses: tuple[Clause, ...]) -> None:
        self.player(actor)
        mechanics, state = self.mechanics, self.state
        title = " ".join(title.split())
        if not title or len(title) > MAX_TITLE:
            raise GameError(f"a proposal needs a title of 1 to {MAX_TITLE} characters")
        if not text.strip() and not clauses:
            raise GameError("the proposal has no text", "write it between PROPOSE and END PROPOSE")
        if len(text) > MAX_TEXT:
            raise GameError(f"the proposal is longer than {MAX_TEXT} characters")
        turn_number = None
        if mechanics.flow is Flow.TURNS:
            turn = state.turn
            assert turn is not None
            if turn.mover != actor:
                raise GameError(
                    f"it is {state.name_of(turn.mover)}'s turn; only the player whose turn it "
                    f"is may propose{self.per('flow')}",
                    "wait for your turn",
                )
            if turn.proposal is not None:
                raise GameError(f"you have already proposed this turn (proposal {turn.proposal})",
                                "one proposal per turn")
            self.turn_may_begin()
            turn_number = turn.number
        number = state.next_proposal
        self.check_clauses(clauses, number)
        period = mechanics.voting_period
        closes_at = self.now + period if period is not None else None
        self.emit(e.ProposalSubmitted(
            self.now, number, title, text.strip("\n"), clauses, actor, closes_at,
            len(state.voters()), turn_number,
        ))

    def ballot(self, actor: str, number: int, choice: Choice) -> None:
        player = self.player(actor)
        # Lateness first: after downtime the vote may already be closed when a late ballot
        # is read, and its voter should hear that it came too late, not just that it is over.
        proposal = self.proposal(number, open_only=False)
        if proposal.closes_at is not None and self.now >= proposal.closes_at:
            raise GameError(
                f"your ballot arrived at {_when(self.now)}, after the voting period on proposal "
                f"{number} ended at {_when(proposal.closes_at)}, so the vote on proposal "
                f"{number} is over for it; it does not count"
            )
        proposal = self.proposal(number)
        if player.role is Role.SPEAKER:
            raise GameError(f"the Speaker may not vote{self.per('speaker_role')}")
        if choice is Choice.ABSTAIN:
            self.emit(e.BallotWithdrawn(self.now, number, actor))
        else:
            self.emit(e.BallotCast(self.now, number, actor, choice))
        self.close_if_all_voted(proposal)

    def close_if_all_voted(self, proposal: Proposal) -> None:
        voters = self.state.voters()
        if (
            self.mechanics.close_when_all_voted
            and proposal.status is ProposalStatus.OPEN
            and voters
            and all(v in proposal.ballots for v in voters)
        ):
            self.close_vote(proposal.number)

    def close_vote(self, number: int) -> None:
        state, mechanics = self.state, self.mechanics
        proposal = state.proposals[number]
        if proposal.status is not ProposalStatus.OPEN:
            return
        voters = state.voters()
        ballots = {v: b.choice for v, b in proposal.ballots.items()}
        needs_unanimity = any(
            clause.kind is ClauseKind.TRANSMUTE
            and clause.rule in state.rules
            and transmutation_needs_unanimity(mechanics, not state.rules[clause.rule].mutable)
            for clause in proposal.clauses
        )
        tally = count_vote(
            ballots, voters, proposal.quorum_base, mechanics,
            unanimity_for_transmutation=needs_unanimity, consent_refused=proposal.consent_refused,
        )
        order = list(state.players)
        revealed = tuple(sorted(ballots.items(), key=lambda item: order.index(item[0])))
        self.emit(e.VoteClosed(
            self.now, number, tally.adopted, revealed,
            tuple(v for v in voters if v not in ballots), tally.for_votes, tally.against_votes,
            tally.eligible, tally.quorum_base, tally.quorum_needed, tally.quorum_reached,
            tally.requirement, proposal.consent_refused, tally.reason,
        ))
        # The vote is scored by the rules it was held under: no rule change it adopts applies
        # to itself retroactively (nomicam 108). The turn's second part comes after the vote,
        # under the rules as they then stand.
        scored_under = mechanics
        if tally.adopted:
            self.carry_out(proposal)
        self.score_vote(proposal, tally.adopted, ballots, scored_under)
        turn = state.turn
        is_turn_proposal = turn is not None and proposal.turn == turn.number
        if is_turn_proposal:
            self.turn_award(proposal, tally.for_votes, tally.eligible)
        self.check_winners()
        if is_turn_proposal and not state.ended:
            self.pass_turn()

    def score_vote(self, proposal: Proposal, adopted: bool, ballots: dict[str, Choice],
                   mechanics: Mechanics) -> None:
        number = proposal.number
        proposer = self.state.players.get(proposal.proposer)
        if proposer is not None and proposer.active:
            points = mechanics.proposer_adopted_points if adopted else (
                -mechanics.proposer_rejected_points
            )
            outcome = "adopted" if adopted else "defeated"
            source = "proposer_adopted_points" if adopted else "proposer_rejected_points"
            self.score(proposer.address, points,
                       f"proposal {number} {outcome}{self.per(source)}", proposal=number)
        if adopted:
            bonus = mechanics.dissent_points
            if mechanics.dissent_needs_majority_rule and mechanics.adoption is Adoption.UNANIMOUS:
                bonus = 0
            rewarded, why = Choice.AGAINST, f"voted against adopted proposal {number}"
            source = "dissent_points"
        else:
            bonus = mechanics.for_rejected_points
            rewarded, why = Choice.FOR, f"voted for rejected proposal {number}"
            source = "for_rejected_points"
        for voter, choice in ballots.items():
            if choice is rewarded:
                self.score(voter, bonus, why + self.per(source), proposal=number)

    def turn_award(self, proposal: Proposal, for_votes: int, eligible: int) -> None:
        mechanics = self.mechanics
        mover = proposal.proposer
        if not self.state.players[mover].active:
            return
        if mechanics.turn_award is TurnAward.DIE:
            value = self.rng.randint(1, mechanics.die_sides)
            self.emit(e.DieThrown(self.now, mover, mechanics.die_sides, value))
            self.score(mover, value, f"threw {value} on the die{self.per('turn_award')}",
                       proposal=proposal.number)
        elif mechanics.turn_award is TurnAward.HEAVENS:
            share = Fraction(for_votes, eligible) if eligible else Fraction(0)
            exact = (proposal.number - mechanics.heavens_offset) * share
            heavens = math.floor(exact + Fraction(1, 2))  # to the nearest, halves up
            self.score(
                mover, heavens,
                f"Heavens for proposal {proposal.number}: ({proposal.number} - "
                f"{mechanics.heavens_offset}) x {for_votes}/{eligible} favourable = {heavens}"
                f"{self.per('turn_award')}",
                proposal=proposal.number,
            )

    def score(self, player: str, points: int | Decimal, reason: str, *, proposal: int | None = None,
              cfj: int | None = None, by_speaker: bool = False) -> None:
        if points:
            self.emit(e.ScoreChanged(self.now, player, Decimal(points), reason, proposal, cfj,
                                     by_speaker))

    def scores_now(self) -> tuple[tuple[str, Decimal], ...]:
        """Return every active player's score, in joining order."""
        return tuple((p.address, p.score) for p in self.state.active_players())

    def check_winners(self) -> None:
        state, mechanics = self.state, self.mechanics
        if state.ended:
            return
        winners = tuple(
            p.address for p in state.active_players()
            if p.score >= mechanics.win_points and p.role is not Role.SPEAKER
        )
        if not winners:
            return
        reason = f"reached {mechanics.win_points} points{self.per('win_points')}"
        self.emit(e.GameWon(self.now, winners, reason, self.scores_now()))
        if mechanics.on_win is OnWin.NEW_GAME and mechanics.speaker_role:
            new_speaker = winners[0] if len(winners) == 1 else self.draw(winners)
            self.emit(e.NewGameBegun(
                self.now, state.game_number + 1, new_speaker, state.speaker,
                winners if len(winners) > 1 else (), mechanics.new_game_score_percent,
            ))
        else:
            self.emit(e.GameEnded(self.now, f"won: {reason}", winners))

    # --- rule changes ---

    def carry_out(self, proposal: Proposal) -> None:
        if not proposal.clauses:
            self.emit(e.InformalProposalAdopted(self.now, proposal.number))
            return
        also_set = frozenset(
            (clause.parameter or "").strip().lower().replace("-", "_")
            for clause in proposal.clauses if clause.kind is ClauseKind.SET
        )
        # The limit on mutable rules is checked on the proposal as a whole, as at submission:
        # if the rules changed since, the clauses that would add mutable rules fail.
        limit = self.mechanics.max_mutable_rules
        deltas = [self.mutable_delta(clause) for clause in proposal.clauses]
        over = limit is not None and self.state.mutable_rule_count() + sum(deltas) > limit
        for clause, delta in zip(proposal.clauses, deltas, strict=True):
            if over and delta > 0:
                self.emit(e.ClauseFailed(self.now, proposal.number, clause,
                                         f"there would be more than {limit} mutable rules"))
                continue
            self.apply_clause(clause, proposal.number, by_speaker=False, also_set=also_set,
                              check_limit=False)

    def apply_clause(self, clause: Clause, proposal: int | None, *, by_speaker: bool,
                     also_set: frozenset[str] = frozenset(), check_limit: bool = True) -> None:
        """Carry out one clause; a clause that cannot be is recorded, never silently lost.

        Changing a rule that mechanics come from warns the Speaker, unless the same
        proposal also sets those mechanics (``also_set``).
        """
        sources_before = dict(self.state.sources)
        try:
            self._apply_clause(clause, proposal, by_speaker, check_limit)
        except GameError as error:
            if by_speaker:
                raise
            assert proposal is not None
            self.emit(e.ClauseFailed(self.now, proposal, clause, error.reason))
            return
        if clause.kind in (ClauseKind.AMEND, ClauseKind.REPEAL) and clause.rule is not None:
            affected = tuple(name for name, rule in sources_before.items()
                             if rule == clause.rule and name not in also_set)
            if affected:
                self.emit(e.MechanicsMayHaveChanged(self.now, clause.rule, affected, proposal))

    def _apply_clause(self, clause: Clause, proposal: int | None, by_speaker: bool,
                      check_limit: bool) -> None:
        state, mechanics = self.state, self.mechanics
        if clause.kind is ClauseKind.SET:
            try:
                name, value = parse_setting(clause.parameter or "", clause.text)
            except ValueError as error:
                raise GameError(str(error)) from None
            self.emit(e.MechanicSet(self.now, name, PARAMETERS[name].format(value), proposal,
                                    by_speaker))
            return
        if clause.kind is ClauseKind.ENACT:
            enacted = proposal if proposal is not None else (
                clause.rule or self.free_rule_number()
            )
            if enacted in state.rules:
                raise GameError(f"there is already a rule {enacted}")
            limit = mechanics.max_mutable_rules
            if check_limit and self.mutable_delta(clause) > 0 and limit is not None and (
                state.mutable_rule_count() >= limit
            ):
                raise GameError(f"there are already {limit} mutable rules, the most allowed")
            self.emit(e.RuleEnacted(self.now, enacted, clause.text.strip(), not clause.immutable,
                                    proposal, by_speaker))
            return
        number = clause.rule
        rule = state.rules.get(number) if number is not None else None
        if rule is None or number is None:
            raise GameError(f"there is no rule {number} in effect")
        renumbers = clause.kind in (ClauseKind.AMEND, ClauseKind.TRANSMUTE)
        new_number = number
        if renumbers and mechanics.renumber_on_amend and proposal is not None:
            new_number = proposal
        if new_number != number and new_number in state.rules:
            raise GameError(f"there is already a rule {new_number}")
        if clause.kind in (ClauseKind.AMEND, ClauseKind.REPEAL) and not rule.mutable and not (
            by_speaker
        ):
            raise GameError(f"rule {number} is immutable")
        if clause.kind is ClauseKind.AMEND:
            if not clause.text.strip():
                raise GameError(f"AMEND RULE {number} needs the rule's new text")
            self.emit(e.RuleAmended(self.now, number, new_number, clause.text.strip(), proposal,
                                    by_speaker))
        elif clause.kind is ClauseKind.REPEAL:
            self.emit(e.RuleRepealed(self.now, number, proposal, by_speaker))
        else:
            if not mechanics.immutability:
                raise GameError("this ruleset has no immutability")
            self.emit(e.RuleTransmuted(self.now, number, new_number, not rule.mutable, proposal,
                                       by_speaker))

    def free_rule_number(self) -> int:
        """Pick a number for a rule the Speaker enacts directly: never one a proposal can take."""
        first = self.mechanics.first_proposal_number
        used = set(self.state.rules) | {rule.number for rule in self.state.repealed}
        below = [n for n in used if n < first]
        candidate = (max(below) + 1) if below else 1
        while candidate in used:
            candidate += 1
        if candidate >= first:
            raise GameError("no free rule number is left below the proposal numbers",
                            "enact it by proposal instead")
        return candidate

    # --- judgement ---

    def preceding(self, address: str, skip: set[str]) -> str | None:
        """Return the active player before ``address`` in turn order, passing over ``skip``."""
        everyone = list(self.state.players)
        if address not in everyone:
            return None
        here = everyone.index(address)
        ring = everyone[here + 1:] + everyone[:here]  # everyone else, the one just before last
        for candidate in reversed(ring):
            if self.state.players[candidate].active and candidate not in skip:
                return candidate
        return None

    def random_voter(self, exclude: set[str]) -> tuple[str, tuple[str, ...]]:
        candidates = tuple(v for v in self.state.voters() if v not in exclude)
        if not candidates:
            raise GameError("there is no Voter who may judge")
        return self.draw(candidates), candidates

    def judge_deadline(self) -> datetime | None:
        period = self.mechanics.judge_period
        return self.now + period if period is not None else None

    def assign_first_judge(self, cfj: Cfj) -> None:
        state, policy = self.state, self.mechanics.judge_policy
        drawn: tuple[str, ...] = ()
        if policy is JudgePolicy.PRECEDING:
            if cfj.mover is None:
                raise GameError("judgement needs a turn in progress")
            judge = self.preceding(cfj.mover, {cfj.mover})
            how = "the player preceding the mover"
        elif policy is JudgePolicy.NAMED:
            judge, how = state.named_judge or state.host, "the named Judge"
        elif policy is JudgePolicy.SPEAKER:
            judge, how = state.speaker, "the Speaker"
        elif cfj.caller == state.speaker:
            judge, drawn = self.random_voter({cfj.caller})
            how = "a random Voter, as the Speaker invoked judgement"
        else:
            judge, how = state.speaker, "the Speaker, as a Voter invoked judgement"
        if judge is None:
            raise GameError("there is no other player to judge")
        self.emit(e.JudgeAssigned(self.now, cfj.number, judge, how + self.per("judge_policy"),
                                  self.judge_deadline(), drawn))

    def replace_judge(self, cfj: Cfj, why: str, fallback: str | None = None) -> None:
        """Select another Judge; where none may be selected, ``fallback`` (or the Speaker) keeps it.

        Never refuses: a forfeit (000 113) or a missed deadline must always go through.
        """
        try:
            self.reassign_judge(cfj, why)
        except GameError:
            keeper = fallback or self.state.speaker or self.state.host
            self.emit(e.JudgeAssigned(self.now, cfj.number, keeper,
                                      f"{why}; no other Judge could be selected",
                                      self.judge_deadline()))

    def reassign_judge(self, cfj: Cfj, why: str) -> None:
        state, policy = self.state, self.mechanics.judge_policy
        current = cfj.judge or state.speaker
        drawn: tuple[str, ...] = ()
        if policy is JudgePolicy.PRECEDING:
            mover = state.turn.mover if state.turn is not None else current
            judge = self.preceding(current, {mover})
            how = f"{why}: the player preceding the Judge"
        elif policy is JudgePolicy.RANDOM:
            judge, drawn = self.random_voter({current, cfj.caller})
            how = f"{why}: a random Voter"
        elif policy is JudgePolicy.NAMED:
            judge, how = state.named_judge or state.host, f"{why}: the named Judge again"
        else:
            judge, how = state.speaker, f"{why}: the Speaker"
        if judge is None:
            raise GameError("there is no player left who may judge")
        self.emit(e.JudgeAssigned(self.now, cfj.number, judge, how, self.judge_deadline(), drawn))

    # --- what time brings ---

    def remind_voters(self, number: int) -> None:
        proposal = self.state.proposals[number]
        self.emit(e.RemindersSent(self.now, number))
        assert proposal.closes_at is not None
        for voter in self.state.voters():
            if voter not in proposal.ballots:
                self.emit(e.VoteReminder(self.now, number, voter, proposal.closes_at))

    def remind_judge(self, number: int) -> None:
        cfj = self.state.cfjs[number]
        assert cfj.judge is not None and cfj.deadline is not None
        self.emit(e.JudgeReminder(self.now, number, cfj.judge, cfj.deadline))

    def judge_missed(self, number: int) -> None:
        cfj = self.state.cfjs[number]
        judge = cfj.judge
        assert judge is not None
        self.emit(e.JudgeDeadlineMissed(self.now, number, judge))
        if judge in self.state.players:
            self.score(judge, -self.mechanics.judge_penalty,
                       f"did not judge CFJ {number} in time{self.per('judge_period')}", cfj=number)
        self.replace_judge(cfj, "the Judge missed the deadline", fallback=judge)
        self.check_winners()


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment.utcoffset() == timedelta(0) else (
        moment.isoformat(timespec="minutes")
    )


# --- command handlers -----------------------------------------------------------------------


def _start_game(play: _Play, cmd: c.StartGame) -> None:
    if play.state.started:
        raise GameError("a game is already running", "start over with speakerbot init --force")
    preset = cmd.preset
    values: dict[str, Any] = dict(preset.mechanics)
    for name, written in cmd.mechanics.items():
        if name not in PARAMETERS:
            raise GameError(f"there is no mechanic called {name!r}")
        values[name] = written
    try:
        mechanics = Mechanics.from_strings(values)
    except ValueError as error:
        raise GameError(str(error)) from None
    host = cmd.actor.strip().lower()
    judge = (cmd.named_judge or host).strip().lower()
    judge_name = cmd.named_judge_name or (cmd.host_name if judge == host else judge)
    names = {"speaker": cmd.host_name, "judge": judge_name}
    rules = []
    for spec in preset.rules:
        text = spec.text
        for role, (rule_number, seed_name) in preset.persons.items():
            if rule_number == spec.number and role in names:
                text = text.replace(seed_name, names[role])
        rules.append(RuleSpec(spec.number, text, spec.mutable))
    play.emit(e.GameStarted(
        play.now, preset.name, preset.title, mechanics, tuple(sorted(preset.sources.items())),
        tuple(rules), host, cmd.host_name, judge, judge_name, cmd.open_registration,
        cmd.game_id,
    ))
    if mechanics.speaker_role:
        play.emit(e.PlayerJoined(play.now, host, cmd.host_name, Role.SPEAKER, True))


def _join(play: _Play, cmd: c.Join) -> None:
    if not play.state.open_registration:
        raise GameError("this game does not take new players by email",
                        "ask the Speaker to add you")
    play.add_player(cmd.actor, cmd.name, by_speaker=False)


def _forfeit(play: _Play, cmd: c.Forfeit) -> None:
    play.player(cmd.actor)
    play.leave(cmd.actor, "forfeit")


def _propose(play: _Play, cmd: c.Propose) -> None:
    play.submit(cmd.actor, cmd.title, cmd.text, tuple(cmd.clauses))


def _cast_ballot(play: _Play, cmd: c.CastBallot) -> None:
    play.ballot(cmd.actor, cmd.proposal, cmd.choice)


def _declare_consent(play: _Play, cmd: c.DeclareConsent) -> None:
    if cmd.actor != play.state.speaker:
        raise GameError("only the Speaker gives or refuses consent")
    if not play.mechanics.speaker_consent:
        raise GameError("this ruleset has no Speaker's consent")
    proposal = play.proposal(cmd.proposal)
    if proposal.closes_at is not None and play.now >= proposal.closes_at:
        raise GameError(f"the voting period on proposal {cmd.proposal} is over")
    play.emit(e.ConsentDeclared(play.now, cmd.proposal, cmd.actor, cmd.consent))


def _call_for_judgement(play: _Play, cmd: c.CallForJudgement) -> None:
    state = play.state
    if cmd.actor != state.speaker:
        play.player(cmd.actor)
    statement = " ".join(cmd.statement.split())
    if not statement or len(statement) > 2000:
        raise GameError("a CFJ needs a statement of 1 to 2000 characters")
    turn = state.turn
    play.emit(e.CfjCalled(
        play.now, state.next_cfj, statement, cmd.arguments.strip("\n"), cmd.actor, cmd.paradox,
        turn.number if turn else None, turn.mover if turn else None,
    ))
    play.assign_first_judge(state.cfjs[state.next_cfj - 1])


def _deliver_judgement(play: _Play, cmd: c.DeliverJudgement) -> None:
    state, mechanics = play.state, play.mechanics
    cfj = play.cfj(cmd.cfj)
    if cfj.judgement is not None:
        raise GameError(f"CFJ {cmd.cfj} has already been judged {cfj.judgement.value}")
    if cmd.actor != cfj.judge:
        raise GameError(f"only the Judge of CFJ {cmd.cfj}, {state.name_of(cfj.judge or '')}, "
                        "may judge it")
    ends_the_game = cfj.paradox and cmd.judgement is Judgement.TRUE
    play.emit(e.JudgementDelivered(play.now, cmd.cfj, cmd.actor, cmd.judgement,
                                   cmd.reasons.strip("\n"),
                                   mechanics.overrule and not ends_the_game))
    if ends_the_game:
        winner = cfj.mover if mechanics.paradox_winner is ParadoxWinner.MOVER else None
        winner = winner or cfj.caller
        reason = (f"CFJ {cfj.number}, that play cannot go on, was judged TRUE"
                  f"{play.per('paradox_winner')}")
        play.emit(e.GameWon(play.now, (winner,), reason, play.scores_now()))
        play.emit(e.GameEnded(play.now, reason, (winner,)))


def _overrule(play: _Play, cmd: c.Overrule) -> None:
    if not play.mechanics.overrule:
        raise GameError("this ruleset has no overrule of judgements")
    play.player(cmd.actor)
    cfj = play.cfj(cmd.cfj)
    if cfj.judgement is None:
        raise GameError(f"CFJ {cmd.cfj} has not been judged yet")
    if not cfj.overrule_open:
        raise GameError(f"the judgement of CFJ {cmd.cfj} can no longer be overruled: "
                        "the next turn has begun")
    if cmd.actor == cfj.judge:
        raise GameError("the Judge cannot overrule their own judgement")
    if cmd.actor in cfj.overrulers:
        raise GameError(f"you have already voted to overrule CFJ {cmd.cfj}")
    play.emit(e.OverruleSupported(play.now, cmd.cfj, cmd.actor))
    others = {p.address for p in play.state.active_players() if p.address != cfj.judge}
    if others <= set(cfj.overrulers):
        play.emit(e.JudgementOverruled(play.now, cmd.cfj))
        play.reassign_judge(cfj, "the judgement was overruled")


def _agree_to_next_turn(play: _Play, cmd: c.AgreeToNextTurn) -> None:
    play.player(cmd.actor)
    turn = play.state.turn
    if turn is None or turn.proposal is not None:
        raise GameError("no turn is waiting to begin")
    if cmd.actor == turn.mover:
        raise GameError("the other players, not the mover, agree to a turn beginning")
    if not play.state.open_cfjs():
        raise GameError("no CFJ is holding back the next turn")
    if cmd.actor in turn.consenters:
        raise GameError("you have already agreed")
    play.emit(e.TurnConsentGiven(play.now, cmd.actor, turn.number))


def _add_player(play: _Play, cmd: c.AddPlayer) -> None:
    play.add_player(cmd.address, cmd.name, by_speaker=True)


def _remove_player(play: _Play, cmd: c.RemovePlayer) -> None:
    play.leave(play.find(cmd.player).address, "removed")


def _adjust_score(play: _Play, cmd: c.AdjustScore) -> None:
    player = play.find(cmd.player)
    if not cmd.delta:
        raise GameError("a score adjustment needs a change other than zero")
    play.score(player.address, cmd.delta, cmd.reason or "adjusted by the Speaker", by_speaker=True)
    play.check_winners()


def _set_mechanic(play: _Play, cmd: c.SetMechanic) -> None:
    play.apply_clause(Clause(ClauseKind.SET, None, cmd.value, parameter=cmd.name), None,
                      by_speaker=True)


def _extend_vote(play: _Play, cmd: c.ExtendVote) -> None:
    proposal = play.proposal(cmd.proposal)
    if cmd.by <= timedelta(0):
        raise GameError("an extension must be longer than zero")
    base = proposal.closes_at or play.now
    play.emit(e.VoteExtended(play.now, cmd.proposal, max(base, play.now) + cmd.by))


def _close_vote(play: _Play, cmd: c.CloseVote) -> None:
    play.proposal(cmd.proposal)
    play.close_vote(cmd.proposal)


def _void_proposal(play: _Play, cmd: c.VoidProposal) -> None:
    play.proposal(cmd.proposal)
    play.emit(e.ProposalVoided(play.now, cmd.proposal, cmd.reason or "voided by the Speaker"))


def _edit_rule(play: _Play, cmd: c.EditRule) -> None:
    play.apply_clause(cmd.clause, None, by_speaker=True)


def _assign_judge(play: _Play, cmd: c.AssignJudge) -> None:
    cfj = play.cfj(cmd.cfj)
    if cfj.judgement is not None:
        raise GameError(f"CFJ {cmd.cfj} has already been judged")
    judge = play.find(cmd.player).address
    play.emit(e.JudgeAssigned(play.now, cmd.cfj, judge, "chosen by the Speaker",
                              play.judge_deadline()))


def _hand_speaker(play: _Play, cmd: c.HandSpeaker) -> None:
    new = play.find(cmd.player).address
    if new == play.state.speaker:
        raise GameError(f"{new} is already the Speaker")
    play.emit(e.SpeakerChanged(play.now, play.state.speaker, new))


def _end_game(play: _Play, cmd: c.EndGame) -> None:
    play.emit(e.GameEnded(play.now, cmd.reason or "ended by the Speaker", ()))


_HANDLERS: dict[type[c.Command], Callable[[_Play, Any], None]] = {
    c.StartGame: _start_game,
    c.Join: _join,
    c.Forfeit: _forfeit,
    c.Propose: _propose,
    c.CastBallot: _cast_ballot,
    c.DeclareConsent: _declare_consent,
    c.CallForJudgement: _call_for_judgement,
    c.DeliverJudgement: _deliver_judgement,
    c.Overrule: _overrule,
    c.AgreeToNextTurn: _agree_to_next_turn,
    c.AddPlayer: _add_player,
    c.RemovePlayer: _remove_player,
    c.AdjustScore: _adjust_score,
    c.SetMechanic: _set_mechanic,
    c.ExtendVote: _extend_vote,
    c.CloseVote: _close_vote,
    c.VoidProposal: _void_proposal,
    c.EditRule: _edit_rule,
    c.AssignJudge: _assign_judge,
    c.HandSpeaker: _hand_speaker,
    c.EndGame: _end_game,
}


def _override_summary(command: c.Command) -> str:
    """Say in one line what an override does, for the announcement to every player."""
    match command:
        case c.AddPlayer(address=address, name=name):
            return f"added player {name} <{address}>"
        case c.RemovePlayer(player=player, reason=reason):
            return f"removed player {player}" + (f": {reason}" if reason else "")
        case c.AdjustScore(player=player, delta=delta, reason=reason):
            return f"changed {player}'s score by {delta:+}" + (f": {reason}" if reason else "")
        case c.SetMechanic(name=name, value=value):
            return f"set {name} = {value}"
        case c.ExtendVote(proposal=number, by=by):
            return f"extended the vote on proposal {number} by {format_duration(by)}"
        case c.CloseVote(proposal=number):
            return f"closed the vote on proposal {number} early"
        case c.VoidProposal(proposal=number, reason=reason):
            return f"voided proposal {number}" + (f": {reason}" if reason else "")
        case c.EditRule(clause=clause):
            return f"edited the rules directly: {clause.describe()}"
        case c.AssignJudge(cfj=number, player=player):
            return f"made {player} the Judge of CFJ {number}"
        case c.HandSpeaker(player=player):
            return f"handed the Speaker role to {player}"
        case c.EndGame(reason=reason):
            return "ended the game" + (f": {reason}" if reason else "")
    return type(command).__name__
