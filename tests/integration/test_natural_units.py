"""Rule changes to a rule's paragraphs and sentences, through the running daemon (issue 26).

A multi-paragraph rule (the host's own edit makes nomicam's rule 202 three paragraphs):
a proposal replacing "the paragraph beginning" an anchor, and one appending a sentence to
the last paragraph, are each distributed with their diff and adopted, and SHOW RULE then
returns the rule's expected text.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import MakeGame, body_of
from tests.support.patience import period

ALICE, BOB = "alice@nomic.test", "bob@nomic.test"
MECHANICS = {"voting_period": period(4), "reminder_before": "none", "win_points": "1000"}
RULE_202 = ("All players begin with zero points.\n\n"
            "Points may be traded between players, in whole numbers.\n\n"
            "A player's score is public.")

db_url = db_url_on("sqlite")


def test_a_paragraph_replaced_and_a_sentence_appended_by_mail(
        make_game: MakeGame, tmp_path: Path) -> None:
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    text = tmp_path / "rule-202.txt"
    text.write_text(f"{RULE_202}\nEND RULE\n")
    game.cli("admin", "RULE", "AMEND", "RULE", "202:", "--text", str(text))
    assert game.state().rules[202].text == RULE_202

    game.send(ALICE, "PROPOSE: No trading",
              'Amend Rule 202 by replacing the paragraph beginning "Points may be traded" '
              "with:\nPoints may not be traded.\n")
    body = body_of(game.wait_subject("Proposal 301: No trading"))
    assert "Changes to the rule's text:" in body, body
    assert "Points may not be traded." in body and "in whole numbers" in body, body
    game.send(ALICE, "vote", "VOTE 301 FOR\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    game.wait_subject("Proposal 301 ADOPTED")

    game.send(BOB, "PROPOSE: Scores sent",
              "Amend Rule 202 by appending the following sentence to the last paragraph: "
              "Scores are sent with every result.\n")
    body = body_of(game.wait_subject("Proposal 302: Scores sent"))
    assert "Scores are sent with every result." in body, body
    game.send(ALICE, "vote", "VOTE 302 FOR\n")
    game.send(BOB, "vote", "VOTE 302 FOR\n")
    game.wait_subject("Proposal 302 ADOPTED")

    expected = ("All players begin with zero points.\n\nPoints may not be traded.\n\n"
                "A player's score is public. Scores are sent with every result.")
    assert game.state().rules[202].text == expected
    game.send(BOB, "which rule", "SHOW RULE 202\n")
    shown = body_of(game.wait_subject("Re: which rule", to=BOB))
    assert "Points may not be traded." in shown and "Scores are sent with every" in shown
    assert "in whole numbers" not in shown.split("History of rule 202:")[0], shown
    assert game.stop() == 0
