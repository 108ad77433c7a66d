"""A host finds a recipient's games by key: exactly the games ``routes_to_game`` takes it for.

``GameRoutes`` compares a recipient only with the games whose address or list shares its key
(the local part up to the first ``+``, in lower case); these tests hold it to the plain
comparison with every game, for the addresses players, lists, tags and bounces use.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.config import GameSettings
from speakerbot.mail.verp import bounce_address
from speakerbot.service.policy import GameRoutes, routes_to_game
from tests.support.mailgame import make_settings

SECRET = "s" * 32
LOCALS = ["nomic", "Nomic", "nomic+camford", "agora", "agora+x", "nomic-list", "b"]
DOMAINS = ["example.org", "Example.ORG", "lists.example.org", "example.net"]


def _game(base: GameSettings, address: str, list_: str | None) -> GameSettings:
    return dataclasses.replace(base, address=address.lower(),
                               list=None if list_ is None else list_.lower())


addresses = st.builds(lambda local, domain: f"{local}@{domain}", st.sampled_from(LOCALS),
                      st.sampled_from(DOMAINS))


@st.composite
def recipients(draw: st.DrawFn, games: list[GameSettings]) -> str:
    """A recipient: a game's address or list as written, tagged, a bounce, or another."""
    game = draw(st.sampled_from(games))
    own = draw(st.sampled_from([game.address, game.list or game.address]))
    local, _, domain = own.rpartition("@")
    kind = draw(st.sampled_from(["as is", "upper", "tagged", "bounce", "bracketed", "other"]))
    bounce = bounce_address(game.address, SECRET, "0123456789abcdef", "olive@example.org")
    if kind == "upper":
        return own.upper()
    if kind == "tagged":
        return f"{local}+{draw(st.sampled_from(['x', 'bounce', 'Y+z']))}@{domain}"
    if kind == "bounce":
        return bounce
    if kind == "bracketed":
        return draw(st.sampled_from([f" <{own}> ", f"< {own} >", f"<{bounce}>", f"< {bounce}>"]))
    return draw(addresses | st.text(max_size=12))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), games=st.lists(st.tuples(addresses, st.none() | addresses),
                                      min_size=1, max_size=6))
def test_the_games_found_by_key_are_those_routes_to_game_takes(
        tmp_path: Path, data: st.DataObject, games: list[tuple[str, str | None]]) -> None:
    base = make_settings(tmp_path, "nomicam").game
    settings_ = [_game(base, address, list_) for address, list_ in games]
    routes = GameRoutes([(game, number) for number, game in enumerate(settings_)])
    wanted = data.draw(st.lists(recipients(settings_), min_size=1, max_size=3))
    expected = [number for number, game in enumerate(settings_)
                if any(routes_to_game(address, game) for address in wanted)]
    assert routes.games_for(wanted) == expected


def test_fifty_games_each_take_their_own_mail(tmp_path: Path) -> None:
    base = make_settings(tmp_path, "nomicam").game
    games = [_game(base, f"game{n:03d}@games.test", None) for n in range(50)]
    routes = GameRoutes([(game, game.address) for game in games])
    assert routes.games_for(["Game007+vote@GAMES.test"]) == ["game007@games.test"]
    assert routes.games_for(["game007@games.test", "game042@games.test"]) == [
        "game007@games.test", "game042@games.test"]
    assert routes.games_for(["game@games.test", "stranger@games.test"]) == []
