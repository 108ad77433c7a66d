"""``speakerbot parse FILE``: read one raw message and print its parse as JSON.

The JSON object has exactly these keys::

    {"sender": "alice@example.org", "subject": "...", "message_id": "<...>",
     "skipped": null, "commands": [...], "errors": [...], "ignored": [...],
     "authentication": {"checked": true, "authenticated": true, "by": "dmarc",
                        "why": "dmarc=pass for example.org"}}

- A message skipped for a reason in
  :data:`~speakerbot.mail.inbound.reading.NEVER_ANSWER` (auto-reply, bounce, list, loop)
  has no commands and no ignored lines: it is recorded, never applied or answered.
- A message that cannot be read has no commands and one error with line 0 whose
  reason is the problem; ``skipped`` is null, except for a message refused by a
  limit (:data:`~speakerbot.mail.inbound.reading.REFUSED`: too-large, too-many-parts,
  too-deep), which names the limit there.
- Otherwise commands, errors and ignored lines are those of
  :func:`~speakerbot.mail.inbound.language.parse_commands`. The Speaker's password never
  appears in the output.
- ``authentication`` says whether the message may act in its From address's name
  (:mod:`~speakerbot.mail.inbound.authentication`): checked only against a configuration's
  ``[auth]`` (``speakerbot parse --config``), otherwise ``"checked": false``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from speakerbot.mail.inbound.authentication import AuthPolicy, authenticate, not_checked
from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.reading import DEFAULT_MAX_BYTES, NEVER_ANSWER, read_message

__all__ = ["main", "parse_to_json"]

_REDACTED = "********"


def parse_to_json(
    raw: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, loop_token: str | None = None,
    auth: AuthPolicy | None = None,
) -> dict[str, object]:
    """Read and parse one raw message; return the ``speakerbot parse`` JSON object.

    ``auth``: the game's ``[auth]`` policy, to check the sender (None: not checked).
    """
    mail = read_message(raw, max_bytes=max_bytes, loop_token=loop_token)
    verdict = (not_checked() if auth is None
               else authenticate(mail.sender, mail.auth_results, auth))
    out: dict[str, object] = {
        "sender": mail.sender,
        "subject": mail.subject,
        "message_id": mail.message_id,
        "skipped": mail.skipped,
        "commands": [],
        "errors": [],
        "ignored": [],
        "authentication": verdict.to_json(),
    }
    if mail.problem is not None:
        out["errors"] = [{"line": 0, "text": "", "reason": mail.problem}]
        return out
    if mail.skipped in NEVER_ANSWER:
        return out
    result = parse_commands(mail.subject, mail.body)
    out.update(result.to_json())
    if result.password:
        out["subject"] = mail.subject.replace(result.password, _REDACTED)
    return out


def main(argv: Sequence[str] | None = None, *, auth: AuthPolicy | None = None,
         max_bytes: int | None = None) -> int:
    """Run ``speakerbot parse FILE`` (``-`` reads standard input); return the exit status.

    ``argv`` holds the arguments after ``parse``; ``auth`` and ``max_bytes`` come from the
    configuration when one is given. Prints one JSON object and
    returns 0, also when the message has errors; returns 2 when the file cannot
    be read or the arguments are wrong.
    """
    parser = argparse.ArgumentParser(
        prog="speakerbot parse",
        description="Read one raw email message and print what speakerbot reads in it, as JSON.",
    )
    parser.add_argument("file", help="the message as received (.eml), or - for standard input")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"refuse larger messages (default {DEFAULT_MAX_BYTES})",
    )
    parser.add_argument("--loop-token", default=None, help="the game's own X-Loop value")
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.file == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        print(f"speakerbot parse: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    output = parse_to_json(raw, max_bytes=max_bytes or args.max_bytes,
                           loop_token=args.loop_token, auth=auth)
    print(json.dumps(output, ensure_ascii=False))
    return 0
