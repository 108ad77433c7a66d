"""The mail of a game whose draws are provable: each draw and each seed, and nothing more.

A suber game played on the engine with the service's source of draws (``SeededDraws``): its
first move commits a seed, the vote's close throws a provable die and reveals the seed. The
results give the draw (label, candidates, outcome) and the reveal; ADMIN REVEAL tells every
player; no message holds a seed that is not revealed.
"""

from __future__ import annotations

from datetime import timedelta

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.engine.luck import SeededDraws, commitment_of
from speakerbot.engine.model import Choice
from speakerbot.engine.seeds import CLOSED_VOTE, HOST_ASKED
from speakerbot.mail.outbound.announcements import Announcer, public_recipients
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer
from speakerbot.resources import templates_dir
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, SPEAKER
from tests.engine.harness import Game, enact

CAMFORD = GameIdentity("Camford Nomic", "nomic@camford.example")
SEEDS = [bytes([n]) * 32 for n in range(1, 5)]
"""The seeds the game draws, in order: the first, then each one committed at a reveal."""


def _seeded() -> Game:
    """A suber game whose draws are computed from SEEDS, anchored to line 7 of its record."""
    fresh = iter(SEEDS)
    game = Game("suber", [ALICE, BOB, CAROL])
    game.provable = SeededDraws(after=7, anchor="ab" * 32, seed_of=lambda _: None,
                                   fresh=lambda _: next(fresh), chance=lambda _: 0)
    return game


def _messages(game: Game, command: c.Command) -> tuple[list[e.Event], list[Outgoing]]:
    before = replay(game.events)
    events = game.ok(command)
    messages = Announcer(CAMFORD, Renderer(templates_dir())).messages(
        events, game.state, "9", before)
    return events, messages


def _unwrapped(message: Outgoing) -> str:
    return " ".join(message.body.split())


def test_the_results_give_the_draw_and_the_reveal_of_its_seed() -> None:
    game = _seeded()
    first = game.propose(ALICE, enact("Players may sing."))
    committed = game.last(e.SeedCommitted).commitment
    assert committed == commitment_of(SEEDS[0])
    game.votes(first, alice="FOR", bob="FOR")
    events, messages = _messages(game, c.CastBallot(CAROL, first, Choice.FOR))

    die = next(ev for ev in events if isinstance(ev, e.DieThrown))
    assert die.draw is not None and die.draw.label == f"die:{first}"
    revealed = next(ev for ev in events if isinstance(ev, e.SeedRevealed))
    assert revealed.reason == CLOSED_VOTE and revealed.seed == SEEDS[0].hex()

    [results] = [m for m in messages if m.topic == "results"]
    body = _unwrapped(results)
    assert (f"- Alice threw a 6-sided die: {die.value} (draw die:{first}, from 1 to 6)"
            in body)
    assert (f"- The seed of the game's draws is revealed, because {CLOSED_VOTE}: seed "
            f"{SEEDS[0].hex()}, which matches the commitment published before its draws, "
            f"{committed}; the next seed's commitment is {commitment_of(SEEDS[1])}. To check "
            "every draw made with it: speakerbot record verify (docs/verifying.md)") in body
    # Sealed means sealed: the next seed is committed, never shown.
    assert all(SEEDS[1].hex() not in m.body + m.subject for m in messages)
    # The reveal comes with the results alone: no message of its own.
    assert [m.topic for m in messages] == ["results"]


def test_a_seed_committed_is_news_to_every_player_with_its_commitment_only() -> None:
    game = _seeded()
    _, messages = _messages(game, c.Propose(ALICE, "Tea", "Tea for all."))
    news = [m for m in messages if m.topic is None and m.kind == "announcement"]
    [message] = [m for m in news if "commitment" in m.body]
    assert message.subject == "A new seed for the game's draws is committed"
    assert f"its commitment is {commitment_of(SEEDS[0])}" in _unwrapped(message)
    assert message.recipients == public_recipients(game.state, CAMFORD)
    assert all(SEEDS[0].hex() not in m.body + m.subject for m in messages)


