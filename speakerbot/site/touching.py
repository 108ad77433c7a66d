"""Which pages of a game new public events may change: the one place that knows.

The incremental archive (``speakerbot.site.incremental``) folds new lines onto the games
already folded, then renders again only the pages named here. The rule is correctness
first: a page that might have changed is named (rendering it again costs time, not
truth), and whatever a page reads of the game as a whole (a player's name, the Speaker's
consent, a rule's page) is compared before and after the fold; when it changed, every page
of the game is rendered again (``Touched.everything``).

Each game's pages read, besides their own record:

- every page: the game's list (its length), which changes only when a game begins;
- the home page, the ruleset (marks "changed lately" by the record's last event's time)
  and the games list: every time; the chart: when a player's record changes;
- a history page: its entries, and the next page's link once that page begins;
- a proposal's page: its record and what followed its close; a player's: their record and
  their proposals' statuses; a CFJ's: its record; a rule's page and feed: its record;
- a page of every proposal: its proposals, and the next page's link once that page
  begins, as a history page; a page of a player's changes of score, written once full
  (the player's page shows the newer ones): its changes, and the next one's link;
- the lists of proposals, CFJs, players: every record of the kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from speakerbot.engine import events as e
from speakerbot.site.archive import (
    CHANGES_PAGE,
    HISTORY_PAGE,
    GameArchive,
    RuleRecord,
    page_count,
    pages_filled,
    pages_touched,
)
from speakerbot.site.feeds import NEWS
from speakerbot.site.folding import Folded

__all__ = ["ALWAYS", "Mentions", "Snapshot", "Touched", "snapshot", "touched"]

ALWAYS = frozenset({"home", "rules"})
"""The game's own pages (``OWN_FILES``) that change with any new event."""

_PROPOSAL_EVENTS = (e.ProposalSubmitted, e.VoteExtended, e.VoteClosed, e.ProposalVoided,
                    e.RemindersSent, e.ClauseFailed, e.ClauseWithheld,
                    e.InformalProposalAdopted)
_CFJ_EVENTS = (e.CfjCalled, e.JudgeAssigned, e.JudgementDelivered, e.JudgementOverruled,
               e.JudgeDeadlineMissed, e.OverruleSupported)
# The events that add or change a text the search finds (search.py): its index then.
_SEARCHED = (e.ProposalSubmitted, e.ProposalRevised, e.CfjCalled, e.JudgementDelivered)


