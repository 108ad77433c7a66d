"""The limits on commands that make public mail, through the GameService on SQLite.

CFJs a day per player, revisions per proposal, JOINs a day per domain: at the limit the
command is done, one over is refused with the limit named (and nothing in its message is
done), and the next day (or the next proposal) is allowed again. Each failed on the main
before: only proposals were limited.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.support.mailgame import ALICE, BOB, CAROL, PASSWORD, SPEAKER, MailGame

ARGUMENT = "DEBATE 300\nA fair point.\nEND DEBATE\n"


def said(mail_body: str) -> str:
    """The body on one line, as the tests quote it (wrapping aside)."""
    return " ".join(mail_body.split())


def public(game: MailGame, fragment: str) -> int:
    """How many public messages with ``fragment`` in their subject are queued."""
    return sum(1 for mail in game.outbox()
               if mail.row.kind == "announcement" and fragment in mail.subject)


@pytest.fixture
def nomicam(tmp_path: Path) -> Iterator[MailGame]:
    game = MailGame(tmp_path, "nomicam", [ALICE, BOB, CAROL], limits={"cfj_per_day": 3})
    try:
        yield game
    finally:
        game.close()


def test_calls_for_judgement_stop_at_the_daily_limit_and_start_again_the_next_day(
        nomicam: MailGame) -> None:
    game = nomicam
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.send(BOB, "two", "CFJ Tea is hot\nCFJ Tea is cold\n")
    game.send(BOB, "third", "CFJ Tea is warm\n")  # at the limit: done
    assert len(game.service.state().cfjs) == 3
    assert public(game, "CFJ ") == 3
    before = len(game.outbox())
    refused = game.send(BOB, "fourth", "VOTE 301 FOR\nCFJ Tea is lukewarm\n")
    (reply,) = game.replies_to(refused.message_id)
    assert ("you have called for judgement 3 times today, the limit ([limits] cfj_per_day)"
            in said(reply.body))
    assert "Nothing in your message was done" in said(reply.body)
    state = game.service.state()
    assert len(state.cfjs) == 3 and BOB not in state.proposals[301].ballots  # all or nothing
    assert [mail.row.kind for mail in game.outbox()[before:]] == ["reply"]
    # Another player has their own count.
    game.send(CAROL, "mine", "CFJ Coffee is hot\n")
    assert len(game.service.state().cfjs) == 4
    # The next day (UTC) Bob may call for judgement again.
    game.send(BOB, "tomorrow", "CFJ Tea is lukewarm\n", after=timedelta(days=1))
    assert len(game.service.state().cfjs) == 5


def test_two_hundred_cfj_lines_open_none_and_name_the_limit(nomicam: MailGame) -> None:
    game = nomicam
    lines = "".join(f"CFJ Statement number {n} is true\n" for n in range(200))
    refused = game.send(BOB, "flood", lines)
    (reply,) = game.replies_to(refused.message_id)
    assert ("this message makes 200 calls for judgement: the limit is 3 a day "
            "([limits] cfj_per_day)" in said(reply.body))
    assert game.service.state().cfjs == {}
    assert public(game, "CFJ ") == 0


@pytest.fixture
def debate(tmp_path: Path) -> Iterator[MailGame]:
    game = MailGame(tmp_path, "rurru", [ALICE, BOB, CAROL], mechanics={"debate": "proponent"},
                    limits={"revise_per_proposal": 2})
    try:
        yield game
    finally:
        game.close()


def revise(number: int, text: str) -> str:
    return f"REVISE {number}\nENACT RULE:\n{text}\nEND REVISE\n"


def test_revisions_stop_at_the_limit_for_each_proposal(debate: MailGame) -> None:
    game = debate
    game.send(ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea.\n")
    distributed = public(game, "Proposal 300")
    # 150 blocks at once are refused whole, naming the limit.
    flood = game.send(ALICE, "flood", "".join(revise(300, f"Tea {n}.") for n in range(150)))
    (reply,) = game.replies_to(flood.message_id)
    assert ("this message makes 150 revisions of proposal 300: the limit is 2 for one "
            "proposal ([limits] revise_per_proposal)" in said(reply.body))
    assert game.service.state().proposals[300].revisions == 0
    assert public(game, "Proposal 300") == distributed
    # Up to the limit, each is done.
    game.send(ALICE, "two", revise(300, "Tea at four.") + revise(300, "Tea at five."))
    assert game.service.state().proposals[300].revisions == 2
    revised = public(game, "Proposal 300")
    assert revised > distributed
    refused = game.send(ALICE, "third", revise(300, "Tea at six."))
    (reply,) = game.replies_to(refused.message_id)
    assert ("proposal 300 has been revised twice, the limit ([limits] revise_per_proposal)"
            in said(reply.body))
    proposal = game.service.state().proposals[300]
    assert proposal.revisions == 2 and "Tea at five." in proposal.text
    assert public(game, "Proposal 300") == revised
    # The limit is for each proposal, not a day: tomorrow is no different.
    later = game.send(ALICE, "later", revise(300, "Tea at six."), after=timedelta(days=1))
    (reply,) = game.replies_to(later.message_id)
    assert "([limits] revise_per_proposal)" in said(reply.body)
    assert game.service.state().proposals[300].revisions == 2


def test_joins_stop_at_the_limit_for_each_domain_and_start_again_the_next_day(
        tmp_path: Path) -> None:
    game = MailGame(tmp_path, "nomicam", [ALICE], limits={"join_per_domain_per_day": 2})
    try:
        # ADMIN ADD is neither limited nor counted.
        adds = "".join(f"ADMIN ADD added{n}@flood.example Added{n}\n" for n in range(3))
        game.send(SPEAKER, "adds", f"PASSWORD {PASSWORD}\n{adds}")
        assert "added2@flood.example" in game.service.state().players
        game.send("one@flood.example", "join", "JOIN One\n")
        game.send("two@sub.flood.example", "join", "JOIN Two\n")  # a subdomain counts too
        refused = game.send("three@flood.example", "join", "JOIN Three\n")
        (reply,) = game.replies_to(refused.message_id)
        assert ("2 players have joined from flood.example today, the limit "
                "([limits] join_per_domain_per_day)" in said(reply.body))
        players = game.service.state().players
        assert "one@flood.example" in players and "two@sub.flood.example" in players
        assert "three@flood.example" not in players
        # Another domain has its own count; the next day the domain may join again.
        game.send("four@other.example", "join", "JOIN Four\n")
        assert "four@other.example" in game.service.state().players
        game.send("three@flood.example", "join", "JOIN Three\n", after=timedelta(days=1))
        assert "three@flood.example" in game.service.state().players
    finally:
        game.close()
