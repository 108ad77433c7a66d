"""A hand-run game's snapshot is checked whole: each fault kind with its exact line and key.

Each row edits the worked example (config/example-import.toml, against ``suber`` as the
configured ruleset) in one way and names the faults that must come back. The example
itself reads clean: six players in turn order with their scores, next proposal 457.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine.edits import MAX_RULE_BYTES
from speakerbot.engine.model import Clause, ClauseKind, RuleSpec
from speakerbot.presets.located import FileFaults, read_located
from speakerbot.presets.shipped import load_preset
from speakerbot.presets.snapshot import Importer, Snapshot, read_snapshot
from tests.support.file_edits import edited, line_of

EXAMPLE = (Path(__file__).resolve().parents[2] / "config" / "example-import.toml").read_text(
    encoding="utf-8")
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
HOST = "ann@example.org"
GAME = "nomic@example.org"


def refused(address: str) -> str | None:
    return "that is the game's own address" if address == GAME else None


def importer(ruleset: str = "suber", overrides: dict[str, str] | None = None) -> Importer:
    return Importer(load_preset(ruleset), HOST, NOW, overrides or {}, refused, MAX_RULE_BYTES)


def read(text: str, by: Importer | None = None) -> Snapshot:
    return read_snapshot(read_located(text.encode(), "game.toml"), "game.toml",
                         by or importer())


ANN = 'address = "ann@example.org"\nname = "Ann"\nscore = 57\n'
BEA = 'address = "bea@example.org"\nname = "Bea"\nscore = 112\n'
CYD = 'address = "cyd@example.org"\nname = "Cyd"\nscore = -5\n'
SECOND = ('[[proposals]]\nnumber = 455\ntitle = "Another"\nproposer = "ann@example.org"\n'
          'text = "Some words."\n\n[[proposals]]\nnumber = 456\n')
OPEN_FLOW = ("proposer_rejected_points = 5\n", 'proposer_rejected_points = 5\nflow = "open"\n')


@dataclass(frozen=True)
class Row:
    """One edit of the example and the faults it makes: (key, text that begins the line)."""

    changes: tuple[tuple[str, str], ...]
    faults: tuple[tuple[str, str], ...]
    message: str  # the first fault's message begins so


ROWS = {
    "score a string": Row(((ANN, ANN.replace("57", '"lots"')),), (
        ("players[1].score", 'score = "lots"'),),
        "expected a number of points, such as 42 or -7.5; not 'lots'"),
    "score a bool": Row(((ANN, ANN.replace("57", "true")),), (
        ("players[1].score", "score = true"),),
        "expected a number of points, such as 42 or -7.5; not True"),
    "score nan": Row(((ANN, ANN.replace("57", "nan")),), (
        ("players[1].score", "score = nan"),),
        "expected a number of points, such as 42 or -7.5; not nan"),
    "score infinite": Row(((ANN, ANN.replace("57", "-inf")),), (
        ("players[1].score", "score = -inf"),), "expected a number of points"),
    "score already winning": Row(((BEA, BEA.replace("112", "200")),), (
        ("players[2].score", "score = 200"),),
        "200 points would already have won (the winning score is 200)"),
    "address not an address": Row(((ANN, ANN.replace("ann@example.org", "Ann's")),), (
        ("players[1].address", "address = \"Ann's\""),),
        "expected one email address, such as ann@example.org; not \"Ann's\""),
    "address repeated": Row(((BEA, BEA.replace("bea@", "ANN@")),), (
        ("players[2].address", 'address = "ANN@example.org"'),),
        "ann@example.org is given twice; each player once"),
    "name repeated": Row(((BEA, BEA.replace('"Bea"', '"ann"')),), (
        ("players[2].name", 'name = "ann"'),),
        "the name 'ann' is given twice; each player's name once"),
    "the game's own address as a player": Row(((CYD, CYD.replace("cyd@", "nomic@")),), (
        ("players[3].address", 'address = "nomic@example.org"'),),
        "that is the game's own address"),
    "speaker flag without a Speaker role": Row(((ANN, ANN + "speaker = true\n"),), (
        ("players[1].speaker", "speaker = true"),),
        "this ruleset has no Speaker among the players; leave speaker out"),
    "speaker flag on a player who is not the host": Row(
        ((BEA, BEA + "speaker = true\n"), OPEN_FLOW,
         ("[mechanics]\n", "[mechanics]\nspeaker_role = true\n"),
         ('turn = "dora@example.org"\n', "")), (
            ("players[2].speaker", "speaker = true"),),
        "the Speaker of a game speakerbot runs is its host ([game] speaker = ann@example.org)"),
    "turn not a player": Row((('turn = "dora@', 'turn = "zed@'),), (
        ("game.turn", 'turn = "zed@'),),
        "expected the address of the player whose turn it is, one of the [[players]]; not "
        "'zed@example.org'"),
    "turn in an open-flow ruleset": Row((OPEN_FLOW,), (("game.turn", "turn = "),),
                                        "this ruleset has no turns; leave turn out"),
    "proposal number not below next_proposal": Row((("number = 456", "number = 457"),), (
        ("proposals[1].number", "number = 457"),),
        "expected the proposal's number, below the next proposal's (457); not 457"),
    "proposal number repeated": Row(
        (("[[proposals]]\nnumber = 456\n", SECOND.replace("455", "456")), OPEN_FLOW,
         ('turn = "dora@example.org"\n', "")), (
            ("proposals[2].number", "number = 456\ntitle = \"Shorter"),),
        "proposal 456 is given twice"),
    "proposer not a player": Row((('proposer = "dora@', 'proposer = "zed@'),), (
        ("proposals[1].proposer", 'proposer = "zed@'),),
        "expected the address of one of the [[players]], not 'zed@example.org'"),
    "deadline passed": Row((("closes = 2030-12-01", "closes = 2026-11-01"),), (
        ("proposals[1].closes", "closes = "),),
        "the deadline 2026-11-01T18:00:00+00:00 has passed"),
    "deadline without offset": Row((("closes = 2030-12-01T18:00:00Z",
                                     "closes = 2030-12-01T18:00:00"),), (
        ("proposals[1].closes", "closes = "),),
        "expected a date and time with its offset, such as 2026-12-01T18:00:00Z; not "
        "datetime.datetime(2030, 12, 1, 18, 0)"),
    "two open proposals in a turn-based ruleset": Row(
        (("[[proposals]]\nnumber = 456\n", SECOND.replace("ann@", "dora@")),), (
            ("proposals[2]", "[[proposals]]\nnumber = 456"),),
        "in a turn-based ruleset one proposal at most is open"),
    "the open proposal not the mover's": Row((('turn = "dora@', 'turn = "eli@'),), (
        ("proposals[1].proposer", 'proposer = "dora@'),),
        "in a turn-based ruleset the open proposal is the one of the player whose turn it is"),
    "next_proposal not above the rules": Row(
        (("next_proposal = 457", "next_proposal = 412"), ("number = 456", "number = 411")), (
            ("game.next_proposal", "next_proposal = 412"),),
        "the first proposal number must be above every rule's number (the highest is 412), "
        "not 412"),
    "next_proposal not a number": Row((("next_proposal = 457", 'next_proposal = "457"'),), (
        ("game.next_proposal", "next_proposal = "),
        ("proposals[1].number", "number = 456")),
        "expected the number the next proposal takes, a whole number from 1 to 1000000000, "
        "not '457'"),
    "a mechanic's source the snapshot lacks": Row((("win_points = 412\n", ""),), (
        ("mechanics.sources", "[mechanics.sources]"),),
        "the ruleset has win_points come from rule 208, which the snapshot does not have; "
        "name the rule it comes from now as [mechanics.sources] win_points = NUMBER"),
    "an unknown key in a player, the nearest named": Row(((ANN, ANN + "scroe = 1\n"),), (
        ("players[1].scroe", "scroe = 1"),), "unknown key; did you mean score?"),
    "a rule number repeated": Row((("number = 101\n", "number = 102\n"),), (
        ("rules[2].number", 'number = 102\ntitle = "Immutable'),),
        "rule 102 is given twice (first at line"),
}


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_each_fault_kind_with_its_line_and_key(row: Row) -> None:
    text = edited(EXAMPLE, *row.changes)
    with pytest.raises(FileFaults) as raised:
        read(text)
    faults = raised.value.faults
    assert [(f.key, f.line) for f in faults] == [
        (key, line_of(text, at)) for key, at in row.faults]
    assert faults[0].message.startswith(row.message), faults[0].message


def test_a_source_naming_a_missing_rule_is_said_once_where_it_is_written() -> None:
    text = edited(EXAMPLE, ("win_points = 412\n", "win_points = 999\n"))
    with pytest.raises(FileFaults) as raised:
        read(text)
    said = [(f.key, f.line, f.message) for f in raised.value.faults]
    # Not a second fault for suber's own source of win_points, rule 208, which is gone too.
    assert said == [("mechanics.sources.win_points", line_of(text, "win_points = 999"),
                     "win_points comes from rule 999, but there is no rule 999; name a "
                     "rule of this ruleset or leave win_points out here")]


def test_the_worked_example_reads_clean() -> None:
    snapshot = read(EXAMPLE)
    assert snapshot.title == "Pine Street Nomic"
    assert snapshot.source.startswith("the Pine Street list, run by hand by Ann")
    assert snapshot.next_proposal == 457
    assert [(p.address, p.name, p.score) for p in snapshot.players] == [
        ("ann@example.org", "Ann", Decimal(57)), ("bea@example.org", "Bea", Decimal(112)),
        ("cyd@example.org", "Cyd", Decimal(-5)), ("dora@example.org", "Dora", Decimal(88)),
        ("eli@example.org", "Eli", Decimal(31)), ("fay@example.org", "Fay", Decimal(0))]
    assert snapshot.mover == "dora@example.org"
    [open_proposal] = snapshot.proposals
    proposal = open_proposal.proposal
    assert (open_proposal.number, proposal.title, proposal.actor) == (
        456, "Shorter titles", "dora@example.org")
    assert open_proposal.closes_at == datetime(2030, 12, 1, 18, 0, tzinfo=UTC)
    assert [(cl.kind, cl.rule) for cl in proposal.clauses] == [(ClauseKind.AMEND, 331)]
    assert isinstance(proposal.clauses[0], Clause)
    ruleset = snapshot.ruleset
    suber = load_preset("suber")
    assert ruleset.name == "suber"
    assert ruleset.mechanics == {**suber.mechanics, "win_points": "200",
                                 "proposer_rejected_points": "5"}
    assert ruleset.sources == {**suber.sources, "win_points": 412,
                               "proposer_rejected_points": 389}
    numbers = [rule.number for rule in ruleset.rules]
    assert numbers == sorted(numbers) and {206, 208} - set(numbers) == {206, 208}
    assert numbers[-3:] == [331, 389, 412]
    assert ruleset.rules[-1] == RuleSpec(
        412, "The winner is the first player to achieve 200 (positive) points.", True,
        "Winning", ("Rule 208 in the initial set (100 points)",
                    "Amended by proposal 412, 30 August 2026, and renumbered 412"))


def test_an_open_proposal_without_a_deadline_closes_a_voting_period_on() -> None:
    text = edited(EXAMPLE, ("closes = 2030-12-01T18:00:00Z\n", ""))
    assert read(text).proposals[0].closes_at == NOW + timedelta(days=7)


def test_the_configured_mechanics_come_under_the_snapshots_own() -> None:
    by = importer(overrides={"win_points": "300", "die_sides": "8"})
    mechanics = read(EXAMPLE, by).ruleset.mechanics
    assert (mechanics["win_points"], mechanics["die_sides"]) == ("200", "8")


def test_without_a_turn_the_first_player_moves() -> None:
    text = edited(EXAMPLE, ('turn = "dora@example.org"\n', ""),
                  ('proposer = "dora@', 'proposer = "ann@'))
    assert read(text).mover == "ann@example.org"


_SCORES = st.one_of(
    st.integers(-10_000, 199).map(str),
    st.decimals(-1000, 199, places=2, allow_nan=False).map(str),
    st.decimals(-1000, 199, places=2, allow_nan=False).map(lambda d: f'"{d}"'),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.from_regex(r"[a-z]{1,8}", fullmatch=True), _SCORES),
                min_size=1, max_size=8, unique_by=lambda p: p[0]))
def test_players_and_their_scores_read_back_in_turn_order(
        players: list[tuple[str, str]]) -> None:
    start, end = EXAMPLE.index("[[players]]"), EXAMPLE.index("# The proposals whose vote")
    written = "".join(f'[[players]]\naddress = "{name}@example.net"\nname = "{name.title()}"\n'
                      f"score = {score}\n\n" for name, score in players)
    text = edited(EXAMPLE, (EXAMPLE[start:end], written), ('turn = "dora@example.org"\n', ""),
                  ('proposer = "dora@example.org"', f'proposer = "{players[0][0]}@example.net"'))
    read_back = read(text)
    assert [(p.address, p.name, p.score) for p in read_back.players] == [
        (f"{name}@example.net", name.title(), Decimal(score.strip('"')))
        for name, score in players]
    assert read_back.mover == f"{players[0][0]}@example.net"


def test_a_rule_longer_than_the_host_allows_is_a_fault_at_its_text() -> None:
    long_text = "x" * (MAX_RULE_BYTES + 1)
    text = edited(EXAMPLE, ('text = """Every proposal shall have a title of no more than ten '
                            'words."""', f'text = """{long_text}"""'))
    with pytest.raises(FileFaults) as raised:
        read(text)
    [fault] = raised.value.faults
    assert fault.key == "rules[27].text"
    assert fault.line == line_of(text, 'text = """xxx')
    assert fault.message == (f"rule 331 is {MAX_RULE_BYTES + 1:,} bytes; a rule may have at "
                             f"most {MAX_RULE_BYTES:,} ([limits] max_rule_bytes)")
