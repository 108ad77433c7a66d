"""What ``speakerbot parse FILE`` prints: one raw message read and parsed, as a JSON object.

The command line itself is :mod:`speakerbot.entrypoints.parse`.

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

from collections.abc import Sequence
from datetime import datetime

from speakerbot.mail.inbound.authentication import AuthPolicy, authenticate_mail, not_checked
from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.reading import DEFAULT_MAX_BYTES, NEVER_ANSWER, read_message

__all__ = ["parse_to_json"]

_REDACTED = "********"


def parse_to_json(
    raw: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES, loop_token: str | None = None,
    auth: AuthPolicy | None = None,
    game_addresses: Sequence[str] = (),
    received: datetime | None = None,
) -> dict[str, object]:
    """Read and parse one raw message; return the ``speakerbot parse`` JSON object.

    ``auth``: the game's ``[auth]`` policy, to check the sender (None: not checked), with
    the game's own addresses and the moment to judge it at (``received``): the verdict is
    the daemon's own (``authenticate_mail``), replay checks included.
    """
    mail = read_message(raw, max_bytes=max_bytes, loop_token=loop_token)
    if auth is None or received is None:
        verdict = not_checked()
    else:
        verdict = authenticate_mail(mail.sender, mail.auth_results, auth,
                                    recipients=mail.recipients, date=mail.date,
                                    received=received, game_addresses=game_addresses)
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
