"""No character that Unicode folds into ASCII makes a stranger's address a player's.

The table is computed, not chosen: every BMP character c that is not ASCII but whose
``lower()``, ``casefold()`` or NFKC form is (U+212A KELVIN SIGN, U+017F LONG S, U+FB00..
ligatures, fullwidth letters, superscripts, ...), plus a few look-alikes that fold to
something else (dotless i, I with a dot, the Angstrom sign). For each, the player's address
has the ASCII fold where the stranger's has c, in the local part and in the domain, and
each place that reads or compares an address must keep them apart: the From header, the
Authentication-Results alignment, the engine's lookup of a player, and the Speaker's ADMIN
ADD. Only old entry points are used, so each test also shows the bug it guards against.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import pytest

from speakerbot.engine import GameState, apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.engine.refusals import Refusal
from speakerbot.mail.inbound.authentication import AuthPolicy, authenticate
from speakerbot.mail.inbound.headers import parse_sender, read_headers
from speakerbot.presets import load_preset
from tests.engine.cast import T0

DOMAIN = "nomic.test"
LOOK_ALIKES = "\u0131\u0130\u212b\u00c5\u00e5"  # fold to non-ASCII, or not at all


def _folds(character: str) -> set[str]:
    nfkc = unicodedata.normalize("NFKC", character)
    return {character.lower(), character.casefold(), nfkc, nfkc.casefold()}


def _ascii_folds() -> list[tuple[str, str]]:
    """Every (c, fold) of a non-ASCII BMP character c with a fold of ASCII letters."""
    table: list[tuple[str, str]] = []
    for point in range(0x80, 0x10000):
        character = chr(point)
        if unicodedata.category(character) == "Cs":
            continue
        for fold in sorted(_folds(character)):
            # A fold to digits or punctuation (a superscript 2, a one dot leader) makes no
            # player's address here; letters and digits alike are kept when they do.
            if fold.isascii() and fold.isalnum():
                table.append((character, fold.lower()))
    return table


TABLE = _ascii_folds()


@dataclass(frozen=True)
class Pair:
    """A player's address and the stranger's look-alike of it."""

    player: str
    stranger: str


def _pairs(character: str, fold: str) -> list[Pair]:
    return [
        Pair(f"{fold}ate@{DOMAIN}", f"{character}ate@{DOMAIN}"),
        Pair(f"kate{fold}@{DOMAIN}", f"Kate{character}@{DOMAIN}"),
        Pair(f"kate@{fold}nomic.test", f"kate@{character}nomic.test"),
        Pair(f"kate@nomic.{fold}test", f"kate@NOMIC.{character}test"),
    ]


PAIRS = [pair for character, fold in TABLE for pair in _pairs(character, fold)]
PAIRS += [pair for character in LOOK_ALIKES for pair in _pairs(character, "i")]


def test_the_table_holds_the_known_folds() -> None:
    # A check on the table itself: an empty or wrong table would make every test pass.
    folds = dict(TABLE)
    assert folds["\u212a"] == "k" and folds["\u017f"] == "s" and folds["\ufb00"] == "ff"
    assert folds["\uff21"] == "a" and "\u0131" not in folds
    assert len(TABLE) > 300


def test_no_look_alike_from_header_reads_as_a_players_address() -> None:
    taken = [pair for pair in PAIRS
             if parse_sender(read_headers(f"From: {pair.stranger}\n\n".encode()))[0]
             == pair.player]
    assert taken == []


def test_a_look_alike_reads_as_itself_or_not_at_all() -> None:
    kelvin = read_headers("From: Kate <\u212aate@nomic.test>\n\n".encode())
    assert parse_sender(kelvin)[0] == "\u212aate@nomic.test"
    in_domain = read_headers("From: kate@nomic.te\u212ast\n\n".encode())
    assert parse_sender(in_domain)[0] is None


def test_authentication_results_for_a_look_alike_domain_vouch_for_no_player() -> None:
    mx = "mx.nomic.test"
    policy = AuthPolicy("dmarc", (mx,))
    vouched = []
    for pair in PAIRS:
        player_domain = pair.player.rsplit("@", 1)[1]
        stranger_domain = pair.stranger.rsplit("@", 1)[1]
        if player_domain == stranger_domain:
            continue
        header = f"{mx}; dmarc=pass header.from={stranger_domain}"
        if authenticate(pair.player, [header], policy).authenticated:
            vouched.append(pair)
    assert vouched == []


def _game(players: list[str]) -> GameState:
    state, _ = apply(GameState(), c.StartGame(
        "host@nomic.test", load_preset("suber"), "Host", "", "",
        {"debate": "none", "turn_period": "none"}, True), T0)
    for number, address in enumerate(players):
        state, events = apply(state, c.AddPlayer("host@nomic.test", address, f"P{number}"), T0)
        assert not any(isinstance(event, e.CommandRejected) for event in events), events
    return state


def test_the_engine_finds_no_player_by_a_look_alike_address() -> None:
    state = _game(sorted({pair.player for pair in PAIRS}))
    assert all(state.find_player(pair.player) is not None for pair in PAIRS)
    found = [pair for pair in PAIRS if state.find_player(pair.stranger) is not None]
    assert found == []


@pytest.mark.parametrize("stranger", ["\u212aate@nomic.test", "\u212aATE@nomic.test",
                                      "\uff4bate@nomic.test", "kate@nomic.te\u212ast"])
def test_adding_a_look_alike_never_touches_the_player(stranger: str) -> None:
    state = _game(["kate@nomic.test"])
    after, events = apply(state, c.AddPlayer("host@nomic.test", stranger, "Stranger"), T0)
    joined = [event for event in events if isinstance(event, e.PlayerJoined)]
    assert all(event.address != "kate@nomic.test" for event in joined)
    assert after.players["kate@nomic.test"] == state.players["kate@nomic.test"]
    if not joined:  # refused: a domain that is not valid IDNA is no address
        assert isinstance(events[0], e.CommandRejected)
        assert events[0].refusal is Refusal.NOT_AN_ADDRESS
