"""JOIN from an address that routes to the game is refused by the running daemon.

``game+x@`` is delivered to the game's own mailbox, so a player there would never get their
mail, and the game's own address would be a voter who can never vote. Real Dovecot, a real
SMTP sink, SQLite and PostgreSQL.
"""

from __future__ import annotations

from tests.integration.game_harness import GAME, MakeGame, body_of

TAGGED = GAME.replace("@", "+ghost@")
CAROL = "carol@nomic.test"


def test_join_from_an_address_of_the_game_is_refused_and_changes_nothing(
        make_game: MakeGame) -> None:
    game = make_game("suber")
    game.cli("init")
    game.start()
    game.wait_log("running the game")
    game.send(TAGGED, "joining", "JOIN Ghost\n")
    game.send(CAROL, "joining", "JOIN Carol\n")  # read after the ghost's: mail is in order

    refusal = game.wait_for(lambda m: TAGGED in m.rcpt_tos)
    assert f"{TAGGED} is an address of the game itself" in body_of(refusal).replace("\n", " ")
    game.wait_for(lambda m: CAROL in m.rcpt_tos)
    state = game.state()
    assert list(state.players) == [CAROL]
    assert not any(TAGGED in str(event) for event in game.events())
    game.stop()
