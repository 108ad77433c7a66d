"""VERP return paths: the address for a message and recipient, its token, and who it names."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from speakerbot.addresses import as_compared
from speakerbot.mail.verp import (
    MAC_DIGITS,
    REF_DIGITS,
    bounce_address,
    message_ref,
    recipient_of,
    token_of,
)
from speakerbot.service.policy import routes_to_game
from tests.support.mailgame import make_settings

GAME = "nomic@example.org"
SECRET = "test-secret"
SETTINGS = settings(
    max_examples=int(os.environ.get("SPEAKERBOT_FUZZ_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=not os.environ.get("SPEAKERBOT_FUZZ_RANDOM"),
)
TOKEN_SHAPE = rf"[0-9a-f]{{{REF_DIGITS}}}-[0-9a-f]{{{MAC_DIGITS}}}"


def expected_ref(message_id: str) -> str:
    """The reference as the issue specifies it, written out independently of verp.py."""
    return hashlib.sha256(message_id.encode()).hexdigest()[:16]


def expected_mac(secret: str, ref: str, recipient: str) -> str:
    """The MAC as the issue specifies it, written out independently of verp.py."""
    message = f"bounce\n{ref}\n{recipient}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:20]


MESSAGE_ID = "<sb.3f9a1c0d5e7b2a4c6d8e0f12@example.org>"
REF = expected_ref(MESSAGE_ID)
OTHER_REF = expected_ref("<sb.000000000000000000000001@example.org>")


def test_message_ref_is_16_hex_digits_of_the_message_ids_sha256() -> None:
    assert message_ref(MESSAGE_ID) == REF
    # Written out: a bounce may come days after its message was sent, so the reference
    # must not change between runs or releases (no salt, no clock, no count).
    assert REF == "a1e87a5406930af7"
    assert message_ref(MESSAGE_ID) == message_ref(MESSAGE_ID)
    # White space around a Message-ID (a folded header leaves some) is no part of it.
    assert message_ref(f" {MESSAGE_ID}\r\n") == REF


@pytest.mark.parametrize(
    "other",
    [
        "<sb.3f9a1c0d5e7b2a4c6d8e0f13@example.org>",
        "sb.3f9a1c0d5e7b2a4c6d8e0f12@example.org",
        "<SB.3F9A1C0D5E7B2A4C6D8E0F12@example.org>",
        "<sb.3f9a1c0d5e7b2a4c6d8e0f12@example.net>",
        "",
    ],
)
def test_message_ref_differs_for_another_message_id(other: str) -> None:
    assert message_ref(other) != REF


@SETTINGS
@given(first=st.text(), second=st.text())
def test_different_message_ids_have_different_refs(first: str, second: str) -> None:
    assume(first.strip() != second.strip())
    assert re.fullmatch(r"[0-9a-f]{16}", message_ref(first))
    assert message_ref(first) != message_ref(second)


def test_message_ref_of_a_lone_surrogate_does_not_raise() -> None:
    assert re.fullmatch(r"[0-9a-f]{16}", message_ref("<\udcff@example.org>"))


def test_the_address_is_the_game_address_with_the_token_as_a_sub_address() -> None:
    address = bounce_address(GAME, SECRET, REF, "kate@example.net")
    assert address == (f"nomic+bounce-{REF}-{expected_mac(SECRET, REF, 'kate@example.net')}"
                       "@example.org")
    assert re.fullmatch(rf"nomic\+bounce-{REF}-[0-9a-f]{{20}}@example\.org", address)


def test_the_mac_is_of_the_recipients_canonical_form() -> None:
    assert bounce_address(GAME, SECRET, REF, " Kate@EXAMPLE.net ") == bounce_address(
        GAME, SECRET, REF, "kate@example.net"
    )
    assert bounce_address(GAME, SECRET, REF, "kate@example.net").endswith(
        f"-{expected_mac(SECRET, REF, 'kate@example.net')}@example.org"
    )


def test_the_mac_covers_the_message() -> None:
    mine = bounce_address(GAME, SECRET, REF, "kate@example.net")
    other = bounce_address(GAME, SECRET, OTHER_REF, "kate@example.net")
    assert mine.split("-")[2] != other.split("-")[2]


@pytest.mark.parametrize(
    ("game", "expected_start"),
    [
        ("nomic@example.org", "nomic+bounce-"),
        ("Nomic@Example.ORG", "nomic+bounce-"),
        ("<nomic@example.org>", "nomic+bounce-"),
        ("nomic+speaker@example.org", "nomic+bounce-"),
        ("nomic+a+b@example.org", "nomic+bounce-"),
    ],
)
def test_the_base_is_the_local_part_up_to_its_first_plus(game: str, expected_start: str) -> None:
    address = bounce_address(game, SECRET, REF, "kate@example.net")
    assert address.startswith(expected_start)
    assert address.endswith("@example.org")
    assert token_of(address, game) == address[len(expected_start) : -len("@example.org")]


@pytest.mark.parametrize(
    ("game", "secret", "ref"),
    [
        ("not an address", SECRET, REF),
        ("nomic@", SECRET, REF),
        (GAME, "", REF),
        (GAME, SECRET, REF[:-1]),  # 15 digits
        (GAME, SECRET, REF + "0"),  # 17 digits
        (GAME, SECRET, ""),
        (GAME, SECRET, "42"),  # an outbox row id, as tokens once held
        (GAME, SECRET, "0" * 15 + "A"),  # upper case: servers lowercase local parts
        (GAME, SECRET, REF.upper()),
        (GAME, SECRET, "0" * 15 + "g"),  # not hex
        (GAME, SECRET, "0" * 15 + "-"),
        (GAME, SECRET, "0" * 15 + "\n"),
        (GAME, SECRET, REF + "\n"),
        (GAME, SECRET, f" {REF}"),
        (GAME, SECRET, "０" * 16),  # fullwidth digits are digits, but not hex digits
        (GAME, SECRET, "٤" * 16),  # Arabic-Indic digits, likewise
        (GAME, SECRET, MESSAGE_ID),  # the Message-ID itself, not its reference
    ],
)
def test_a_bounce_address_refuses_what_could_not_work(game: str, secret: str, ref: str) -> None:
    with pytest.raises(ValueError):
        bounce_address(game, secret, ref, "kate@example.net")


@pytest.mark.parametrize("ref", ["0" * 16, "f" * 16])
def test_the_smallest_and_largest_refs_make_tokens(ref: str) -> None:
    address = bounce_address(GAME, SECRET, ref, "kate@example.net")
    token = token_of(address, GAME)
    assert token is not None
    assert token.startswith(f"{ref}-")
    assert recipient_of(SECRET, token, ["kate@example.net"]) == (ref, "kate@example.net")


TOKEN = f"{REF}-{expected_mac(SECRET, REF, 'kate@example.net')}"
MAC = TOKEN[REF_DIGITS + 1 :]


@pytest.mark.parametrize(
    ("address", "game", "expected"),
    [
        (f"nomic+bounce-{TOKEN}@example.org", GAME, TOKEN),
        (f"<nomic+bounce-{TOKEN}@example.org>", GAME, TOKEN),
        (f"  <nomic+bounce-{TOKEN}@example.org>  ", GAME, TOKEN),
        (f"NOMIC+BOUNCE-{TOKEN.upper()}@EXAMPLE.ORG", GAME, TOKEN),
        (f"nomic+bounce-{TOKEN}@example.org", "NOMIC@Example.Org", TOKEN),
        (f"nomic+bounce-{TOKEN}@example.org", "nomic+speaker@example.org", TOKEN),
        (f"nomic+bounce-{TOKEN}@example.org.", GAME, None),
        (f"nomic+bounce-{TOKEN}@mail.example.org", GAME, None),
        (f"other+bounce-{TOKEN}@example.org", GAME, None),
        (f"nomic+speaker+bounce-{TOKEN}@example.org", "nomic+speaker@example.org", None),
        (f"nomicx+bounce-{TOKEN}@example.org", GAME, None),
        (f"nomic+bounced-{TOKEN}@example.org", GAME, None),
        ("nomic@example.org", GAME, None),
        ("nomic+bounce-@example.org", GAME, None),
        (f"nomic+bounce-{REF}@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN}0@example.org", GAME, None),
        (f"nomic+bounce-0{TOKEN}@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN[1:]}@example.org", GAME, None),  # a 15-digit ref
        (f"nomic+bounce-42-{MAC}@example.org", GAME, None),  # a row id, as tokens once held
        (f"nomic+bounce-{REF[:-1]}g-{MAC}@example.org", GAME, None),
        (f"nomic+bounce--{TOKEN}@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN[:-1]}g@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN}@example.org", "not a game address", None),
        (f"Speaker <nomic+bounce-{TOKEN}@example.org>", GAME, None),
        ("", GAME, None),
    ],
)
def test_token_of(address: str, game: str, expected: str | None) -> None:
    assert token_of(address, game) == expected


def test_the_token_names_the_message_and_the_recipient_as_the_caller_gave_it() -> None:
    candidates = ["bob@example.net", "Kate@Example.NET", "kate@example.net"]
    assert recipient_of(SECRET, TOKEN, candidates) == (REF, "Kate@Example.NET")
    assert recipient_of(SECRET, TOKEN, iter(["kate@example.net"])) == (REF, "kate@example.net")


@pytest.mark.parametrize(
    ("secret", "token", "candidates"),
    [
        (SECRET, TOKEN, []),
        (SECRET, TOKEN, ["bob@example.net"]),
        ("another-secret", TOKEN, ["kate@example.net"]),
        ("", TOKEN, ["kate@example.net"]),
        (SECRET, f"{OTHER_REF}-{MAC}", ["kate@example.net"]),  # a forged ref, a genuine MAC
        (SECRET, f"{REF[:-1]}{'1' if REF[-1] != '1' else '2'}-{MAC}", ["kate@example.net"]),
        (SECRET, f"{'0' * 16}-{MAC}", ["kate@example.net"]),
        (SECRET, f"{'f' * 16}-{MAC}", ["kate@example.net"]),
        (SECRET, TOKEN.upper(), ["kate@example.net"]),
        (SECRET, f"{REF.upper()}-{MAC}", ["kate@example.net"]),
        (SECRET, f"0{TOKEN}", ["kate@example.net"]),
        (SECRET, TOKEN[1:], ["kate@example.net"]),
        (SECRET, f"42-{MAC}", ["kate@example.net"]),
        (SECRET, f"{MESSAGE_ID}-{MAC}", ["kate@example.net"]),
        (SECRET, f"{TOKEN}\n", ["kate@example.net"]),
        (SECRET, f" {TOKEN}", ["kate@example.net"]),
        (SECRET, TOKEN[:-1], ["kate@example.net"]),
        (SECRET, TOKEN.replace("-", "+"), ["kate@example.net"]),
        (SECRET, "٤٢" + TOKEN[2:], ["kate@example.net"]),  # Arabic-Indic digits
        (SECRET, "０" * 16 + f"-{MAC}", ["kate@example.net"]),  # fullwidth digits
        (SECRET, "", ["kate@example.net"]),
        (SECRET, "-", ["kate@example.net"]),
        (SECRET, "9" * 5000 + TOKEN[REF_DIGITS:], ["kate@example.net"]),
        (SECRET, "\udcff", ["kate@example.net"]),
        ("\udcff", TOKEN, ["kate@example.net", "\udcff@example.net"]),
    ],
)
def test_a_token_that_does_not_match_names_nobody(
    secret: str, token: str, candidates: list[str]
) -> None:
    assert recipient_of(secret, token, candidates) is None


recipients = st.one_of(
    st.emails(),
    st.text(min_size=1, max_size=60),
    st.builds(lambda s: s + "@example.net", st.text(min_size=1, max_size=20)),
)
refs = st.one_of(
    st.binary(min_size=8, max_size=8).map(bytes.hex),
    st.sampled_from(["0" * 16, "f" * 16]),
    st.text().map(message_ref),
)
secrets = st.text(min_size=1, max_size=40)


@SETTINGS
@given(secret=secrets, ref=refs, recipient=recipients, others=st.lists(recipients, max_size=5))
def test_a_token_round_trips(secret: str, ref: str, recipient: str, others: list[str]) -> None:
    others = [other for other in others if as_compared(other) != as_compared(recipient)]
    address = bounce_address(GAME, secret, ref, recipient)
    token = token_of(address, GAME)
    assert token is not None
    assert re.fullmatch(TOKEN_SHAPE, token)
    assert recipient_of(secret, token, [*others, recipient]) == (ref, recipient)
    assert token_of(address.upper(), GAME) == token


@SETTINGS
@given(secret=secrets, ref=refs, recipient=recipients, data=st.data())
def test_changing_any_character_of_a_token_names_nobody(
    secret: str, ref: str, recipient: str, data: st.DataObject
) -> None:
    token = token_of(bounce_address(GAME, secret, ref, recipient), GAME)
    assert token is not None
    where = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    replacement = data.draw(st.characters() | st.sampled_from("0123456789abcdef-"))
    assume(replacement != token[where])
    changed = token[:where] + replacement + token[where + 1 :]
    assert recipient_of(secret, changed, [recipient]) is None


@SETTINGS
@given(secret=secrets, ref=refs, other_ref=refs, recipient=recipients)
def test_a_token_never_names_the_recipient_of_another_message(
    secret: str, ref: str, other_ref: str, recipient: str
) -> None:
    assume(ref != other_ref)
    token = token_of(bounce_address(GAME, secret, ref, recipient), GAME)
    assert token is not None
    forged = f"{other_ref}{token[REF_DIGITS:]}"
    assert recipient_of(secret, forged, [recipient]) is None


@SETTINGS
@given(secret=secrets, ref=refs, recipient=recipients, others=st.lists(recipients))
def test_a_token_never_names_a_recipient_it_was_not_made_for(
    secret: str, ref: str, recipient: str, others: list[str]
) -> None:
    others = [other for other in others if as_compared(other) != as_compared(recipient)]
    token = token_of(bounce_address(GAME, secret, ref, recipient), GAME)
    assert token is not None
    assert recipient_of(secret, token, others) is None


@SETTINGS
@given(token=st.text(), candidates=st.lists(st.text(), max_size=3), secret=st.text())
def test_recipient_of_never_raises(token: str, candidates: list[str], secret: str) -> None:
    found = recipient_of(secret, token, candidates)
    assert found is None or (found[1] in candidates and found[0] == token[:REF_DIGITS])


@SETTINGS
@given(address=st.text(), game=st.text() | st.just(GAME))
def test_token_of_never_raises(address: str, game: str) -> None:
    token = token_of(address, game)
    assert token is None or re.fullmatch(TOKEN_SHAPE, token)



@pytest.mark.parametrize("game", ["nomic@example.org", "nomic+camford@example.org",
                                  "Nomic+Camford@Example.org"])
def test_a_bounce_address_is_routed_to_its_game(game: str, tmp_path: Path) -> None:
    # The LMTP listener takes only what routes_to_game accepts: a game whose address has
    # a +tag gets its bounces at the base's +bounce- address, which must come to it.
    settings = dataclasses.replace(make_settings(tmp_path, "nomicam").game,
                                   address=game.lower())
    address = bounce_address(game, SECRET, "0" * REF_DIGITS, "olive@example.org")
    assert routes_to_game(address, settings)
    assert not routes_to_game("nomic+bounce@example.net", settings)
