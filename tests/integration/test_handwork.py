"""The host's list of hand work, through the running daemon (issue 38).

An adopted proposal with a line speakerbot could not carry out: the results say it is left
to the Speaker, one "Action needed" notice gives its words and the commands that finish it,
``handwork --json`` lists it, and the Speaker's ADMIN RULE of its rule (or ADMIN DONE)
closes it, so that the next status no longer lists it.
"""

from __future__ import annotations

import json

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, body_of
from tests.support.patience import period

ALICE, BOB = "alice@nomic.test", "bob@nomic.test"
MECHANICS = {"voting_period": period(4), "reminder_before": "none", "win_points": "1000"}
UNCLEAR = "Amend Rule 206 by making every vote count twice."

# The parser, the engine and the mail are the subject, not the store: SQLite serves.
db_url = db_url_on("sqlite")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _adopt_with_a_line_left(game: RunningGame) -> None:
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Three days",
              f'Amend Rule 205 by replacing "one week" with "three days".\n{UNCLEAR}\n')
    game.wait_subject("Proposal 301: Three days")
    game.send(ALICE, "vote", "VOTE 301 FOR\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")


def test_a_line_left_to_the_host_is_listed_and_closed_by_admin_rule_of_its_rule(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    _adopt_with_a_line_left(game)
    results = _flat(body_of(game.wait_subject("Proposal 301 ADOPTED")))
    assert f"Left to the Speaker (item 1, proposal 301): {UNCLEAR}" in results
    notice = _flat(body_of(game.wait_subject("Action needed by the Speaker", to=SPEAKER)))
    assert f"Item 1 (proposal 301): “{UNCLEAR}”" in notice
    assert "ADMIN RULE <clause> of rule 206, or ADMIN DONE 1 <reason>" in notice
    assert len(game.sent("Action needed by the Speaker")) == 1
    listed = json.loads(game.cli("handwork", "--json").stdout)
    assert [(i["item"], i["proposal"], i["words"], i["rules"]) for i in listed] == [
        (1, 301, UNCLEAR, [206])]
    assert json.loads(game.cli("status", "--json").stdout)["handwork"] == listed
    assert "Amend Rule 206 by making every vote count twice" in game.cli("status").stdout

    reply = _flat(game.admin("rule", "ADMIN RULE AMEND RULE 206:\n"
                                     "Every vote counts twice.\nEND RULE"))
    assert "Item 1 left to the Speaker is closed by ADMIN RULE (amend rule 206)" in reply
    assert json.loads(game.cli("status", "--json").stdout)["handwork"] == []
    assert json.loads(game.cli("handwork", "--json").stdout) == []
    assert "Left to the Speaker" not in game.cli("status").stdout
    assert game.state().rules[206].text == "Every vote counts twice."
    assert game.stop() == 0


def test_admin_done_from_the_desk_closes_an_item_and_status_by_mail_no_longer_lists_it(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    _adopt_with_a_line_left(game)
    game.wait_subject("Action needed by the Speaker", to=SPEAKER)
    game.send(BOB, "status", "STATUS\n")
    status = _flat(body_of(game.wait_subject("Re: status", to=BOB)))
    assert "1. proposal 301, since" in status and UNCLEAR in status
    done = game.cli("admin", "DONE", "1", "counted", "twice", "by", "hand")
    assert "closed item 1 of the hand work: counted twice by hand" in done.stdout
    assert game.cli("admin", "DONE", "1", check=False).returncode == 1  # no longer open
    assert json.loads(game.cli("handwork", "--json").stdout) == []
    game.send(BOB, "status again", "STATUS\n")
    assert UNCLEAR not in body_of(game.wait_subject("Re: status again", to=BOB))
    assert game.stop() == 0


CONDITIONAL = ('If Proposal 301 passed, amend Rule 210 by replacing "full effect" with '
               '"its whole effect".\n')


def _conditional(game: RunningGame, *, first: str) -> str:
    """Proposal 301 (Alice's, voted ``first``) and 302 (Bob's, its change hanging on 301's
    fate, adopted); return 302's results, flattened."""
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Three days",
              'Amend Rule 205 by replacing "one week" with "three days".\n')
    game.wait_subject("Proposal 301: Three days")
    game.send(BOB, "PROPOSE: Two votes", CONDITIONAL)
    distributed = _flat(body_of(game.wait_subject("Proposal 302: Two votes")))
    assert "if proposal 301 was adopted, replace text in rule 210" in distributed
    game.send(ALICE, "vote", f"VOTE 301 {first}\nVOTE 302 FOR\n")
    game.send(BOB, "vote", f"VOTE 301 {first}\nVOTE 302 FOR\n")
    return _flat(body_of(game.wait_subject("Proposal 302 ADOPTED")))


def test_a_change_on_condition_that_proposal_301_passed_is_made_when_it_was_adopted(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    results = _conditional(game, first="FOR")
    assert "Rule 210 amended" in results and "not carried out" not in results
    assert "takes its whole effect" in game.state().rules[210].text
    assert json.loads(game.cli("handwork", "--json").stdout) == []
    assert game.stop() == 0


def test_a_change_on_condition_that_proposal_301_passed_is_not_made_when_it_failed(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    results = _conditional(game, first="AGAINST")
    assert ("Proposal 302: not carried out, as its condition says (proposal 301 was "
            "rejected): if proposal 301 was adopted, replace text in rule 210") in results
    assert "takes full effect" in game.state().rules[210].text
    assert json.loads(game.cli("handwork", "--json").stdout) == []  # nothing for the host
    assert game.stop() == 0
