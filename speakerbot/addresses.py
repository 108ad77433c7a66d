"""Who an address is: the one canonical form every comparison of addresses goes through.

A player is their address, so two spellings are the same player exactly when mail systems
would deliver them to the same mailbox, and never because Unicode folds one into the other:

- The domain is compared without regard to ASCII case. An internationalized label is kept
  in its IDNA 2008 A-label (``xn--…``) form, checked by the maintained ``idna`` package
  without the UTS 46 mapping; a label that is not valid IDNA 2008 as written (an upper-case
  or compatibility letter, KELVIN SIGN, a fullwidth dot, a broken ``xn--`` label) makes the
  whole address refused, never mapped to a look-alike.
- An ASCII local part is lower-cased letter by letter (``Kate@`` is ``kate@``); a local part
  with any other character is kept exactly as written and matches only itself (RFC 6531
  leaves its case to the receiving server, so folding it could only merge two people).

``str.lower()``, ``str.casefold()`` and NFKC are never used: each of them turns characters
such as U+212A KELVIN SIGN or U+FB00 LATIN SMALL LIGATURE FF into ASCII letters, which let a
stranger's address become a player's.
"""

from __future__ import annotations

import string

__all__ = ["as_compared", "canonical_address", "canonical_domain"]

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def canonical_domain(text: str) -> str | None:
    """Return a mail domain's canonical form, or None when it is not a domain to trust.

    ASCII letters are lower-cased; a label with any other character, or one already in
    ``xn--`` form, must be valid IDNA 2008 and is given as its A-label.
    """
    if not text:
        return None
    labels: list[str] = []
    # Split on "." only: idna would also split on the ideographic and fullwidth full stops.
    for label in text.translate(_ASCII_LOWER).split("."):
        if label.isascii() and not label.startswith("xn--"):
            labels.append(label)
            continue
        # Imported only for a domain that needs it: most mail is ASCII, and reading one
        # message (``speakerbot parse``) imports nothing outside the standard library.
        import idna

        try:
            labels.append(idna.alabel(label).decode("ascii"))
        except (idna.IDNAError, UnicodeError):
            return None
    return ".".join(labels)


def canonical_address(text: str) -> str | None:
    """Return the canonical form of ``local@domain`` (surrounding spaces aside), or None.

    None: not one plain address (no ``@``, an empty side, a space or control character
    inside), or a domain :func:`canonical_domain` refuses.
    """
    address = text.strip()
    local, at, domain = address.rpartition("@")
    if not at or not local or not address.isprintable():
        return None
    if address.split() != [address]:  # str.split() splits at every str.isspace() character
        return None
    host = canonical_domain(domain)
    if host is None:
        return None
    return f"{local.translate(_ASCII_LOWER) if local.isascii() else local}@{host}"


def as_compared(text: str) -> str:
    """Return an address as the game compares and keeps it: canonical, else as written.

    An address with no canonical form is kept exactly (spaces around it aside). It can
    never equal a canonical address, since every canonical address is its own canonical
    form: so it names nobody and is taken for nobody, and the engine refuses it where an
    address must be real.
    """
    return canonical_address(text) or text.strip()
