"""A snapshot of a hand-run game, read and checked whole for ``speakerbot import``.

The snapshot gives the game as it stands: its name and where it was played, the number
its next proposal takes, the rules now (with their history lines where the group kept
them), the players in turn order with their scores, and the proposals open now with
their texts and deadlines. The mechanics are the configured ruleset's, with any the
snapshot sets in its own ``[mechanics]``. Every fault is reported as ``speakerbot
rulesets check`` reports a ruleset's, and a snapshot with any fault imports nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from speakerbot.addresses import canonical_address
from speakerbot.engine.commands import ImportedPlayer, ImportedProposal, Preset, Propose
from speakerbot.engine.mechanics import Flow, Mechanics
from speakerbot.engine.model import Clause, RuleSpec
from speakerbot.engine.play import MAX_NAME, MAX_TEXT, MAX_TITLE
from speakerbot.mail.inbound.language import clauses_of
from speakerbot.presets.located import FileFaults, Key, Located, shown
from speakerbot.presets.ruleset import check_numbering, read_mechanics, read_rules, read_sources

_TOP = ("game", "mechanics", "players", "rules", "proposals")
_GAME = ("name", "source", "next_proposal", "turn")
_PLAYER = ("address", "name", "score", "speaker")
_PROPOSAL = ("number", "title", "proposer", "text", "closes")
MAX_PROPOSAL_NUMBER = 1_000_000_000


@dataclass(frozen=True)
class Importer:
    """What a snapshot is checked against: the configured game, and the time of the import."""

    ruleset: Preset
    host: str
    now: datetime
    overrides: Mapping[str, str]  # the configuration's [mechanics]
    refused: Callable[[str], str | None]  # why an address cannot be a player (the game's own)
    max_rule_bytes: int  # the configuration's [limits] max_rule_bytes


@dataclass(frozen=True)
class Snapshot:
    """A hand-run game as it stands, ready to import."""

    title: str
    source: str
    next_proposal: int
    ruleset: Preset  # the configured one, with the snapshot's rules and mechanics
    players: tuple[ImportedPlayer, ...]
    mover: str
    proposals: tuple[ImportedProposal, ...]


def read_snapshot(located: Located, origin: str, importer: Importer) -> Snapshot:
    """Return the game a parsed snapshot holds, or raise FileFaults with every fault in it."""
    if located.faults:
        raise FileFaults(origin, located.faults)
    located.unknown_keys((), located.data, _TOP)
    game = located.table(("game",), required=True, holds=" with name, source and "
                         "next_proposal")
    located.unknown_keys(("game",), game, _GAME)
    title = _line(located, ("game", "name"), game.get("name"), MAX_TITLE)
    source = _line(located, ("game", "source"), game.get("source"), 1000)
    rules = read_rules(located)
    _check_sizes(located, rules, importer.max_rule_bytes)
    ruleset = _ruleset(located, importer, rules)
    mechanics = _mechanics(ruleset)
    next_proposal = _next_proposal(located, game.get("next_proposal"), rules)
    players = _players(located, importer, mechanics)
    addresses = [player.address for player in players]
    mover = _mover(located, game.get("turn"), addresses, mechanics)
    proposals = _proposals(located, importer, addresses, next_proposal, mechanics)
    # A turn refused above is the one fault: whose proposal is open is not checked against it.
    if mechanics is not None and mechanics.flow is Flow.TURNS and (mover or "turn" not in game):
        mover = _turn_of(located, proposals, mover or (addresses[0] if addresses else ""))
    if located.faults:
        raise FileFaults(origin, located.faults)
    return Snapshot(title, source, next_proposal, ruleset, players, mover, proposals)


def _ruleset(located: Located, importer: Importer, rules: tuple[Any, ...]) -> Preset:
    """Return the configured ruleset with the snapshot's rules and mechanics in it."""
    base = importer.ruleset
    numbers = {rule.number for rule in rules}
    written = read_mechanics(located, ("mechanics",), complete=False)
    sources = {**base.sources, **read_sources(located, ("mechanics", "sources"), numbers)}
    named = located.data.get("mechanics", {})
    named = named.get("sources", {}) if isinstance(named, dict) else {}
    for name, rule in sources.items():
        # A source the snapshot names but gets wrong is a fault of its own, said where it is.
        if rules and rule not in numbers and not (isinstance(named, dict) and name in named):
            located.fault(("mechanics", "sources"), f"the ruleset has {name} come from rule "
                          f"{rule}, which the snapshot does not have; name the rule it comes "
                          f"from now as [mechanics.sources] {name} = NUMBER")
    # A person the ruleset names (its first Speaker) is in a rule the game has since changed.
    persons = {role: (rule, name) for role, (rule, name) in base.persons.items()
               if any(r.number == rule and name in r.text for r in rules)}
    mechanics = {**base.mechanics, **importer.overrides, **written}
    return dataclasses.replace(base, rules=rules, mechanics=mechanics, sources=sources,
                               persons=persons)


