"""The canonical form of an address: ASCII case only, IDNA 2008 domains, nothing folded."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from speakerbot.addresses import as_compared, canonical_address, canonical_domain


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("kate@nomic.test", "kate@nomic.test"),
        ("  Kate@NOMIC.Test \n", "kate@nomic.test"),
        ("KATE+nomic@Mail.Nomic.TEST", "kate+nomic@mail.nomic.test"),
        # A non-ASCII local part is kept exactly, even its ASCII letters.
        ("\u212aate@nomic.test", "\u212aate@nomic.test"),
        ("K\u00e4the@Nomic.test", "K\u00e4the@nomic.test"),
        ("k\u00e4the@nomic.test", "k\u00e4the@nomic.test"),
        # An internationalized domain in its A-label form, however it was written.
        ("kate@m\u00fcnchen.test", "kate@xn--mnchen-3ya.test"),
        ("kate@XN--MNCHEN-3YA.test", "kate@xn--mnchen-3ya.test"),
        ("kate@xn--mnchen-3ya.test", "kate@xn--mnchen-3ya.test"),
    ],
)
def test_canonical_forms(written: str, canonical: str) -> None:
    assert canonical_address(written) == canonical


@pytest.mark.parametrize(
    "written",
    [
        "",
        "kate",
        "@nomic.test",
        "kate@",
        "ka te@nomic.test",
        "kate@nomic.\ntest",
        "ka\tte@nomic.test",
        "kate\u00a0@nomic.test",
        "ka\x00te@nomic.test",
        # Domains valid only after a Unicode mapping, or broken A-labels: refused, never
        # mapped to the look-alike.
        "kate@nomic.te\u212ast",
        "kate@M\u00dcNCHEN.test",
        "kate@nomic\u3002test",
        "kate@nomic\uff0etest",
        "kate@\uff4eomic.test",
        "kate@xn--abc.test",
        "kate@xn--kate-.test",
    ],
)
def test_refused(written: str) -> None:
    assert canonical_address(written) is None


def test_kept_as_written_is_never_a_canonical_address() -> None:
    assert as_compared(" Kate@Nomic.test ") == "kate@nomic.test"
    assert as_compared(" kate@nomic.te\u212ast ") == "kate@nomic.te\u212ast"
    assert canonical_address(as_compared("kate@nomic.te\u212ast")) is None


def test_domains() -> None:
    assert canonical_domain("Nomic.TEST") == "nomic.test"
    assert canonical_domain("b\u00fccher.example") == "xn--bcher-kva.example"
    assert canonical_domain("") is None
    assert canonical_domain("te\u212ast") is None


_ASCII_LOCAL = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789.+-_"), min_size=1, max_size=20)
_ANY_LOCAL = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="@"),
                     min_size=1, max_size=12)
_NON_ASCII_LOCAL = _ANY_LOCAL.filter(lambda text: not text.isascii())
_DOMAIN = st.sampled_from(["nomic.test", "NOMIC.test", "m\u00fcnchen.test",
                           "xn--mnchen-3ya.TEST", "nomic.te\u212ast", "a.b.c"])


@given(local=st.one_of(_ASCII_LOCAL, _ANY_LOCAL), domain=_DOMAIN)
def test_canonical_form_is_idempotent(local: str, domain: str) -> None:
    canonical = canonical_address(f"{local}@{domain}")
    if canonical is not None:
        assert canonical_address(canonical) == canonical
    assert canonical_address(as_compared(f"{local}@{domain}")) in (None, canonical)


@given(first=_NON_ASCII_LOCAL, second=st.one_of(_NON_ASCII_LOCAL, _ASCII_LOCAL),
       domain=_DOMAIN)
def test_different_non_ascii_local_parts_never_compare_equal(first: str, second: str,
                                                             domain: str) -> None:
    assume(first != second)
    one = canonical_address(f"{first}@{domain}")
    other = canonical_address(f"{second}@{domain}")
    assert one is None or one != other


_ASCII_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)


@given(local=_ASCII_LOCAL, domain=_DOMAIN)
def test_ascii_case_never_matters(local: str, domain: str) -> None:
    shouted = f"{local.upper()}@{domain.translate(_ASCII_UPPER)}"
    assert canonical_address(shouted) == canonical_address(f"{local.lower()}@{domain}")


@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
       | st.builds(lambda a, b: f"{a}@xn--{b}", st.text(max_size=5), st.text(max_size=12)))
def test_never_raises_and_gives_a_canonical_address_or_none(text: str) -> None:
    canonical = canonical_address(text)
    assert canonical is None or canonical_address(canonical) == canonical
