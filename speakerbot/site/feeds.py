"""The archive's Atom feeds: the game's news (``feed.atom``) and each rule's changes.

A feed is made from the game's timeline, which holds only public events: an entry for a
proposal distributed or a CFJ called is made when nothing of the ballots is known, and
only the entry for the close tells the tally. Everything in a feed comes from the record:
an entry's id is a tag URI of the game and the event's number in the public record, its
``updated`` the event's time, the feed's ``updated`` its newest entry's. So two builds of
the same record give the same bytes, and an entry keeps its id as the game goes on. Each
feed keeps its newest ``FEED_SIZE`` entries, so its cost does not grow with the game.

Links lead to the game's pages: with the site's address (``[site] url``), absolute, to
``games/<id>/``, where a game's pages stay once the next game begins; without it, relative
to the feed itself, which Atom resolves against the feed's own address.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from feedgen.feed import FeedGenerator

from speakerbot.engine import events as e
from speakerbot.mail.outbound.lookups import event_of
from speakerbot.site.archive import OWN_FILES, DiffLine, GameArchive, RuleRecord, RuleStep

__all__ = ["FEED_SIZE", "NEWS", "game_feed", "rule_feed"]

FEED_SIZE = 50
"""How many entries a feed keeps: the newest."""

NEWS: frozenset[str] = frozenset({
    "ProposalSubmitted", "VoteClosed", "ProposalVoided",
    "CfjCalled", "JudgeAssigned", "JudgementDelivered", "JudgementOverruled",
    "RuleEnacted", "RuleAmended", "RuleRetitled", "RuleRepealed", "RuleTransmuted",
    "AdoptionSwitchedToMajority", "SpeakerOverride", "GameWon", "NewGameBegun", "GameEnded",
})
"""The kinds of event the game's feed tells: what a player who follows the game reads."""

_TAG = "tag:speakerbot,2026:"
_ATOM = "application/atom+xml"
# Characters XML 1.0 cannot hold: lxml refuses them, and a player's text may carry one.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class _Item:
    """One entry of a feed, as the record tells it."""

    seq: int
    at: datetime
    title: str
    page: str  # relative to the game's root
    content: str  # HTML, or "" for none


@dataclass(frozen=True)
class _Place:
    """Where a feed stands: its path in the game and the site's address."""

    game: GameArchive
    path: str  # relative to the game's root
    url: str  # the site's address without a trailing slash, or ""
    nested: bool  # under games/<id>/ rather than at the site's root

    def href(self, page: str) -> str:
        """Return the address of a game's page as the feed links to it."""
        if self.url:
            return f"{self.url}/games/{self.game.folder}/{page}"
        return "../" * self.path.count("/") + page

    def self_href(self) -> str:
        """Return the feed's own address, or "" when the site has none."""
        if not self.url:
            return ""
        folder = f"games/{self.game.folder}/" if self.nested else ""
        return f"{self.url}/{folder}{self.path}"


def game_feed(game: GameArchive, *, name: str, url: str = "", nested: bool = False) -> bytes:
    """Return the game's feed: its newest ``FEED_SIZE`` news (``NEWS``), newest first.

    ``name`` is the game's name as configured; ``url`` the site's address ("" for none);
    ``nested``: the feed is the copy under ``games/<id>/`` rather than the root's.
    """
    items: list[_Item] = []
    for index in range(len(game.timeline) - 1, -1, -1):
        if len(items) == FEED_SIZE:
            break
        if game.timeline[index].kind in NEWS:
            item = _item(game, index)
            if item is not None:
                items.append(item)
    place = _Place(game, OWN_FILES["feed"], url, nested)
    return _atom(place, f"{_TAG}{_game_key(game)}", (name, name), OWN_FILES["home"], items)


def rule_feed(game: GameArchive, rule: RuleRecord, *, name: str, url: str = "",
              nested: bool = False) -> bytes:
    """Return one rule's feed: its newest changes, newest first.

    A rule's feed is beside its page (``rules/<number>.atom``); its id stays with the rule
    when it is renumbered or repealed.
    """
    changes = [step for step in rule.history if step.kind not in ("initial", "imported")]
    items = [item for step in reversed(changes[-FEED_SIZE:])
             if (item := _rule_item(game, step)) is not None]
    number = next((n for n, first in game.initial_rules.items() if first is rule), None)
    origin = f"initial-{number}" if number is not None else str(rule.history[0].seq)
    feed_id = f"{_TAG}{_game_key(game)}/rules/{origin}"
    place = _Place(game, rule.feed, url, nested)
    title = f"{name}: rule {rule.number}" + (f", {rule.title}" if rule.title else "")
    return _atom(place, feed_id, (title, name), rule.page, items,
                 empty_at=rule.history[0].at)


