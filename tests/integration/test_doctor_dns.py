"""``speakerbot doctor``'s DNS edge against nameservers on loopback: a silent one costs a few
seconds and a warning, never a hang; one that knows no name makes each lookup NXDOMAIN."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from speakerbot.entrypoints.doctor.dns_records import Query, mx_finding
from speakerbot.entrypoints.doctor.resolver import LIFETIME, lookups
from tests.support.dns_stub import NoSuchDomain
from tests.support.patience import patience
from tests.support.ports import LOOPBACK

pytestmark = pytest.mark.integration

QUERIES = [Query("nomic.example.org", "MX"), Query("nomic.example.org", "TXT"),
           Query("_dmarc.nomic.example.org", "TXT"), Query("s1._domainkey.nomic.example.org",
                                                           "TXT")]


@pytest.fixture
def silent() -> Iterator[int]:
    """A UDP port that takes queries and never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((LOOPBACK, 0))
        yield int(sock.getsockname()[1])


def test_a_silent_nameserver_is_a_warning_within_seconds(silent: int) -> None:
    began = time.monotonic()
    answers = lookups(QUERIES, (LOOPBACK, silent))
    assert time.monotonic() - began < patience(2 * LIFETIME)
    assert [answers[query].failure for query in QUERIES] == ["timeout"] * 4
    finding = mx_finding("nomic.example.org", answers[QUERIES[0]])
    assert finding.level == "warning"
    assert finding.message == ("could not look up nomic.example.org (MX): no answer within "
                               f"{LIFETIME:g} s from the nameserver {LOOPBACK} port {silent}")
    assert finding.fix is not None and "--nameserver" in finding.fix


def test_a_nameserver_that_knows_no_name_answers_nxdomain() -> None:
    with NoSuchDomain() as server:
        answers = lookups(QUERIES, (LOOPBACK, server.port))
    assert [answers[query].failure for query in QUERIES] == ["nxdomain"] * 4
