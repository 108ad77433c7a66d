"""What the game's domain publishes in DNS, judged: MX, SPF, DMARC and the DKIM key.

Pure: each verdict takes the ``Answer`` of a lookup (``resolver`` makes them) and returns
one finding. The domain is the one of ``[game] address``: players' mail finds the game's
server by its MX; their providers check the game's own mail against its SPF record, its
DKIM key and its DMARC policy, which also lets them refuse mail forged in the game's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from speakerbot.entrypoints.doctor.findings import Finding, fault, ok, warning

__all__ = ["Answer", "Failure", "Query", "dkim_finding", "dkim_name", "dmarc_finding",
           "dmarc_names", "mx_finding", "spf_finding", "tags"]

Failure = Literal["nxdomain", "nodata", "timeout", "error"]
"""Why a lookup gave no records: no such name, no records of the kind, no answer in
time, or another failure (SERVFAIL, a refusal, no nameserver to ask)."""

ASK_ELSEWHERE = ("check that the nameserver answers, or give another with --nameserver "
                 "ADDRESS[:PORT]")


@dataclass(frozen=True)
class Query:
    """One lookup to make: a name and a record type (``"MX"`` or ``"TXT"``)."""

    name: str
    kind: str


@dataclass(frozen=True)
class Answer:
    """What one lookup came to: the records as text, or why there are none.

    An MX record reads ``"10 mx.example.org."``; a TXT record is its strings joined.
    """

    query: Query
    records: tuple[str, ...] = ()
    failure: Failure | None = None
    detail: str = ""

    @property
    def name(self) -> str:
        """The name looked up."""
        return self.query.name


def dmarc_names(domain: str, organizational: str) -> list[str]:
    """Return where the domain's DMARC policy may be: its own name, then its organization's.

    A receiver that finds no record at ``_dmarc.<domain>`` applies the organizational
    domain's (RFC 7489 6.6.3), so a game at ``nomic.example.org`` is covered by
    ``_dmarc.example.org``.
    """
    names = [f"_dmarc.{domain}"]
    if organizational != domain:
        names.append(f"_dmarc.{organizational}")
    return names


def dkim_name(domain: str, selector: str) -> str:
    """Return where the DKIM key of ``selector`` is published (RFC 6376 3.6.2.1)."""
    return f"{selector}._domainkey.{domain}"


def tags(record: str) -> dict[str, str]:
    """Return the ``tag=value`` pairs of a DMARC or DKIM record (tags lower-cased)."""
    found: dict[str, str] = {}
    for part in record.split(";"):
        tag, equals, value = part.partition("=")
        if equals and tag.strip():
            found.setdefault(tag.strip().lower(), "".join(value.split()))
    return found


def _unanswered(check: str, answer: Answer) -> Finding:
    """Say that a lookup failed, so nothing could be judged."""
    why = answer.detail or ("no answer in time" if answer.failure == "timeout" else
                            "the nameserver failed")
    return warning(check, f"could not look up {answer.name} ({answer.query.kind}): {why}",
                   ASK_ELSEWHERE)


def _unknown_domain(check: str, domain: str) -> Finding:
    return fault(check, f"the domain {domain} does not exist in DNS (NXDOMAIN)",
                 "check the domain of [game] address, its registration and its nameservers")


def mx_finding(domain: str, answer: Answer) -> Finding:
    """Judge the domain's MX records: where players' mail to the game goes."""
    check = "dns.mx"
    if answer.failure in ("timeout", "error"):
        return _unanswered(check, answer)
    if answer.failure == "nxdomain":
        return _unknown_domain(check, domain)
    exchanges = sorted((_mx(record) for record in answer.records), key=lambda mx: mx[0])
    if not exchanges:
        return warning(check, f"{domain} has no MX record: mail to the game goes to the "
                       f"address of {domain} itself, if it has one (RFC 5321 5.1)",
                       "publish an MX record naming the server that receives the game's mail")
    if [host for _, host in exchanges] == ["."]:
        return fault(check, f"{domain} publishes a null MX (\"0 .\", RFC 7505): it says it "
                     "takes no mail, so players' mail to the game is refused",
                     "replace it with an MX record naming the server that receives the "
                     "game's mail")
    said = ", ".join(f"{preference} {host}" for preference, host in exchanges)
    return ok(check, f"{domain}: MX {said}")


def _mx(record: str) -> tuple[int, str]:
    """Read ``"10 mx.example.org."`` as (10, "mx.example.org.")."""
    preference, _, host = record.strip().partition(" ")
    return (int(preference) if preference.isdigit() else 0), host.strip() or "."


def _spf_records(answer: Answer) -> list[str]:
    return [record for record in answer.records
            if record.lower() == "v=spf1" or record.lower().startswith("v=spf1 ")]


def spf_finding(domain: str, answer: Answer) -> Finding:
    """Judge the domain's SPF record: which servers may send the game's mail."""
    check = "dns.spf"
    if answer.failure in ("timeout", "error"):
        return _unanswered(check, answer)
    if answer.failure == "nxdomain":
        return _unknown_domain(check, domain)
    found = _spf_records(answer)
    if not found:
        return warning(check, f"{domain} publishes no SPF record (a TXT record "
                       "\"v=spf1 ...\"): players' providers cannot tell which servers may "
                       "send the game's mail", f"publish one at {domain} naming the servers "
                       "that send it (your [smtp] relay), such as \"v=spf1 mx -all\" or the "
                       "include: your provider gives")
    if len(found) > 1:
        return fault(check, f"{domain} publishes {len(found)} SPF records; receivers take "
                     "that as a permanent error and the check fails (RFC 7208 4.5)",
                     "merge them into one record")
    record = found[0]
    last = record.split()[-1].lower()
    if last in ("all", "+all"):
        return warning(check, f"{domain}: \"{record}\" lets any server on the Internet send "
                       "as the game", "end the record with -all or ~all")
    return ok(check, f"{domain}: \"{record}\"")


def dmarc_finding(domain: str, answers: Sequence[Answer]) -> Finding:
    """Judge the DMARC policy that covers the domain (its own record, else its organization's).

    ``answers``: the TXT lookups of ``dmarc_names`` in their order.
    """
    check = "dns.dmarc"
    for index, answer in enumerate(answers):
        if answer.failure in ("timeout", "error"):
            return _unanswered(check, answer)
        found = [record for record in answer.records
                 if tags(record).get("v", "").upper() == "DMARC1"
                 and record.lstrip().lower().startswith("v")]
        if not found:
            continue
        if len(found) > 1:
            return fault(check, f"{answer.name} holds {len(found)} DMARC records; receivers "
                         "then apply none (RFC 7489 6.6.3)", "keep one of them")
        return _dmarc_policy(check, domain, answer.name, found[0], inherited=index > 0)
    return warning(check, f"{domain} publishes no DMARC record (no TXT record \"v=DMARC1; "
                   f"...\" at {answers[0].name})", f"publish one at {answers[0].name}, such "
                   "as \"v=DMARC1; p=quarantine\": players' providers can then refuse mail "
                   "forged in the game's name")


def _dmarc_policy(check: str, domain: str, name: str, record: str, *,
                  inherited: bool) -> Finding:
    """Judge one DMARC record's policy; ``inherited``: it is the organizational domain's."""
    found = tags(record)
    key = "sp" if inherited and "sp" in found else "p"
    policy = found.get(key, "").lower()
    if policy not in ("none", "quarantine", "reject"):
        said = f"{key}={found[key]} is none of none, quarantine, reject" if key in found \
            else "it has no p="
        return fault(check, f"{name}: \"{record}\" gives no policy receivers can read "
                     f"({said})", "write it as \"v=DMARC1; p=quarantine\" (or p=none, "
                     "p=reject)")
    whose = f" (the organizational domain's, for {domain})" if inherited else ""
    if policy == "none":
        return ok(check, f"{name}{whose}: \"{record}\"; p=none asks receivers to deliver "
                  "mail forged in the game's name as usual (they only report it)")
    return ok(check, f"{name}{whose}: \"{record}\"")


def dkim_finding(domain: str, selector: str | None, answer: Answer | None) -> Finding:
    """Judge the game's DKIM key; ``selector`` None (not configured): nothing is looked up."""
    check = "dns.dkim"
    if selector is None or answer is None:
        return ok(check, "not looked up: set [game] dkim_selector to the selector the game's "
                  "mail is signed with to check its key")
    if answer.failure in ("timeout", "error"):
        return _unanswered(check, answer)
    keys = [tags(record) for record in answer.records if "p" in tags(record)]
    if not keys:
        what = "nothing" if not answer.records else "no DKIM key (no p=)"
        return fault(check, f"{answer.name} holds {what}: the game's mail cannot be checked "
                     f"against a key of selector {selector}", "publish there the public key "
                     "your relay signs the game's mail with, or set [game] dkim_selector to "
                     "the s= of the DKIM-Signature the game's mail carries")
    if not keys[0]["p"]:
        return fault(check, f"{answer.name}: the key is revoked (an empty p=): signatures "
                     "by it fail", "publish the key in use there, or set [game] "
                     "dkim_selector to the selector in use")
    return ok(check, f"{answer.name}: a public key is published (k={keys[0].get('k', 'rsa')})")