def _atom(place: _Place, feed_id: str, names: tuple[str, str], home: str,
          items: list[_Item], *, empty_at: datetime | None = None) -> bytes:
    """Write a feed of ``items`` (newest first) with feedgen.

    ``names``: the feed's title and its author (the game); ``home``: the page it follows.
    """
    title, author = names
    feed = FeedGenerator()
    feed.id(feed_id)
    feed.title(_clean(title))
    # Atom wants an author for every entry: the game itself, as it is named.
    feed.author(name=_clean(author) or "speakerbot")
    # The generator's version would change the bytes with the library's: left out.
    feed.generator("speakerbot")
    feed.link(href=place.href(home), rel="alternate", type="text/html")
    if place.self_href():
        feed.link(href=place.self_href(), rel="self", type=_ATOM)
    feed.updated(items[0].at if items else (empty_at or place.game.started.at))
    for item in items:
        entry = feed.add_entry(order="append")
        entry.id(f"{_TAG}{_game_key(place.game)}/{item.seq}")
        entry.title(_clean(item.title))
        entry.updated(item.at)
        entry.link(href=place.href(item.page), rel="alternate", type="text/html")
        if item.content:
            entry.content(_clean(item.content), type="html")
    return bytes(feed.atom_str(pretty=True, encoding="UTF-8"))


def _game_key(game: GameArchive) -> str:
    """Return the game's part of every tag: its id, or its place in a record without ids."""
    return quote(game.game_id, safe="-._~") if game.game_id else f"game-{game.number}"


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _rule_item(game: GameArchive, step: RuleStep) -> _Item | None:
    """Return the entry of a rule's change, as the game's feed tells it."""
    timeline = game.timeline
    index = bisect_left(timeline, step.seq, key=lambda entry: entry.seq)
    if index == len(timeline) or timeline[index].seq != step.seq:
        return None
    return _item(game, index)


def _item(game: GameArchive, index: int) -> _Item | None:
    """Return the feed's entry for the timeline's event at ``index`` (None: no time)."""
    entry = game.timeline[index]
    if entry.at is None:
        return None
    page = entry.link or f"history/{game.history_page(entry.seq)}#e{entry.seq}"
    event = event_of(game.lines[index])
    content = "" if event is None else _content(game, event, entry.rule, entry.seq)
    return _Item(entry.seq, entry.at, entry.text, page, content)


def _content(game: GameArchive, event: e.Event, rule: RuleRecord | None, seq: int) -> str:
    """Return what an entry shows beyond its title, in HTML ("" for nothing more).

    Nothing here reads a ballot but the close's own: the entry of a proposal distributed
    shows its text and clauses, as the distribution mail did.
    """
    if isinstance(event, e.ProposalSubmitted):
        record = game.proposals.get(event.number)
        clauses = "".join(f"<li>{_h(view.what)}</li>" for view in record.clauses) if (
            record is not None) else ""
        return _pre(event.text) + (f"<ol>{clauses}</ol>" if clauses else "")
    if isinstance(event, e.VoteClosed):
        quorum = (f" Quorum: {event.quorum_needed} of {event.quorum_base}, "
                  f"{'reached' if event.quorum_reached else 'NOT reached'}."
                  if event.quorum_needed else "")
        return (f"<p>{'ADOPTED' if event.adopted else 'REJECTED'}: {event.for_votes} FOR, "
                f"{event.against_votes} AGAINST, {event.eligible} eligible.{quorum} "
                f"Threshold: {_h(event.requirement)}.</p>" + _para(event.reason))
    if isinstance(event, e.CfjCalled):
        return _para(event.statement) + _pre(event.arguments)
    if isinstance(event, e.JudgementDelivered):
        return f"<p>{_h(event.judgement.value)}</p>" + _pre(event.reasons)
    if isinstance(event, e.ProposalVoided | e.GameWon | e.GameEnded):
        return _para(event.reason)
    if isinstance(event, e.SpeakerOverride):
        return _para(event.summary)
    step = next((s for s in rule.history if s.seq == seq), None) if rule else None
    if step is None or not step.diff:
        return ""
    if step.kind == "enacted":  # all of it is new: the text itself, without the marks
        return _pre("\n".join(line.text for line in step.diff))
    return _diff(step.diff)


def _h(text: str) -> str:
    return html.escape(text, quote=False)


def _para(text: str) -> str:
    return f"<p>{_h(text)}</p>" if text else ""


def _pre(text: str) -> str:
    return f"<pre>{_h(text)}</pre>" if text else ""


def _diff(lines: tuple[DiffLine, ...]) -> str:
    return _pre("\n".join(f"{line.mark} {line.text}" for line in lines))