def _check_sizes(located: Located, rules: tuple[RuleSpec, ...], limit: int) -> None:
    """Refuse a rule longer than the host allows a rule to become ([limits])."""
    entries = located.data.get("rules")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        number = entry.get("number") if isinstance(entry, dict) else None
        rule = next((rule for rule in rules if rule.number == number), None)
        if rule is not None and len(rule.text.encode()) > limit:
            located.fault(("rules", index, "text"), f"rule {rule.number} is "
                          f"{len(rule.text.encode()):,} bytes; a rule may have at most "
                          f"{limit:,} ([limits] max_rule_bytes)")


def _mechanics(ruleset: Preset) -> Mechanics | None:
    try:
        return Mechanics.from_strings(ruleset.mechanics)
    except ValueError:
        return None  # each bad value is a fault already


def _next_proposal(located: Located, value: object, rules: tuple[Any, ...]) -> int:
    key: Key = ("game", "next_proposal")
    if isinstance(value, bool) or not isinstance(value, int) or not (
            1 <= value <= MAX_PROPOSAL_NUMBER):
        located.fault(key, f"expected the number the next proposal takes, a whole number "
                      f"from 1 to {MAX_PROPOSAL_NUMBER}, not {shown(value)}")
        return 0
    check_numbering(located, key, {}, rules, value)
    return value


def _players(located: Located, importer: Importer,
             mechanics: Mechanics | None) -> tuple[ImportedPlayer, ...]:
    found: list[ImportedPlayer] = []
    names: set[str] = set()
    for at, entry in located.entries("players", _PLAYER, needed=", one a player in turn "
                                     "order, each with address, name and score"):
        player = _player(located, at, entry, importer, mechanics)
        if player is None:
            continue
        if any(player.address == other.address for other in found):
            located.fault((*at, "address"), f"{player.address} is given twice; each player "
                          "once")
        elif player.name.casefold() in names:
            located.fault((*at, "name"), f"the name {player.name!r} is given twice; each "
                          "player's name once")
        else:
            found.append(player)
            names.add(player.name.casefold())
    return tuple(found)


def _player(located: Located, at: Key, entry: Mapping[str, Any], importer: Importer,
            mechanics: Mechanics | None) -> ImportedPlayer | None:
    raw = entry.get("address")
    address = canonical_address(raw) if isinstance(raw, str) else None
    if address is None:
        located.fault((*at, "address"), f"expected one email address, such as "
                      f"ann@example.org; not {shown(raw)}")
    elif importer.refused(address) is not None:
        located.fault((*at, "address"), str(importer.refused(address)))
        address = None
    name = _line(located, (*at, "name"), entry.get("name"), MAX_NAME)
    score = _score(located, (*at, "score"), entry.get("score", 0), mechanics)
    if entry.get("speaker", False) is not False:
        _speaker(located, (*at, "speaker"), entry["speaker"], address, importer, mechanics)
    if address is None or not name or score is None:
        return None
    return ImportedPlayer(address, name, score)


def _score(located: Located, key: Key, raw: object,
           mechanics: Mechanics | None) -> Decimal | None:
    try:
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise InvalidOperation
        score = Decimal(str(raw).strip())
        if not score.is_finite():
            raise InvalidOperation
    except InvalidOperation:
        located.fault(key, f"expected a number of points, such as 42 or -7.5; not {shown(raw)}")
        return None
    if mechanics is not None and score >= mechanics.win_points:
        located.fault(key, f"{score} points would already have won (the winning score is "
                      f"{mechanics.win_points}); a game that has a winner is not imported")
        return None
    return score


def _speaker(located: Located, key: Key, flag: object, address: str | None,
             importer: Importer, mechanics: Mechanics | None) -> None:
    if flag is not True:
        located.fault(key, f"expected speaker = true (or nothing), not {shown(flag)}")
    elif mechanics is not None and not mechanics.speaker_role:
        located.fault(key, "this ruleset has no Speaker among the players; leave speaker out")
    elif address is not None and address != canonical_address(importer.host):
        located.fault(key, f"the Speaker of a game speakerbot runs is its host ([game] speaker "
                      f"= {importer.host}); make this player the host in the configuration, "
                      "or leave speaker out")


