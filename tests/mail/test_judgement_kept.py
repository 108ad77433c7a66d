"""The trusted Authentication-Results header's judgement is kept for the next message.

The receiving server writes the same verdict for every message of a domain (OpenDMARC's
``dmarc=pass (p=none dis=none) header.from=...``), so its judgement is kept (1,024 of
them); it is the same judgement, for the same From domain only; and a header longer than
any a server writes is judged afresh every time, never kept.
"""

from __future__ import annotations

from speakerbot.mail.inbound import authentication
from speakerbot.mail.inbound.authentication import AuthPolicy, authenticate

POLICY = AuthPolicy("dmarc", ("mx.example.org",))
DMARC = "mx.example.org; dmarc=pass (p=none dis=none) header.from=example.org"


def test_the_same_header_is_judged_the_same_and_kept() -> None:
    first = authenticate("alice@example.org", [DMARC], POLICY)
    hits = authentication._kept_judgement.cache_info().hits
    again = authenticate("bob@example.org", [DMARC], POLICY)
    assert first == again
    assert (again.authenticated, again.by) == (True, "dmarc")
    assert authentication._kept_judgement.cache_info().hits == hits + 1


def test_a_kept_judgement_holds_for_its_own_from_domain_only() -> None:
    assert authenticate("alice@example.org", [DMARC], POLICY).authenticated
    other = authenticate("mallory@evil.example", [DMARC], POLICY)
    assert not other.authenticated
    assert "evil.example" in other.why


def test_a_header_too_long_to_be_real_is_judged_afresh_and_never_kept() -> None:
    before = authentication._kept_judgement.cache_info()
    for n in range(3):
        value = f"{DMARC} (" + "x" * 2000 + f"{n})"
        assert authenticate("alice@example.org", [value], POLICY).authenticated
    after = authentication._kept_judgement.cache_info()
    assert (after.hits, after.misses, after.currsize) == (before.hits, before.misses,
                                                          before.currsize)
