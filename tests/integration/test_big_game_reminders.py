"""One reminder per player in a big game, through the daemon and a relay that takes 50.

Real Dovecot and a real aiosmtpd sink answering ``452`` after 50 recipients. 64 players;
one message proposes four changes at once, nobody votes, and a reminder round falls due:
each player gets every distribution once, then exactly one reminder naming all four votes
with the line to send for each, and no message names two players in To or Cc.

Bound to the wall clock (a voting period of seconds, waited out), so SQLite only;
``SPEAKERBOT_ALL_BACKENDS=1`` adds PostgreSQL (the chunking test beside it runs on both).
"""

from __future__ import annotations

from collections import Counter

from tests.integration.conftest import db_url_on
from tests.integration.game_harness import MakeGame, subject_of
from tests.integration.test_big_game_mail import (
    EVERYONE,
    LIMIT,
    PLAYERS,
    Reached,
    _add_players,
    _addresses_in_headers,
)
from tests.support.patience import patience, period
from tests.support.smtp_sink import SmtpSink

db_url = db_url_on("sqlite")
TITLES = ("Tea", "Cake", "Scones", "Jam")


def test_a_player_who_owes_four_votes_gets_one_reminder_naming_all_four(
        make_game: MakeGame, smtp_sink: SmtpSink) -> None:
    game = make_game("nomicam", {"voting_period": period(10), "reminder_before": period(6),
                                 "win_points": "1000"})
    # The players added are announced together at the daemon's first tick (one message),
    # each welcomed by a letter of their own; then four distributions in the first minute.
    game.cli("init")
    _add_players(game)
    smtp_sink.limit_recipients(LIMIT)
    game.start()
    game.wait_log("running the game")
    game.send(PLAYERS[0], "four proposals", "".join(
        f"PROPOSE {title}\n{title} at four.\nEND PROPOSE\n" for title in TITLES))
    reached = Reached(smtp_sink)
    for number, title in enumerate(TITLES, start=301):
        reached.wait_everyone(game, f"Proposal {number}: {title}")
    # Each vote closes after the reminders: once every result is in, no reminder is to come.
    for number in range(301, 305):
        game.wait_subject(f"Proposal {number} ", timeout=patience(60))
        assert reached.count(f"Proposal {number}: ") == Counter(EVERYONE)

    reminders = [m for m in smtp_sink.messages if "Reminder:" in subject_of(m)]
    assert Counter(address for m in reminders for address in m.rcpt_tos) == Counter(PLAYERS)
    for message in reminders:
        assert "Reminder: 4 votes, the first due " in subject_of(message)
        body = message.plain_body
        assert [line.strip() for line in body.splitlines() if "VOTE" in line] == [
            f"VOTE {number} FOR" for number in range(301, 305)]
        for title in TITLES:
            assert f'"{title}"' in body
    known = {address.lower() for address in EVERYONE}
    for message in smtp_sink.messages:
        named = [address for address in _addresses_in_headers(message) if address in known]
        assert len(named) <= 1, (subject_of(message), named)
