"""The made-up domains of the mail chain: their DKIM keys, SPF and DMARC records, in unbound.

Every domain is under ``.test`` (RFC 2606), served by an unbound on loopback that answers
nothing else (the root zone is ``static``: an unknown name is NXDOMAIN at once, never a
query to the outside). Keys are made once per test run with ``opendkim-genkey``.

SPF never vouches for loopback: every domain's record allows only 192.0.2.10 (a
documentation address). The tests' forgers send from 127.0.0.1 as the genuine senders do,
so an SPF pass would tell them apart by nothing; as on the real Internet, it is the DKIM
signature that does.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.patience import patience

GAME_DOMAIN = "game.test"
AUTHSERV_ID = "mx.game.test"
"""The receiving server's authserv-id, as OpenDKIM, OpenDMARC and ``[auth]`` all name it."""
SELECTOR = "s1"


@dataclass(frozen=True)
class Domain:
    """One made-up domain: whether it publishes a DMARC record, and which."""

    name: str
    dmarc: str | None = "v=DMARC1; p=reject"
    signs: bool = True
    mx: bool = False
    """Whether it publishes an MX record, ``mx.<name>``, at 127.0.0.1 (the chain routes by
    address: only ``speakerbot doctor`` reads it)."""


DOMAINS = (
    Domain(GAME_DOMAIN, mx=True),
    Domain("players.test"),  # the players' provider: signs, DMARC p=reject
    Domain("nodmarc.test", dmarc=None, mx=True),  # signs, but publishes no DMARC record
    Domain("other.test"),  # a forger's own domain, genuinely signed
    Domain("list.test", dmarc="v=DMARC1; p=none"),  # a mailing list that re-signs
)

WRONG_KEY = "wrong"
"""A key made like the others but published nowhere: a signature with it must fail."""


def make_keys(folder: Path) -> dict[str, Path]:
    """Make a 2048-bit key per signing domain (and ``WRONG_KEY``) in ``folder``, in parallel.

    Returns each name's private key file; the public half is in ``NAME/s1.txt``.
    """
    names = [d.name for d in DOMAINS if d.signs] + [WRONG_KEY]
    running: list[tuple[str, subprocess.Popen[bytes]]] = []
    for name in names:
        (folder / name).mkdir(parents=True)
        running.append((name, subprocess.Popen(
            ["opendkim-genkey", "-b", "2048", "-d", name, "-s", SELECTOR,
             "-D", str(folder / name)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)))
    for name, process in running:
        output, _ = process.communicate(timeout=patience(30))
        assert process.returncode == 0, f"opendkim-genkey for {name}: {output!r}"
    return {name: folder / name / f"{SELECTOR}.private" for name in names}


def public_key(private: Path) -> str:
    """The ``p=`` value that opendkim-genkey wrote beside ``private`` (its ``.txt``)."""
    text = private.with_suffix(".txt").read_text()
    # The record is written as several quoted strings; the key is the p= part, joined.
    joined = "".join(re.findall(r'"([^"]*)"', text))
    found = re.search(r"p=([A-Za-z0-9+/=]+)", joined)
    assert found is not None, text
    return found.group(1)


def _txt(name: str, text: str) -> str:
    # A TXT string holds at most 255 bytes: a 2048-bit key's record needs two.
    chunks = " ".join(f'"{text[i:i + 255]}"' for i in range(0, len(text), 255))
    return f"  local-data: '{name}. 300 IN TXT {chunks}'\n"


def unbound_conf(folder: Path, address: str, keys: dict[str, Path]) -> str:
    """The unbound configuration serving every domain of ``DOMAINS`` on ``address``:53."""
    zones = ""
    for domain in DOMAINS:
        name = domain.name
        zones += f'  local-zone: "{name}." static\n'
        zones += _txt(name, "v=spf1 ip4:192.0.2.10 -all")
        if domain.dmarc is not None:
            zones += _txt(f"_dmarc.{name}", domain.dmarc)
        if domain.signs:
            zones += _txt(f"{SELECTOR}._domainkey.{name}",
                          f"v=DKIM1; k=rsa; p={public_key(keys[name])}")
        if domain.mx:
            zones += f"  local-data: '{name}. 300 IN MX 10 mx.{name}.'\n"
            zones += f"  local-data: 'mx.{name}. 300 IN A 127.0.0.1'\n"
    # Port 53: OpenDMARC has no resolver setting of its own and reads resolv.conf, which
    # cannot name a port. A loopback address of its own keeps it clear of any local DNS.
    return f"""server:
  interface: {address}
  port: 53
  do-ip6: no
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "{folder}"
  pidfile: ""
  use-syslog: no
  logfile: ""
  verbosity: 1
  num-threads: 1
  module-config: "iterator"
  access-control: 127.0.0.0/8 allow
  local-zone: "." static
{zones}remote-control:
  control-enable: no
"""