@dataclass
class Touched:
    """The pages of one game to render again (paths relative to the game's root)."""

    own: set[str] = field(default_factory=set)  # names in OWN_FILES, "history" aside
    history: set[int] = field(default_factory=set)  # page numbers, from 1
    proposals: set[int] = field(default_factory=set)
    cfjs: set[int] = field(default_factory=set)
    players: set[str] = field(default_factory=set)  # addresses (public ids)
    rules: dict[int, RuleRecord] = field(default_factory=dict)  # by id(): numbers change
    everything: bool = False
    proposal_pages: set[int] = field(default_factory=set)  # of every proposal, from 1
    change_pages: set[tuple[str, int]] = field(default_factory=set)  # a player's, from 1

    @classmethod
    def all_of(cls, game: GameArchive) -> Touched:
        """Return every page of ``game``."""
        pages = max(1, -(-len(game.timeline) // HISTORY_PAGE))
        return cls({"home", "rules", "initial", "proposals", "cfjs", "players", "feed",
                    "chart", "search"}, set(range(1, pages + 1)), set(game.proposals),
                   set(game.cfjs),
                   set(game.players), {id(rule): rule for rule in game.all_rules()}, True,
                   set(range(1, page_count(len(game.proposals)) + 1)),
                   {(address, page) for address, player in game.players.items()
                    for page in range(1, len(player.changes) // CHANGES_PAGE + 1)})


@dataclass(frozen=True)
class Snapshot:
    """What pages read of a game as a whole, taken before new lines are folded onto it."""

    entries: int  # the timeline's length
    players: Mapping[str, tuple[Any, ...]]  # each player's record as their pages show it
    page_moves: int  # how many times a rule's page has moved (``GameArchive.page_moves``)
    shared: tuple[Any, ...]  # what any page may read of the state: consent, host, Judge
    names: Mapping[str, str]  # each player's name in the state, by address


def snapshot(game: GameArchive) -> Snapshot:
    """Return what the pages of ``game`` read of it as a whole, as it stands now."""
    return Snapshot(len(game.timeline), _players(game),
                    game.page_moves, _shared(game),
                    {address: player.name for address, player in game.state.players.items()})


class Mentions:
    """Every value a game's lines have held so far, gathered once rather than at each join.

    A newcomer changes other pages when their address was named before (``_mentioned``);
    a kept site reads each line once for it, not the whole game at every join.
    """

    def __init__(self) -> None:
        self.read = 0  # the game's lines gathered so far
        self.values: set[str] = set()

    def before(self, game: GameArchive, entries: int) -> set[str]:
        """Return every text value among the game's first ``entries`` lines (and more)."""
        for line in game.lines[self.read:entries]:
            _gather(line, self.values)
        self.read = max(self.read, entries)
        return self.values


def touched(game: GameArchive, before: Snapshot, folded: Iterable[Folded],
            mentions: Mentions | None = None) -> Touched:
    """Return the pages of ``game`` that the ``folded`` lines (its own) may have changed.

    ``mentions``: the game's values gathered so far, kept by the caller between calls.
    """
    after = snapshot(game)
    # A newcomer's name is news only to pages that named their address before (below).
    renamed = any(after.names.get(address) != name for address, name in before.names.items())
    if renamed or after.shared != before.shared or after.page_moves != before.page_moves:
        return Touched.all_of(game)  # a name or a rule's page that other pages show
    touch = Touched(set(ALWAYS))
    for item in folded:
        _by_event(game, item, touch)
    for address, shown in after.players.items():
        earlier = before.players.get(address)
        if earlier != shown:
            touch.players.add(address)
            touch.own.update(("players", "chart"))
            changes = earlier[_CHANGES] if earlier is not None else 0
            touch.change_pages.update((address, page) for page in pages_filled(
                changes, shown[_CHANGES], CHANGES_PAGE))
    new = set(after.players) - set(before.players)
    if new and (not new.isdisjoint(mentions.before(game, before.entries)) if mentions
                else _mentioned(game, new, before.entries)):
        return Touched.all_of(game)  # an address shown before as no one's becomes a link
    for index in range(before.entries, after.entries):
        touch.history.add(index // HISTORY_PAGE + 1)
        if index and index % HISTORY_PAGE == 0:
            touch.history.add(index // HISTORY_PAGE)  # its link to the page just begun
    return touch


def _by_event(game: GameArchive, item: Folded, touch: Touched) -> None:
    """Add the pages one event is about to ``touch``."""
    event, entry = item.event, item.entry
    if item.follows is not None:
        touch.proposals.add(item.follows)
    if entry.kind in NEWS:
        touch.own.add("feed")
    if entry.rule is not None or isinstance(event, _SEARCHED):
        touch.own.add("search")
    if entry.rule is not None:
        touch.rules[id(entry.rule)] = entry.rule
        touch.own.add("initial")  # it tells which initial rules were repealed, renumbered
    if isinstance(event, _PROPOSAL_EVENTS):
        number = event.number if isinstance(event, e.ProposalSubmitted) else event.proposal
        touch.proposals.add(number)
        touch.own.add("proposals")
        record = game.proposals.get(number)
        if record is not None:  # the proposer's page lists it with its status, as its page
            touch.players.add(record.submitted.proposer)
            touch.proposal_pages.update(pages_touched(record.place, record.place + 1))
    elif isinstance(event, e.ScoreChanged) and event.proposal is not None:
        touch.proposals.add(event.proposal)
    elif isinstance(event, _CFJ_EVENTS):
        touch.cfjs.add(event.number if isinstance(event, e.CfjCalled) else event.cfj)
        touch.own.add("cfjs")
    elif isinstance(event, e.PlayerJoined | e.PlayerLeft):
        touch.players.add(event.address)
        touch.own.add("players")
    elif isinstance(event, e.HandWorkOpened | e.HandWorkDone):
        _awaiting(game, event, touch)


def _awaiting(game: GameArchive, event: e.HandWorkOpened | e.HandWorkDone,
              touch: Touched) -> None:
    """Add the rule pages an item of hand work marks, or marked until it closed."""
    # A closed item's rules are no longer known: every rule's page (an item closes rarely).
    rules = [game.rules[number] for number in event.rules if number in game.rules] if (
        isinstance(event, e.HandWorkOpened)) else list(game.rules.values())
    touch.rules.update({id(rule): rule for rule in rules})


_CHANGES = 6  # where a player's count of changes is in what ``_players`` says of them


def _players(game: GameArchive) -> dict[str, tuple[Any, ...]]:
    """Return each player's record as their page and the lists show it."""
    return {address: (p.name, p.role, p.score, p.active, p.left_at, p.left_reason,
                      len(p.changes), len(p.series))
            for address, p in game.players.items()}


def _shared(game: GameArchive) -> tuple[Any, ...]:
    """Return what pages other than the home page read of the game's state at rendering."""
    state = game.state
    consent = bool(state.mechanics is not None and state.mechanics.speaker_consent)
    return consent, state.host, state.host_name, state.named_judge, state.named_judge_name


def _mentioned(game: GameArchive, addresses: set[str], entries: int) -> bool:
    """Tell whether any of ``addresses`` is a value in the game's lines before ``entries``.

    A page shows an address as a link only once its player has joined: a newcomer named
    before (a Judge, a host joining as a player) changes pages that are not theirs.
    """
    return any(_holds(line, addresses) for line in game.lines[:entries])


def _gather(value: Any, values: set[str]) -> None:
    """Add every text within ``value`` (a line, or a part of one) to ``values``."""
    if isinstance(value, str):
        values.add(value)
    elif isinstance(value, list | tuple):
        for item in value:
            _gather(item, values)
    elif isinstance(value, dict):
        for item in value.values():
            _gather(item, values)


def _holds(value: Any, addresses: set[str]) -> bool:
    if isinstance(value, str):
        return value in addresses
    if isinstance(value, list | tuple):
        return any(_holds(item, addresses) for item in value)
    if isinstance(value, dict):
        return any(_holds(item, addresses) for item in value.values())
    return False
