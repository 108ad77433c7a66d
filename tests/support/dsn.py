"""Delivery status notifications as Postfix writes them (RFC 3464), for the bounce tests.

:func:`make_dsn` lays out a report byte for byte as Postfix's bounce daemon does: from
MAILER-DAEMON to the return path, ``Auto-Submitted: auto-replied``, a multipart/report with
a human-readable notification, a message/delivery-status part (per-message fields, then the
recipient's) and the original's headers as text/rfc822-headers. It is deterministic: the
queue id comes from the arguments and the dates are fixed, so a test can compare bytes.
"""

from __future__ import annotations

import hashlib

from speakerbot.rfc5322 import split_header_block

ARRIVAL_DATE = "Tue, 14 Nov 2023 22:13:19 +0000 (UTC)"
REPORT_DATE = "Tue, 14 Nov 2023 22:13:20 +0000 (UTC)"
RETRY_UNTIL = "Sun, 19 Nov 2023 22:13:19 +0000 (UTC)"

_SUBJECTS = {
    "failed": "Undelivered Mail Returned to Sender",
    "delayed": "Delayed Mail (still being retried)",
}
_SUCCESS_SUBJECT = "Successful Mail Delivery Report"

_SIGNATURE = (
    "For further assistance, please send mail to postmaster.\n\n"
    "If you do so, please include this problem report. You can\n"
    "delete your own text from the attached returned message.\n\n"
    "                   The mail system\n"
)
_INTROS = {
    "failed": (
        "I'm sorry to have to inform you that your message could not\n"
        "be delivered to one or more recipients. It's attached below.\n\n" + _SIGNATURE
    ),
    "delayed": (
        "####################################################################\n"
        "# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\n"
        "####################################################################\n\n"
        "Your message could not be delivered for more than 4 hour(s).\n"
        "It will be retried until it is 5 day(s) old.\n\n" + _SIGNATURE
    ),
}
_SUCCESS_INTRO = (
    "Your message was successfully delivered to the destination(s)\n"
    "listed below. If the message was delivered to mailbox you will\n"
    "receive no further notifications. Otherwise you may still receive\n"
    "notifications of mail delivery errors from other systems.\n\n"
    "                   The mail system\n"
)


def _reply(status: str, recipient: str, queue_id: str) -> str:
    """The remote server's last reply, as Postfix quotes it."""
    if status == "5.1.1":
        return (f"550 5.1.1 <{recipient}>: Recipient address rejected: User unknown in local"
                " recipient table")
    if status == "4.2.2":
        return f"452 4.2.2 <{recipient}>: Recipient address rejected: Mailbox full"
    if status.startswith("2."):
        return f"250 {status} Ok: queued as {queue_id[::-1]}"
    code = "550" if status.startswith("5.") else "451"
    return f"{code} {status} <{recipient}>: Requested action not taken"


def make_dsn(
    original: bytes,
    return_path: str,
    recipient: str,
    *,
    status: str = "5.1.1",
    action: str = "failed",
    reporting_mta: str = "mx.test",
    delivered: bool = True,
) -> bytes:
    """Return the DSN (CRLF line endings) Postfix at ``reporting_mta`` would send.

    ``original`` is the message that was sent with envelope sender ``return_path`` to
    ``recipient``; ``action`` is failed, delayed, or a success (delivered, relayed,
    expanded), with ``status`` its RFC 3463 status code. ``delivered``: as it lands in the
    game's mailbox, the delivering server's ``Return-Path: <>`` and ``Delivered-To`` (the
    return path) first, as Dovecot's LMTP writes them; False: as the report leaves Postfix.
    """
    seed = b"\0".join(s.encode() for s in (return_path, recipient, status, action))
    queue_id = hashlib.sha256(seed + original).hexdigest()[:10].upper()
    boundary = f"{queue_id}.1700000000/{reporting_mta}"
    reply = _reply(status, recipient, queue_id)
    remote = f"mx.{recipient.rpartition('@')[2]}"
    success = action not in _INTROS
    human = (
        f"This is the mail system at host {reporting_mta}.\n\n"
        + (_SUCCESS_INTRO if success else _INTROS[action])
        + (f"\n<{recipient}>: delivery via {remote}[192.0.2.25]:25: {reply}\n" if success else
           f"\n<{recipient}>: host {remote}[192.0.2.25] said: {reply} (in reply to RCPT TO"
           " command)\n")
    )
    per_message = (
        f"Reporting-MTA: dns; {reporting_mta}\nX-Postfix-Queue-ID: {queue_id}\n"
        f"X-Postfix-Sender: rfc822; {return_path}\nArrival-Date: {ARRIVAL_DATE}\n"
    )
    per_recipient = (
        f"Final-Recipient: rfc822; {recipient}\nOriginal-Recipient: rfc822;{recipient}\n"
        f"Action: {action}\nStatus: {status}\nRemote-MTA: dns; {remote}\n"
        f"Diagnostic-Code: smtp; {reply}\n"
        + (f"Will-Retry-Until: {RETRY_UNTIL}\n" if action == "delayed" else "")
    )
    headers = split_header_block(original)[0].decode("utf-8", "surrogateescape")
    returned = headers.replace("\r\n", "\n").rstrip("\n") + "\n"
    envelope = f"Return-Path: <>\nDelivered-To: {return_path}\n" if delivered else ""
    text = (
        envelope
        + f"Date: {REPORT_DATE}\n"
        f"From: MAILER-DAEMON@{reporting_mta} (Mail Delivery System)\n"
        f"Subject: {_SUCCESS_SUBJECT if success else _SUBJECTS[action]}\n"
        f"To: {return_path}\n"
        "Auto-Submitted: auto-replied\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/report; report-type=delivery-status;\n"
        f'\tboundary="{boundary}"\n'
        "Content-Transfer-Encoding: 8bit\n"
        f"Message-Id: <20231114221320.{queue_id}@{reporting_mta}>\n"
        "\n"
        "This is a MIME-encapsulated message.\n\n"
        f"--{boundary}\n"
        "Content-Description: Notification\n"
        "Content-Type: text/plain; charset=us-ascii\n\n"
        f"{human}\n"
        f"--{boundary}\n"
        "Content-Description: Delivery report\n"
        "Content-Type: message/delivery-status\n\n"
        f"{per_message}\n{per_recipient}\n"
        f"--{boundary}\n"
        f"Content-Description: {'Delivered' if success else 'Undelivered'} Message Headers\n"
        "Content-Type: text/rfc822-headers\n"
        "Content-Transfer-Encoding: 8bit\n\n"
        f"{returned}\n"
        f"--{boundary}--\n"
    )
    return text.replace("\n", "\r\n").encode("utf-8", "surrogateescape")
