"""The game's audience through the running daemon: observers, bounces, and list headers.

Real Dovecot (the game's mailbox: players' mail and bounces are delivered into it, as an MTA
would), a real SMTP sink (which keeps each copy's envelope, so its VERP return path), the
speakerbot daemon and command line as processes. A message the daemon has processed is
known by the reply to a later one: the daemon takes mail in the order it arrived.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import GAME, SPEAKER, MakeGame, RunningGame, body_of
from tests.support.dsn import make_dsn
from tests.support.smtp_sink import CapturedMessage

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"
OLIVE = "olive@watchers.test"
MECHANICS = {"voting_period": "1h", "reminder_before": "none", "close_when_all_voted": "true",
             "win_points": "1000"}
LIST_HEADERS = ("List-Id", "List-Post", "List-Help")
_CODE = re.compile(r"CONFIRM ([0-9a-f]{32})\b")
# What a real mail client sends beside a command: a few lines of signature. The Speaker
# never sends an address that is no player more than it received.
SIGNATURE = ("\n-- \nOlive Watcher, who likes to watch a good game of Nomic played by mail.\n"
             + "> the quoted text of an earlier message, as mail clients keep it below\n" * 30)

db_url = db_url_on("sqlite", "postgresql")


def ask(game: RunningGame, sender: str, subject: str, body: str) -> str:
    """Send a message and return the body of the reply to it."""
    game.send(sender, subject, body)
    return body_of(game.wait_subject(f"Re: {subject}", to=sender))


def copies(game: RunningGame, fragment: str) -> dict[str, CapturedMessage]:
    """Each recipient's copy of the public mail whose Subject holds ``fragment``."""
    found: dict[str, CapturedMessage] = {}
    for message in game.copies(fragment):
        for recipient in message.rcpt_tos:
            assert recipient not in found, f"{recipient} got {fragment!r} twice"
            found[recipient] = message
    return found


