"""``speakerbot doctor``'s DNS verdicts: what each answer for the game's domain means."""

from __future__ import annotations

import pytest

from speakerbot.entrypoints.doctor.dns_records import (
    Answer,
    Failure,
    Query,
    dkim_finding,
    dkim_name,
    dmarc_finding,
    dmarc_names,
    mx_finding,
    spf_finding,
    tags,
)

DOMAIN = "nomic.example.org"
KEY = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest"


def answer(name: str, *records: str, failure: Failure | None = None,
           detail: str = "") -> Answer:
    return Answer(Query(name, "TXT"), tuple(records), failure, detail)


@pytest.mark.parametrize(("records", "failure", "level", "said"), [
    (("10 mx1.example.org.", "5 mx0.example.org."), None, "ok",
     "nomic.example.org: MX 5 mx0.example.org., 10 mx1.example.org."),
    ((), "nodata", "warning", "has no MX record"),
    (("0 .",), None, "fault", "null MX"),
    ((), "nxdomain", "fault", "does not exist in DNS"),
    ((), "timeout", "warning", "could not look up nomic.example.org (MX): no answer in time"),
    ((), "error", "warning", "could not look up"),
])
def test_mx(records: tuple[str, ...], failure: Failure | None, level: str, said: str) -> None:
    found = mx_finding(DOMAIN, Answer(Query(DOMAIN, "MX"), records, failure))
    assert (found.check, found.level) == ("dns.mx", level)
    assert said in found.message
    assert (found.fix is None) == (level == "ok")


@pytest.mark.parametrize(("records", "failure", "level", "said"), [
    (("v=spf1 mx -all", "google-site-verification=abc"), None, "ok", '"v=spf1 mx -all"'),
    (("V=SPF1 include:_spf.example.net ~all",), None, "ok", "include:_spf.example.net"),
    (("google-site-verification=abc",), None, "warning", "publishes no SPF record"),
    ((), "nodata", "warning", "publishes no SPF record"),
    (("v=spf1 mx -all", "v=spf1 a -all"), None, "fault", "2 SPF records"),
    (("v=spf1 +all",), None, "warning", "lets any server"),
    (("v=spf1 mx all",), None, "warning", "lets any server"),
    (("v=spf10 -all",), None, "warning", "publishes no SPF record"),
    ((), "nxdomain", "fault", "does not exist"),
    ((), "timeout", "warning", "could not look up"),
])
def test_spf(records: tuple[str, ...], failure: Failure | None, level: str, said: str) -> None:
    found = spf_finding(DOMAIN, answer(DOMAIN, *records, failure=failure))
    assert (found.check, found.level) == ("dns.spf", level)
    assert said in found.message


def test_dmarc_is_looked_for_at_the_organizational_domain_too() -> None:
    assert dmarc_names(DOMAIN, "example.org") == ["_dmarc.nomic.example.org",
                                                  "_dmarc.example.org"]
    assert dmarc_names("example.org", "example.org") == ["_dmarc.example.org"]


OWN, ORG = "_dmarc.nomic.example.org", "_dmarc.example.org"


@pytest.mark.parametrize(("answers", "level", "said"), [
    ([answer(OWN, "v=DMARC1; p=reject")], "ok", '_dmarc.nomic.example.org: "v=DMARC1; p=reject"'),
    ([answer(OWN, "v=DMARC1; p=none; rua=mailto:d@example.org")], "ok", "p=none asks"),
    ([answer(OWN, failure="nxdomain")], "warning",
     "nomic.example.org publishes no DMARC record (no TXT record \"v=DMARC1; ...\" at "
     "_dmarc.nomic.example.org)"),
    ([answer(OWN, "not dmarc")], "warning", "publishes no DMARC record"),
    ([answer(OWN, "v=DMARC1; p=reject", "v=DMARC1; p=none")], "fault", "holds 2 DMARC records"),
    ([answer(OWN, "v=DMARC1; p=bogus")], "fault", "gives no policy"),
    ([answer(OWN, "v=DMARC1")], "fault", "(it has no p=)"),
    ([answer(OWN, "v=DMARC1; p=Reject")], "ok", "p=Reject"),
    ([answer(OWN, "v=DMARC1; p=bogus")], "fault", "(p=bogus is none of"),
    # No record of its own: the organization's applies, its sp= before its p=.
    ([answer(OWN, failure="nxdomain"), answer(ORG, "v=DMARC1; p=reject; sp=quarantine")],
     "ok", "the organizational domain's, for nomic.example.org"),
    ([answer(OWN, failure="nxdomain"), answer(ORG, "v=DMARC1; p=none")], "ok", "p=none"),
    ([answer(OWN, failure="nxdomain"), answer(ORG, failure="nxdomain")], "warning",
     "at _dmarc.nomic.example.org"),
    ([answer(OWN, failure="timeout", detail="no answer within 3 s")], "warning",
     "could not look up _dmarc.nomic.example.org (TXT): no answer within 3 s"),
    ([answer(OWN, failure="nxdomain"), answer(ORG, failure="error", detail="SERVFAIL")],
     "warning", "SERVFAIL"),
])
def test_dmarc(answers: list[Answer], level: str, said: str) -> None:
    found = dmarc_finding(DOMAIN, answers)
    assert (found.check, found.level) == ("dns.dmarc", level)
    assert said in found.message


def test_a_missing_dmarc_record_says_where_to_publish_one() -> None:
    found = dmarc_finding(DOMAIN, [answer(OWN, failure="nodata")])
    assert found.fix is not None and "publish one at _dmarc.nomic.example.org" in found.fix


KEYS = "s1._domainkey.nomic.example.org"


@pytest.mark.parametrize(("selector", "found_answer", "level", "said"), [
    (None, None, "ok", "not looked up: set [game] dkim_selector"),
    ("s1", answer(KEYS, f"v=DKIM1; k=rsa; p={KEY}"), "ok",
     "s1._domainkey.nomic.example.org: a public key is published (k=rsa)"),
    ("s1", answer(KEYS, f"v=DKIM1; k=ed25519; p={KEY}"), "ok", "(k=ed25519)"),
    ("s1", answer(KEYS, f"p={KEY}"), "ok", "(k=rsa)"),
    ("s1", answer(KEYS, "v=DKIM1; k=rsa; p="), "fault", "revoked"),
    ("s1", answer(KEYS, failure="nxdomain"), "fault", "holds nothing"),
    ("s1", answer(KEYS, "v=spf1 -all"), "fault", "no DKIM key (no p=)"),
    ("s1", answer(KEYS, failure="timeout"), "warning", "could not look up"),
])
def test_dkim(selector: str | None, found_answer: Answer | None, level: str, said: str) -> None:
    found = dkim_finding(DOMAIN, selector, found_answer)
    assert (found.check, found.level) == ("dns.dkim", level)
    assert said in found.message


def test_dkim_keys_are_under_the_selector_and_domainkey() -> None:
    assert dkim_name(DOMAIN, "2024.mail") == "2024.mail._domainkey.nomic.example.org"


def test_tags_are_read_as_receivers_read_them() -> None:
    assert tags("v=DMARC1; P=Reject ;rua=mailto:a@b; bad; =x") == {
        "v": "DMARC1", "p": "Reject", "rua": "mailto:a@b"}
    assert tags("v=DKIM1; p=MIIB AAA\tBBB") == {"v": "DKIM1", "p": "MIIBAAABBB"}
