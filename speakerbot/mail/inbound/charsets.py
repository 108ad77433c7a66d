r"""Bytes to text: charsets (with fallbacks for unknown or mislabelled ones) and format=flowed.

:func:`decode_bytes` never fails and never returns a lone surrogate; :func:`unflow`
undoes ``format=flowed`` soft line breaks (RFC 3676).
"""

from __future__ import annotations

import codecs
import re

__all__ = ["decode_bytes", "unflow"]

_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)
_BOM = b"\xef\xbb\xbf"

_LATIN1_LABELS = frozenset({"iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1"})
_UTF8_LABELS = frozenset(
    {"", "utf-8", "utf8", "us-ascii", "ascii", "unknown-8bit", "x-unknown", "default"}
)


# Codecs that are not mail charsets and may be slow (punycode is quadratic) or misleading.
_UNSAFE_CODECS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape"})


_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode ``data`` labelled with ``charset``, never failing, never with a lone surrogate.

    UTF-7 (and UTF-16 with odd bytes) can decode to lone surrogates, which no UTF-8 text,
    JSON column or outgoing mail accepts: they become U+FFFD.
    """
    return _SURROGATE.sub("\ufffd", _decode_bytes(data, charset))


def _decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode ``data`` labelled with ``charset``, never failing.

    Order of attempts: a UTF-8 byte-order mark wins (UTF-8, mark removed); the
    declared charset, strictly (ISO-8859-1 is read as its superset Windows-1252,
    as browsers do; US-ASCII as UTF-8); then UTF-8 strictly; then UTF-8 with
    replacement characters if the bytes hold well-formed UTF-8 sequences (a
    mostly-UTF-8 text with a few damaged bytes); then Windows-1252; then
    ISO-8859-1, which accepts any bytes.
    """
    if data.startswith(_BOM):
        return data[len(_BOM) :].decode("utf-8", "replace")
    label = (charset or "").strip().strip("\"'").split("*", 1)[0].lower()
    if label in _UTF8_LABELS:
        label = "utf-8"
    elif label in _LATIN1_LABELS:
        label = "windows-1252"
    try:
        if codecs.lookup(label).name.replace("_", "-") not in _UNSAFE_CODECS:
            return data.decode(label)
    except (LookupError, UnicodeError, ValueError):
        pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    good = len(_UTF8_MULTIBYTE.findall(data))
    if good:
        replaced = data.decode("utf-8", "replace").count("\ufffd")
        if good >= replaced:
            return data.decode("utf-8", "replace")
    try:
        return data.decode("windows-1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# --------------------------------------------------------------------------- format=flowed


def unflow(text: str, *, delsp: bool) -> str:
    r"""Undo ``format=flowed`` soft line breaks (RFC 3676) in ``text`` (lines end in ``\n``).

    A line ending in a space is joined with the next line of the same quote
    depth; with ``delsp`` that trailing space is removed. Space-stuffing is
    undone and the signature separator ``-- `` is never joined. Quoted lines
    come out as ``>`` marks, one space, then the text.
    """
    out: list[str] = []
    pending_depth = -1
    pending: list[str] = []

    def flush() -> None:
        nonlocal pending_depth, pending
        if pending_depth >= 0:
            joined = "".join(pending)
            out.append((">" * pending_depth + " " + joined) if pending_depth else joined)
        pending_depth, pending = -1, []

    lines = text.split("\n")
    trailing_newline = len(lines) > 1 and lines[-1] == ""
    if trailing_newline:
        lines.pop()
    for raw_line in lines:
        depth = len(raw_line) - len(raw_line.lstrip(">"))
        line = raw_line[depth:]
        if line.startswith(" "):
            line = line[1:]
        flowed = line.endswith(" ") and line != "-- "
        if flowed and delsp:
            line = line[:-1]
        if pending_depth != depth:
            flush()
            pending_depth = depth
        pending.append(line)
        if not flowed:
            flush()
    flush()
    return "\n".join(out) + ("\n" if trailing_newline else "")
