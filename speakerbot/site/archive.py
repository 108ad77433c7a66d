"""What the web archive knows of one game: records gathered from its public events.

Every record here is filled by ``speakerbot.site.folding`` from the public record alone
and read by the pages. A proposal's ballots appear only through the event that closed its
vote (``closed``): an open proposal holds nothing that depends on its ballots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import PurePosixPath
from typing import Any

from speakerbot.engine import events as e
from speakerbot.engine.model import Clause, GameState, RuleSpec

HISTORY_PAGE = 100
"""How many events one page of the timeline shows."""

LIST_PAGE = 100
"""How many items one page of a long list shows: proposals, a player's changes of score."""

LATEST = 20
"""How many of the newest items a list's first page shows before its pages."""

CHANGES_PAGE = 50
"""How many changes of score one page of a player's shows, once full.

The player's page shows those since the last full page: half of this on average, each
rendered again at every change of the player's score.
"""


def page_count(length: int) -> int:
    """Return how many pages of ``LIST_PAGE`` a list of ``length`` items takes (0: none)."""
    return -(-length // LIST_PAGE)


def pages_filled(before: int, after: int, size: int) -> set[int]:
    """Return the pages of ``size`` a list of full pages only gains as it grows.

    Each page that fills as the list grows from ``before`` items to ``after``, and the one
    before it, whose link to what follows moves from the list's newest items to the page
    just filled (from 1).
    """
    filled = set(range(before // size + 1, after // size + 1))
    return filled | {page - 1 for page in filled if page > 1}


def pages_touched(before: int, after: int) -> set[int]:
    """Return the pages of a list that grew from ``before`` items to ``after`` (from 1).

    A page links to the next once it begins: the page before a new one changes too.
    """
    touched = set()
    for index in range(before, after):
        touched.add(index // LIST_PAGE + 1)
        if index and index % LIST_PAGE == 0:
            touched.add(index // LIST_PAGE)
    return touched

OWN_FILES: dict[str, str] = {
    "home": "index.html",
    "games": "games.html",
    "record": "record.jsonl",
    "style": "style.css",
    "chart": "scores.svg",
    "rules": "rules/index.html",
    "initial": "rules/initial.html",
    "proposals": "proposals/index.html",
    "cfjs": "cfjs/index.html",
    "players": "players/index.html",
    "history": "history/index.html",
    "feed": "feed.atom",
    "search": "search.html",  # and its index, in search/ (speakerbot.site.search)
}
"""Every file the site writes under a name of its own (not one drawn from the record).

The pages write them from here, and a page named after a player may take none of their
names: a player called "Index" must not replace the list of players.
"""

RESERVED: frozenset[str] = frozenset(
    part.split(".", 1)[0] for path in OWN_FILES.values() for part in PurePosixPath(path).parts
)
"""Every name of a file or folder the site writes itself, without its extension."""


@dataclass(frozen=True)
class DiffLine:
    """One line of a rule's change: ``mark`` is "-" (removed), "+" (added) or " ".

    ``parts`` is the text of a removed or added line in pieces, each marked True when its
    words are the ones removed or added (a paragraph changed in a few words); empty when
    the whole line is (a paragraph removed or added whole).
    """

    mark: str
    text: str
    parts: tuple[tuple[str, bool], ...] = ()

    @property
    def pieces(self) -> tuple[tuple[str, bool], ...]:
        """Return the line in pieces, each with whether it changed (the whole line if so)."""
        return self.parts or ((self.text, self.mark in ("-", "+")),)


@dataclass
class Entry:
    """One event of the public record, as the timeline shows it."""

    seq: int
    at: datetime | None
    kind: str
    text: str
    page: str = ""  # the page it is about, relative to the game's root ("" for none)
    rule: RuleRecord | None = None  # a rule event links to the rule's page, known at the end

    @property
    def link(self) -> str:
        """Return the page this event is about, relative to the game's root, or ""."""
        return self.rule.page if self.rule is not None else self.page


@dataclass
class RuleStep:
    """One change in a rule's history: what, when, by which proposal, with its diff."""

    kind: str  # initial, enacted, amended, retitled, transmuted, renumbered, repealed, switched
    at: datetime
    seq: int
    proposal: int | None = None
    by_speaker: bool = False
    note: str = ""
    diff: tuple[DiffLine, ...] = ()


@dataclass
class RuleRecord:
    """A rule from its enactment (or the start) to now or to its repeal."""

    number: int
    text: str
    mutable: bool
    history: list[RuleStep] = field(default_factory=list)
    repealed: bool = False
    page: str = ""  # rules/<number>.html, or another name if a repealed rule shares it
    title: str = ""  # as the ruleset, the import, an enactment or a retitling named it
    # The open items of the host's hand work that name the rule: item -> its proposal.
    awaiting: dict[int, int] = field(default_factory=dict)

    @property
    def feed(self) -> str:
        """Return the rule's Atom feed, beside its page (``rules/<number>.atom``)."""
        return self.page.removesuffix(".html") + ".atom"

    @property
    def status(self) -> str:
        """Return "mutable" or "immutable"."""
        return "mutable" if self.mutable else "immutable"


@dataclass(frozen=True)
class ClauseView:
    """What a proposal's clause would do, with the diff it would make to the ruleset."""

    clause: Clause
    what: str
    setting: str
    diff: tuple[DiffLine, ...]


@dataclass(frozen=True)
class Ballot:
    """A counted ballot as revealed at the close, with its receipt when the record has one."""

    voter: str
    name: str
    choice: str
    receipt_line: str = ""


@dataclass
class ProposalRecord:
    """A proposal: its distribution, and after the close its result and what followed."""

    submitted: e.ProposalSubmitted
    seq: int
    proposer_name: str
    clauses: tuple[ClauseView, ...]
    closes_at: datetime | None
    extensions: list[e.VoteExtended] = field(default_factory=list)
    closed: e.VoteClosed | None = None
    ballots: tuple[Ballot, ...] = ()
    receipts: bool = False  # the close published each ballot's salt
    voided: e.ProposalVoided | None = None
    score_changes: list[e.ScoreChanged] = field(default_factory=list)
    followed: list[Entry] = field(default_factory=list)
    non_voter_names: tuple[str, ...] = ()
    place: int = 0  # how many proposals the game had before it: its place in the lists

    @property
    def number(self) -> int:
        """Return the proposal's number."""
        return self.submitted.number

    @property
    def status(self) -> str:
        """Return open, adopted, rejected or void."""
        if self.voided is not None:
            return "void"
        if self.closed is None:
            return "open"
        return "adopted" if self.closed.adopted else "rejected"

    @property
    def ended_at(self) -> datetime | None:
        """Return when the vote closed or the proposal was voided (None while open)."""
        done = self.closed or self.voided
        return None if done is None else done.at


@dataclass(frozen=True)
class JudgeTurn:
    """A Judge of a CFJ: who, how they were chosen, until when."""

    judge: str
    name: str
    how: str
    at: datetime
    deadline: datetime | None


@dataclass(frozen=True)
class Verdict:
    """A judgement delivered on a CFJ (a later one follows if it was overruled)."""

    judge: str
    name: str
    judgement: str
    reasons: str
    at: datetime
    overruled: bool = False


@dataclass
class CfjRecord:
    """A call for judgement and everything that happened to it."""

    called: e.CfjCalled
    caller_name: str
    judges: list[JudgeTurn] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)

    @property
    def number(self) -> int:
        """Return the CFJ's number."""
        return self.called.number

    @property
    def judgement(self) -> str | None:
        """Return the judgement in force, or None while the CFJ is open."""
        if self.verdicts and not self.verdicts[-1].overruled:
            return self.verdicts[-1].judgement
        return None


@dataclass(frozen=True)
class ScoreStep:
    """A change of a player's score, and why."""

    at: datetime
    seq: int
    delta: Decimal
    score: Decimal
    reason: str
    page: str = ""


@dataclass
class PlayerRecord:
    """A player: joined, left, role, score and every change of it."""

    address: str
    name: str
    slug: str
    joined_at: datetime
    role: str
    score: Decimal = Decimal(0)
    active: bool = True
    left_at: datetime | None = None
    left_reason: str = ""
    changes: list[ScoreStep] = field(default_factory=list)
    series: list[tuple[datetime, Decimal]] = field(default_factory=list)
    # The moments of ``series`` as POSIX seconds, for the chart to look a moment up in.
    stamps: list[float] = field(default_factory=list, compare=False, repr=False)

    def step(self, at: datetime, score: Decimal) -> None:
        """Add a moment of the player's score (a change, a join) to their series."""
        self.series.append((at, score))
        self.stamps.append(at.timestamp())

    @property
    def page(self) -> str:
        """Return the player's page, relative to the game's root."""
        return f"players/{self.slug}.html"


@dataclass
class GameArchive:
    """Everything the pages of one game show, gathered from its public events."""

    number: int  # the game's place in the record, from 1
    started: e.GameStarted
    first_seq: int
    state: GameState = field(default_factory=GameState)
    folder: str = ""  # games/<folder>/ for a past game
    initial: tuple[RuleSpec, ...] = ()
    initial_rules: dict[int, RuleRecord] = field(default_factory=dict)  # by initial number
    rules: dict[int, RuleRecord] = field(default_factory=dict)  # current, by number
    repealed: list[RuleRecord] = field(default_factory=list)
    proposals: dict[int, ProposalRecord] = field(default_factory=dict)
    cfjs: dict[int, CfjRecord] = field(default_factory=dict)
    players: dict[str, PlayerRecord] = field(default_factory=dict)
    timeline: list[Entry] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    # Kept as the record is folded, so that no page looks through every proposal: the
    # proposals still open (in the order distributed), every proposal's number in that
    # order, every close by its moment and number, and each proposer's proposals.
    open: dict[int, None] = field(default_factory=dict)
    sequence: list[int] = field(default_factory=list)  # every proposal's number, in order
    closes: list[tuple[datetime, int]] = field(default_factory=list)
    proposed: dict[str, list[int]] = field(default_factory=dict)
    # How many times a rule's page has moved (a repealed rule's, when its number is taken
    # again): what links to it changes. Counted as folded, so not part of the game's equality.
    page_moves: int = field(default=0, compare=False)

    @property
    def game_id(self) -> str:
        """Return the game's id (empty in records older than game ids)."""
        return self.started.game_id

    @property
    def last_seq(self) -> int:
        """Return the number of the game's last public event."""
        return self.timeline[-1].seq if self.timeline else self.first_seq

    def history_page(self, seq: int) -> str:
        """Return the timeline page that shows event ``seq``, relative to ``history/``."""
        first = self.timeline[0].seq if self.timeline else seq
        number = max(0, seq - first) // HISTORY_PAGE + 1
        return "index.html" if number == 1 else f"{number}.html"

    def player_page(self, address: str) -> str:
        """Return the page of the player at ``address``, or "" for someone who never joined."""
        player = self.players.get(address)
        return player.page if player is not None else ""

    def open_proposals(self) -> list[ProposalRecord]:
        """Return the proposals open for voting, in the order they were distributed."""
        return [self.proposals[number] for number in self.open]

    def latest_closed(self, count: int) -> list[ProposalRecord]:
        """Return the ``count`` proposals whose vote closed last, the latest first."""
        return [self.proposals[number] for _, number in reversed(self.closes[-count:])]

    def proposal_page(self, number: int) -> list[ProposalRecord]:
        """Return the proposals on page ``number`` (from 1) of the list, oldest first."""
        return [self.proposals[found] for found in
                self.sequence[(number - 1) * LIST_PAGE:number * LIST_PAGE]]

    def all_rules(self) -> list[RuleRecord]:
        """Return every rule, current and repealed, current ones first by number."""
        return [*self.rules.values(), *self.repealed]
