"""Every ADMIN action from the host's desk is recorded and announced exactly as its mail twin.

Two identical games (the same seed, the same drawn ids and secrets, the same clock): one
gets the ADMIN line by authenticated mail with the password, the other the same words
through ``GameService.host_command`` (what ``speakerbot admin`` calls). The record gains the
same events, and every message other than the mail's own reply is the same: kind,
recipients, subject, body and (but for a digest's) Message-ID.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import commands as c
from speakerbot.mail.inbound import language as lang
from speakerbot.service import Unreadable
from tests.support import mailgame as mg


def _open_business(game: mg.MailGame) -> None:
    """Two open proposals and a CFJ with its Judge drawn."""
    game.send(mg.ALICE, "PROPOSE: Tea", 'Amend Rule 205 by replacing "one week" with '
              '"three days".\n')
    game.send(mg.BOB, "PROPOSE: Biscuits", "ENACT RULE: Biscuits are served.\nEND PROPOSE\n")
    game.send(mg.CAROL, "CFJ: Rule 205 is too slow", "")


def _ended(game: mg.MailGame) -> None:
    game.service.speaker_command(c.EndGame(mg.SPEAKER, "the season is over"))


def _paused(game: mg.MailGame) -> None:
    _open_business(game)
    game.send(mg.SPEAKER, "pause", f"PASSWORD {mg.PASSWORD}\nADMIN PAUSE tea break\n")


def _left_to_the_speaker(game: mg.MailGame) -> None:
    """An informal proposal adopted: item 1 of the hand work is open."""
    game.send(mg.ALICE, "PROPOSE: Tea", "Tea at every meeting.\n")
    for voter in (mg.ALICE, mg.BOB, mg.CAROL, mg.DAVE):
        game.send(voter, "vote", "VOTE 301 FOR\n")
    game.service.speaker_command(c.CloseVote(mg.SPEAKER, 301))  # nomicam waits out its week
    assert list(game.service.state().handwork) == [1]


def _nothing(game: mg.MailGame) -> None:
    """The game as its players joined it (suber: turn 1, Alice to move)."""


@dataclass(frozen=True)
class Twin:
    """One ADMIN action's example: the words, what follows the line, the game before it."""

    words: str
    text: str = ""
    setup: Callable[[mg.MailGame], None] = _open_business
    ruleset: str = "nomicam"


EXAMPLES: dict[str, list[Twin]] = {
    "ADD": [Twin("ADD erin@example.org Erin Smith"), Twin("ADD dave@example.org Dave")],
    "REMOVE": [Twin("REMOVE bob@example.org")],
    "SCORE": [Twin("SCORE alice@example.org +5 solved the riddle"),
              Twin("SCORE Bob -3 late")],
    "SET": [Twin("SET quorum_percent 50")],
    "EXTEND": [Twin("EXTEND 301 2d"), Twin("EXTEND 999 2d")],
    "CLOSE": [Twin("CLOSE 301")],
    "VOID": [Twin("VOID 302 duplicate")],
    "RULE": [Twin("RULE REPEAL RULE 213"),
             Twin("RULE AMEND RULE 205:", "Voting on a proposal lasts 5 days.\nEND RULE")],
    "JUDGE": [Twin("JUDGE 1 dave@example.org"), Twin("JUDGE 1 alice@example.org")],
    "SPEAKER": [Twin("SPEAKER alice@example.org")],
    "END": [Twin("END GAME the season is over")],
    "NEW": [Twin("NEW GAME suber", setup=_ended), Twin("NEW GAME")],
    "DONE": [Twin("DONE 1 tea served by hand", setup=_left_to_the_speaker),
             Twin("DONE 2", setup=_left_to_the_speaker)],
    "DIGEST": [Twin("DIGEST")],
    "REVEAL": [Twin("REVEAL")],
    "PAUSE": [Twin("PAUSE the host is on holiday"), Twin("PAUSE again", setup=_paused)],
    "RESUME": [Twin("RESUME", setup=_paused), Twin("RESUME")],
    "ABSENT": [Twin("ABSENT bob@example.org UNTIL 2026-01-10 on holiday"),
               Twin("ABSENT bob@example.org UNTIL 2025-12-01")],
    "SKIP": [Twin("SKIP", setup=_nothing, ruleset="suber"), Twin("SKIP")],
}
"""At least one example of every ADMIN action the language knows (a refusal among them)."""


@contextmanager
def _pair(folder: Path, twin: Twin, monkeypatch: pytest.MonkeyPatch,
          ) -> Iterator[tuple[mg.MailGame, mg.MailGame]]:
    """Two identical games in ``folder``, each set up as ``twin`` says.

    Each game draws the same game id, Message-ID secret and salts.
    """
    games = []
    for name in ("mail", "desk"):
        (folder / name).mkdir()
        monkeypatch.setattr(secrets, "token_hex", _draws())
        game = mg.MailGame(folder / name, twin.ruleset, [mg.ALICE, mg.BOB, mg.CAROL, mg.DAVE])
        twin.setup(game)
        games.append(game)
    try:
        yield games[0], games[1]
    finally:
        for game in games:
            game.close()