def _mover(located: Located, raw: object, addresses: list[str],
           mechanics: Mechanics | None) -> str:
    if raw is None:
        return ""
    key: Key = ("game", "turn")
    if mechanics is not None and mechanics.flow is not Flow.TURNS:
        located.fault(key, "this ruleset has no turns; leave turn out")
        return ""
    mover = canonical_address(raw) if isinstance(raw, str) else None
    if mover not in addresses:
        located.fault(key, f"expected the address of the player whose turn it is, one of the "
                      f"[[players]]; not {shown(raw)}")
        return ""
    return mover or ""


def _proposals(located: Located, importer: Importer, addresses: list[str], next_number: int,
               mechanics: Mechanics | None) -> tuple[ImportedProposal, ...]:
    found: list[ImportedProposal] = []
    for at, entry in located.entries("proposals", _PROPOSAL):
        proposal = _proposal(located, at, entry, importer, addresses, next_number, mechanics)
        if proposal is not None and any(p.number == proposal.number for p in found):
            located.fault((*at, "number"), f"proposal {proposal.number} is given twice")
        elif proposal is not None:
            found.append(proposal)
    return tuple(found)


def _proposal(located: Located, at: Key, entry: Mapping[str, Any], importer: Importer,
              addresses: list[str], next_number: int,
              mechanics: Mechanics | None) -> ImportedProposal | None:
    number = entry.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or not (
            1 <= number < max(next_number, 2)):
        located.fault((*at, "number"), f"expected the proposal's number, below the next "
                      f"proposal's ({next_number}); not {shown(number)}")
        number = None
    title = _line(located, (*at, "title"), entry.get("title"), MAX_TITLE)
    raw = entry.get("proposer")
    proposer = canonical_address(raw) if isinstance(raw, str) else None
    if proposer not in addresses:
        located.fault((*at, "proposer"), f"expected the address of one of the [[players]], "
                      f"not {shown(raw)}")
    text = entry.get("text")
    clauses: tuple[Clause, ...] = ()
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        located.fault((*at, "text"), f"expected the proposal's text, at most {MAX_TEXT:,} "
                      "characters")
        text = None
    else:
        read, errors = clauses_of(text, f"in proposal {number}")
        for error in errors:
            located.fault((*at, "text"), f"line {error.line} of the text: {error.reason}")
        clauses = tuple(read)
    closes = _deadline(located, (*at, "closes"), entry.get("closes"), importer, mechanics)
    if number is None or not title or proposer not in addresses or text is None or (
            closes is False):
        return None
    return ImportedProposal(number, Propose(proposer or "", title, text.strip("\n"), clauses),
                            closes if isinstance(closes, datetime) else None)


def _deadline(located: Located, key: Key, raw: object, importer: Importer,
              mechanics: Mechanics | None) -> datetime | bool | None:
    """Return when the vote closes (False when refused): as given, or a voting period on."""
    if raw is None:
        period = mechanics.voting_period if mechanics is not None else None
        return importer.now + period if period is not None else None
    if not isinstance(raw, datetime) or raw.tzinfo is None:
        located.fault(key, f"expected a date and time with its offset, such as "
                      f"2026-12-01T18:00:00Z; not {shown(raw)}")
        return False
    if raw <= importer.now:
        located.fault(key, f"the deadline {raw.isoformat()} has passed; give a later one, or "
                      "leave the proposal out and count its vote by hand")
        return False
    return raw


def _turn_of(located: Located, proposals: tuple[ImportedProposal, ...], mover: str) -> str:
    """In a turn-based ruleset, the one open proposal is the mover's."""
    if len(proposals) > 1:
        located.fault(("proposals", 1), "in a turn-based ruleset one proposal at most is open: "
                      "the one of the player whose turn it is")
    elif proposals and proposals[0].proposal.actor != mover:
        located.fault(("proposals", 0, "proposer"), "in a turn-based ruleset the open proposal "
                      "is the one of the player whose turn it is ([game] turn, or the first "
                      "player)")
    return mover


def _line(located: Located, key: Key, raw: object, limit: int) -> str:
    if not isinstance(raw, str) or not raw.strip() or "\n" in raw.strip() or len(raw) > limit:
        located.fault(key, f"expected one line of text, at most {limit} characters; not "
                      f"{shown(raw)}")
        return ""
    return " ".join(raw.split())
