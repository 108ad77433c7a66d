"""Sealed ballots on real mail: until a vote closes, no message shows anyone else's ballot.

Hypothesis plays a nomicam and a suber game through the GameService on a real SQLite store,
fed raw email: ballots cast, changed and withdrawn, STATUS queries, a digest and the
reminders, in any order. Every message queued before the results must reveal no ballot but
its own recipient's: public messages none at all, a reply to a voter only that voter's.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.mailgame import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    NAMES,
    PASSWORD,
    SPEAKER,
    Mail,
    MailGame,
    ballot_leaks,
)

VOTERS = (ALICE, BOB, CAROL, DAVE)
ACTIONS = ("FOR", "AGAINST", "ABSTAIN", "STATUS", "FOR+STATUS", "AGAINST+STATUS")
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

Step = tuple[str, str]  # (voter, action), or (SPEAKER, "DIGEST" | "REFUSE" | "REMIND")

steps = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(VOTERS), st.sampled_from(ACTIONS)),
        st.tuples(st.just(SPEAKER), st.sampled_from(("DIGEST", "REMIND"))),
    ),
    max_size=10,
)


def body_for(action: str) -> str:
    lines = []
    for part in action.split("+"):
        lines.append("STATUS" if part == "STATUS" else f"VOTE 301 {part}")
    return "Here you are.\n" + "\n".join(lines) + "\n"


def play(ruleset: str, script: Sequence[Step], refuse: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        game = MailGame(Path(folder), ruleset, VOTERS)
        try:
            run(game, ruleset, script, refuse)
        finally:
            game.close()


def run(game: MailGame, ruleset: str, script: Sequence[Step], refuse: bool) -> None:
    game.send(ALICE, "PROPOSE: Sealed ballots", "ENACT RULE:\nBallots stay sealed.\n")
    proposed = game.clock.now
    if refuse and ruleset == "nomicam":
        game.send(SPEAKER, "consent", "REFUSE 301\n")
    cast: dict[str, set[str]] = {voter: set() for voter in VOTERS}
    for who, action in script:
        if action == "DIGEST":
            game.send(SPEAKER, "digest", f"PASSWORD {PASSWORD}\nADMIN DIGEST\n")
        elif action == "REMIND":
            # Move to a day before the vote closes: the reminders go out (once).
            later = proposed + timedelta(days=6, minutes=1)
            if game.clock.now < later:
                game.clock.now = later
                game.service.tick()
        else:
            game.send(who, "my ballot", body_for(action))
            cast[who].update(part for part in action.split("+") if part in ("FOR", "AGAINST"))
    game.clock.now = proposed + timedelta(days=7, minutes=1)
    game.service.tick()

    outbox = game.outbox()
    results = [i for i, mail in enumerate(outbox)
               if mail.subject.startswith("[Camford Nomic] Proposal 301 ")
               and ("ADOPTED" in mail.subject or "REJECTED" in mail.subject)]
    assert len(results) == 1, [mail.subject for mail in outbox]
    before: list[Mail] = outbox[: results[0]]
    voters = {voter: NAMES[voter] for voter in VOTERS}
    for mail in before:
        leaks = ballot_leaks(f"{mail.subject}\n{mail.body}", mail.recipients, voters, cast)
        assert not leaks, (mail.subject, mail.recipients, leaks, mail.body)
        if mail.recipients != (SPEAKER,):
            # The Speaker's refusal of consent is also sealed until the vote closes.
            assert "refuse" not in mail.body.lower(), (mail.subject, mail.body)
    # The results reveal every ballot standing at the close.
    assert "Ballots, revealed:" in outbox[results[0]].body


@SETTINGS
@given(script=steps, refuse=st.booleans())
def test_no_ballot_leaks_before_a_nomicam_vote_closes(script: list[Step], refuse: bool) -> None:
    play("nomicam", script, refuse)


@SETTINGS
@given(script=steps)
def test_no_ballot_leaks_before_a_suber_vote_closes(script: list[Step]) -> None:
    play("suber", script, False)
