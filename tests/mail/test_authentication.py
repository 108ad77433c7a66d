"""Which Authentication-Results header is believed, and what it must say.

``authenticate`` believes only the topmost header written under a configured authserv-id
(the game's own receiving server); anything below it and anything under another id may have
been written by the sender. That header must report ``dmarc=pass`` for the From domain, or
``dkim=pass`` signed by the From domain or a parent of it that is not a public suffix.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.mail.inbound.authentication import Authentication, AuthPolicy, authenticate

MX = "mx.example.org"
POLICY = AuthPolicy("dmarc", (MX,))
SENDER = "chuck@example.org"

PASS = f"{MX}; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"
FAIL = f"{MX}; dkim=fail header.d=example.org; dmarc=fail header.from=example.org"
FORGED_PASS = PASS  # the same text, written by the sender below the receiving server's header


@dataclass(frozen=True)
class Case:
    sender: str | None
    results: tuple[str, ...]
    by: str | None  # "dmarc", "dkim" or None: not authenticated


def dkim(domain: str, sender: str = SENDER) -> Case:
    return Case(sender, (f"{MX}; dkim=pass header.d={domain}",), None)


CASES: dict[str, Case] = {
    # --- dmarc
    "dmarc pass for the From domain": Case(
        SENDER, (f"{MX}; dmarc=pass header.from=example.org",), "dmarc"),
    "dmarc pass, header.from in another case with a root dot": Case(
        SENDER, (f"{MX}; dmarc=pass header.from=EXAMPLE.Org.",), "dmarc"),
    "dmarc pass with a comment": Case(
        SENDER, (f"{MX}; dmarc=pass (p=reject dis=none) header.from=example.org",), "dmarc"),
    "dmarc pass for another domain": Case(
        SENDER, (f"{MX}; dmarc=pass header.from=example.net",), None),
    "dmarc pass for a child of the From domain": Case(
        SENDER, (f"{MX}; dmarc=pass header.from=mail.example.org",), None),
    "dmarc pass for the From domain as a prefix": Case(
        SENDER, (f"{MX}; dmarc=pass header.from=example.org.evil.example",), None),
    "dmarc pass without header.from": Case(SENDER, (f"{MX}; dmarc=pass",), None),
    "dmarc pass naming the domain only in smtp.mailfrom": Case(
        SENDER, (f"{MX}; dmarc=pass smtp.mailfrom=example.org",), None),
    "dmarc fail": Case(SENDER, (f"{MX}; dmarc=fail header.from=example.org",), None),
    "dmarc none": Case(SENDER, (f"{MX}; dmarc=none header.from=example.org",), None),
    "dmarc fail with dkim fail": Case(SENDER, (FAIL,), None),
    # --- dkim
    "dkim pass by the From domain": Case(
        SENDER, (f"{MX}; dkim=pass header.d=example.org",), "dkim"),
    "dkim pass by a parent of the From domain": Case(
        "a@mail.example.co.uk", (f"{MX}; dkim=pass header.d=example.co.uk",), "dkim"),
    "dkim pass by the From domain under a public suffix host": Case(
        "a@someone.github.io", (f"{MX}; dkim=pass header.d=someone.github.io",), "dkim"),
    "dkim pass, method and result in capitals": Case(
        SENDER, (f"{MX}; DKIM=PASS header.d=Example.ORG",), "dkim"),
    "dkim pass signed by co.uk": dkim("co.uk", "a@mail.example.co.uk"),
    "dkim pass signed by com": dkim("com", "a@example.com"),
    "dkim pass signed by github.io": dkim("github.io", "a@someone.github.io"),
    "dkim pass signed by uk": dkim("uk", "a@example.co.uk"),
    "dkim pass signed by another domain": dkim("evil.example"),
    "dkim pass signed by a sibling": dkim("other.example.org", "a@mail.example.org"),
    "dkim pass signed by a child": dkim("mail.example.org"),
    "dkim pass signed by a suffix that is no parent": dkim("xample.org"),
    "dkim pass signed by the domain with a prefix": dkim("myexample.org"),
    # Gmail names the signer only as header.i: its domain counts when header.d is absent.
    "dkim pass with only header.i": Case(SENDER, (f"{MX}; dkim=pass header.i=@example.org",),
                                         "dkim"),
    "dkim pass with only header.i of another domain": Case(
        SENDER, (f"{MX}; dkim=pass header.i=@evil.example",), None),
    "dkim pass with only header.i of a public suffix": Case(
        "a@example.co.uk", (f"{MX}; dkim=pass header.i=@co.uk",), None),
    "dkim pass, header.d wins over an aligned header.i": Case(
        SENDER, (f"{MX}; dkim=pass header.d=evil.example header.i=@example.org",), None),
    "dkim pass with the domain only in a comment": Case(
        SENDER, (f"{MX}; dkim=pass (header.d=example.org) header.d=evil.example",), None),
    "dkim fail by the From domain": Case(SENDER, (f"{MX}; dkim=fail header.d=example.org",),
                                         None),
    "dkim neutral by the From domain": Case(
        SENDER, (f"{MX}; dkim=neutral header.d=example.org",), None),
    "a failure that quotes a pass in its reason": Case(
        SENDER, (f'{MX}; dkim=fail reason="dkim=pass header.d=example.org" '
                 "header.d=evil.example",), None),
    "spf pass alone": Case(SENDER, (f"{MX}; spf=pass smtp.mailfrom=example.org",), None),
    "no results": Case(SENDER, (f"{MX}; none",), None),
    "no header at all": Case(SENDER, (), None),
    # --- which header is read
    "a forged pass below the trusted failure": Case(SENDER, (FAIL, FORGED_PASS), None),
    "a forged pass below a trusted header with no results": Case(
        SENDER, (f"{MX}; none", FORGED_PASS), None),
    "a pass under an untrusted id above the trusted failure": Case(
        SENDER, ("evil.example; dkim=pass header.d=example.org; dmarc=pass "
                 "header.from=example.org", FAIL), None),
    "a pass under an untrusted id alone": Case(
        SENDER, ("evil.example; dmarc=pass header.from=example.org",), None),
    "a pass under a parent of the trusted id": Case(
        SENDER, ("example.org; dmarc=pass header.from=example.org",), None),
    "a pass under the trusted id with a suffix": Case(
        SENDER, (f"{MX}.evil.example; dmarc=pass header.from=example.org",), None),
    "a pass under the trusted id as a prefix": Case(
        SENDER, (f"x{MX}; dmarc=pass header.from=example.org",), None),
    "untrusted headers above the trusted pass are passed over": Case(
        SENDER, ("evil.example; dmarc=fail header.from=example.org", "junk", PASS), "dmarc"),
    "two trusted headers: the first passes": Case(SENDER, (PASS, FAIL), "dmarc"),
    "two trusted headers: the first fails": Case(SENDER, (FAIL, PASS), None),
    # --- how the authserv-id is written
    "the authserv-id in capitals": Case(
        SENDER, ("MX.Example.ORG; dmarc=pass header.from=example.org",), "dmarc"),
    "a pass under the trusted id with a trailing dot": Case(
        SENDER, (f"{MX}.; dmarc=pass header.from=example.org",), None),
    # Not the server's: authres cannot even read it, and it must not hide the real one.
    "a header under the id with a trailing dot is passed over": Case(
        SENDER, (f"{MX}.; dmarc=fail header.from=example.org", PASS), "dmarc"),
    "the authserv-id with a version": Case(
        SENDER, (f"{MX} 1; dkim=pass header.d=example.org",), "dkim"),
    "the authserv-id with a version and comments": Case(
        SENDER, (f"{MX} (Postfix) 1 (spam filter); dkim=pass (good signature) "
                 "header.d=example.org (ok)",), "dkim"),
    "the authserv-id with a comment after it": Case(
        SENDER, (f"{MX} (Postfix); dkim=pass header.d=example.org",), "dkim"),
    "the authserv-id with a comment before it": Case(
        SENDER, (f"(Postfix) {MX}; dkim=pass header.d=example.org",), "dkim"),
    "the authserv-id with a comment touching it": Case(
        SENDER, (f"{MX}(Postfix); dkim=pass header.d=example.org",), "dkim"),
    "the authserv-id with no space before the semicolon": Case(
        SENDER, (f"{MX};dmarc=pass header.from=example.org",), "dmarc"),
    "folded after the semicolon": Case(
        SENDER, (f"{MX};\r\n\tdkim=pass\r\n header.d=example.org",), "dkim"),
    "folded before the authserv-id": Case(
        SENDER, (f"\r\n {MX};\r\n dmarc=pass header.from=example.org",), "dmarc"),
    "folded between the id and its version": Case(
        SENDER, (f"{MX}\r\n 1; dkim=pass header.d=example.org",), "dkim"),
    "a failing header with a comment before the id, a forged pass below": Case(
        SENDER, (f"(Postfix) {MX}; dkim=fail header.d=example.org", FORGED_PASS), None),
    "a failing header with a comment touching the id, a forged pass below": Case(
        SENDER, (f"{MX}(Postfix); dkim=fail header.d=example.org", FORGED_PASS), None),
    # --- a trusted header that cannot be read
    "an unreadable trusted header": Case(
        SENDER, (f"{MX}; dkim=pass header.d=example.org; @@@",), None),
    "an unreadable trusted header over a forged pass": Case(
        SENDER, (f"{MX}; dkim=fail; @@@", FORGED_PASS), None),
    "an empty trusted header over a forged pass": Case(SENDER, (f"{MX}; ;;;", FORGED_PASS),
                                                       None),
    "an unknown version over a forged pass": Case(
        SENDER, (f"{MX} 2; dkim=pass header.d=example.org", FORGED_PASS), None),
    "a bare trusted id over a forged pass": Case(SENDER, (MX, FORGED_PASS), None),
    # --- the sender
    "no sender": Case(None, (PASS,), None),
    "an empty sender": Case("", (PASS,), None),
    "a sender without @": Case("example.org", (PASS,), None),
    "the sender's domain in capitals": Case("Chuck@EXAMPLE.ORG", (PASS,), "dmarc"),
}


@pytest.mark.parametrize("name", CASES)
def test_authenticate(name: str) -> None:
    case = CASES[name]
    verdict = authenticate(case.sender, case.results, POLICY)
    assert (verdict.authenticated, verdict.by) == (case.by is not None, case.by), verdict.why
    assert verdict.checked and verdict.why


def test_with_no_authserv_id_configured_nothing_is_authenticated() -> None:
    policy = AuthPolicy("dmarc", ())
    for results in ((PASS,), (PASS, PASS), ()):
        verdict = authenticate(SENDER, results, policy)
        assert not verdict.authenticated and verdict.by is None and verdict.checked


def test_several_authserv_ids_each_trusted_only_as_topmost() -> None:
    policy = AuthPolicy("dmarc", ("mx1.example.org", "MX2.example.org"))
    second = "mx2.example.org; dmarc=pass header.from=example.org"
    assert authenticate(SENDER, (second,), policy).by == "dmarc"
    assert authenticate(SENDER, ("mx1.example.org; dmarc=fail header.from=example.org",
                                 second), policy).by is None
    assert authenticate(SENDER, (PASS,), policy).by is None  # mx.example.org is not listed


def test_require_none_believes_the_from_header() -> None:
    policy = AuthPolicy("none", (MX,))
    for results in ((), (FAIL,), ("junk",)):
        verdict = authenticate(SENDER, results, policy)
        assert (verdict.checked, verdict.authenticated, verdict.by) == (True, True, "none")
    assert authenticate(SENDER, (), AuthPolicy("none")).by == "none"


# --- Properties ------------------------------------------------------------------------------

LABEL = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=8)
DOMAIN = st.lists(LABEL, min_size=1, max_size=4).map(".".join)


def _same_id(a: str, b: str) -> bool:
    return a.strip("<>").lower().rstrip(".") == b.strip("<>").lower().rstrip(".")


UNTRUSTED_ID = DOMAIN.filter(lambda name: not _same_id(name, MX))
TRUSTED_ID = st.sampled_from([MX, "MX.EXAMPLE.ORG", "Mx.Example.Org"])
RESULT = st.builds(
    "{}={} {}={}".format,
    st.sampled_from(["dkim", "dmarc", "spf", "arc", "DKIM"]),
    st.sampled_from(["pass", "fail", "none", "neutral", "PASS"]),
    st.sampled_from(["header.d", "header.from", "header.i", "smtp.mailfrom"]),
    st.one_of(st.sampled_from(["example.org", "example.co.uk", "co.uk", "org", "evil.example",
                               "mail.example.org", "@example.org"]), DOMAIN),
)
RESULTS = st.one_of(
    st.lists(RESULT, min_size=1, max_size=4).map("; ".join),
    st.just("none"),
    st.text(max_size=40),
)
SEPARATOR = st.sampled_from(["; ", ";", " 1; ", " (comment) 1; ", ";\r\n\t"])


def header(ident: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds("{}{}{}".format, ident, SEPARATOR, RESULTS)


ANY_HEADER = st.one_of(header(TRUSTED_ID), header(UNTRUSTED_ID), st.text(max_size=60))
SENDERS = st.one_of(
    st.none(), st.text(max_size=30), st.just(SENDER), st.just("a@mail.example.co.uk"),
    st.builds("{}@{}".format, LABEL, DOMAIN),
)
POLICIES = st.builds(
    AuthPolicy,
    st.sampled_from(["dmarc", "none"]),
    st.one_of(st.just((MX,)), st.just(()), st.lists(st.text(max_size=20), max_size=3).map(tuple)),
)


@settings(max_examples=400, deadline=None)
@given(sender=SENDERS, results=st.lists(st.one_of(ANY_HEADER, st.text()), max_size=5),
       policy=POLICIES)
def test_authenticate_never_raises(sender: str | None, results: list[str],
                                   policy: AuthPolicy) -> None:
    verdict = authenticate(sender, results, policy)
    assert isinstance(verdict, Authentication)
    assert verdict.authenticated == (verdict.by is not None)
    assert verdict.by in (None, "dmarc", "dkim", "none")


@settings(max_examples=300, deadline=None)
@given(sender=SENDERS, above=st.lists(header(UNTRUSTED_ID), max_size=3),
       trusted=header(TRUSTED_ID), below=st.lists(st.one_of(ANY_HEADER, st.text()), max_size=4))
def test_headers_below_the_topmost_trusted_one_never_change_the_verdict(
        sender: str | None, above: list[str], trusted: str, below: list[str]) -> None:
    alone = authenticate(sender, [*above, trusted], POLICY)
    assert authenticate(sender, [*above, trusted, *below], POLICY) == alone
    # And the untrusted headers above it count for nothing either.
    assert authenticate(sender, [trusted], POLICY) == alone


@settings(max_examples=300, deadline=None)
@given(sender=SENDERS, base=st.lists(ANY_HEADER, max_size=4), data=st.data())
def test_headers_under_untrusted_ids_never_change_the_verdict(
        sender: str | None, base: list[str], data: st.DataObject) -> None:
    expected = authenticate(sender, base, POLICY)
    extra = data.draw(st.lists(header(UNTRUSTED_ID), min_size=1, max_size=4))
    results = list(base)
    for item in extra:
        results.insert(data.draw(st.integers(0, len(results))), item)
    assert authenticate(sender, results, POLICY) == expected
