"""Debate through the running daemon, over real IMAP (Dovecot) and SMTP (the sink), on SQLite
and PostgreSQL: a rurru proposal is argued about, revised by its proposer during the debate,
its vote called, and the vote counts the revised text (the adopted rule reads it)."""

from __future__ import annotations

from tests.integration.game_harness import MakeGame, body_of

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"
FIRST = "An adopted rurru-change takes full effect at once."
REVISED = "An adopted rurru-change takes full effect when its vote closes."


def test_a_rurru_proposal_revised_in_debate_is_voted_on_as_revised(
        make_game: MakeGame) -> None:
    game = make_game("rurru", {"debate": "proponent", "reminder_before": "none"})
    game.begin((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"))

    game.send(ALICE, "PROPOSE: Faster votes", f"AMEND RULE 205:\n{FIRST}\n")
    distributed = game.wait_subject("Proposal 300: Faster votes", to=BOB)
    assert "open for debate until" in " ".join(body_of(distributed).split())

    game.send(BOB, "too soon", "VOTE 300 FOR\n")
    refused = game.wait_subject("Re: too soon", to=BOB)
    assert "voting starts when the debate ends" in " ".join(body_of(refused).split())

    game.send(BOB, "my view", "DEBATE 300\n\"At once\" is unclear.\nEND DEBATE\n")
    argument = game.wait_subject("Debate on proposal 300", to=CAROL)
    assert "\"At once\" is unclear." in body_of(argument)

    game.send(CAROL, "mine", "REVISE 300\nAMEND RULE 205:\nCarol's text.\nEND REVISE\n")
    not_hers = game.wait_subject("Re: mine", to=CAROL)
    assert "only proposal 300's proposer" in " ".join(body_of(not_hers).split())

    game.send(ALICE, "revised", f"REVISE 300\nAMEND RULE 205:\n{REVISED}\nEND REVISE\n")
    revision = game.wait_subject("Proposal 300 revised", to=BOB)
    assert f"+ {REVISED}" in body_of(revision)

    game.send(ALICE, "go", "CALL VOTE 300\n")
    started = game.wait_subject("Vote on proposal 300", to=CAROL)
    text = body_of(started)
    assert "the vote on proposal 300 starts now" in " ".join(text.split())
    assert REVISED in text and f"- {FIRST}" in text  # the final text, and its diff

    game.send(ALICE, "again", "REVISE 300\nAMEND RULE 205:\nLate.\nEND REVISE\n")
    late = game.wait_subject("Re: again", to=ALICE)
    assert "can no longer be revised" in " ".join(body_of(late).split())

    for voter in (BOB, CAROL, ALICE):
        game.send(voter, "vote", "VOTE 300 FOR\n")
    results = game.wait_subject("Proposal 300 ADOPTED")
    assert REVISED in body_of(results)
    state = game.state()
    assert state.rules[300].text == REVISED  # rule 205 renumbered, as the revision says
    assert 205 not in state.rules
    game.stop()
