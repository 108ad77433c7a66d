"""Whose mail is believed, tried through the real chain (docs/security.md).

Genuine mail goes through the players' provider, which signs it; forged mail goes
straight to the game's receiving server, as a forger's own server sends it. Every forged
or altered message is a vote in Bob's name, who never votes himself: it must be held for
a confirmation and his ballot stay empty.
"""

from __future__ import annotations

import pytest

from tests.chain.game import ALICE, BOB, NORA
from tests.chain.harness import MailChain, authentication_results, compose
from tests.chain.zones import AUTHSERV_ID, WRONG_KEY
from tests.support.patience import patience

pytestmark = pytest.mark.integration

FORGED = "dkim=pass header.d=players.test header.s=s1; dmarc=pass header.from=players.test"


def _vote(chain: MailChain) -> str:
    return f"VOTE {chain.proposal} FOR\n"


def _trusted(raw: bytes) -> list[str]:
    """The Authentication-Results headers written under the game's authserv-id."""
    return [h for h in authentication_results(raw) if h.split(";")[0].strip() == AUTHSERV_ID]


def _assert_held(chain: MailChain, message_id: str, voter: str = BOB) -> bytes:
    row = chain.game.wait_handled(message_id)
    assert row.status == "held" and row.authenticated is False, chain.failure(message_id)
    assert chain.game.ballot(chain.proposal, voter) is None, chain.failure(message_id)
    return row.raw


def test_the_chain_starts_within_five_seconds(mail_chain: MailChain) -> None:
    assert mail_chain.chain.started_in < patience(5)


def test_a_signed_aligned_vote_acts_at_once(mail_chain: MailChain) -> None:
    message_id = mail_chain.send_signed(compose(ALICE, _vote(mail_chain)),
                                        "players.test")
    row = mail_chain.game.wait_handled(message_id)
    assert row.status == "processed" and row.authenticated, mail_chain.failure(message_id)
    assert mail_chain.game.ballot(mail_chain.proposal, ALICE) == "FOR"
    # The verdict speakerbot read is the receiving server's DMARC pass, on top.
    assert _trusted(row.raw)[0].startswith(f"{AUTHSERV_ID}; dmarc=pass")


def test_unsigned_mail_is_held(mail_chain: MailChain) -> None:
    message_id = mail_chain.send_direct(compose(BOB, _vote(mail_chain)), BOB)
    raw = _assert_held(mail_chain, message_id)
    assert "dmarc=fail" in _trusted(raw)[0]


def test_a_signature_with_the_wrong_key_is_held(mail_chain: MailChain) -> None:
    # Signed as players.test, selector s1, with a key that is not the one published.
    message_id = mail_chain.send_signed(compose(BOB, _vote(mail_chain)), WRONG_KEY)
    raw = _assert_held(mail_chain, message_id)
    assert any("dkim=fail" in h and "header.d=players.test" in h for h in _trusted(raw))


def test_a_signature_by_another_domain_is_held(mail_chain: MailChain) -> None:
    message_id = mail_chain.send_signed(compose(BOB, _vote(mail_chain)), "other.test")
    raw = _assert_held(mail_chain, message_id)
    # The signature is genuine, but other.test vouches for nobody at players.test.
    assert any("dkim=pass" in h and "header.d=other.test" in h for h in _trusted(raw))


@pytest.mark.parametrize("authserv_id", [
    AUTHSERV_ID,  # the game's own id: OpenDKIM removes it (RemoveARFrom, RemoveARAll)
    AUTHSERV_ID.upper(),  # another case
    f"{AUTHSERV_ID}.",  # a trailing dot: OpenDKIM leaves it, speakerbot trusts it not
    f"{AUTHSERV_ID} (a comment)",  # a comment, which speakerbot skips
    f"{AUTHSERV_ID}.evil.test",  # a suffix
    f"{AUTHSERV_ID}/4F2A1",  # a job id after it (AuthservIDWithJobID)
    f"evil.{AUTHSERV_ID}",  # a prefix
    f"{AUTHSERV_ID[:-1]}",  # a letter short
])
def test_a_forged_authentication_results_header_is_held(mail_chain: MailChain,
                                                       authserv_id: str) -> None:
    forged = compose(BOB, _vote(mail_chain),
                     headers=[("Authentication-Results", f"{authserv_id}; {FORGED}")])
    message_id = mail_chain.send_direct(forged, BOB)
    raw = _assert_held(mail_chain, message_id)
    # Whatever survived, the topmost header with the game's id is the server's own.
    assert "dmarc=fail" in _trusted(raw)[0], mail_chain.failure(message_id)


