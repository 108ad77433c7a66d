"""Whole games played by email through the running daemon, on SQLite and on PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from speakerbot.engine.model import Role
from tests.integration.game_harness import (
    GAME,
    PASSWORD,
    SPEAKER,
    MakeGame,
    admin_mail,
    body_of,
    subject_of,
)
from tests.support.patience import patience, period

ALICE, BOB, CAROL = "alice@nomic.test", "bob@nomic.test", "carol@nomic.test"


def test_a_whole_nomicam_game_by_email_to_a_winner(make_game: MakeGame) -> None:
    game = make_game("nomicam", {"voting_period": period(4), "win_points": "20",
                                 "reminder_before": "none"})
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    game.send(CAROL, "joining", "Hello!\nJOIN Carol\n")
    game.wait_subject("Re: joining", to=CAROL)

    game.send(ALICE, "PROPOSE: Sing", "Players may sing.\n\n-- \nAlice")
    everyone = {SPEAKER, ALICE, BOB, CAROL}
    assert game.wait_reached("Proposal 301: Sing", everyone) == everyone
    game.send(ALICE, "mine", "VOTE 301 FOR\n")
    game.send(BOB, "my vote", "VOTE 301 FOR\n")
    game.send(CAROL, "my vote", "VOTE #301 against\n")
    bob_reply = game.wait_subject("Re: my vote", to=BOB)
    carol_reply = game.wait_subject("Re: my vote", to=CAROL)
    assert "Your ballot on proposal 301 is FOR" in body_of(bob_reply)
    assert "AGAINST" in body_of(carol_reply) and "Carol" not in body_of(bob_reply)
    results = game.wait_subject("Proposal 301 ADOPTED")
    # Nothing that went out before the results revealed a ballot to anyone but its voter.
    before = game.sink.messages[: game.sink.messages.index(results)]
    for message in before:
        if message.parsed()["List-Id"] or set(message.rcpt_tos) - {ALICE, BOB, CAROL}:
            assert "Ballots, revealed" not in body_of(message)
            assert "is AGAINST" not in body_of(message) and "is FOR" not in body_of(message)
    assert "Bob" in body_of(results) and "AGAINST" in body_of(results)

    game.send(ALICE, "PROPOSE: Points may be traded",
              "AMEND RULE 202:\nAll players begin with 0 points. Points may be traded.\n")
    game.wait_subject("Proposal 302:")
    game.send(BOB, "vote", "VOTE 302 FOR\nSTATUS\n")
    status = game.wait_subject("Re: vote", to=BOB)
    assert "302 Points may be traded" in body_of(status)
    game.wait_subject("Proposal 302 ADOPTED")
    won = game.wait_subject("won the game")
    assert "Alice" in subject_of(won)
    game.wait_for(lambda m: "Game 2 begins" in body_of(m))

    state = game.state()
    assert state.game_number == 2 and state.speaker == ALICE
    assert state.players[ALICE].role is Role.SPEAKER
    assert state.rules[202].text == "All players begin with 0 points. Points may be traded."
    assert game.stop() == 0
    assert game.inbox() == [] and len(game.processed()) == 7
    status_out = game.cli("status").stdout
    assert "Alice" in status_out and "Outbox: 0 waiting" in status_out


def test_a_whole_suber_game_by_email_to_a_winner(make_game: MakeGame) -> None:
    game = make_game("suber", {"win_points": "12", "reminder_before": "none"})
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    for turn in range(1, 30):
        state = game.state()
        if state.ended:
            break
        assert state.turn is not None and state.turn.number == turn
        mover = state.turn.mover
        number = state.next_proposal
        game.send(mover, f"PROPOSE: Turn {turn}", f"Turn {turn}.\nENACT RULE:\nRule {turn}.\n")
        game.wait_subject(f"Proposal {number}:")
        other = BOB if mover == ALICE else ALICE
        game.send(other, f"vote {number}", f"VOTE {number} FOR\n")
        game.send(mover, f"vote {number} mine", f"VOTE {number} FOR\n")
        results = game.wait_subject(f"Proposal {number} ADOPTED")
        assert "threw a 6-sided die" in body_of(results)
        if game.sent("won the game"):
            break
    won = game.wait_subject("won the game")
    state = game.state()
    assert state.ended and state.winners and state.players[state.winners[0]].score >= 12
    assert subject_of(won).startswith("[Test Nomic]")
    game.stop()


def test_a_vote_is_confirmed_within_two_seconds_by_idle(make_game: MakeGame) -> None:
    game = make_game("nomicam", {"reminder_before": "none"})
    game.config.write_text(game.config.read_text().replace('poll_interval = "2s"',
                                                           'poll_interval = "60s"'))
    game.cli("init")
    game.cli("player", "add", ALICE, "Alice")
    game.start()
    game.send(ALICE, "PROPOSE: Quick", "Quick.\n")
    game.wait_subject("Proposal 301:")
    game.wait_subject("Re: PROPOSE: Quick", to=ALICE)
    started = time.monotonic()
    game.send(ALICE, "ballot", "VOTE 301 FOR\n")
    game.wait_subject("Re: ballot", to=ALICE, timeout=patience(5))
    elapsed = time.monotonic() - started
    print(f"vote appended to reply received: {elapsed:.2f} s")
    assert elapsed < patience(2)
    game.stop()


def test_admin_commands_by_mail_need_the_speakers_address_and_password(
    make_game: MakeGame,
) -> None:
    game = make_game("nomicam", {"reminder_before": "none"})
    game.cli("init")
    game.cli("player", "add", ALICE, "Alice")
    game.start()
    game.send(ALICE, "take over", admin_mail("ADMIN SCORE Alice +50 because"))
    refused = game.wait_subject("Re: take over", to=ALICE)
    assert "Nothing in your message was done" in body_of(refused)
    game.send(SPEAKER, "fix", "PASSWORD wrong\nADMIN SCORE Alice +5 typo\n")
    game.wait_subject("Re: fix", to=SPEAKER)
    game.send(SPEAKER, "fix again", admin_mail("ADMIN SCORE Alice +5 typo"))
    done = game.wait_subject("Re: fix again", to=SPEAKER)
    announced = game.wait_for(lambda m: "Speaker's override" in subject_of(m)
                              and "score" in subject_of(m))
    assert "Alice +5: typo" in body_of(announced)
    for message in game.sink.messages:
        assert PASSWORD.encode() not in message.data and b"PASSWORD wrong" not in message.data
    assert "Done" in body_of(done)
    assert game.state().players[ALICE].score == 5
    assert PASSWORD not in game.log_text()
    game.stop()


def test_the_demo_runs_to_its_end(tmp_path: Path) -> None:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "speakerbot", "demo", "--voting-period",
                             period(5)], capture_output=True, text=True,
                            timeout=patience(120), cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "Proposal 301 ADOPTED" in out and "Rule 205 now reads" in out and "Scores:" in out
    assert ">>> Speaker to" in out and "<<< Alice to the Speaker" in out
    assert elapsed < patience(60), f"the demo took {elapsed:.0f} s"


def test_speakerbot_refuses_a_second_daemon_and_a_second_init(
    make_game: MakeGame,
) -> None:
    game = make_game("nomicam")
    game.cli("init")
    again = game.cli("init", check=False)
    assert again.returncode == 2 and "init --force" in again.stderr
    game.start()
    game.wait_log("speakerbot is running")
    second = subprocess.run([sys.executable, "-m", "speakerbot", "run", "-c", str(game.config)],
                            capture_output=True, text=True, env=game.env, timeout=patience(60))
    assert second.returncode == 2 and "another speakerbot daemon is running" in second.stderr
    game.stop()
    assert GAME in game.config.read_text()


def test_run_once_takes_in_everything_waiting_sends_it_and_exits(make_game: MakeGame) -> None:
    game = make_game("nomicam", {"reminder_before": "none"})
    game.cli("init")
    game.cli("player", "add", ALICE, "Alice")
    game.send(ALICE, "PROPOSE: Once", "Done in one pass.\n")
    game.send(BOB, "joining", "JOIN Bob\n")
    game.send(BOB, "vote", "VOTE 301 FOR\n")
    once = game.cli("run", "--once")
    assert once.returncode == 0
    subjects = [subject_of(m) for m in game.sink.messages]
    assert any("Proposal 301: Once" in s for s in subjects)
    assert any("Re: vote" in s for s in subjects) and any("Re: joining" in s for s in subjects)
    assert game.inbox() == [] and len(game.processed()) == 3
    state = game.state()
    assert BOB in state.proposals[301].ballots
    sent = len(game.sink.messages)
    assert game.cli("run", "--once").returncode == 0  # nothing waiting: nothing sent again
    assert len(game.sink.messages) == sent
