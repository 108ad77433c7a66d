"""VERP return paths: the address for a message and recipient, its token, and who it names."""

from __future__ import annotations

import hashlib
import hmac
import os
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from speakerbot.addresses import as_compared
from speakerbot.mail.verp import MAC_DIGITS, bounce_address, recipient_of, token_of

GAME = "nomic@example.org"
SECRET = "test-secret"
SETTINGS = settings(
    max_examples=int(os.environ.get("SPEAKERBOT_FUZZ_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=not os.environ.get("SPEAKERBOT_FUZZ_RANDOM"),
)


def expected_mac(secret: str, row_id: int, recipient: str) -> str:
    """The MAC as the issue specifies it, written out independently of verp.py."""
    message = f"bounce\n{row_id}\n{recipient}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:20]


def test_the_address_is_the_game_address_with_the_token_as_a_sub_address() -> None:
    address = bounce_address(GAME, SECRET, 42, "kate@example.net")
    assert address == f"nomic+bounce-42-{expected_mac(SECRET, 42, 'kate@example.net')}@example.org"
    assert re.fullmatch(r"nomic\+bounce-42-[0-9a-f]{20}@example\.org", address)


def test_the_mac_is_of_the_recipients_canonical_form() -> None:
    assert bounce_address(GAME, SECRET, 7, " Kate@EXAMPLE.net ") == bounce_address(
        GAME, SECRET, 7, "kate@example.net"
    )
    assert bounce_address(GAME, SECRET, 7, "kate@example.net").endswith(
        f"-{expected_mac(SECRET, 7, 'kate@example.net')}@example.org"
    )


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
    address = bounce_address(game, SECRET, 3, "kate@example.net")
    assert address.startswith(expected_start)
    assert address.endswith("@example.org")
    assert token_of(address, game) == address[len(expected_start) : -len("@example.org")]


@pytest.mark.parametrize(
    ("game", "secret", "row_id"),
    [
        ("not an address", SECRET, 1),
        ("nomic@", SECRET, 1),
        (GAME, "", 1),
        (GAME, SECRET, -1),
        (GAME, SECRET, 10**19),
    ],
)
def test_a_bounce_address_refuses_what_could_not_work(game: str, secret: str, row_id: int) -> None:
    with pytest.raises(ValueError):
        bounce_address(game, secret, row_id, "kate@example.net")


def test_the_largest_row_id_still_makes_a_token() -> None:
    address = bounce_address(GAME, SECRET, 10**19 - 1, "kate@example.net")
    token = token_of(address, GAME)
    assert token is not None
    assert recipient_of(SECRET, token, ["kate@example.net"]) == (10**19 - 1, "kate@example.net")


TOKEN = f"42-{expected_mac(SECRET, 42, 'kate@example.net')}"


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
        ("nomic+bounce-42@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN}0@example.org", GAME, None),
        (f"nomic+bounce-0{TOKEN}@example.org", GAME, None),
        (f"nomic+bounce--{TOKEN}@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN[:-1]}g@example.org", GAME, None),
        (f"nomic+bounce-{TOKEN}@example.org", "not a game address", None),
        (f"Speaker <nomic+bounce-{TOKEN}@example.org>", GAME, None),
        ("", GAME, None),
    ],
)
def test_token_of(address: str, game: str, expected: str | None) -> None:
    assert token_of(address, game) == expected


def test_the_token_names_the_row_and_the_recipient_as_the_caller_gave_it() -> None:
    candidates = ["bob@example.net", "Kate@Example.NET", "kate@example.net"]
    assert recipient_of(SECRET, TOKEN, candidates) == (42, "Kate@Example.NET")
    assert recipient_of(SECRET, TOKEN, iter(["kate@example.net"])) == (42, "kate@example.net")


@pytest.mark.parametrize(
    ("secret", "token", "candidates"),
    [
        (SECRET, TOKEN, []),
        (SECRET, TOKEN, ["bob@example.net"]),
        ("another-secret", TOKEN, ["kate@example.net"]),
        ("", TOKEN, ["kate@example.net"]),
        (SECRET, f"43-{TOKEN[3:]}", ["kate@example.net"]),
        (SECRET, TOKEN.upper(), ["kate@example.net"]),
        (SECRET, f"042-{TOKEN[3:]}", ["kate@example.net"]),
        (SECRET, f"{TOKEN}\n", ["kate@example.net"]),
        (SECRET, f" {TOKEN}", ["kate@example.net"]),
        (SECRET, TOKEN[:-1], ["kate@example.net"]),
        (SECRET, TOKEN.replace("-", "+"), ["kate@example.net"]),
        (SECRET, "٤٢" + TOKEN[2:], ["kate@example.net"]),  # Arabic-Indic digits
        (SECRET, "", ["kate@example.net"]),
        (SECRET, "-", ["kate@example.net"]),
        (SECRET, "9" * 5000 + TOKEN[2:], ["kate@example.net"]),
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
row_ids = st.integers(min_value=0, max_value=10**19 - 1)
secrets = st.text(min_size=1, max_size=40)


@SETTINGS
@given(secret=secrets, row_id=row_ids, recipient=recipients,
       others=st.lists(recipients, max_size=5))
def test_a_token_round_trips(secret: str, row_id: int, recipient: str, others: list[str]) -> None:
    others = [other for other in others if as_compared(other) != as_compared(recipient)]
    address = bounce_address(GAME, secret, row_id, recipient)
    token = token_of(address, GAME)
    assert token is not None
    assert re.fullmatch(rf"[0-9]+-[0-9a-f]{{{MAC_DIGITS}}}", token)
    assert recipient_of(secret, token, [*others, recipient]) == (row_id, recipient)
    assert token_of(address.upper(), GAME) == token


@SETTINGS
@given(secret=secrets, row_id=row_ids, recipient=recipients, data=st.data())
def test_changing_any_character_of_a_token_names_nobody(
    secret: str, row_id: int, recipient: str, data: st.DataObject
) -> None:
    token = token_of(bounce_address(GAME, secret, row_id, recipient), GAME)
    assert token is not None
    where = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    replacement = data.draw(st.characters() | st.sampled_from("0123456789abcdef-"))
    assume(replacement != token[where])
    changed = token[:where] + replacement + token[where + 1 :]
    assert recipient_of(secret, changed, [recipient]) is None


@SETTINGS
@given(secret=secrets, row_id=row_ids, recipient=recipients, others=st.lists(recipients))
def test_a_token_never_names_a_recipient_it_was_not_made_for(
    secret: str, row_id: int, recipient: str, others: list[str]
) -> None:
    others = [other for other in others if as_compared(other) != as_compared(recipient)]
    token = token_of(bounce_address(GAME, secret, row_id, recipient), GAME)
    assert token is not None
    assert recipient_of(secret, token, others) is None


@SETTINGS
@given(token=st.text(), candidates=st.lists(st.text(), max_size=3), secret=st.text())
def test_recipient_of_never_raises(token: str, candidates: list[str], secret: str) -> None:
    found = recipient_of(secret, token, candidates)
    assert found is None or found[1] in candidates


@SETTINGS
@given(address=st.text(), game=st.text() | st.just(GAME))
def test_token_of_never_raises(address: str, game: str) -> None:
    token = token_of(address, game)
    assert token is None or re.fullmatch(rf"[0-9]+-[0-9a-f]{{{MAC_DIGITS}}}", token)
