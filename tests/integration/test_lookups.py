"""Lookups by mail through the running daemon: SHOW PROPOSAL, SHOW RULE, SHOW CFJ, HISTORY."""

from __future__ import annotations

from tests.integration.game_harness import GAME, MakeGame, RunningGame, body_of
from tests.support.mailgame import ballot_leaks

ALICE, BOB, EVE = "alice@nomic.test", "bob@nomic.test", "eve@elsewhere.test"
VOTERS = {ALICE: "Alice", BOB: "Bob"}
MECHANICS = {"voting_period": "1h", "reminder_before": "none", "close_when_all_voted": "true",
             "win_points": "1000"}
LOOKUPS = "SHOW PROPOSAL 301\nSHOW RULE 205\nSHOW CFJ 1\nHISTORY 4\nSHOW PROPOSAL 99999\n"


def ask(game: RunningGame, sender: str, subject: str, body: str) -> str:
    """Send a message and return the body of the reply to it."""
    game.send(sender, subject, body)
    return body_of(game.wait_subject(f"Re: {subject}", to=sender)).replace("\r\n", "\n")


def test_lookups_answer_players_and_change_nothing(make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Three days",
              'Amend Rule 205 by replacing "one week" with "three days".\n')
    game.wait_subject("Proposal 301: Three days")
    game.send(BOB, "CFJ: Rule 205 is too slow", "")
    game.wait_subject("CFJ 1")
    bob_voted = ask(game, BOB, "my vote", "VOTE 301 FOR\n")
    assert "Your ballot on proposal 301 is FOR" in bob_voted

    # While the vote is open: the text, clauses and diff, never a ballot or a count.
    events = len(list(game.events()))
    sealed = ask(game, ALICE, "lookups", LOOKUPS)
    assert len(list(game.events())) == events, "a lookup changed the record"
    assert "Proposal 301: Three days\nProposed by Alice" in sealed
    assert "Ballots stay sealed until the vote closes." in sealed
    assert '+ The prescribed voting period for a proposal shall be three days,' in sealed
    assert "Rule 205 (mutable)" in sealed and "History of rule 205:" in sealed
    assert "CFJ 1, called by Bob" in sealed and "Rule 205 is too slow" in sealed
    assert "The last 4 of the" in sealed
    assert "There is no proposal 99999" in sealed
    assert ballot_leaks(sealed, (ALICE,), VOTERS) == []
    assert "Result:" not in sealed and "Tally" not in sealed

    # A stranger gets what strangers get: a short note (when it is no longer than what they
    # sent), nothing looked up.
    game.send(EVE, "curious", "SHOW RULE 205\nHISTORY 100\n" + "I like games. " * 60)
    stranger = body_of(game.wait_subject("Not a player", to=EVE))
    assert "History of rule 205" not in stranger and "#1 " not in stranger
    assert game.sent(to=EVE) == game.sent("Not a player", to=EVE)

    # After the close: the result, the tally and every ballot.
    game.send(ALICE, "my vote", "VOTE 301 FOR\n")
    game.wait_subject("Proposal 301 ADOPTED")
    closed = ask(game, ALICE, "after", "SHOW PROPOSAL 301\nSHOW RULE 205\nHISTORY\n")
    assert "Result: ADOPTED" in closed
    assert "Tally: 2 FOR, 0 AGAINST" in closed
    revealed = closed.split("Ballots, revealed:\n", 1)[1].split("\n\n", 1)[0]
    assert sorted(line.split() for line in revealed.splitlines()) == [
        ["Alice", "FOR"], ["Bob", "FOR"]]
    assert "- Amended by proposal 301" in closed
    assert "Proposal 301 ADOPTED: 2 FOR, 0 AGAINST" in closed  # in the record's lines
    assert game.stop() == 0


def test_a_lookup_written_wrong_is_explained_and_nothing_in_the_message_is_done(
        make_game: MakeGame) -> None:
    game = make_game("nomicam", MECHANICS)
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
    game.wait_subject("Proposal 301: Tea")
    reply = ask(game, BOB, "oops", "VOTE 301 FOR\nSHOW RULE abc\nHISTORY 0\n")
    assert "Nothing in your message was done" in reply
    assert "SHOW RULE needs a number" in reply and "HISTORY needs a number of events" in reply
    assert not game.state().proposals[301].ballots
    # Prose that starts with the words is only listed back: the vote counts.
    reply = ask(game, BOB, "again", "Show me the tea.\nVOTE 301 FOR\nHistory will judge us.\n")
    assert "Not commands, so ignored:" in reply and "Show me the tea." in reply
    assert game.state().proposals[301].ballots[BOB].choice.value == "FOR"
    assert GAME not in reply
    assert game.stop() == 0
