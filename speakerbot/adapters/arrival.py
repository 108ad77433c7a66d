"""A message as it arrived, before anything read it.

The inbound adapters hand it over (IMAP, LMTP) and the store keeps it with what intake
read in it: both start from the same bytes, time, way in and IMAP place, declared once here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Arrival:
    """A message's bytes, when and by which way they came, and their IMAP place if any."""

    raw: bytes
    received_at: datetime
    source: str
    uidvalidity: int | None = None
    uid: int | None = None


@dataclass(frozen=True)
class Received(Arrival):
    """A message as an inbound adapter hands it over, before intake reads it."""

    oversized: int | None = None
    shares: int = 1
    """For how many games this one message is stored (one listener, several recipients):
    each copy may be answered within its share of the message's size, so that all the
    answers to a stranger together never cost more than the one message received."""
