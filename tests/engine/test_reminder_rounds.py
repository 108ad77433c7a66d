"""One reminder per player per round, listing everything owed soon; at scale and at random.

The scale test is the issue's: 1,000 players and 200 open proposals under nomicam, closed
together. The property test plays small random games (proposals at random times, ballots,
absences, Judges) and checks that every owed vote and judgement is reminded exactly once,
before its deadline, in one mail per player per round.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine import GameState, apply, replay, tick
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import pace_events as pe
from speakerbot.engine.luck import SeededDraws
from speakerbot.engine.model import Choice
from speakerbot.presets import load_preset
from tests.engine.cast import DAY
from tests.engine.harness import DirectGame

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SPEAKER = "speaker@example.org"


def _big_game(players: int, proposals: int) -> tuple[GameState, list[e.Event], list[str]]:
    rng = random.Random(5)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    record: list[e.Event] = []
    state, events = apply(GameState(), c.StartGame(
        SPEAKER, load_preset("nomicam"), "Speaker", mechanics={"win_points": "1000000"}),
        T0, draws)
    record += events
    voters = [f"v{i}@example.org" for i in range(players)]
    for i, voter in enumerate(voters):
        state, events = apply(state, c.AddPlayer(SPEAKER, voter, f"Voter {i}"), T0, draws)
        record += events
    for n in range(proposals):
        # Spread over an hour: a round takes in what falls due within its slack.
        at = T0 + timedelta(seconds=17 * n)
        state, events = apply(state, c.Propose(voters[n % players], f"P{n}", "Text."), at, draws)
        record += events
    return state, record, voters


def test_closing_200_proposals_with_1000_players_reminds_each_player_at_most_once() -> None:
    state, record, voters = _big_game(1000, 200)
    rng = random.Random(6)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    now = T0 + timedelta(hours=1)
    # Two ballots from two players in three (casting 60,000 through apply would take minutes).
    for i, voter in enumerate(voters):
        for number in {301 + i % 200, 301 + (7 * i) % 200} if i % 3 else ():
            state, events = apply(state, c.CastBallot(voter, number, Choice.FOR), now, draws)
            record += events
    owes = {voter: {p.number for p in state.open_proposals() if voter not in p.ballots}
            for voter in voters}
    first_due = min(p.closes_at for p in state.open_proposals() if p.closes_at)
    state, reminding = tick(state, first_due - DAY, draws)  # a day ahead of the first close
    state, closing = tick(state, first_due + DAY, draws)  # every vote closes
    record += reminding + closing

    reminders = [ev for ev in reminding + closing if isinstance(ev, pe.Reminded)]
    per_player = Counter(reminder.player for reminder in reminders)
    assert max(per_player.values()) == 1
    assert {r.player: {owed.number for owed in r.owed} for r in reminders} == {
        voter: owed for voter, owed in owes.items() if owed}
    assert all([o.due for o in r.owed] == sorted(o.due for o in r.owed) for r in reminders)
    assert not any(isinstance(ev, e.VoteReminder) for ev in record)
    assert sum(isinstance(ev, e.VoteClosed) for ev in closing) == 200
    assert len(reminding) <= 200 + len(voters)  # a RemindersSent per vote, a mail per player
    assert replay(record) == state


def test_after_an_outage_a_voter_back_before_a_reminder_fell_due_is_reminded() -> None:
    """Away until day 1.7: not reminded of a vote whose reminder fell due before (1.5), but of
    one whose reminder fell due after (1.8), though the tick after an outage (day 2) settles
    both reminders in one round, before the absence's end.
    """
    rng = random.Random(1)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    state, _ = apply(GameState(), c.StartGame(
        SPEAKER, load_preset("nomicam"), "Speaker",
        mechanics={"voting_period": "2d", "reminder_before": "1d"}), T0, draws)
    for n, player in enumerate(PLAYERS[:3]):
        state, _ = apply(state, c.AddPlayer(SPEAKER, player, f"P{n}"), T0, draws)
    away = PLAYERS[2]
    state, _ = apply(state, c.DeclareAbsence(away, T0 + DAY * 1.7, ""), T0, draws)
    state, _ = apply(state, c.Propose(PLAYERS[0], "First", "Text."), T0 + DAY / 2, draws)
    state, _ = apply(state, c.Propose(PLAYERS[0], "Second", "Text."), T0 + DAY * 0.8, draws)
    state, events = tick(state, T0 + DAY * 2, draws)
    reminded = {(r.player, owed.number) for r in events if isinstance(r, pe.Reminded)
                for owed in r.owed}
    assert (away, 302) in reminded and (away, 301) not in reminded
    assert {(PLAYERS[1], 301), (PLAYERS[1], 302)} <= reminded
    assert any(isinstance(ev, pe.AbsenceEnded) for ev in events)


def _open_vote(*voters_voting: str) -> tuple[GameState, SeededDraws]:
    """Three players and proposal 301 open two days (close_when_all_voted off); its vote's
    reminder falls due a day before the close. ``voters_voting`` vote FOR first."""
    draws = SeededDraws.by_chance(random.Random(1).randrange)  # proves nothing
    state, _ = apply(GameState(), c.StartGame(
        SPEAKER, load_preset("nomicam"), "Speaker",
        mechanics={"voting_period": "2d", "reminder_before": "1d",
                   "close_when_all_voted": "false"}), T0, draws)
    for n, player in enumerate(PLAYERS[:3]):
        state, _ = apply(state, c.AddPlayer(SPEAKER, player, f"P{n}"), T0, draws)
    state, _ = apply(state, c.Propose(PLAYERS[0], "First", "Text."), T0, draws)
    for voter in voters_voting:
        state, _ = apply(state, c.CastBallot(voter, 301, Choice.FOR), T0, draws)
    return state, draws


def test_a_vote_everyone_has_cast_records_no_reminders_that_were_not_sent() -> None:
    # Every voter had voted, no reminder went out, and yet "the reminders for proposal 301
    # went out" was recorded, and said in HISTORY and on the archive.
    state, draws = _open_vote(*PLAYERS[:3])
    assert all(voter in state.proposals[301].ballots for voter in state.voters())
    assert state.proposals[301].status.value == "open"
    later, events = tick(state, T0 + DAY * 1.5, draws)  # past the reminder's moment
    assert not [ev for ev in events if isinstance(ev, e.RemindersSent | pe.Reminded)]
    # Nothing is due before the close: the tick has nothing left to do, and the vote closes.
    assert later.proposals[301].status.value == "open"
    _, closing = tick(later, T0 + DAY * 2, draws)
    assert any(isinstance(ev, e.VoteClosed) for ev in closing)
    assert not [ev for ev in closing if isinstance(ev, e.RemindersSent | pe.Reminded)]


def test_a_withdrawn_ballot_after_the_reminders_moment_is_still_reminded() -> None:
    # Who owes nothing is not reminded; one who comes to owe before the close is, at once.
    state, draws = _open_vote(*PLAYERS[:3])
    state, events = tick(state, T0 + DAY * 1.5, draws)
    assert not events
    state, _ = apply(state, c.CastBallot(PLAYERS[1], 301, Choice.ABSTAIN), T0 + DAY * 1.5,
                     draws)
    _, events = tick(state, T0 + DAY * 1.6, draws)
    assert [ev.player for ev in events if isinstance(ev, pe.Reminded)] == [PLAYERS[1]]
    assert [ev.proposal for ev in events if isinstance(ev, e.RemindersSent)] == [301]


def test_a_vote_some_owe_records_its_reminders_once() -> None:
    state, draws = _open_vote(PLAYERS[0])
    state, events = tick(state, T0 + DAY * 1.5, draws)
    assert [ev.proposal for ev in events if isinstance(ev, e.RemindersSent)] == [301]
    assert {ev.player for ev in events if isinstance(ev, pe.Reminded)} == set(PLAYERS[1:3])
    _, again = tick(state, T0 + DAY * 1.9, draws)
    assert not again


# --- at random -------------------------------------------------------------------------------

PLAYERS = [f"p{i}@example.org" for i in range(5)]
_ACTIONS = st.lists(st.tuples(
    st.sampled_from(["propose", "vote", "cfj", "away", "wait"]),
    st.integers(0, 4), st.integers(0, 5), st.integers(1, 40)), min_size=5, max_size=40)


@settings(max_examples=60, deadline=None)
@given(actions=_ACTIONS, seed=st.integers(0, 1000))
def test_every_owed_vote_and_judgement_is_reminded_once_in_one_mail_per_round(
        actions: list[tuple[str, int, int, int]], seed: int) -> None:
    game = DirectGame(seed)
    game.run(c.StartGame(SPEAKER, load_preset("nomicam"), "Speaker", mechanics={
        "win_points": "1000000", "voting_period": "3d", "judge_period": "3d",
        "reminder_before": "1d", "judge_policy": "random"}))
    for i, player in enumerate(PLAYERS):
        game.run(c.AddPlayer(SPEAKER, player, f"Player {i}"))
    for action, who, number, hours in actions:
        player = PLAYERS[who]
        if action == "propose":
            game.run(c.Propose(player, "A proposal", "Text."))
        elif action == "vote":
            game.run(c.CastBallot(player, 301 + number, Choice.FOR))
        elif action == "cfj":
            game.run(c.CallForJudgement(player, "Is it so?"))
        elif action == "away":
            game.run(c.DeclareAbsence(player, game.now + timedelta(hours=hours), "",
                                      longest=30 * DAY))
        else:
            game.later(timedelta(hours=hours))
    for _ in range(40):  # every deadline passes, a tick every six hours
        game.later(timedelta(hours=6))
    record, state = game.events, game.state

    reminders = [ev for ev in record if isinstance(ev, pe.Reminded)]
    rounds = Counter((r.at, r.player) for r in reminders)
    assert all(count == 1 for count in rounds.values())
    # Each thing reminded once (a Judge drawn again for a CFJ has a new deadline to meet).
    listed = Counter((r.player, owed) for r in reminders for owed in r.owed)
    assert all(count == 1 for count in listed.values())
    for index, event in enumerate(record):  # a vote's round reminds every voter who owes it
        if isinstance(event, e.RemindersSent):
            then = replay(record[:index])
            proposal = then.proposals[event.proposal]
            assert proposal.closes_at is not None
            due = proposal.closes_at - DAY  # when its reminder fell due: who was away then
            owing = {v for v in then.voters() if v not in proposal.ballots
                     and (v not in then.absences or then.absences[v].until <= due)}
            assert owing == {r.player for r in reminders if r.at == event.at
                             and ("vote", event.proposal) in {(o.what, o.number) for o in r.owed}}
    for reminder in reminders:
        assert all(reminder.at < owed.due <= reminder.at + DAY + timedelta(hours=1)
                   for owed in reminder.owed)
        assert reminder.player != SPEAKER or all(o.what == "judgement" for o in reminder.owed)
    assert replay(record) == state
