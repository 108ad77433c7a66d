"""When a game's seed is committed and revealed, at the end of each decision.

A seed is revealed (and the next one committed in the same event) at the end of a decision
that closed a voting period in which it was used, at the end of the game (no next one
then), and when the host asks (``ADMIN REVEAL``). A game recorded before seeds, or one
whose seed the service no longer holds, is given a new seed at the end of its next decision:
its draws are provable from then on.

All of this happens at the *end* of a decision, never within it: every draw of a decision
is made with the seed committed before the decision began. That is before the line its
draws are anchored to (``anchors.py``) unless an earlier decision of the same moment
committed it (ADMIN REVEAL, then a CFJ, in one message): a seed is made from the one
before, not drawn, so that gives the host no choice. Nothing happens with a source that
proves nothing (a scripted one in tests): such a game records no seed at all.
"""

from __future__ import annotations

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import GameError, Refusal

CLOSED_VOTE = "a voting period in which it was used has closed"
GAME_OVER = "the game is over"
NEW_GAME = "a game has ended and the next begun"
HOST_ASKED = "the host asked"


def committed_by(event: e.Event) -> str:
    """Return the commitment an event puts in the record ("" if none): its seed must be kept."""
    if isinstance(event, e.GameStarted | e.SeedCommitted):
        return event.commitment
    if isinstance(event, e.SeedRevealed):
        return event.next_commitment
    return ""


def reveal_seed(play: Play, cmd: c.RevealSeed) -> None:
    """ADMIN REVEAL: refuse when there is no seed to reveal; the end of the decision does it."""
    if not play.state.commitment or not play.rng.holds(play.state.commitment):
        raise GameError(Refusal.NO_SEED_TO_REVEAL)


def settle_seed(play: Play, *, asked: bool = False) -> None:
    """At the end of a decision: commit a seed the game lacks, or reveal the one it used."""
    rng, state = play.rng, play.state
    if rng.after <= 0 or not state.started:
        return
    commitment = state.commitment
    if not commitment or not rng.holds(commitment):
        # Only beside public news: a lone sealed ballot must add nothing public.
        if not state.ended and any(event.public for event in play.events):
            following = f"{state.game_id}:{commitment}"
            play.emit(e.SeedCommitted(play.now, rng.commit(following), replaces=commitment))
        return
    kinds = {type(event) for event in play.events}
    if state.ended:
        reason = GAME_OVER
    elif e.NewGameBegun in kinds:
        reason = NEW_GAME
    elif asked:
        reason = HOST_ASKED
    elif kinds & {e.VoteClosed, e.ProposalVoided} and state.seed_draws:
        reason = CLOSED_VOTE
    else:
        return
    following = "" if state.ended else rng.commit(commitment)
    if following == commitment:  # a source that repeats itself would make draws foreseeable
        raise RuntimeError("the source of seeds drew the seed it is revealing again")
    play.emit(e.SeedRevealed(play.now, commitment, rng.reveal(commitment), following, reason))
