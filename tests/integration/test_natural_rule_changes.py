"""Rule changes as players write them, through the running daemon (issue 13)."""

from __future__ import annotations

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import MakeGame, body_of
from tests.support.patience import period

ALICE, BOB = "alice@nomic.test", "bob@nomic.test"
MECHANICS = {"voting_period": period(4), "reminder_before": "none", "win_points": "1000"}

# The votes close by waiting out their period: the parser and the engine are the subject,
# not the store, so SQLite serves (SPEAKERBOT_ALL_BACKENDS=1 adds PostgreSQL).
db_url = db_url_on("sqlite")


def test_a_replacement_written_in_words_is_distributed_with_its_diff_and_applied(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Three days",
              'Amend Rule 205 by replacing "one week" with "three days".\n')
    distributed = game.wait_subject("Proposal 301: Three days")
    body = body_of(distributed)
    assert "Changes to the rule's text:" in body
    assert "one week" in body and "three days" in body
    game.send(ALICE, "vote", "VOTE 301 FOR\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.wait_subject("Proposal 301 ADOPTED")
    text = game.state().rules[205].text
    assert "three days" in text and "one week" not in text
    assert game.stop() == 0


def test_end_rule_ends_the_new_text_and_the_rationale_stays_out_of_the_rule(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Shorter",
              "AMEND RULE 205:\nThe prescribed voting period for a proposal shall be three "
              "days.\nEND RULE\n\nRationale: a week is too long for us.\n")
    game.wait_subject("Proposal 301: Shorter")
    game.send(ALICE, "vote", "VOTE 301 FOR\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.wait_subject("Proposal 301 ADOPTED")
    assert game.state().rules[205].text == (
        "The prescribed voting period for a proposal shall be three days.")
    assert game.stop() == 0
