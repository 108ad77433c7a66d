"""The floods of public mail reproduced, each through the running daemon.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL, the default limits. On the main
before, one message of 200 CFJ lines sent 200 mails to every player within two seconds,
150 REVISE blocks sent 150, and 100 authenticated JOINs from one domain made 100 voters and
100 announcements: only proposals were limited.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import MakeGame, RunningGame, body_of
from tests.integration.test_attacks import ALICE, BOB, settled, start

pytestmark = pytest.mark.integration
# The limits are counted from the game's state, whatever stores it: SQLite serves (the
# service tests of the limits and the gathering, and SPEAKERBOT_ALL_BACKENDS=1, add more).
db_url = db_url_on("sqlite")

CFJ_PER_DAY = 10
REVISE_PER_PROPOSAL = 10
JOIN_PER_DOMAIN_PER_DAY = 5


def public_to_bob(game: RunningGame, since: int) -> list[str]:
    """The subjects of the mail Bob (who sends nothing) got after message ``since``."""
    return [message.parsed()["Subject"] for message in game.sink.messages[since:]
            if BOB in message.rcpt_tos]


def said(text: str) -> str:
    return " ".join(text.split())


def test_two_hundred_cfj_lines_open_at_most_the_daily_limit(make_game: MakeGame) -> None:
    game = start(make_game)
    mark = len(game.sink.messages)
    game.send(ALICE, "flood", "".join(f"CFJ Statement {n} is true\n" for n in range(200)))
    refused = game.wait_subject("Re: flood", to=ALICE)  # sent after the message's public mail
    assert ("this message makes 200 calls for judgement: the limit is 10 a day "
            "([limits] cfj_per_day)" in said(body_of(refused)))
    assert len(game.state().cfjs) <= CFJ_PER_DAY
    assert not [s for s in public_to_bob(game, mark) if "CFJ" in s]
    # Up to the limit they are done; one more is refused, naming the limit.
    game.send(ALICE, "ten", "".join(f"CFJ Statement {n} is true\n" for n in range(10)))
    game.wait_subject("Re: ten", to=ALICE)
    game.send(ALICE, "eleventh", "CFJ One more is true\n")
    refused = game.wait_subject("Re: eleventh", to=ALICE)
    assert ("you have called for judgement 10 times today, the limit ([limits] cfj_per_day)"
            in said(body_of(refused)))
    assert len(game.state().cfjs) == CFJ_PER_DAY
    calls = [s for s in public_to_bob(game, mark) if s.split("] ", 1)[1].startswith("CFJ ")
             and ": Statement" in s]
    assert len(calls) == CFJ_PER_DAY
    assert game.stop() == 0


def test_a_hundred_and_fifty_revise_blocks_revise_at_most_the_limit(make_game: MakeGame) -> None:
    game = start(make_game, debate="proponent")
    game.send(ALICE, "PROPOSE: Tea", "Tea at four.\n")
    game.wait_subject("Proposal 301:")
    mark = len(game.sink.messages)
    game.send(ALICE, "flood", "".join(f"REVISE 301\nTea at {n}.\nEND REVISE\n"
                                      for n in range(150)))
    refused = game.wait_subject("Re: flood", to=ALICE)
    assert ("this message makes 150 revisions of proposal 301: the limit is 10 for one "
            "proposal ([limits] revise_per_proposal)" in said(body_of(refused)))
    assert game.state().proposals[301].revisions <= REVISE_PER_PROPOSAL
    assert len([s for s in public_to_bob(game, mark) if "revised" in s]) <= REVISE_PER_PROPOSAL
    assert game.stop() == 0


def test_a_hundred_authenticated_joins_from_one_domain_make_at_most_the_limit(
        make_game: MakeGame) -> None:
    game = start(make_game)
    mark = len(game.sink.messages)
    for n in range(100):
        game.send(f"joiner{n}@flood.test", "join", f"JOIN Joiner {n}\n")
    settled(game, 100)
    game.send(ALICE, "sync", "STATUS\n")  # mail goes in order: all before it is out
    game.wait_subject("Re: sync", to=ALICE)
    joined = [address for address in game.state().players if address.endswith("@flood.test")]
    assert len(joined) == JOIN_PER_DOMAIN_PER_DAY
    welcomes = [s for s in public_to_bob(game, mark) if "Joiner" in s]
    assert len(welcomes) <= JOIN_PER_DOMAIN_PER_DAY
    assert game.stop() == 0
