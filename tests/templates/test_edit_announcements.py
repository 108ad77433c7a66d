"""The distribution of a proposal that edits rules (REPLACE, APPEND, INSERT) shows each diff.

The same diff as an amendment's: the rule's text before, and as the edit will leave it. The
results mail then gives the rule's new text, and a clause that failed says why.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from speakerbot.engine import apply, replay
from speakerbot.engine import commands as c
from speakerbot.engine.model import Clause, ClauseKind, GameState
from speakerbot.mail.outbound.announcements import Announcer, public_recipients, text_diff
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir
from tests.engine.cast import ALICE, BOB, CAROL, DAVE
from tests.engine.harness import Game

K = ClauseKind
CAMFORD = GameIdentity("Camford Nomic", "nomic@camford.example")


def _announce(g: Game, command: c.Command | None = None,
              later: timedelta | None = None) -> list[Outgoing]:
    before = replay(g.events)
    events = g.ok(command) if command is not None else g.later(later or timedelta())
    return Announcer(CAMFORD, Renderer(templates_dir())).messages(events, g.state, "1", before)


def test_the_distribution_shows_the_diff_of_every_kind_of_edit() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    clauses = (
        Clause(K.REPLACE, 205, old="one week", new="three days"),
        Clause(K.APPEND, 206, "Ballots are sealed."),
        Clause(K.INSERT, 210, "fully and", anchor="takes full effect", position="after"),
        Clause(K.REPLACE, 202, old="All players begin with 0 points. ", new=""),
    )
    [message] = _announce(g, c.Propose(ALICE, "Edits", "Four small edits.", clauses))
    body = message.body
    assert "If adopted, this proposal will:\n  1. replace text in rule 205\n" in body
    assert "     - The prescribed voting period for a proposal shall be one week," in body
    assert "     + The prescribed voting period for a proposal shall be three days," in body
    assert ("  2. append text to rule 206\n     Changes to the rule's text:\n"
            "       Each Voter has exactly one vote. The Speaker may not vote.\n"
            "     + \n     + Ballots are sealed.\n") in body
    assert "  3. insert text after other text in rule 210" in body
    assert "     + An adopted rule change takes full effect fully and at the moment" in body
    assert "  4. delete text in rule 202" in body
    assert ("     - All players begin with 0 points. Points may not be gained, lost,\n"
            "     - or traded except as explicitly stated in the rules.\n"
            "     + Points may not be gained, lost, or traded except as explicitly\n"
            "     + stated in the rules.\n") in body


def test_the_results_give_the_edited_rule_and_a_failed_edit_says_why() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    first = g.propose(ALICE, Clause(K.REPLACE, 205, old="one week", new="three days"))
    second = g.propose(BOB, Clause(K.INSERT, 205, "at least", anchor="one week",
                                   position="before"))
    for number in (first, second):
        g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR")
    bodies = "\n".join(m.body for m in _announce(g, later=timedelta(days=7)))
    assert "The prescribed voting period for a proposal shall be three days," in bodies
    assert (f"Proposal {second}: could not insert text before other text in rule 205: rule "
            '205 does not contain the text "one week" to insert next to') in " ".join(
                bodies.split())


def test_several_edits_of_one_rule_show_each_step_from_the_text_the_last_left() -> None:
    g = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    clauses = (
        Clause(K.REPLACE, 205, old="one week", new="three days"),
        Clause(K.INSERT, 205, " calendar", anchor="three", position="after"),
    )
    [message] = _announce(g, c.Propose(ALICE, "Edits", "Two edits of one rule.", clauses))
    body = message.body
    assert "  1. replace text in rule 205\n" in body and "  2. insert text after" in body
    # The second diff starts from "three days", which only the first edit writes.
    assert "     - The prescribed voting period for a proposal shall be three days," in body
    assert ("     + The prescribed voting period for a proposal shall be three\n"
            "     + calendar days,") in body


def test_a_rule_diff_keeps_lines_that_begin_like_diff_headers() -> None:
    shown = text_diff("Rule text.\n-- signed, the Speaker\n++ extra", "Rule text.\nNew line.")
    assert "- -- signed, the Speaker" in shown
    assert "- ++ extra" in shown
    assert "+ New line." in shown
    assert text_diff("same", "same") == ""


def test_public_mail_names_the_host_once_when_the_host_is_also_the_named_judge() -> None:
    start = c.StartGame("host@example.org", load_preset("rurru"), "Host")
    state, _ = apply(GameState(), start, datetime(2026, 1, 1, tzinfo=UTC))
    assert state.named_judge == state.speaker == "host@example.org"
    recipients = public_recipients(state, GameIdentity("Nomic", "nomic@example.org"))
    assert recipients.count("host@example.org") == 1
