"""Reply benchmark: the cost of writing one typical reply to a ballot, in µs per reply.

A game of 40 players with 10 open proposals; one player votes (every fifth also asks for
STATUS, as in bench/pipeline.py). Prints, per reply: rendering the text from its templates,
then wrapping it in headers as bytes both ways side by side: the stdlib's EmailMessage
(``message_bytes_by_the_book``, what every reply used to cost) and ``compose`` (what it
costs now); the bytes of both are checked to be the same.

Run: .venv/bin/python bench/compose.py [--replies N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from speakerbot.engine import GameState, apply
from speakerbot.engine import commands as c
from speakerbot.engine.luck import SeededDraws
from speakerbot.mail.outbound.compose import (
    GameIdentity,
    Outgoing,
    Renderer,
    compose,
    headers_of,
    message_id_for,
)
from speakerbot.mail.outbound.replies import Outcome, ReplyWriter
from speakerbot.mail.outbound.wire import message_bytes_by_the_book
from speakerbot.presets import load_preset
from speakerbot.resources import templates_dir

IDENTITY = GameIdentity("Bench Nomic", "game@bench.test")
SPEAKER = "speaker@bench.test"
PLAYERS = [f"p{n}@bench.test" for n in range(40)]


def game() -> GameState:
    """A game of 40 players with 10 proposals open for voting."""
    rng = random.Random(1)
    draws = SeededDraws.by_chance(rng.randrange)  # proves nothing
    now = datetime(2026, 1, 1, tzinfo=UTC)
    state, _ = apply(GameState(), c.StartGame(SPEAKER, load_preset("nomicam"), "Speaker"),
                     now, draws)
    for n, player in enumerate(PLAYERS):
        state, _ = apply(state, c.AddPlayer(SPEAKER, player, f"Player {n}"), now, draws)
    for n in range(10):
        now += timedelta(minutes=1)
        state, _ = apply(state, c.Propose(PLAYERS[n], f"Proposal {n}", "Text."), now, draws)
    return state


def replies(state: GameState, writer: ReplyWriter, count: int) -> list[Outgoing]:
    """Render ``count`` replies to ballots, every fifth with the sender's STATUS."""
    out = []
    for n in range(count):
        sender = PLAYERS[n % len(PLAYERS)]
        number = 301 + n % 10
        outcome = Outcome(1, f"VOTE {number} FOR",
                          f"Your ballot on proposal {number} is FOR. It stays sealed.")
        answers = [writer.answer("STATUS", state, sender)] if n % 5 == 0 else []
        body = writer.reply(state, sender, outcomes=[outcome], errors=[], ignored=[],
                            answers=answers, applied=True)
        out.append(Outgoing("reply", (sender,), "Re: my vote", body, f"bench.{n}",
                            in_reply_to=f"<m{n}@mail.bench.test>",
                            references=(f"<t{n}@mail.bench.test>",)))
    return out


def per_reply(work: Callable[[], object], count: int) -> float:
    """Return the best of three runs of ``work``, in µs for each of ``count`` replies."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best / count * 1e6


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--replies", type=int, default=2000)
    args = parser.parse_args()
    state = game()
    writer = ReplyWriter(Renderer(templates_dir()), lambda topic: "HELP\n")
    date = datetime(2026, 1, 2, tzinfo=UTC)
    messages = replies(state, writer, args.replies)

    def by_the_book() -> list[bytes]:
        return [message_bytes_by_the_book(
            headers_of(IDENTITY, m, date, message_id_for(IDENTITY, m.key)), m.body)
            for m in messages]

    def now() -> list[bytes]:
        return [compose(IDENTITY, m, date)[1] for m in messages]

    assert by_the_book() == now(), "compose differs from the stdlib's bytes"
    render = per_reply(lambda: replies(state, writer, args.replies), args.replies)
    old, new = per_reply(by_the_book, args.replies), per_reply(now, args.replies)
    print(f"{args.replies} replies to ballots (every fifth with STATUS), µs per reply:")
    print(f"  render the text from templates     {render:8.1f}")
    print(f"  headers and bytes, EmailMessage    {old:8.1f}   (total {render + old:8.1f})")
    print(f"  headers and bytes, compose         {new:8.1f}   (total {render + new:8.1f})")
    share = (render + new) / (render + old)
    share = (render + new) / (render + old)
    print(f"  compose is {old / new:.1f}x faster; a reply costs {share:.0%} of what it did")


if __name__ == "__main__":
    main()
