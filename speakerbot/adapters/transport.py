"""How a mail connection is protected, and which hosts are this machine.

Shared by the IMAP and SMTP adapters and by the configuration that builds their
settings, so that "ssl", "starttls" and "none" and the loopback test are spelled once.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

__all__ = ["SECURITY_MODES", "Security", "is_loopback"]

Security = Literal["ssl", "starttls", "none"]
"""How a mail connection is protected: TLS from the start, STARTTLS, or not at all."""

SECURITY_MODES: tuple[Security, ...] = ("ssl", "starttls", "none")
"""The values ``security`` accepts."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is "localhost" or a loopback address (127.0.0.0/8, ::1); no DNS.

    A name is never looked up: a password sent in clear must not depend on what a
    resolver answers.
    """
    name = host.strip().rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback
