"""From the public record's lines to one ``GameArchive`` per game, in a single pass.

The record may hold several games, each beginning at a ``GameStarted``. Each game's
events are folded into a fresh state with the engine's own ``evolve``; along the way the
archive gathers what the pages show and the state alone forgets: each rule's history with
its diffs, each proposal's distribution and result, each CFJ's Judges and judgements,
each player's score changes. Only public events are in the record, so nothing gathered
here can depend on a ballot before its vote closed.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json
from speakerbot.engine.evolve import evolve
from speakerbot.engine.model import GameState
from speakerbot.engine.receipts import receipt_line
from speakerbot.mail.outbound.lookups import retitled_from
from speakerbot.mail.outbound.naming import judge_reason
from speakerbot.site.archive import (
    RESERVED,
    Ballot,
    CfjRecord,
    ClauseView,
    DiffLine,
    Entry,
    GameArchive,
    JudgeTurn,
    PlayerRecord,
    ProposalRecord,
    RuleRecord,
    RuleStep,
    ScoreStep,
    Verdict,
)
from speakerbot.site.sayings import say
from speakerbot.site.texts import clause_views, diff_lines, slug

__all__ = ["Folded", "RecordFold", "read_games"]

_CHAIN_KEYS = ("seq", "prev", "hash")
# Events that begin an announcement of their own: what follows a close up to the next of
# these, at the same moment, is what the close caused (as the results mail groups it).
_HEADS = (e.ProposalSubmitted, e.VoteClosed, e.SpeakerOverride, e.CfjCalled,
          e.JudgeDeadlineMissed, e.JudgementDelivered, e.JudgementOverruled)


def read_games(lines: Sequence[Mapping[str, Any]]) -> list[GameArchive]:
    """Fold the public record's lines into one archive per game, oldest first.

    Lines before the first ``GameStarted`` belong to no game and are left out of every
    page (they stay in ``record.jsonl``). A line that cannot be read as an event is kept
    in the timeline under its type, and changes nothing.
    """
    record = RecordFold()
    record.fold(lines)
    return record.games


@dataclass(frozen=True)
class Folded:
    """What folding one line did: its game, its timeline entry, its event (None: unread).

    ``follows``: the proposal whose close this line followed (its page lists it), or None.
    """

    game: GameArchive
    entry: Entry
    event: e.Event | None
    follows: int | None


class RecordFold:
    """The games of a public record folded so far; ``fold`` folds more lines onto them.

    Folding a record in any number of pieces gives exactly what ``read_games`` gives on
    the whole: each game's state, records and timeline go on from where they stopped,
    and what is settled only at the end (roles, scores, rule pages) is settled again.
    """

    def __init__(self) -> None:
        self._folders: list[_Folder] = []

    @property
    def games(self) -> list[GameArchive]:
        """Return every game folded so far, oldest first."""
        return [folder.game for folder in self._folders]

    def fold(self, lines: Sequence[Mapping[str, Any]]) -> list[Folded]:
        """Fold more lines of the record, in order; return what each line within a game did."""
        done: list[Folded] = []
        changed: dict[int, _Folder] = {}
        for line in lines:
            seq = line.get("seq")
            number = seq if isinstance(seq, int) else 0
            data = {key: value for key, value in line.items() if key not in _CHAIN_KEYS}
            try:
                event: e.Event | None = event_from_json(data)
            except (ValueError, TypeError, KeyError):
                event = None
            if isinstance(event, e.GameStarted):
                self._folders.append(_Folder(GameArchive(len(self._folders) + 1, event, number)))
            if not self._folders:
                continue
            folder = self._folders[-1]
            changed[id(folder)] = folder
            folder.game.lines.append(dict(line))
            closing = folder.closing
            entry = folder.take(number, event, str(data.get("type", "")))
            follows = closing[0] if closing is not None and closing[0].followed and (
                closing[0].followed[-1] is entry) else None
            done.append(Folded(folder.game, entry, event,
                               None if follows is None else follows.number))
        for folder in changed.values():
            folder.finish()
        return done


class _Folder:
    """Folds one game's events, gathering what its pages show."""

    def __init__(self, game: GameArchive) -> None:
        self.game = game
        self.state = GameState()
        self.slugs: set[str] = set(RESERVED)  # the site's own names are never a player's
        self.closing: tuple[ProposalRecord, object] | None = None  # a close and its moment
        self.placed: list[RuleRecord] | None = None  # rules put in or taken out lately
        self.unsorted = False  # a rule was put before another of a higher number

    def take(self, seq: int, event: e.Event | None, kind: str) -> Entry:
        """Fold one line's event into the game; add it to the timeline and return its entry."""
        if event is None:
            unread = Entry(seq, None, kind or "unknown", kind or "unknown")
            self.game.timeline.append(unread)
            return unread
        views = clause_views(event.clauses, self.state) if isinstance(
            event, e.ProposalSubmitted) else ()
        # The engine folds what it recorded; should a line not fit (an event about a
        # proposal the record lacks), the archive still shows it rather than fail.
        with contextlib.suppress(KeyError, AttributeError, AssertionError, RuntimeError,
                                 ValueError):
            evolve(self.state, event)
        entry = Entry(seq, event.at, type(event).__name__, say(event, self.state))
        self.game.timeline.append(entry)
        if isinstance(event, e.ProposalSubmitted):
            self._proposal(seq, event, views, entry)
        else:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, seq, event, entry)
        self._follow(event, entry)
        return entry

    def _follow(self, event: e.Event, entry: Entry) -> None:
        """Keep what a close caused (at the same moment, before the next head) with it."""
        if isinstance(event, _HEADS):
            self.closing = None
        elif self.closing is not None and self.closing[1] == event.at:
            self.closing[0].followed.append(entry)
        if isinstance(event, e.VoteClosed) and event.proposal in self.game.proposals:
            self.closing = (self.game.proposals[event.proposal], event.at)

    def finish(self) -> None:
        """Settle what is known only at the end: roles, scores, rule pages, the order."""
        game, state = self.game, self.state
        game.state = state
        for address, player in game.players.items():
            now = state.players.get(address)
            if now is not None:
                player.role, player.score, player.active = now.role.value, now.score, now.active
        if self.placed is not None:
            self._place_rules(self.placed)
            self.placed = None

    def _place_rules(self, placed: list[RuleRecord]) -> None:
        """Give the rules placed lately their pages, the repealed theirs, the ruleset its order.

        A current rule's page is its number; a repealed rule's too, unless a current rule
        or a rule repealed before it holds that name (then ``<number>-2``, ``-3``, ...).
        Only the rules an event placed and the repealed ones are named again, so that a
        close does not go through the whole ruleset; a page that moves is counted
        (``GameArchive.page_moves``), for the pages that link to it.
        """
        game = self.game
        if self.unsorted:
            game.rules = dict(sorted(game.rules.items()))
            self.unsorted = False
        for rule in placed:
            if not rule.repealed:
                self._page(rule, str(rule.number))
        claimed: set[str] = set()
        for rule in game.repealed:
            name, count = str(rule.number), 1
            while name in claimed or (count == 1 and rule.number in game.rules):
                count += 1
                name = f"{rule.number}-{count}"
            claimed.add(name)
            self._page(rule, name)

    def _page(self, rule: RuleRecord, name: str) -> None:
        page = f"rules/{name}.html"
        if rule.page and rule.page != page:
            self.game.page_moves += 1
        rule.page = page

    def _place(self, number: int, rule: RuleRecord) -> None:
        """Put ``rule`` in the ruleset under ``number``, to be given its page at the end."""
        rules = self.game.rules
        if number not in rules and rules and number < next(reversed(rules)):
            self.unsorted = True  # the ruleset is in order of number once settled
        rules[number] = rule
        self._placed(rule)

    def _placed(self, rule: RuleRecord) -> None:
        if self.placed is None:
            self.placed = []
        self.placed.append(rule)

    # --- proposals ---------------------------------------------------------------------

    def _proposal(self, seq: int, event: e.ProposalSubmitted,
                  views: tuple[ClauseView, ...], entry: Entry) -> None:
        entry.page = f"proposals/{event.number}.html"
        game = self.game
        if event.number not in game.proposals:
            game.sequence.append(event.number)
        game.proposals[event.number] = ProposalRecord(
            event, seq, self.state.name_of(event.proposer), views, event.closes_at,
            place=len(game.proposals))
        game.open[event.number] = None
        game.proposed.setdefault(event.proposer, []).append(event.number)

    def _extended(self, seq: int, event: e.VoteExtended, entry: Entry) -> None:
        record = self._on_proposal(event.proposal, entry)
        if record is not None:
            record.extensions.append(event)
            record.closes_at = event.closes_at

    def _closed(self, seq: int, event: e.VoteClosed, entry: Entry) -> None:
        record = self._on_proposal(event.proposal, entry)
        if record is None:
            return
        closes = self.game.closes
        if record.closed is not None:  # closed again: only its last close counts
            closes.remove((record.closed.at, event.proposal))
        bisect.insort(closes, (event.at, event.proposal))
        self.game.open.pop(event.proposal, None)
        record.closed = event
        # The salts join the record in the close (parallel to the ballots); an older record
        # has none, and its ballots are shown without receipts.
        salts = dict(event.salts)
        record.receipts = bool(salts)
        # In a record of version 2 the voter is already a public id (publicity.py).
        game_id, name = self.game.game_id, self.state.name_of
        version = self.game.started.record_version
        record.ballots = tuple(
            Ballot(voter, name(voter), str(choice), receipt_line(
                game_id, event.proposal, voter, choice, salts[voter], version)
                if voter in salts else "")
            for voter, choice in event.ballots)
        record.non_voter_names = tuple(name(voter) for voter in event.non_voters)

    def _voided(self, seq: int, event: e.ProposalVoided, entry: Entry) -> None:
        record = self._on_proposal(event.proposal, entry)
        if record is not None:
            record.voided = event
            self.game.open.pop(event.proposal, None)

    def _proposal_event(self, seq: int, event: Any, entry: Entry) -> None:
        """Link an event about a proposal (reminders, clause failures) to its page."""
        self._on_proposal(event.proposal, entry)

    def _on_proposal(self, number: int, entry: Entry) -> ProposalRecord | None:
        entry.page = f"proposals/{number}.html"
        return self.game.proposals.get(number)

    # --- players and scores ------------------------------------------------------------

    def _joined(self, seq: int, event: e.PlayerJoined, entry: Entry) -> None:
        player = self.game.players.get(event.address)
        if player is None:
            player = PlayerRecord(event.address, event.name,
                                  slug(event.name, self.slugs, "player"), event.at,
                                  event.role.value)
            player.step(event.at, player.score)
            self.game.players[event.address] = player
        player.active, player.left_at, player.left_reason = True, None, ""
        entry.page = player.page

    def _left(self, seq: int, event: e.PlayerLeft, entry: Entry) -> None:
        player = self.game.players.get(event.address)
        if player is not None:
            player.active, player.left_at, player.left_reason = False, event.at, event.reason
            entry.page = player.page

    def _score(self, seq: int, event: e.ScoreChanged, entry: Entry) -> None:
        player = self.game.players.get(event.player)
        now = self.state.players.get(event.player)
        if player is None or now is None:
            return
        page = player.page
        if event.proposal is not None and event.proposal in self.game.proposals:
            page = f"proposals/{event.proposal}.html"
            self.game.proposals[event.proposal].score_changes.append(event)
        elif event.cfj is not None and event.cfj in self.game.cfjs:
            page = f"cfjs/{event.cfj}.html"
        entry.page = page
        player.changes.append(ScoreStep(event.at, seq, event.delta, now.score, event.reason,
                                        page))
        player.step(event.at, now.score)

    def _new_game(self, seq: int, event: e.NewGameBegun, entry: Entry) -> None:
        for address, player in self.game.players.items():
            now = self.state.players.get(address)
            if now is not None and now.score != player.series[-1][1]:
                player.step(event.at, now.score)

    # --- rules ---------------------------------------------------------------------------

    def _started(self, seq: int, event: e.GameStarted, entry: Entry) -> None:
        self.game.initial = event.rules
        for spec in sorted(event.rules, key=lambda spec: spec.number):
            steps = [RuleStep("initial", event.at, seq)]
            if event.imported_from:
                # What the rule went through before the import, as the group wrote it.
                steps = [RuleStep("imported", event.at, seq, note=line)
                         for line in spec.history] or [RuleStep("imported", event.at, seq)]
            rule = RuleRecord(spec.number, spec.text, spec.mutable, steps, title=spec.title)
            self.game.initial_rules[spec.number] = rule
            self._place(spec.number, rule)

    def _enacted(self, seq: int, event: e.RuleEnacted, entry: Entry) -> None:
        rule = RuleRecord(event.number, event.text, event.mutable, [RuleStep(
            "enacted", event.at, seq, event.proposal, event.by_speaker,
            diff=diff_lines("", event.text))], title=event.title)
        entry.rule = rule
        self._place(event.number, rule)

    def _changed(self, seq: int, event: e.RuleAmended | e.RuleTransmuted | e.RuleRepealed,
                 kind: str, note: str = "", diff: tuple[DiffLine, ...] = ()) -> RuleRecord | None:
        """Take out the rule an event changes, with the change in its history (None: unknown)."""
        rule = self.game.rules.pop(event.number, None)
        if rule is not None:
            self._placed(rule)  # the repealed rules' pages may move with it
            rule.history.append(RuleStep(kind, event.at, seq, event.proposal, event.by_speaker,
                                         note, diff))
        return rule

    def _renumber(self, rule: RuleRecord, number: int, entry: Entry) -> None:
        rule.number = number
        entry.rule = rule
        self._place(number, rule)

    def _amended(self, seq: int, event: e.RuleAmended, entry: Entry) -> None:
        old = self.game.rules.get(event.number)
        diff = diff_lines(old.text, event.text) if old is not None else ()
        rule = self._changed(seq, event, "amended",
                             _renumbered(event.number, event.new_number), diff)
        if rule is not None:
            rule.text = event.text
            self._renumber(rule, event.new_number, entry)

    def _transmuted(self, seq: int, event: e.RuleTransmuted, entry: Entry) -> None:
        note = ("to mutable" if event.mutable else "to immutable") + _renumbered(
            event.number, event.new_number)
        rule = self._changed(seq, event, "transmuted", note)
        if rule is not None:
            rule.mutable = event.mutable
            self._renumber(rule, event.new_number, entry)

    def _retitled(self, seq: int, event: e.RuleRetitled, entry: Entry) -> None:
        rule = self.game.rules.get(event.number)
        if rule is not None:
            rule.history.append(RuleStep("retitled", event.at, seq, event.proposal,
                                         event.by_speaker, retitled_from(event.old_title)))
            rule.title = event.title
            entry.rule = rule

    def _repealed(self, seq: int, event: e.RuleRepealed, entry: Entry) -> None:
        rule = self._changed(seq, event, "repealed")
        if rule is not None:
            rule.repealed = True
            self.game.repealed.append(rule)
            entry.rule = rule

    def _awaited(self, seq: int, event: e.HandWorkOpened, entry: Entry) -> None:
        """Mark each rule an item of hand work names: it awaits the Speaker's edit."""
        for number in event.rules:
            rule = self.game.rules.get(number)
            if rule is not None:
                rule.awaiting[event.item] = event.proposal
                entry.rule = rule

    def _edited(self, seq: int, event: e.HandWorkDone, entry: Entry) -> None:
        """Take the mark of a closed item of hand work off every rule it named."""
        for rule in self.game.rules.values():
            if rule.awaiting.pop(event.item, None) is not None:
                entry.rule = rule

    def _switched(self, seq: int, event: e.AdoptionSwitchedToMajority, entry: Entry) -> None:
        rule = self.game.rules.get(event.rule)
        if rule is not None:
            rule.history.append(RuleStep(
                "switched", event.at, seq, note=f"changed to simple majority after "
                f"{event.circuits} complete circuits, as the rule itself provides"))
            entry.rule = rule

    # --- judgement -----------------------------------------------------------------------

    def _cfj_called(self, seq: int, event: e.CfjCalled, entry: Entry) -> None:
        self.game.cfjs[event.number] = CfjRecord(event, self.state.name_of(event.caller))
        self._on_cfj(event.number, entry)

    def _judge(self, seq: int, event: e.JudgeAssigned, entry: Entry) -> None:
        cfj = self._on_cfj(event.cfj, entry)
        if cfj is not None:
            cfj.judges.append(JudgeTurn(event.judge, self.state.name_of(event.judge),
                                        judge_reason(event.how), event.at, event.deadline))

    def _judgement(self, seq: int, event: e.JudgementDelivered, entry: Entry) -> None:
        cfj = self._on_cfj(event.cfj, entry)
        if cfj is not None:
            cfj.verdicts.append(Verdict(event.judge, self.state.name_of(event.judge),
                                        event.judgement.value, event.reasons, event.at))

    def _overruled(self, seq: int, event: e.JudgementOverruled, entry: Entry) -> None:
        cfj = self._on_cfj(event.cfj, entry)
        if cfj is not None and cfj.verdicts:
            cfj.verdicts[-1] = dataclasses.replace(cfj.verdicts[-1], overruled=True)

    def _cfj_event(self, seq: int, event: Any, entry: Entry) -> None:
        """Add an event about a CFJ (a missed deadline, support to overrule) to its page."""
        self._on_cfj(event.cfj, entry)

    def _on_cfj(self, number: int, entry: Entry) -> CfjRecord | None:
        entry.page = f"cfjs/{number}.html"
        cfj = self.game.cfjs.get(number)
        if cfj is not None:
            cfj.entries.append(entry)
        return cfj


def _renumbered(number: int, new_number: int) -> str:
    return f"renumbered from {number} to {new_number}" if new_number != number else ""


_Handler = Callable[[_Folder, int, Any, Entry], None]
_HANDLERS: dict[type[e.Event], _Handler] = {
    e.GameStarted: _Folder._started,
    e.PlayerJoined: _Folder._joined,
    e.PlayerLeft: _Folder._left,
    e.ScoreChanged: _Folder._score,
    e.NewGameBegun: _Folder._new_game,
    e.VoteExtended: _Folder._extended,
    e.VoteClosed: _Folder._closed,
    e.ProposalVoided: _Folder._voided,
    e.RemindersSent: _Folder._proposal_event,
    e.ClauseFailed: _Folder._proposal_event,
    e.ClauseWithheld: _Folder._proposal_event,
    e.InformalProposalAdopted: _Folder._proposal_event,
    e.RuleEnacted: _Folder._enacted,
    e.RuleAmended: _Folder._amended,
    e.RuleTransmuted: _Folder._transmuted,
    e.RuleRetitled: _Folder._retitled,
    e.RuleRepealed: _Folder._repealed,
    e.AdoptionSwitchedToMajority: _Folder._switched,
    e.HandWorkOpened: _Folder._awaited,
    e.HandWorkDone: _Folder._edited,
    e.CfjCalled: _Folder._cfj_called,
    e.JudgeAssigned: _Folder._judge,
    e.JudgementDelivered: _Folder._judgement,
    e.JudgementOverruled: _Folder._overruled,
    e.JudgeDeadlineMissed: _Folder._cfj_event,
    e.OverruleSupported: _Folder._cfj_event,
}
