"""Whether a message may act in the name of its From address: Authentication-Results, read.

Pure: headers in, a verdict out. The game's own receiving server checks DKIM and DMARC and
writes its findings at the top of the message in an ``Authentication-Results`` header
(RFC 8601) under its authserv-id. Only the topmost header carrying one of the configured
authserv-ids is believed: anything below it, and any header under another id, may have been
written by the sender. That header must report ``dmarc=pass`` for the From domain, or
``dkim=pass`` with a signing domain (``header.d``, or the domain of ``header.i`` when there
is no ``header.d``) equal to the From domain or a parent of it that is not a public suffix.

The headers are parsed by the maintained ``authres`` package; the public suffixes come from
the list bundled with ``publicsuffixlist``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from speakerbot.addresses import canonical_domain
from speakerbot.rfc5322 import LINE_LIMIT

__all__ = ["AuthPolicy", "Authentication", "authenticate", "authenticate_mail", "not_checked"]

Require = Literal["dmarc", "none"]


@dataclass(frozen=True)
class AuthPolicy:
    """What the game believes: ``[auth] require`` and ``[auth] authserv_id``."""

    require: Require = "dmarc"
    authserv_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Authentication:
    """The verdict on one message, as ``speakerbot parse`` shows it.

    ``by`` is ``"dmarc"``, ``"dkim"``, ``"none"`` (``require = "none"``: the From header
    alone) or None when the message is not authenticated; ``why`` says how it was decided.
    """

    checked: bool
    authenticated: bool
    by: str | None
    why: str

    def to_json(self) -> dict[str, object]:
        """Return the ``"authentication"`` object of ``speakerbot parse``."""
        return {"checked": self.checked, "authenticated": self.authenticated, "by": self.by,
                "why": self.why}


def not_checked() -> Authentication:
    """Return the verdict when no configuration was given, so nothing could be checked."""
    return Authentication(False, False, None, "not checked: give --config to check it")


def authenticate(sender: str | None, results: Sequence[str], policy: AuthPolicy) -> Authentication:
    """Decide whether a message from ``sender`` is authenticated.

    ``results`` are the values of the message's Authentication-Results headers, topmost
    first, as received (folding may remain).
    """
    if policy.require == "none":
        return Authentication(True, True, "none", "require = \"none\": the From header is "
                              "believed as it is")
    if not sender or "@" not in sender:
        return Authentication(True, False, None, "the message has no single From address")
    if not policy.authserv_ids:
        return Authentication(True, False, None, "no [auth] authserv_id is configured, so no "
                              "Authentication-Results header is trusted")
    from_domain = _domain(sender.rsplit("@", 1)[1])
    if from_domain is None:
        return Authentication(True, False, None, "the From domain is not a valid domain name")
    value = trusted_header(results, policy.authserv_ids)
    if value is not None:
        if len(value) > LINE_LIMIT:
            return _judge(from_domain, value)
        return _kept_judgement(from_domain, value)
    return Authentication(True, False, None, "no Authentication-Results header from "
                          f"{', '.join(policy.authserv_ids)}")


def _judge(from_domain: str, value: str) -> Authentication:
    """Read the one trusted header; never fall back to the ones below it."""
    try:
        parsed = _authres().AuthenticationResultsHeader.parse_value(" ".join(value.split()))
    except Exception:
        return Authentication(True, False, None, "the trusted Authentication-Results header "
                              "cannot be read")
    results: list[Any] = list(parsed.results)
    for result in results:
        if _method(result) == "dmarc" and _result(result) == "pass":
            header_from = _property(result, "header", "from")
            if header_from is not None and _domain(header_from) == from_domain:
                return Authentication(True, True, "dmarc", f"dmarc=pass for {from_domain}")
    for result in results:
        if _method(result) == "dkim" and _result(result) == "pass":
            # Gmail names the signer only as header.i (an identity within the signing
            # domain, so that domain is the same or a parent): it counts only when header.d
            # is absent.
            signer = _property(result, "header", "d") or _property(result, "header", "i")
            signing = _domain(signer or "")
            if signing is not None and _aligned(signing, from_domain):
                return Authentication(True, True, "dkim",
                                      f"dkim=pass by {signing} for {from_domain}")
    found = ", ".join(f"{_method(r)}={_result(r)}" for r in results) or "no results"
    return Authentication(True, False, None, f"no dmarc=pass or aligned dkim=pass for "
                          f"{from_domain} ({found})")


# The receiving server writes the same verdict again and again (OpenDMARC's ``dmarc=pass
# (p=none dis=none) header.from=example.org`` for every message of a domain), and the parse
# is a good share of a message's CPU: its judgement is kept. A header longer than a line
# (which no server writes) is judged afresh, so that odd mail cannot fill the kept ones.
_kept_judgement = functools.lru_cache(maxsize=1024)(_judge)


def _aligned(signer: str, from_domain: str) -> bool:
    """Tell whether the signer is the From domain or a parent of it, not a public suffix."""
    if not signer or "." not in signer:
        return False
    if signer != from_domain and not from_domain.endswith("." + signer):
        return False
    return not _public_suffixes().is_public(signer)


@functools.lru_cache(maxsize=4096)
def organizational_domain(address: str) -> str:
    """Return the registrable domain of an address (``a.b.example.org`` gives ``example.org``).

    As DMARC counts a domain: whoever holds ``example.org`` holds every name under it, so a
    limit by domain must not be escaped by inventing subdomains. A name that is itself a
    public suffix, or has no dot, is returned as it stands (lower case).
    """
    domain = address.rpartition("@")[2].strip().lower().rstrip(".")
    if "." not in domain:
        return domain
    return str(_public_suffixes().privatesuffix(domain) or domain)


def trusted_header(results: Sequence[str], authserv_ids: Sequence[str]) -> str | None:
    """Return the topmost of ``results`` written under one of ``authserv_ids``, or None.

    The one header a verdict is read from: the receiving server's own, which it wrote on
    top of whatever the sender brought. Anything below it is never read.
    """
    trusted = {_authserv_id(name) for name in authserv_ids} - {None}
    return next((value for value in results
                 if _authserv_id(authserv_id_of(value)) in trusted), None)


def authserv_id_of(value: str) -> str:
    """Return the authserv-id: the first word of the value, comments aside (RFC 8601)."""
    head = _without_comments(value.split(";", 1)[0]).strip()
    return head.split()[0] if head.split() else ""


def _without_comments(text: str) -> str:
    """Drop RFC 5322 comments, ``(like this (nested))``, keeping a space in their place."""
    out: list[str] = []
    depth = 0
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and depth:
            escaped = True
        elif ch == "(":
            depth += 1
            out.append(" ")
        elif ch == ")" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def _authserv_id(name: str) -> str | None:
    """Return the id as the receiving server wrote it, case aside: a token, not a DNS name.

    A trailing dot is not taken off: OpenDKIM's ``RemoveARFrom`` compares the id exactly
    and leaves a forged ``mx.example.org.`` header in place, so reading it as the same name
    would trust a header that nobody's server wrote.
    """
    name = name.strip()
    if not name or name.endswith("."):
        return None
    return canonical_domain(name)


def _domain(name: str) -> str | None:
    # Compared as the sender's address is (speakerbot.addresses): a domain that
    # only a Unicode case mapping would make equal to another is not that domain.
    return canonical_domain(name.strip().strip("<>").rstrip("."))


def _method(result: Any) -> str:
    return str(getattr(result, "method", "") or "").lower()


def _result(result: Any) -> str:
    return str(getattr(result, "result", "") or "").lower()


def _property(result: Any, ptype: str, name: str) -> str | None:
    for item in getattr(result, "properties", ()) or ():
        if (str(item.type).lower(), str(item.name).lower()) == (ptype, name):
            value = str(item.value or "")
            # header.i is "@domain" or "user@domain"; header.from and header.d are domains.
            return value.rsplit("@", 1)[-1]
    return None


@functools.cache
def _authres() -> Any:
    # Imported on first use: speakerbot parse without --config never needs it.
    import authres  # type: ignore[import-untyped]

    return authres


@functools.cache
def _public_suffixes() -> Any:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


REPLAY_WINDOW = timedelta(days=1)
"""Authenticated mail must be dated within this of its arrival: an old message replayed is
not believed (ADMIN's freshness is the same window)."""


def authenticate_mail(sender: str | None, results: Sequence[str], policy: AuthPolicy, *,
                      recipients: Sequence[str], date: datetime | None, received: datetime,
                      game_addresses: Sequence[str]) -> Authentication:
    """Decide, as the daemon does, whether a message may act for its From address.

    Beyond the Authentication-Results (``authenticate``): a signed message sent to someone
    else, or long ago, may be replayed to the game, so it must name one of the game's
    addresses in To or Cc and be dated within a day of ``received``. ``speakerbot parse``
    and the daemon both decide here, so that they never disagree.
    """
    verdict = authenticate(sender, results, policy)
    if not verdict.authenticated or policy.require == "none":
        return verdict
    if not set(game_addresses) & set(recipients):
        return Authentication(True, False, None, "authenticated, but not addressed to "
                              "the game in To or Cc: it may be a replay")
    if date is None or abs(date - received) > REPLAY_WINDOW:
        return Authentication(True, False, None, "authenticated, but not dated within a "
                              "day of its arrival (its Date header is missing, unreadable or "
                              "too far from now): it may be a replay")
    return verdict