def test_admin_reveal_tells_every_player_the_seed_and_the_next_commitment() -> None:
    game = _seeded()
    game.propose(ALICE, enact("Players may sing."))  # commits the first seed
    events, messages = _messages(game, c.RevealSeed(SPEAKER))
    assert [type(ev) for ev in events] == [e.SpeakerOverride, e.SeedRevealed]
    [message] = messages
    assert message.recipients == public_recipients(game.state, CAMFORD)
    body = _unwrapped(message)
    assert "revealed the seed the game's draws are made with" in body
    assert (f"The seed of the game's draws is revealed, because {HOST_ASKED}: seed "
            f"{SEEDS[0].hex()}") in body
    assert f"the next seed's commitment is {commitment_of(SEEDS[1])}" in body
    assert SEEDS[1].hex() not in message.body + message.subject
    assert game.state.commitment == commitment_of(SEEDS[1])


def test_admin_reveal_without_a_seed_is_refused() -> None:
    # A scripted game records no seed, as a game recorded before draws were provable.
    game = Game("suber", [ALICE, BOB, CAROL])
    game.refused(c.RevealSeed(SPEAKER), "the game holds no seed to reveal")


def test_a_reveal_at_the_end_of_a_later_vote_reveals_the_next_seed() -> None:
    game = _seeded()
    first = game.propose(ALICE, enact("Players may sing."))
    game.votes(first, alice="FOR", bob="FOR", carol="FOR")
    second = game.propose(BOB, enact("Players may dance."))
    game.votes(second, alice="FOR", bob="FOR")
    events, messages = _messages(game, c.CastBallot(CAROL, second, Choice.FOR))
    revealed = next(ev for ev in events if isinstance(ev, e.SeedRevealed))
    assert revealed.seed == SEEDS[1].hex()
    body = _unwrapped(next(m for m in messages if m.topic == "results"))
    assert f"seed {SEEDS[1].hex()}" in body and SEEDS[0].hex() not in body
    assert SEEDS[2].hex() not in body
    game.later(timedelta(0))  # nothing left to reveal: no draw since
    assert game.state.commitment == commitment_of(SEEDS[2])


def test_the_cfj_mail_gives_the_draw_of_a_random_judge() -> None:
    fresh = iter(SEEDS)
    game = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    game.provable = SeededDraws(after=7, anchor="ab" * 32, seed_of=lambda _: None,
                                   fresh=lambda _: next(fresh), chance=lambda _: 0)
    game.ok(c.CallForJudgement(ALICE, "Tea is served.", "", False))  # commits the seed
    # The Speaker's CFJ is judged by a Voter drawn at random (nomicam 214).
    events, messages = _messages(game, c.CallForJudgement(SPEAKER, "Alice may sing.", "",
                                                          False))
    assigned = next(ev for ev in events if isinstance(ev, e.JudgeAssigned))
    assert assigned.draw is not None and assigned.draw.label == "judge:cfj-2"
    judge = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Dave"}[assigned.judge]
    [message] = messages
    assert (f"Judge: {judge} (a random Voter, because the Speaker called this CFJ, as rule "
            "214 says; draw judge:cfj-2 among Alice, Bob, Carol and Dave).") in _unwrapped(message)


def test_the_cfj_mail_of_a_judge_drawn_without_proof_is_as_before() -> None:
    game = Game("nomicam", [ALICE, BOB, CAROL, DAVE])
    game.dice.load(1)
    _, messages = _messages(game, c.CallForJudgement(SPEAKER, "Alice may sing.", "", False))
    [message] = messages
    assert ("Judge: Bob (a random Voter, because the Speaker called this CFJ, as rule 214 "
            "says). The judgement is due") in _unwrapped(message)
    assert "draw" not in message.body
