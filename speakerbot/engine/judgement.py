"""Judgement: calls for judgement (CFJs), selecting Judges, judgements and overrules."""

from __future__ import annotations

from datetime import datetime

from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.draw_events import Draw
from speakerbot.engine.mechanics import JudgePolicy, ParadoxWinner
from speakerbot.engine.model import Cfj, Judgement
from speakerbot.engine.play import Play
from speakerbot.engine.refusals import Facts, GameError, Refusal

MAX_STATEMENT = 2000


def call_for_judgement(play: Play, cmd: c.CallForJudgement) -> None:
    """Invoke judgement on a statement and select its first Judge."""
    state = play.state
    if cmd.actor != state.speaker:
        play.player(cmd.actor)
    statement = " ".join(cmd.statement.split())
    if not statement or len(statement) > MAX_STATEMENT:
        raise GameError(Refusal.BAD_STATEMENT, Facts(limit=MAX_STATEMENT))
    turn = state.turn
    play.emit(e.CfjCalled(
        play.now, state.next_cfj, statement, cmd.arguments.strip("\n"), cmd.actor, cmd.paradox,
        turn.number if turn else None, turn.mover if turn else None,
    ))
    assign_first_judge(play, state.cfjs[state.next_cfj - 1])


def deliver_judgement(play: Play, cmd: c.DeliverJudgement) -> None:
    """Record a Judge's judgement; a paradox judged TRUE ends the game."""
    state, mechanics = play.state, play.mechanics
    cfj = play.cfj(cmd.cfj)
    if cfj.judgement is not None:
        raise GameError(Refusal.ALREADY_JUDGED,
                        Facts(number=cmd.cfj, text=cfj.judgement.value))
    if cmd.actor != cfj.judge:
        judge = cfj.judge or ""
        raise GameError(Refusal.NOT_THE_JUDGE,
                        Facts(number=cmd.cfj, address=judge, name=state.name_of(judge)))
    ends_the_game = cfj.paradox and cmd.judgement is Judgement.TRUE
    play.emit(e.JudgementDelivered(play.now, cmd.cfj, cmd.actor, cmd.judgement,
                                   cmd.reasons.strip("\n"),
                                   mechanics.overrule and not ends_the_game))
    if ends_the_game:
        winner = cfj.mover if mechanics.paradox_winner is ParadoxWinner.MOVER else None
        winner = winner or cfj.caller
        reason = (f"CFJ {cfj.number}, that play cannot go on, was judged TRUE"
                  f"{play.per('paradox_winner')}")
        play.emit(e.GameWon(play.now, (winner,), reason, play.scores_now()))
        play.emit(e.GameEnded(play.now, reason, (winner,)))


def overrule(play: Play, cmd: c.Overrule) -> None:
    """Take a vote to overrule a judgement; the other players' unanimity overrules it."""
    if not play.mechanics.overrule:
        raise GameError(Refusal.NO_OVERRULE_RULE)
    play.player(cmd.actor)
    cfj = play.cfj(cmd.cfj)
    facts = Facts(number=cmd.cfj)
    if cfj.judgement is None:
        raise GameError(Refusal.NOT_JUDGED_YET, facts)
    if not cfj.overrule_open:
        raise GameError(Refusal.OVERRULE_CLOSED, facts)
    if cmd.actor == cfj.judge:
        raise GameError(Refusal.OWN_JUDGEMENT)
    if cmd.actor in cfj.overrulers:
        raise GameError(Refusal.ALREADY_OVERRULED, facts)
    play.emit(e.OverruleSupported(play.now, cmd.cfj, cmd.actor))
    others = {p.address for p in play.state.active_players() if p.address != cfj.judge}
    if others <= set(cfj.overrulers):
        play.emit(e.JudgementOverruled(play.now, cmd.cfj))
        reassign_judge(play, cfj, "the judgement was overruled")


def assign_judge(play: Play, cmd: c.AssignJudge) -> None:
    """Make a player the Judge of a CFJ, as the Speaker directs."""
    cfj = play.cfj(cmd.cfj)
    if cfj.judgement is not None:
        raise GameError(Refusal.ALREADY_JUDGED, Facts(number=cmd.cfj))
    judge = play.find(cmd.player).address
    play.emit(e.JudgeAssigned(play.now, cmd.cfj, judge, "chosen by the Speaker",
                              judge_deadline(play)))


