"""A group's own ruleset, an edited export of suber, played through the running daemon.

Real Dovecot, a real SMTP sink, SQLite and PostgreSQL. The config names the file by a path
relative to its own folder; the game plays a proposal to adoption under it, SHOW RULE
shows its new rule, the record's first event holds the whole ruleset (so an edit of the
file after ``init`` changes nothing in the game), and the edited winning score is the one
enforced.
"""

from __future__ import annotations

import pytest

from speakerbot.engine.model import ProposalStatus
from tests.integration.game_harness import SPEAKER, MakeGame, RunningGame, admin_mail, body_of
from tests.integration.test_attacks import ALICE, BOB

pytestmark = pytest.mark.integration

RULE_208 = "The winner is the first player to achieve 50 (positive) points."
RULE_214 = "Tea is served at four."
TITLE_214 = "Tea time"


def edited_export(game: RunningGame) -> str:
    """``rulesets export suber`` as a group edits it: its name, 50 to win, a new rule 214."""
    text = game.cli("rulesets", "export", "suber").stdout
    edits = [
        ('name = "suber"', 'name = "pine-street"'),
        ("win_points = 100", "win_points = 50"),
        ("The winner is the first player to achieve 100 (positive) points.", RULE_208),
    ]
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text + (f'\n[[rules]]\nnumber = 214\ntitle = "{TITLE_214}"\nmutable = true\n'
                   f'text = """{RULE_214}"""\n')


def show_rule_214(game: RunningGame, subject: str) -> str:
    game.send(ALICE, subject, "SHOW RULE 214\n")
    return body_of(game.wait_subject(f"Re: {subject}", to=ALICE))


def score(game: RunningGame, subject: str, delta: int) -> str:
    game.send(SPEAKER, subject, admin_mail(f"ADMIN SCORE {BOB} {delta:+d} a test"))
    reply = body_of(game.wait_subject(f"Re: {subject}", to=SPEAKER))
    assert "Done" in reply, reply
    return reply


def test_an_edited_export_of_suber_is_played_and_its_record_holds_it(
        make_game: MakeGame) -> None:
    game = make_game("ours/pine-street.toml", {"reminder_before": "none"})
    (game.tmp / "ours").mkdir()
    ours = game.tmp / "ours" / "pine-street.toml"
    ours.write_text(edited_export(game))
    game.begin((ALICE, "Alice"), (BOB, "Bob"))
    [started] = [event for event in game.events() if event["type"] == "GameStarted"]
    mechanics, rules = started["mechanics"], started["rules"]
    assert isinstance(mechanics, dict) and isinstance(rules, list)
    assert mechanics["win_points"] == "50"
    assert {"number": 214, "text": RULE_214, "mutable": True, "title": TITLE_214} in rules

    # A proposal played to adoption under the group's ruleset (suber: turns, unanimity).
    state = game.state()
    assert state.turn is not None and state.next_proposal == 301
    mover = state.turn.mover
    game.send(mover, "PROPOSE: Milk", "Milk with the tea.\nENACT RULE:\nMilk is served too.\n")
    game.wait_subject("Proposal 301:")
    game.send(ALICE, "vote 301", "VOTE 301 FOR\n")
    game.send(BOB, "vote 301", "VOTE 301 FOR\n")
    results = body_of(game.wait_subject("Proposal 301 ADOPTED"))
    assert "threw a 6-sided die" in results
    state = game.state()
    assert state.proposals[301].status is ProposalStatus.ADOPTED
    assert state.rules[301].text == "Milk is served too."
    assert state.rules[208].text == RULE_208

    shown = show_rule_214(game, "which rule")
    assert f"Rule 214: {TITLE_214} (mutable)" in shown and RULE_214 in shown, shown

    # The group edits its file after init, and the daemon starts again: the game is the one
    # its record began with, not the file's.
    # (Rule 208 says the new score too: a file whose rule and mechanic disagree is refused.)
    edited = ours.read_text().replace(RULE_214, "Coffee is served at noon.").replace(
        "win_points = 50", "win_points = 10").replace("achieve 50 (positive)",
                                                      "achieve 10 (positive)")
    assert edited.count("Coffee") == 1 and "win_points = 10" in edited
    ours.write_text(edited)
    assert game.stop() == 0
    game.start()
    shown = show_rule_214(game, "which rule now")
    assert RULE_214 in shown and "Coffee" not in shown, shown

    # 50 wins, as the ruleset says: 20 more is not a win (it would be at the file's 10).
    score(game, "head start", 20)
    assert not game.state().ended
    score(game, "the rest", 50 - int(game.state().players[BOB].score))
    won = body_of(game.wait_subject("won the game"))
    state = game.state()
    assert state.ended and list(state.winners) == [BOB]
    assert state.players[BOB].score == 50
    assert "reached 50 points" in won, won
    assert game.stop() == 0