def test_forged_headers_with_the_games_id_are_all_removed(mail_chain: MailChain) -> None:
    # Two of them: OpenDKIM before the fix of CVE-2022-48521 removed the wrong ones.
    forged = compose(BOB, _vote(mail_chain), headers=[
        ("Authentication-Results", f"{AUTHSERV_ID}; {FORGED}"),
        ("Authentication-Results", f"{AUTHSERV_ID.upper()}; {FORGED}")])
    message_id = mail_chain.send_direct(forged, BOB)
    raw = _assert_held(mail_chain, message_id)
    assert not any("header.d=players.test" in h for h in authentication_results(raw)), \
        mail_chain.failure(message_id)


FOOTER = b"-- \r\nThe players' list: https://list.test/\r\n"
LIST_BOUNCES = "players-bounces@list.test"


def test_a_list_passing_mail_on_unchanged_keeps_it_authenticated(
        mail_chain: MailChain) -> None:
    # The control for the two below: the list's own hop breaks nothing by itself.
    received = mail_chain.through_list(compose(ALICE, _vote(mail_chain)), "players.test")
    message_id = mail_chain.send_direct(received, LIST_BOUNCES)
    row = mail_chain.game.wait_handled(message_id)
    assert row.status == "processed" and row.authenticated, mail_chain.failure(message_id)


def test_a_list_footer_added_after_signing_is_held(mail_chain: MailChain) -> None:
    # Bob's genuine, signed vote, to which the list adds its footer on the way.
    received = mail_chain.through_list(compose(BOB, _vote(mail_chain)), "players.test")
    message_id = mail_chain.send_direct(received + FOOTER, LIST_BOUNCES)
    raw = _assert_held(mail_chain, message_id)
    assert any("dkim=fail" in h and "header.d=players.test" in h for h in _trusted(raw))


def test_list_re_signed_mail_is_held(mail_chain: MailChain) -> None:
    received = mail_chain.through_list(compose(BOB, _vote(mail_chain)), "players.test")
    # The list signs what it sends on as list.test: genuine, but not Bob's domain.
    message_id = mail_chain.send_signed(received + FOOTER, "list.test", sender=LIST_BOUNCES)
    raw = _assert_held(mail_chain, message_id)
    assert any("dkim=pass" in h and "header.d=list.test" in h for h in _trusted(raw))
    assert any("dkim=fail" in h and "header.d=players.test" in h for h in _trusted(raw))


def test_a_signed_player_whose_domain_has_no_dmarc_record_confirms_by_code(
        mail_chain: MailChain) -> None:
    # README: behind OpenDMARC, the verdict on top is dmarc=none and the aligned
    # dkim=pass in OpenDKIM's header below it is not read: such players confirm.
    message_id = mail_chain.send_signed(compose(NORA, _vote(mail_chain)),
                                        "nodmarc.test")
    raw = _assert_held(mail_chain, message_id, voter=NORA)
    trusted = _trusted(raw)
    assert trusted[0].startswith(f"{AUTHSERV_ID}; dmarc=none"), mail_chain.failure(message_id)
    assert any("dkim=pass" in h and "header.d=nodmarc.test" in h for h in trusted[1:])
    request = mail_chain.sink.wait_for(lambda m: NORA in m.rcpt_tos and b"CONFIRM" in m.data,
                                       patience(20))
    assert b"VOTE" in request.data