def started(make_game: MakeGame, **limits: str) -> RunningGame:
    game = make_game("nomicam", MECHANICS)
    if limits:
        with game.config.open("a") as config:
            config.write("\n[limits]\n" + "".join(f"{k} = {v}\n" for k, v in limits.items()))
    game.begin((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"))
    return game


def test_a_stranger_observes_gets_public_mail_only_and_stops(make_game: MakeGame) -> None:
    game = started(make_game)
    game.send(OLIVE, "watching", "OBSERVE\n" + SIGNATURE)
    request = game.wait_subject("Please confirm", to=OLIVE)
    assert request.rcpt_tos == (OLIVE,)
    assert all(request.parsed()[name] is None for name in (*LIST_HEADERS, "List-Unsubscribe"))
    [code] = _CODE.findall(body_of(request))
    assert game.cli("observers", "list").stdout == "no observers\n"

    # The confirmed message is carried out and answered as itself.
    game.send(OLIVE, "yes", f"CONFIRM {code}\n")
    confirmed = body_of(game.wait_subject("Re: watching", to=OLIVE))
    assert "You now observe this game" in confirmed
    listed = json.loads(game.cli("observers", "list", "--json").stdout)
    assert [entry["address"] for entry in listed] == [OLIVE]
    assert json.loads(game.cli("status", "--json").stdout)["observers"] == 1

    # The next distribution and its results reach the observer, with List-Unsubscribe.
    proposed = ask(game, ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every vote.\n")
    distribution = copies(game, "Proposal 301: Tea")
    assert set(distribution) == {ALICE, BOB, CAROL, SPEAKER, OLIVE}
    for recipient, copy in distribution.items():
        headers = copy.parsed()
        assert all(headers[name] for name in LIST_HEADERS), recipient
        assert headers["List-Help"] == f"<mailto:{GAME}?subject=HELP>"
        unsubscribe = headers["List-Unsubscribe"]
        if recipient == OLIVE:
            assert unsubscribe == f"<mailto:{GAME}?subject=UNOBSERVE>"
        else:
            assert unsubscribe is None, recipient
        # Each copy leaves from a return path of its own, which a bounce comes back to.
        local, _, domain = copy.mail_from.partition("@")
        assert local.startswith("game+bounce-") and domain == "nomic.test", copy.mail_from
    assert len({copy.mail_from for copy in distribution.values()}) == len(distribution)
    assert "Your proposal is number 301" in proposed
    for voter in (ALICE, BOB, CAROL):
        ask(game, voter, f"vote {voter}", "VOTE 301 FOR\n")
    game.wait_subject("Proposal 301 ADOPTED", to=OLIVE)

    # No private mail: replies, receipts and requests went to their senders only.
    to_olive = [message.subject for message in game.sent(to=OLIVE)]
    assert not any("Re: vote" in subject or "Re: PROPOSE" in subject for subject in to_olive)
    for reply in game.sent("Re: vote"):
        assert all(reply.parsed()[name] is None for name in (*LIST_HEADERS,
                                                              "List-Unsubscribe"))

    # UNOBSERVE as the unsubscribe link sends it: the Subject alone, an empty body.
    game.send(OLIVE, "UNOBSERVE", "")
    ask(game, ALICE, "PROPOSE: Cake", "ENACT RULE:\nCake is served at every vote.\n")
    assert OLIVE not in copies(game, "Proposal 302: Cake")
    assert json.loads(game.cli("observers", "list", "--json").stdout) == []


def test_a_player_is_never_an_observer(make_game: MakeGame) -> None:
    game = started(make_game)
    said = ask(game, BOB, "watch", "OBSERVE\n")
    assert "You play in this game" in said
    assert json.loads(game.cli("observers", "list", "--json").stdout) == []
    game.cli("observers", "remove", BOB, check=False)
    assert game.cli("observers", "remove", BOB, check=False).returncode == 1


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_an_authenticated_empty_observe_gets_its_request(make_game: MakeGame) -> None:
    # The Subject alone, an empty body: smaller than any request, yet its sender's own wish.
    game = started(make_game)
    game.send(OLIVE, "OBSERVE", "")
    request = game.wait_subject("Please confirm your subscription", to=OLIVE)
    assert "You asked to observe this game" in " ".join(body_of(request).split())
    [code] = _CODE.findall(body_of(request))
    game.send(OLIVE, "yes", f"CONFIRM {code}\n")
    game.wait_subject("Re: OBSERVE", to=OLIVE)
    listed = json.loads(game.cli("observers", "list", "--json").stdout)
    assert [entry["address"] for entry in listed] == [OLIVE]
    assert game.stop() == 0


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_flood_of_observe_requests_sends_one_confirmation_a_day(
        make_game: MakeGame) -> None:
    game = started(make_game)
    victim = "victim@elsewhere.test"
    # Strangers writing the victim's address, unauthenticated, and the victim's own.
    for n in range(100):
        game.append(game.message(victim, f"observe {n}", "OBSERVE\n" + SIGNATURE,
                                 authenticated=n % 2 == 0))
    ask(game, ALICE, "after the flood", "STATUS\n")
    assert len(game.sent(to=victim)) == 1
    assert game.sent("Please confirm", to=victim)
    assert json.loads(game.cli("observers", "list", "--json").stdout) == []


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_player_whose_mail_bounces_is_marked_unreachable_once(make_game: MakeGame) -> None:
    game = started(make_game)
    bounced: list[CapturedMessage] = []
    for n in range(1, 7):
        ask(game, ALICE, f"PROPOSE: Rule {n}", f"ENACT RULE:\nThe {n}th rule.\n")
        bounced.append(copies(game, f"Proposal {300 + n}: Rule {n}")[BOB])

    # Forgeries first: Carol takes her own return path and bends it to name Bob's mailbox.
    carol = copies(game, "Proposal 301: Rule 1")[CAROL]
    token = carol.mail_from.partition("+bounce-")[2].partition("@")[0]
    ref, _, mac = token.partition("-")
    bobs = bounced[0].mail_from.partition("+bounce-")[2].partition("-")[0]
    forged = [
        carol.mail_from.replace(f"-{mac}@", f"-{mac[::-1]}@"),
        carol.mail_from.replace(f"+bounce-{ref}-", f"+bounce-{bobs}-"),
        f"game+bounce-{ref}-{'0' * len(mac)}@nomic.test",
    ]
    for return_path in forged:
        game.append(make_dsn(bounced[0].data, return_path, BOB))
    ask(game, ALICE, "after forgeries", "STATUS\n")
    assert not game.sent("bounces", to=SPEAKER)
    assert "UNREACHABLE" not in game.cli("status").stdout

    # Five real bounces, each from the relay to the copy's own return path.
    for copy in bounced[:5]:
        game.append(make_dsn(copy.data, copy.mail_from, BOB))
    notice = game.wait_subject("Mail to Bob bounces", to=SPEAKER)
    assert "marked unreachable" in body_of(notice)
    status = game.cli("status").stdout
    assert "Bob" in status and "UNREACHABLE" in status
    players = json.loads(game.cli("status", "--json").stdout)["players"]
    assert [p["address"] for p in players if p["unreachable_since"]] == [BOB]

    # A sixth bounce tells nobody again; the game plays on, Bob included.
    game.append(make_dsn(bounced[5].data, bounced[5].mail_from, BOB))
    ask(game, ALICE, "still here", "STATUS\n")
    assert len(game.sent("Mail to Bob bounces")) == 1
    ask(game, CAROL, "carol votes", "VOTE 301 FOR\n")
    ask(game, ALICE, "alice votes", "VOTE 301 FOR\n")
    said = ask(game, BOB, "bob votes", "VOTE 301 FOR\n")
    assert "Your ballot on proposal 301 is FOR" in said
    game.wait_subject("Proposal 301 ADOPTED")
    # Bob wrote to the game: his mail reaches him again, the mark is gone.
    assert "UNREACHABLE" not in game.cli("status").stdout


def with_header(raw: bytes, name: str, value: str, *, first: bool = False) -> bytes:
    """``raw`` with one more header: after its headers, or ``first`` (as a delivering server)."""
    line = f"{name}: {value}\n".encode()
    if first:
        return line + raw
    head, _, body = raw.partition(b"\n\n")
    return head + b"\n" + line + b"\n" + body


def test_a_ballot_with_a_return_path_in_cc_is_applied_and_answered(make_game: MakeGame) -> None:
    """Issue 37.1: a return path in To or Cc, forged or real, never makes a ballot a bounce."""
    game = started(make_game)
    ask(game, ALICE, "PROPOSE: Tea", "ENACT RULE:\nTea at four.\n")
    bobs = copies(game, "Proposal 301: Tea")[BOB].mail_from  # Bob's genuine return path
    assert "+bounce-" in bobs
    forged = f"game+bounce-{'0123456789abcdef'}-{'a' * 20}@nomic.test"

    # A made-up return path Cc'd on a discussion mail; Carol answers with reply-all.
    raw = with_header(game.message(CAROL, "Tea talk", "VOTE 301 AGAINST\n"), "Cc", forged)
    game.append(raw)
    said = body_of(game.wait_subject("Re: Tea talk", to=CAROL))
    assert "Your ballot on proposal 301 is AGAINST" in said

    # Bob's real return path Cc'd: the MTA delivers one copy to it (Delivered-To says so) and
    # one to the game. The copy to the return path comes first; it is still Alice's ballot.
    raw = with_header(game.message(ALICE, "Alice votes", "VOTE 301 FOR\n"), "Cc", bobs)
    game.append(with_header(raw, "Delivered-To", bobs, first=True))
    game.append(with_header(raw, "Delivered-To", GAME, first=True))
    said = body_of(game.wait_subject("Re: Alice votes", to=ALICE))
    assert "Your ballot on proposal 301 is FOR" in said
    assert len(game.copies("Re: Alice votes", to=ALICE)) == 1

    # A real bounce of Bob's copy, delivered to his return path, still counts.
    game.append(make_dsn(copies(game, "Proposal 301: Tea")[BOB].data, bobs, BOB))
    ask(game, BOB, "bob votes", "VOTE 301 FOR\n")
    listed = json.loads(game.cli("inbound", "list", "--json").stdout)
    assert [row["note"] for row in listed if row["reason"] == "bounce"] == [
        "a hard bounce of mail to bob@nomic.test (1 points)"], listed
    players = [row for row in listed if row["sender"] in (ALICE, CAROL)]
    assert {row["status"] for row in players} == {"processed"}, players
    game.wait_subject("Proposal 301 ADOPTED")
