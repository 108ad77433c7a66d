"""The rules are the program: an adopted change to a mechanic's source rule is read again.

AMEND, a REPLACE edit and a new rule (once the source is repealed) move the value the game
plays by, with a MechanicChanged naming the rule and the words; wordings the reader cannot
tell (two numbers, an impossible value, the phrase gone, the rule repealed) change nothing
and ask the host; a SET of the same proposal wins; games without phrases behave as before.
in_force lists every mechanic once with where it comes from: a rule and its words, a rule
alone, set by the host or by a proposal, or the preset's default.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.codec import event_from_json, event_to_json
from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.model import Clause, ClauseKind
from speakerbot.engine.rereading import InForce, in_force
from speakerbot.presets import load_preset
from tests.engine.cast import ALICE, BOB, CAROL, DAY, SPEAKER
from tests.engine.harness import Game, amend, enact, nomicam, repeal, set_

WIN_150 = "The winner is the first player to achieve 150 (positive) points."
QUORUM_25 = ("Quorum for a proposed rule change is defined to be 25% of Voters at the "
             "beginning of the prescribed voting period for that proposal.")


def suber(phrases: bool = True) -> Game:
    return Game("suber", [ALICE, BOB, CAROL], phrases=phrases)


def adopt_in_turn(g: Game, *clauses: Clause) -> tuple[int, list[e.Event]]:
    """The mover proposes ``clauses`` and all three suber players adopt it (die: 1)."""
    assert g.state.turn is not None
    number = g.propose(g.state.turn.mover, *clauses)
    g.dice.load(1)
    events = g.votes(number, alice="FOR", bob="FOR", carol="FOR")
    assert g.of(e.VoteClosed, events)[0].adopted
    return number, events


def adopt_open(g: Game, *clauses: Clause) -> tuple[int, list[e.Event]]:
    """Alice proposes ``clauses`` in nomicam, all five vote FOR, the voting period ends."""
    number = g.propose(ALICE, *clauses)
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR", erin="FOR")
    closes_at = g.state.proposals[number].closes_at
    assert closes_at is not None
    events = g.later(closes_at - g.now)
    assert g.of(e.VoteClosed, events)[0].adopted
    return number, events


# --- Each kind of change to a source rule -------------------------------------------------


def test_an_amended_winning_score_is_read_and_played_by() -> None:
    g = suber()
    number, events = adopt_in_turn(g, amend(208, WIN_150))
    [changed] = g.of(e.MechanicChanged, events)
    # Suber renumbers an amended rule: the reading names the rule as it is numbered now.
    assert changed == e.MechanicChanged(g.now, "win_points", "100", "150", number,
                                        "achieve 150 (positive) points", number)
    assert g.state.rules_mechanics.win_points == 150 and g.state.sources["win_points"] == number
    assert not g.of(e.MechanicNotRead) and not g.of(e.MechanicsMayHaveChanged)

    g.ok(c.AdjustScore(SPEAKER, BOB, Decimal(120)))
    assert not g.of(e.GameWon), "120 won, though the rule now says 150"
    won = g.of(e.GameWon, g.ok(c.AdjustScore(SPEAKER, BOB, Decimal(30))))
    assert [w.winners for w in won] == [(BOB,)]
    assert f"rule {number}" in won[0].reason and "150" in won[0].reason


def test_a_replace_edit_of_the_voting_period_times_the_next_proposal() -> None:
    g = nomicam(phrases=True)
    number, events = adopt_open(g, Clause(ClauseKind.REPLACE, 205, old="one week",
                                          new="three days"))
    [changed] = g.of(e.MechanicChanged, events)
    assert (changed.mechanic, changed.old, changed.new) == ("voting_period", "7d", "3d")
    assert (changed.rule, changed.words, changed.proposal) == (205, "three days", number)
    assert g.state.rules_mechanics.voting_period == 3 * DAY
    following = g.propose(BOB, title="Next")
    assert g.state.proposals[following].closes_at == g.now + 3 * DAY


def test_an_amended_quorum_is_the_next_votes_quorum() -> None:
    g = nomicam(phrases=True)
    _, events = adopt_open(g, amend(201, QUORUM_25))
    [changed] = g.of(e.MechanicChanged, events)
    assert (changed.mechanic, changed.old, changed.new, changed.rule) == (
        "quorum_percent", "20", "25", 201)
    assert changed.words == "25% of Voters"
    following = g.propose(BOB, title="Next")
    g.vote(ALICE, following, "FOR")  # one of five: the old 20% would have been a quorum
    closes_at = g.state.proposals[following].closes_at
    assert closes_at is not None
    [closed] = g.of(e.VoteClosed, g.later(closes_at - g.now))
    assert (closed.quorum_needed, closed.quorum_reached) == (2, False)


def test_a_repealed_source_asks_the_host_and_a_new_rule_stating_it_takes_over() -> None:
    g = suber()
    number, events = adopt_in_turn(g, repeal(208))
    [notice] = g.of(e.MechanicNotRead, events)
    assert (notice.mechanic, notice.rule, notice.proposal) == ("win_points", 208, number)
    assert "repealed" in notice.why
    assert not g.of(e.MechanicChanged)
    assert g.state.rules_mechanics.win_points == 100 and "win_points" not in g.state.sources

    # A rule with a number but not the phrase is not read.
    _, events = adopt_in_turn(g, enact("Players may sing 80 songs."))
    assert not g.of(e.MechanicChanged, events) and g.state.rules_mechanics.win_points == 100

    enacted, events = adopt_in_turn(g, enact(
        "The winner is the first player to achieve 80 points."))
    [changed] = g.of(e.MechanicChanged, events)
    assert (changed.mechanic, changed.old, changed.new, changed.rule, changed.words) == (
        "win_points", "100", "80", enacted, "achieve 80 points")
    assert g.state.rules_mechanics.win_points == 80 and g.state.sources["win_points"] == enacted


def test_a_new_rule_that_mentions_points_leaves_a_standing_source_alone() -> None:
    g = suber()
    _, events = adopt_in_turn(g, enact("The winner is the first player to achieve 80 points."))
    assert not g.of(e.MechanicChanged, events) and not g.of(e.MechanicNotRead, events)
    assert g.state.rules_mechanics.win_points == 100 and g.state.sources["win_points"] == 208


def test_the_speakers_own_edit_of_a_source_rule_is_read_too() -> None:
    g = suber()
    events = g.ok(c.EditRule(SPEAKER, amend(208, WIN_150)))
    [changed] = g.of(e.MechanicChanged, events)
    assert (changed.new, changed.rule, changed.proposal) == ("150", 208, None)
    assert g.state.rules_mechanics.win_points == 150


def test_only_the_mechanic_whose_words_moved_changes_in_a_rule_of_two() -> None:
    g = nomicam(phrases=True)
    _, events = adopt_open(g, Clause(ClauseKind.REPLACE, 211, old="shall receive 10 points",
                                     new="shall receive 15 points"))
    assert [(m.mechanic, m.old, m.new, m.rule) for m in g.of(e.MechanicChanged, events)] == [
        ("proposer_adopted_points", "10", "15", 211)]
    assert g.state.rules_mechanics.proposer_rejected_points == 10
    assert not g.of(e.MechanicNotRead, events)


def test_a_transmuted_source_keeps_its_words_under_its_new_number() -> None:
    g = suber()
    number, events = adopt_in_turn(g, Clause(ClauseKind.TRANSMUTE, 208))
    assert not g.of(e.MechanicChanged, events) and not g.of(e.MechanicNotRead, events)
    assert g.state.sources["win_points"] == number
    assert found(g)["win_points"].origin == f"rule {number}: “achieve 100 (positive) points”"


def test_a_repeal_then_an_enactment_in_one_proposal_moves_the_source() -> None:
    g = suber()
    number, events = adopt_in_turn(g, repeal(208), enact(
        "The winner is the first player to achieve 80 points."))
    assert [n.rule for n in g.of(e.MechanicNotRead, events)] == [208]
    [changed] = g.of(e.MechanicChanged, events)
    assert (changed.new, changed.rule) == ("80", number)
    assert g.state.sources["win_points"] == number


# --- What the reader cannot tell changes nothing and asks the host -------------------------


def _unreadable(text: str, *why: str) -> None:
    g = suber()
    number, events = adopt_in_turn(g, amend(208, text))
    [notice] = g.of(e.MechanicNotRead, events)
    assert (notice.mechanic, notice.rule, notice.proposal) == ("win_points", number, number)
    for fragment in why:
        assert fragment in notice.why, notice.why
    assert not g.of(e.MechanicChanged, events)
    # The value stays; the rule is still where it comes from, for the host to decide.
    assert g.state.rules_mechanics.win_points == 100 and g.state.sources["win_points"] == number


def test_two_numbers_are_not_read() -> None:
    _unreadable("The winner is the first player to achieve 150 points, or 200 points.",
                "two values", "150", "200")


def test_a_value_out_of_range_is_not_read() -> None:
    _unreadable("The winner is the first player to achieve 0 points.", "0", "out of range")


def test_a_rule_that_no_longer_says_it_is_not_read() -> None:
    _unreadable("The winner is the player with the most points.", "no longer says")


# --- A SET of the same proposal wins -------------------------------------------------------


def test_a_set_beside_the_amendment_wins_and_the_disagreement_is_told() -> None:
    g = suber()
    number, events = adopt_in_turn(g, amend(208, WIN_150), set_("win_points", "200"))
    assert g.state.rules_mechanics.win_points == 200
    assert not g.of(e.MechanicChanged, events)
    [notice] = g.of(e.MechanicNotRead, events)
    assert (notice.mechanic, notice.rule) == ("win_points", number)
    assert "150" in notice.why and "200" in notice.why and "wins" in notice.why
    assert g.state.set_by["win_points"] == f"proposal {number}"


def test_a_set_that_agrees_with_the_amendment_needs_no_notice() -> None:
    g = suber()
    _, events = adopt_in_turn(g, amend(208, WIN_150), set_("win_points", "150"))
    assert g.state.rules_mechanics.win_points == 150
    assert not g.of(e.MechanicNotRead, events) and not g.of(e.MechanicChanged, events)


def test_a_set_beside_the_repeal_of_the_source_needs_no_notice() -> None:
    g = suber()
    _, events = adopt_in_turn(g, repeal(208), set_("win_points", "200"))
    assert g.state.rules_mechanics.win_points == 200
    # The proposal says what the value is: there is nothing for the host to decide.
    assert not g.of(e.MechanicNotRead, events), g.of(e.MechanicNotRead, events)


def test_a_set_beside_two_edits_of_the_rule_wins_over_what_they_leave() -> None:
    g = nomicam(phrases=True)
    _, events = adopt_open(g, Clause(ClauseKind.REPLACE, 205, old="one week", new="three days"),
                           Clause(ClauseKind.REPLACE, 205, old="three days", new="two days"),
                           set_("voting_period", "5d"))
    assert g.state.rules_mechanics.voting_period == timedelta(days=5)
    [notice] = g.of(e.MechanicNotRead, events)
    assert "2d" in notice.why and "5d" in notice.why and "“two days”" in notice.why


# --- Games recorded before phrases ---------------------------------------------------------


def test_a_game_records_the_phrases_of_its_sourced_mechanics() -> None:
    g = suber()
    phrases = dict(g.of(e.GameStarted)[0].phrases)
    assert phrases == dict(load_preset("suber").phrases)
    assert phrases["win_points"] == "achieve|reach|have {} points"
    assert set(phrases) <= set(g.state.sources)


def test_a_game_without_phrases_only_warns_as_before() -> None:
    g = suber(phrases=False)
    assert g.of(e.GameStarted)[0].phrases == ()  # as in every game recorded before
    number, events = adopt_in_turn(g, amend(208, WIN_150))
    [warning] = g.of(e.MechanicsMayHaveChanged, events)
    assert (warning.rule, warning.mechanics, warning.proposal) == (208, ("win_points",), number)
    assert not g.of(e.MechanicChanged) and not g.of(e.MechanicNotRead)
    assert g.state.rules_mechanics.win_points == 100


def test_a_mechanic_changed_survives_storage() -> None:
    g = suber()
    _, events = adopt_in_turn(g, amend(208, WIN_150))
    for event in g.of(e.MechanicChanged, events) + g.of(e.MechanicNotRead, events):
        assert event_from_json(event_to_json(event)) == event
    assert g.of(e.MechanicChanged, events)[0].public
    # The harness also replays the whole record (through JSON) at teardown.


# --- Every mechanic in force, and where it comes from ------------------------------------


def found(g: Game) -> dict[str, InForce]:
    listed = in_force(g.state)
    assert [f.name for f in listed] == list(PARAMETERS), "each mechanic once, in order"
    return {f.name: f for f in listed}


def test_every_mechanic_is_listed_once_with_its_origin_at_the_start() -> None:
    mechanics = found(suber())
    win = mechanics["win_points"]
    assert (win.value, win.rule, win.words) == ("100", 208, "achieve 100 (positive) points")
    assert win.origin == "rule 208: “achieve 100 (positive) points”"
    # A mechanic the game has no phrase for names its rule alone.
    flow = mechanics["flow"]
    assert (flow.rule, flow.words, flow.origin) == (201, "", "rule 201")
    # One no rule of the preset is the source of.
    assert (mechanics["die_sides"].value, mechanics["die_sides"].origin) == ("6", "preset default")
    defaults = [f for f in mechanics.values() if f.origin == "preset default"]
    assert defaults and all(f.rule is None and f.words == "" for f in defaults)
    assert all(f.value == f.value.strip() and f.origin for f in mechanics.values())


def test_a_reading_makes_the_new_rule_and_words_the_origin() -> None:
    g = suber()
    number, _ = adopt_in_turn(g, amend(208, WIN_150))
    win = found(g)["win_points"]
    assert (win.value, win.rule) == ("150", number)
    assert win.origin == f"rule {number}: “achieve 150 (positive) points”"


def test_words_that_no_longer_read_leave_the_rule_alone_as_origin() -> None:
    g = suber()
    text = "The winner is the first to achieve 150 or 200 points."
    number, _ = adopt_in_turn(g, amend(208, text))
    win = found(g)["win_points"]
    assert (win.value, win.rule, win.words, win.origin) == ("100", number, "", f"rule {number}")


def test_set_by_the_host_then_by_a_proposal_then_read_again() -> None:
    g = suber()
    g.ok(c.SetMechanic(SPEAKER, "win_points", "300"))
    win = found(g)["win_points"]
    assert (win.value, win.origin) == ("300", "set by the host")

    number, _ = adopt_in_turn(g, set_("win_points", "250"))
    win = found(g)["win_points"]
    assert (win.value, win.origin) == ("250", f"set by proposal {number}")

    # A rewording of the source rule is the rule speaking again: it says where the value is.
    amended, _ = adopt_in_turn(g, amend(208, WIN_150))
    win = found(g)["win_points"]
    assert (win.value, win.origin) == ("150", f"rule {amended}: “achieve 150 (positive) points”")
    assert "win_points" not in g.state.set_by
