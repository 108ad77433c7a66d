"""The scoreboard, the one check of clause rules, and the words of every kind of refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.model import GameState, Player, Role
from speakerbot.engine.refusals import Facts, Refusal
from speakerbot.mail.outbound.wording import clause_failure_text, refusal_words, when
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game, amend, enact, repeal


def test_the_scoreboard_is_best_first_then_by_name_whatever_its_case() -> None:
    state = GameState()
    for address, name, score, active in (
        ("a@x.org", "bob", 5, True), ("b@x.org", "Alice", 5, True), ("c@x.org", "Zed", 9, True),
        ("d@x.org", "Gone", 99, False), ("e@x.org", "carol", -1, True),
    ):
        state.players[address] = Player(address, name, Role.VOTER, Decimal(score), active)
    assert [p.name for p in state.scoreboard()] == ["Zed", "Alice", "bob", "carol"]


def test_the_speaker_edits_rules_under_the_same_checks_as_a_proposal() -> None:
    g = Game("nomicam", [ALICE, BOB])
    text = g.state.rules[202].text
    g.refused(c.EditRule(SPEAKER, amend(202, text)), "AMEND RULE 202 would make no difference")
    g.refused(c.EditRule(SPEAKER, amend(999, "New.")), "there is no rule 999 in effect")
    g.refused(c.EditRule(SPEAKER, enact("  ")), "ENACT RULE needs the new rule's text")
    g.refused(c.SetMechanic(SPEAKER, "speed", "3"), "SET speed: there is no mechanic called")
    # ...but the Speaker, unlike a proposal, may amend an immutable rule directly.
    g.ok(c.EditRule(SPEAKER, amend(101, "Changed by the Speaker.")))
    assert g.state.rules[101].text == "Changed by the Speaker."


def test_a_clause_checked_again_at_adoption_fails_with_the_words_it_was_proposed_under() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    first = g.propose(ALICE, amend(212, "Changed once."), title="Amend 212")
    second = g.propose(BOB, amend(212, "Changed once."), title="The same again")
    for number in (first, second):
        g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    g.later(timedelta(days=7))
    failed = g.last(e.ClauseFailed)
    assert failed.proposal == second and failed.refusal is Refusal.AMEND_NO_CHANGE
    assert clause_failure_text(failed) == "AMEND RULE 212 would make no difference"


def test_repealing_the_last_mutable_rule_is_refused() -> None:
    g = Game("nomicam", [ALICE])
    clauses = tuple(repeal(n) for n, rule in g.state.rules.items() if rule.mutable)
    g.refused(c.Propose(ALICE, "Nothing mutable", "", clauses),
              "there must always be at least one mutable rule")


def test_every_kind_of_refusal_has_words_and_names_its_facts() -> None:
    facts = Facts(number=7, count=2, limit=3, rule=206, numbers=(1, 2), address="a@x.org",
                  name="Alice", text="open", detail="AMEND",
                  at=datetime(2026, 1, 5, 12, tzinfo=UTC),
                  deadline=datetime(2026, 1, 5, 11, tzinfo=UTC), allowed=True)
    for refusal in Refusal:
        reason, remedy = refusal_words(refusal, facts)
        assert reason and "{" not in reason + remedy, refusal
    assert refusal_words(Refusal.BALLOT_TOO_LATE, facts)[0].startswith(
        "your ballot arrived at 2026-01-05 12:00 UTC, after the voting period on proposal 7 "
        "ended at 2026-01-05 11:00 UTC")
    assert refusal_words(Refusal.NOT_A_PLAYER, facts)[1] == "send JOIN <your name> to join"
    assert refusal_words(Refusal.NOT_A_PLAYER, Facts())[1] == "ask the Speaker to add you"
    assert refusal_words(Refusal.GAME_ENDED, Facts()) == ("the game has ended", "")


def test_a_moment_outside_utc_is_written_with_its_offset() -> None:
    moment = datetime(2026, 1, 5, 13, 30, tzinfo=timezone(timedelta(hours=1)))
    assert when(moment) == "2026-01-05T13:30+01:00"