def preceding(play: Play, address: str, skip: set[str]) -> str | None:
    """Return the active player before ``address`` in turn order, passing over ``skip``."""
    players = play.state.players
    everyone = list(players)
    if address not in everyone:
        return None
    here = everyone.index(address)
    ring = everyone[here + 1:] + everyone[:here]  # everyone else, the one just before last
    # An absent player is passed over while anyone else may judge (absence.py).
    for passed_over in (skip | set(play.state.absences), skip):
        for candidate in reversed(ring):
            if players[candidate].active and candidate not in passed_over:
                return candidate
    return None


def random_voter(play: Play, cfj: Cfj, exclude: set[str],
                 ) -> tuple[str, tuple[str, ...], Draw | None]:
    """Draw a Voter who may judge; return them, every candidate of the draw, and its proof.

    The draw is labelled ``judge:cfj-4`` for a CFJ's first Judge, ``judge:cfj-4/2`` for its
    second, and so on: no two draws of a game share a label.
    """
    candidates = tuple(v for v in play.state.voters() if v not in exclude)
    # An absent Voter is not drawn while anyone else may be (absence.py).
    present = tuple(v for v in candidates if v not in play.state.absences)
    candidates = present or candidates
    if not candidates:
        raise GameError(Refusal.NO_VOTER_TO_JUDGE)
    label = f"judge:cfj-{cfj.number}"
    if cfj.judges:
        label += f"/{len(cfj.judges) + 1}"
    judge, proof = play.draw(label, candidates)
    return judge, candidates, proof


def judge_deadline(play: Play) -> datetime | None:
    """Return when a Judge selected now must have judged (None without a judging period)."""
    period = play.mechanics.judge_period
    return play.now + period if period is not None else None


def assign_first_judge(play: Play, cfj: Cfj) -> None:
    """Select the first Judge of a CFJ as the rules say."""
    state, policy = play.state, play.mechanics.judge_policy
    drawn: tuple[str, ...] = ()
    proof: Draw | None = None
    if policy is JudgePolicy.PRECEDING:
        if cfj.mover is None:
            raise GameError(Refusal.NO_TURN_FOR_JUDGEMENT)
        judge = preceding(play, cfj.mover, {cfj.mover})
        how = "the player preceding the mover"
    elif policy is JudgePolicy.NAMED:
        judge, how = state.named_judge or state.host, "the named Judge"
    elif policy is JudgePolicy.SPEAKER:
        judge, how = state.speaker, "the Speaker"
    elif cfj.caller == state.speaker:
        judge, drawn, proof = random_voter(play, cfj, {cfj.caller})
        how = "a random Voter, as the Speaker invoked judgement"
    else:
        judge, how = state.speaker, "the Speaker, as a Voter invoked judgement"
    if judge is None:
        raise GameError(Refusal.NO_OTHER_JUDGE)
    play.emit(e.JudgeAssigned(play.now, cfj.number, judge, how + play.per("judge_policy"),
                              judge_deadline(play), drawn, proof))


def replace_judge(play: Play, cfj: Cfj, why: str, fallback: str | None = None) -> None:
    """Select another Judge; where none may be selected, ``fallback`` (or the Speaker) keeps it.

    Never refuses: a forfeit (000 113) or a missed deadline must always go through.
    """
    try:
        reassign_judge(play, cfj, why)
    except GameError:
        keeper = fallback or play.state.speaker or play.state.host
        play.emit(e.JudgeAssigned(play.now, cfj.number, keeper,
                                  f"{why}; no other Judge could be selected",
                                  judge_deadline(play)))


def reassign_judge(play: Play, cfj: Cfj, why: str) -> None:
    """Select the next Judge of a CFJ as the rules say, or refuse if none may judge."""
    state, policy = play.state, play.mechanics.judge_policy
    current = cfj.judge or state.speaker
    drawn: tuple[str, ...] = ()
    proof: Draw | None = None
    if policy is JudgePolicy.PRECEDING:
        mover = state.turn.mover if state.turn is not None else current
        judge = preceding(play, current, {mover})
        how = f"{why}: the player preceding the Judge"
    elif policy is JudgePolicy.RANDOM:
        judge, drawn, proof = random_voter(play, cfj, {current, cfj.caller})
        how = f"{why}: a random Voter"
    elif policy is JudgePolicy.NAMED:
        judge, how = state.named_judge or state.host, f"{why}: the named Judge again"
    else:
        judge, how = state.speaker, f"{why}: the Speaker"
    if judge is None:
        raise GameError(Refusal.NO_JUDGE_LEFT)
    play.emit(e.JudgeAssigned(play.now, cfj.number, judge, how, judge_deadline(play), drawn,
                              proof))
