"""The DNS edge of ``speakerbot doctor``: the lookups of the game's domain, with dnspython.

Each lookup is bounded (``LIFETIME`` seconds, retries included) and they run side by side,
so a nameserver that never answers costs a few seconds, not a hang; every failure comes
back as an ``Answer`` saying why, never as an error. The system's resolver
(``/etc/resolv.conf``) is asked unless a nameserver is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import dns.exception
import dns.nameserver
import dns.rdtypes.ANY.TXT
import dns.resolver

from speakerbot.entrypoints.doctor.dns_records import Answer, Query

__all__ = ["LIFETIME", "Nameserver", "lookups"]

LIFETIME = 3.0
"""How long one lookup may take, in seconds, retries included."""

Nameserver = tuple[str, int]
"""A nameserver to ask instead of the system's: an IP address and a port."""


def lookups(queries: Sequence[Query], nameserver: Nameserver | None = None,
            ) -> dict[Query, Answer]:
    """Make every lookup of ``queries`` at once; return each one's answer."""
    try:
        resolver = _resolver(nameserver)
    except dns.exception.DNSException as error:
        # No /etc/resolv.conf, or one that names no nameserver.
        return {query: Answer(query, failure="error", detail=f"no resolver to ask: {error}")
                for query in queries}
    asked = "the system's resolver" if nameserver is None else \
        f"the nameserver {nameserver[0]} port {nameserver[1]}"
    with ThreadPoolExecutor(max_workers=max(len(queries), 1)) as pool:
        answers = list(pool.map(lambda query: _lookup(resolver, query, asked), queries))
    return dict(zip(queries, answers, strict=True))


def _resolver(nameserver: Nameserver | None) -> dns.resolver.Resolver:
    """Return a resolver asking ``nameserver``, or the system's; no cache, no search list."""
    if nameserver is None:
        resolver = dns.resolver.Resolver()
    else:
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers = [dns.nameserver.Do53Nameserver(*nameserver)]
    # A try is given a third of the whole, so that a lost packet is asked again in time.
    resolver.timeout = LIFETIME / 3
    resolver.lifetime = LIFETIME
    return resolver


def _lookup(resolver: dns.resolver.Resolver, query: Query, asked: str) -> Answer:
    """Make one lookup; say why when it gives no records."""
    try:
        answer = resolver.resolve(query.name, query.kind, search=False,
                                  raise_on_no_answer=False)
    except dns.resolver.NXDOMAIN:
        return Answer(query, failure="nxdomain")
    except dns.exception.Timeout:
        return Answer(query, failure="timeout",
                      detail=f"no answer within {LIFETIME:g} s from {asked}")
    except dns.exception.DNSException as error:
        return Answer(query, failure="error", detail=f"{error} (asked {asked})")
    if answer.rrset is None:
        return Answer(query, failure="nodata")
    return Answer(query, tuple(_text(record) for record in answer.rrset))


def _text(record: object) -> str:
    """Return a record as text: a TXT record's strings joined, anything else as DNS writes it."""
    if isinstance(record, dns.rdtypes.ANY.TXT.TXT):
        return b"".join(record.strings).decode("utf-8", "replace")
    return str(record)