def _draws() -> Callable[..., str]:
    """A stand-in for ``secrets.token_hex``: the n-th draw of each length, counted apart.

    Counted by length, since the mail path draws secrets of its own (a reply's) that the
    desk does not: the game id (8 bytes) must still be the same in both games.
    """
    counts: dict[int, int] = {}

    def token_hex(nbytes: int = 32) -> str:
        counts[nbytes] = counts.get(nbytes, 0) + 1
        return f"{counts[nbytes]:0{2 * nbytes}x}"

    return token_hex


def _cases() -> list[tuple[str, Twin]]:
    return [(action, twin) for action, twins in EXAMPLES.items() for twin in twins]


def test_every_admin_action_has_an_example() -> None:
    missing = {spec.action for spec in lang.ADMIN_ACTIONS} - set(EXAMPLES)
    assert not missing, (f"add an example of ADMIN {', '.join(sorted(missing))} to EXAMPLES "
                         "in tests/cli/test_desk_twins.py")


@pytest.mark.parametrize(("action", "twin"), _cases(), ids=lambda value: getattr(
    value, "words", value))
def test_the_desk_records_and_announces_as_the_mail_twin(
        action: str, twin: Twin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _pair(tmp_path, twin, monkeypatch) as (by_mail, by_desk):
        mail_seen, desk_seen = len(by_mail.outbox()), len(by_desk.outbox())
        text = f"\n{twin.text}" if twin.text else ""
        monkeypatch.setattr(secrets, "token_hex", _draws())  # each side draws afresh
        asked = by_mail.send(mg.SPEAKER, "admin",
                             f"PASSWORD {mg.PASSWORD}\nADMIN {twin.words}{text}\n")
        by_desk.clock.now += timedelta(minutes=1)  # as receive() moved the mail game's
        monkeypatch.setattr(secrets, "token_hex", _draws())
        outcome = by_desk.service.host_command(twin.words.split(), twin.text)
        # The desk's additions of players are announced together, at the next tick (issue
        # 39: a big game starts at once); mail's ADMIN ADD announces its own at once.
        by_desk.service.tick()

        reply = by_mail.replies_to(asked.message_id)
        assert [mail.row.kind for mail in reply] == ["reply"]
        # The desk prints the outcome the mail reply gives.
        assert f"{outcome.result}" in " ".join(reply[0].body.split())
        sent_by_mail = [_seen(mail) for mail in by_mail.outbox()[mail_seen:]
                        if mail.row.kind != "reply"]
        sent_by_desk = [_seen(mail) for mail in by_desk.outbox()[desk_seen:]]
        assert sent_by_desk == sent_by_mail
        assert _record(by_desk) == _record(by_mail)
        refused = outcome.result.startswith("Refused")
        assert outcome.applied is not refused
        # Every example that is done announces something (a refusal announces nothing).
        assert bool(sent_by_desk) is not refused, (action, outcome)


def _seen(mail: mg.Mail) -> tuple[object, ...]:
    # An announcement's Message-ID comes from the record's number: the same in both games.
    # A digest's comes from what asked for it (the mail, or the desk's moment), so not; nor
    # does the announcement of players the desk added (nor their welcome), made at the tick
    # that gathers them.
    asked = (mail.subject.endswith("] Digest") or "override: added player" in mail.subject
             or mail.row.kind == "welcome")
    message_id = None if asked else mail.row.message_id
    return (mail.row.kind, mail.recipients, mail.subject, mail.body, message_id)


def _record(game: mg.MailGame) -> list[dict[str, Any]]:
    return [row.data for row in game.store.load_events()]


def test_words_the_language_cannot_read_are_refused_with_its_reason(tmp_path: Path) -> None:
    game = mg.MailGame(tmp_path, "nomicam", [mg.ALICE])
    try:
        before = _record(game)
        for words, reason in (("SCORE alice", "ADMIN SCORE needs a player, a signed number"),
                              ("FROB 3", "unknown ADMIN action FROB"),
                              ("EXTEND 301 2x", "ADMIN EXTEND"),
                              ("SCORE alice +1\nADMIN CLOSE 301", "one ADMIN line"),
                              ("", "ADMIN needs an action")):
            with pytest.raises(Unreadable, match=reason):
                game.service.host_command(words)
        assert _record(game) == before
    finally:
        game.close()


def test_a_leading_admin_is_not_doubled(tmp_path: Path) -> None:
    game = mg.MailGame(tmp_path, "nomicam", [mg.ALICE])
    try:
        outcome = game.service.host_command(["admin", "SCORE", "Alice", "+2"])
        assert outcome.applied and outcome.command == "ADMIN SCORE Alice +2"
        assert game.service.state().players[mg.ALICE].score == 2
    finally:
        game.close()
