"""Regenerate the mail corpus: tests/mail/corpus/<name>.eml and the expected <name>.json.

Run ``python tests/mail/make_corpus.py`` from the repository root. The .eml and
.json files are the source of truth; this script is how they were made, kept so
that the corpus can be rebuilt or extended. The expected parses below were
written by hand from what each message says, not copied from the parser's output.

Each message imitates what a real client sends (Gmail, Outlook, Apple Mail,
Thunderbird, mutt, phones). Messages sent over SMTP use CRLF line endings; those
as a local delivery agent stores them use LF. The corpus is parsed with
``loop_token=LOOP_TOKEN``.
"""

# The messages hold lines as long as real clients write them (DKIM headers, HTML).
# ruff: noqa: E501

from __future__ import annotations

import base64
import json
import quopri
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
LOOP_TOKEN = "nomic@example.org"

CASES: dict[str, tuple[bytes, dict[str, object]]] = {}

# Problem sentences, as the reader words them.
FROM_PROBLEM = "cannot tell who sent this: the From header must hold exactly one address"
TOO_DEEP = (
    "This message nests its MIME parts more than 10 levels deep; the Speaker reads at most "
    "that many. Send your commands again as a plain message, without forwarded messages as "
    "attachments."
)
TOO_MANY_PARTS = (
    "This message has more than 100 MIME parts (attachments and alternatives); the Speaker "
    "reads at most 100. Send your commands again as a plain message without attachments."
)
NO_TEXT = (
    "This message has no readable text: no plain-text or HTML part outside the attachments. "
    "Write your commands in the body of the message."
)
BROKEN_MIME = (
    "This message's MIME structure is broken (a multipart message without a usable boundary), "
    "so its text cannot be found. Send your commands again as a plain-text message."
)
NEEDS_PASSWORD = (
    "admin commands need a PASSWORD line; add a line PASSWORD followed by the Speaker's "
    "password to this message"
)


# --------------------------------------------------------------------------- helpers


def add(name: str, raw: bytes, expected: dict[str, object]) -> None:
    assert name not in CASES, name
    CASES[name] = (raw, expected)


def eml(headers: str, body: str | bytes, *, crlf: bool, charset: str = "utf-8") -> bytes:
    """Headers (one per line, continuation lines indented) and a body, as wire bytes."""
    head = headers.strip("\n").encode("utf-8")
    data = body if isinstance(body, bytes) else body.encode(charset)
    raw = head + b"\n\n" + data
    if crlf:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return raw


# The header block most messages below carry, in the order most clients write it; ``before``
# and ``after`` hold a message's own extra headers (a Return-Path, an Auto-Submitted).
HEADERS = """\
{before}From: {sender}
To: {to}
Subject: {subject}
Date: {date}
Message-ID: <{mid}>
{after}MIME-Version: 1.0
Content-Type: {content_type}
{encoding}"""


def headers(
    sender: str,
    subject: str,
    date: str,
    mid: str,
    *,
    content_type: str = "text/plain; charset=utf-8",
    encoding: str | None = None,
    to: str = "nomic@example.org",
    before: str = "",
    after: str = "",
) -> str:
    """The usual header block, for ``eml``; ``encoding`` is the Content-Transfer-Encoding."""
    cte = f"Content-Transfer-Encoding: {encoding}\n" if encoding is not None else ""
    return HEADERS.format(before=before, sender=sender, to=to, subject=subject, date=date,
                          mid=mid, after=after, content_type=content_type, encoding=cte)


def qp(text: str, charset: str = "utf-8") -> str:
    """Quoted-printable, as mail clients write it (soft breaks at 76 characters)."""
    return quopri.encodestring(text.encode(charset)).decode("ascii")


def b64(data: str | bytes, charset: str = "utf-8") -> str:
    raw = data.encode(charset) if isinstance(data, str) else data
    return base64.encodebytes(raw).decode("ascii")


def parsed(
    sender: str | None,
    subject: str,
    message_id: str | None,
    *,
    skipped: str | None = None,
    commands: list[dict[str, object]] | None = None,
    errors: list[dict[str, object]] | None = None,
    ignored: list[tuple[int, str]] | None = None,
) -> dict[str, object]:
    return {
        "sender": sender,
        "subject": subject,
        "message_id": message_id,
        "skipped": skipped,
        "commands": commands or [],
        "errors": errors or [],
        "ignored": [{"line": line, "text": text} for line, text in ignored or []],
    }


def problem(
    sender: str | None,
    subject: str,
    message_id: str | None,
    reason: str,
    skipped: str | None = None,
) -> dict[str, object]:
    return parsed(sender, subject, message_id, skipped=skipped, errors=[err(0, "", reason)])


def cmd(line: int, verb: str, **fields: object) -> dict[str, object]:
    return {"line": line, "verb": verb, **fields}


def vote(line: int, proposal: int, choice: str) -> dict[str, object]:
    return cmd(line, "VOTE", proposal=proposal, choice=choice)


def admin(line: int, action: str, **fields: object) -> dict[str, object]:
    return {"line": line, "verb": "ADMIN", "action": action, **fields}


def clause(kind: str, rule: int | None, text: str, immutable: bool = False) -> dict[str, object]:
    return {"kind": kind, "rule": rule, "text": text, "immutable": immutable}


def set_clause(parameter: str, value: str) -> dict[str, object]:
    return {
        "kind": "SET",
        "rule": None,
        "text": f"{parameter} = {value}",
        "immutable": False,
        "parameter": parameter,
        "value": value,
    }


def err(line: int, text: str, reason: str) -> dict[str, object]:
    return {"line": line, "text": text, "reason": reason}


def vote_choice_error(line: int, text: str, proposal: int, hint: str = "") -> dict[str, object]:
    return err(
        line,
        text,
        "VOTE needs FOR, AGAINST or ABSTAIN after the proposal number, "
        f"e.g. VOTE {proposal} FOR{hint}",
    )


GMAIL_RECEIVED = """\
Delivered-To: nomic@example.org
Received: by 2002:a05:7000:1f0f:b0:5a1:2b3c:4d5e with SMTP id x15csp1234567mab;
        Mon, 3 Mar 2025 01:15:24 -0800 (PST)
Return-Path: <{addr}>
Received: from mail-sor-f41.google.com (mail-sor-f41.google.com. [209.85.220.41])
        by mx.example.org with SMTPS id 5b1f17b1804b1-43bb7a1c0a5sor1234567f.2.2025.03.03.01.15.24
        for <nomic@example.org>;
        Mon, 03 Mar 2025 01:15:24 -0800 (PST)
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=gmail.com; s=20230601; t=1740993324;
        h=to:subject:message-id:date:from:mime-version:from:to:cc:subject:date:message-id:reply-to;
        bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;
        b=Zx0cVb7d1lOqz0R3Xk3e9Bv+fGmC0o2wQ6r2V3s1Vx4v4Jm3p5n6q7r8s9t0u1v2w3x4y5z6A7B8C9D0E1F2G3H4
MIME-Version: 1.0
"""


# =========================================================================== readers and formats

# --- Gmail: multipart/alternative, text/plain and text/html, both quoted-printable.
plain = "Hi all,\n\nVOTE 301 FOR\nVOTE #302 against\nvote 303 abstain\n\nCheers, Alice\n"
html = (
    '<div dir="ltr"><div>Hi all,</div><div><br></div><div>VOTE 301 FOR</div>'
    "<div>VOTE #302 against</div><div>vote 303 abstain</div><div><br></div>"
    "<div>Cheers, Alice</div></div>\n"
)
add(
    "gmail_alternative_votes",
    eml(
        GMAIL_RECEIVED.format(addr="alice.liddell@gmail.com")
        + """\
Date: Mon, 3 Mar 2025 10:15:22 +0100
Message-ID: <CAF7x1+sV3qU9Yq0Q@mail.gmail.com>
Subject: votes for this week
From: Alice Liddell <alice.liddell@gmail.com>
To: nomic@example.org
Content-Type: multipart/alternative; boundary="000000000000a1b2c3d4e5f60718"
""",
        f"""\
--000000000000a1b2c3d4e5f60718
Content-Type: text/plain; charset="UTF-8"

{plain}
--000000000000a1b2c3d4e5f60718
Content-Type: text/html; charset="UTF-8"

{html}
--000000000000a1b2c3d4e5f60718--
""",
        crlf=True,
    ),
    parsed(
        "alice.liddell@gmail.com",
        "votes for this week",
        "<CAF7x1+sV3qU9Yq0Q@mail.gmail.com>",
        commands=[vote(3, 301, "FOR"), vote(4, 302, "AGAINST"), vote(5, 303, "ABSTAIN")],
        ignored=[(1, "Hi all,"), (7, "Cheers, Alice")],
    ),
)

# --- Gmail: a top-posted reply whose quoted history holds old commands.
plain = """\
VOTE 301 AGAINST
Changed my mind after reading Bob's CFJ.

On Mon, 3 Mar 2025 at 10:15, Alice Liddell <alice.liddell@gmail.com>
wrote:

> Hi all,
>
> VOTE 301 FOR
> VOTE #302 against
> PROPOSE Old idea
> This should never be proposed again.
> END PROPOSE
>
"""
add(
    "gmail_top_posted_reply",
    eml(
        GMAIL_RECEIVED.format(addr="alice.liddell@gmail.com")
        + """\
References: <CAF7x1+sV3qU9Yq0Q@mail.gmail.com>
In-Reply-To: <CAF7x1+sV3qU9Yq0Q@mail.gmail.com>
Date: Mon, 3 Mar 2025 18:02:11 +0100
Message-ID: <CAF7x1+tR5bW2mQ@mail.gmail.com>
Subject: Re: votes for this week
From: Alice Liddell <alice.liddell@gmail.com>
To: nomic@example.org
Content-Type: multipart/alternative; boundary="00000000000077e1f2a3b4c5d6e7"
""",
        f"""\
--00000000000077e1f2a3b4c5d6e7
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

{qp(plain)}
--00000000000077e1f2a3b4c5d6e7
Content-Type: text/html; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

{qp('<div dir="ltr">VOTE 301 AGAINST<div>Changed my mind.</div></div><br><div class="gmail_quote"><blockquote class="gmail_quote">VOTE 301 FOR</blockquote></div>')}
--00000000000077e1f2a3b4c5d6e7--
""",
        crlf=True,
    ),
    parsed(
        "alice.liddell@gmail.com",
        "Re: votes for this week",
        "<CAF7x1+tR5bW2mQ@mail.gmail.com>",
        commands=[vote(1, 301, "AGAINST")],
        ignored=[
            (2, "Changed my mind after reading Bob's CFJ."),
            (4, "On Mon, 3 Mar 2025 at 10:15, Alice Liddell <alice.liddell@gmail.com>"),
            (5, "wrote:"),
        ],
    ),
)

OUTLOOK_HEADERS = """\
Received: from DB9PR01MB1234.eurprd01.prod.exchangelabs.com (2603:10a6:10:2b3::14)
 by AM6PR01MB5678.eurprd01.prod.exchangelabs.com with HTTPS; Tue, 4 Mar 2025
 09:01:03 +0000
Return-Path: bob@contoso.com
From: Bob Marley <bob@contoso.com>
To: "nomic@example.org" <nomic@example.org>
Subject: {subject}
Thread-Topic: {subject}
Thread-Index: AQHbjK1ZxV3d2l4R8kq3VbW1fQ9h2w==
Date: Tue, 4 Mar 2025 09:01:02 +0000
Message-ID: <{mid}@DB9PR01MB1234.eurprd01.prod.exchangelabs.com>
Accept-Language: en-GB, en-US
Content-Language: en-GB
X-MS-Has-Attach:
X-MS-TNEF-Correlator:
X-MS-Exchange-Organization-SCL: 1
MIME-Version: 1.0
"""

# --- Outlook: Windows-1252 text/plain (quoted-printable) with smart quotes, en dash, euro.
plain = (
    "Hi everyone,\n\nVOTE 301 FOR\nVOTE 302 NAY\n"
    "CFJ Rule 105 \u201callows\u201d dice \u2013 see 2.1, \u20ac5 bet\n\n"
    "Kind regards,\nBob\n"
)
add(
    "outlook_cp1252_alternative",
    eml(
        OUTLOOK_HEADERS.format(subject="Votes this week", mid="DB9PR01MB1234A1B2C3D4E5F6")
        + 'Content-Type: multipart/alternative;\n\tboundary="_000_DB9PR01MB1234A1B2C3D4E5F6_"\n',
        f"""\
--_000_DB9PR01MB1234A1B2C3D4E5F6_
Content-Type: text/plain; charset="Windows-1252"
Content-Transfer-Encoding: quoted-printable

{qp(plain, "windows-1252")}
--_000_DB9PR01MB1234A1B2C3D4E5F6_
Content-Type: text/html; charset="Windows-1252"
Content-Transfer-Encoding: quoted-printable

{qp('<html><body><p class="MsoNormal">VOTE 301 FOR</p><p class="MsoNormal">VOTE 302 NAY</p></body></html>', "windows-1252")}
--_000_DB9PR01MB1234A1B2C3D4E5F6_--
""",
        crlf=True,
    ),
    parsed(
        "bob@contoso.com",
        "Votes this week",
        "<DB9PR01MB1234A1B2C3D4E5F6@DB9PR01MB1234.eurprd01.prod.exchangelabs.com>",
        commands=[
            vote(3, 301, "FOR"),
            vote(4, 302, "AGAINST"),
            cmd(
                5,
                "CFJ",
                statement="Rule 105 \u201callows\u201d dice \u2013 see 2.1, \u20ac5 bet",
                arguments="",
                paradox=False,
            ),
        ],
        ignored=[(1, "Hi everyone,"), (7, "Kind regards,"), (8, "Bob")],
    ),
)

# --- Outlook: HTML only (Windows-1252, quoted-printable), with the reply header block
# above an unquoted history that holds an old command.
html = """\
<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" xmlns="http://www.w3.org/TR/REC-html40">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=Windows-1252">
<meta name="Generator" content="Microsoft Word 15 (filtered medium)">
<title>VOTE 1 FOR</title>
<style><!--
/* Font Definitions */
@font-face
	{font-family:"Cambria Math";
	panose-1:2 4 5 3 5 4 6 3 2 4;}
p.MsoNormal, li.MsoNormal, div.MsoNormal
	{margin:0cm;
	font-size:11.0pt;
	font-family:"Calibri",sans-serif;}
--></style><!--[if gte mso 9]><xml>
<o:shapedefaults v:ext="edit" spidmax="1026" />
</xml><![endif]-->
</head>
<body lang="EN-GB" link="#0563C1" vlink="#954F72" style="word-wrap:break-word">
<div class="WordSection1">
<p class="MsoNormal">Hi all,<o:p></o:p></p>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<p class="MsoNormal">VOTE 301 AGAINST<o:p></o:p></p>
<p class="MsoNormal">JUDGEMENT 12 FALSE<o:p></o:p></p>
<p class="MsoNormal">Rule 105 doesn&#8217;t say anything about dice &amp; cards.<o:p></o:p></p>
<p class="MsoNormal">END JUDGEMENT<o:p></o:p></p>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<p class="MsoNormal">Best regards,<o:p></o:p></p>
<p class="MsoNormal">Bob<o:p></o:p></p>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<div>
<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">
<p class="MsoNormal"><b><span lang="EN-US">From:</span></b><span lang="EN-US"> Alice Liddell &lt;alice.liddell@gmail.com&gt;
<br>
<b>Sent:</b> Monday, March 3, 2025 10:15 AM<br>
<b>To:</b> nomic@example.org<br>
<b>Subject:</b> Proposal 301: Fair dice<o:p></o:p></span></p>
</div>
</div>
<p class="MsoNormal"><o:p>&nbsp;</o:p></p>
<p class="MsoNormal">VOTE 301 FOR<o:p></o:p></p>
</div>
</body>
</html>
"""
add(
    "outlook_html_only_reply",
    eml(
        OUTLOOK_HEADERS.format(subject="RE: Proposal 301: Fair dice", mid="DB9PR01MB1234F00D")
        + """\
In-Reply-To: <CAF7x1+sV3qU9Yq0Q@mail.gmail.com>
Content-Type: text/html; charset="Windows-1252"
Content-Transfer-Encoding: quoted-printable
""",
        qp(html, "windows-1252"),
        crlf=True,
    ),
    parsed(
        "bob@contoso.com",
        "RE: Proposal 301: Fair dice",
        "<DB9PR01MB1234F00D@DB9PR01MB1234.eurprd01.prod.exchangelabs.com>",
        commands=[
            vote(3, 301, "AGAINST"),
            cmd(
                4,
                "JUDGEMENT",
                cfj=12,
                value="FALSE",
                reasons="Rule 105 doesn\u2019t say anything about dice & cards.",
            ),
        ],
        ignored=[(1, "Hi all,"), (8, "Best regards,"), (9, "Bob")],
    ),
)

# --- Outlook, plain text only: "-----Original Message-----" starts the history.
add(
    "outlook_original_message",
    eml(
        OUTLOOK_HEADERS.format(subject="RE: CFJ 12", mid="DB9PR01MB1234BEEF")
        + """\
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: 7bit
""",
        """\
CONSENT 301
REFUSE 302

-----Original Message-----
From: Alice Liddell [mailto:alice.liddell@gmail.com]
Sent: Monday, March 3, 2025 10:15 AM
To: nomic@example.org
Subject: CFJ 12

CONSENT 302
FORFEIT
""",
        crlf=True,
    ),
    parsed(
        "bob@contoso.com",
        "RE: CFJ 12",
        "<DB9PR01MB1234BEEF@DB9PR01MB1234.eurprd01.prod.exchangelabs.com>",
        commands=[cmd(1, "CONSENT", proposal=301), cmd(2, "REFUSE", proposal=302)],
    ),
)

# --- Outlook in German: "Von:" / "Gesendet:" header block; AW: subject is not a command.
add(
    "outlook_german_aw_subject",
    eml(
        headers("Jens Becker <jens.becker@example.de>", "AW: JUDGEMENT 12: TRUE",
                "Wed, 5 Mar 2025 08:30:00 +0100",
                "AM0PR07MB4321C0FFEE@AM0PR07MB4321.eurprd07.prod.outlook.com",
                content_type="text/plain; charset=\"iso-8859-1\"", encoding="quoted-printable",
                to="\"nomic@example.org\" <nomic@example.org>", after="Content-Language: de-DE\n"),
        qp(
            "VOTE 301 F\u00dcR\nVOTE 301 FOR\n\nViele Gr\u00fc\u00dfe\nJens\n\n"
            "Von: Alice Liddell <alice.liddell@gmail.com>\n"
            "Gesendet: Montag, 3. M\u00e4rz 2025 10:15\nAn: nomic@example.org\n"
            "Betreff: JUDGEMENT 12: TRUE\n\nVOTE 302 FOR\n",
            "iso-8859-1",
        ),
        crlf=True,
    ),
    parsed(
        "jens.becker@example.de",
        "AW: JUDGEMENT 12: TRUE",
        "<AM0PR07MB4321C0FFEE@AM0PR07MB4321.eurprd07.prod.outlook.com>",
        commands=[vote(2, 301, "FOR")],
        errors=[vote_choice_error(1, "VOTE 301 F\u00dcR", 301, " (did you mean FOR?)")],
        ignored=[(4, "Viele Gr\u00fc\u00dfe"), (5, "Jens")],
    ),
)

# --- Apple Mail: format=flowed; delsp=yes, quoted-printable, UTF-8.
# Physical lines end in a space where they flow on; with DelSp that space is removed,
# so the sender ends a line with two spaces where a word boundary falls, and with one
# where a word is broken ("ver" + "y").
flowed = (
    "Hello Speaker,\n"
    "\n"
    "PROPOSE Fair dice for everyone\n"
    "Dice rolls are currently decided by the Speaker, which is a  \n"
    "na\u00efve arrangement that nobody trusts ver \n"
    "y much at all.\n"
    "ENACT RULE: Every die roll is made by speakerbot and  \n"
    "published with its seed.\n"
    "AMEND RULE 205:\n"
    "Voting on a proposal lasts 7 days.\n"
    "END PROPOSE\n"
    "\n"
    "VOTE 301 YES\n"
    "\n"
    "-- \n"
    "Carol\n"
)
add(
    "apple_mail_flowed_delsp_qp",
    eml(
        """\
Return-Path: <carol@icloud.com>
From: Carol Danvers <carol@icloud.com>
Content-Type: text/plain;
	charset=utf-8;
	delsp=yes;
	format=flowed
Content-Transfer-Encoding: quoted-printable
Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3731.700.6\\))
Subject: A proposal about dice
Message-Id: <5E1C7A0B-3D2F-4B8A-9C6D-7E8F9A0B1C2D@icloud.com>
Date: Thu, 6 Mar 2025 21:40:12 +0100
To: nomic@example.org
X-Mailer: Apple Mail (2.3731.700.6)
""",
        qp(flowed),
        crlf=True,
    ),
    parsed(
        "carol@icloud.com",
        "A proposal about dice",
        "<5E1C7A0B-3D2F-4B8A-9C6D-7E8F9A0B1C2D@icloud.com>",
        commands=[
            cmd(
                3,
                "PROPOSE",
                title="Fair dice for everyone",
                text=(
                    "Dice rolls are currently decided by the Speaker, which is a na\u00efve "
                    "arrangement that nobody trusts very much at all.\n"
                    "ENACT RULE: Every die roll is made by speakerbot and published with its "
                    "seed.\n"
                    "AMEND RULE 205:\n"
                    "Voting on a proposal lasts 7 days."
                ),
                clauses=[
                    clause(
                        "ENACT",
                        None,
                        "Every die roll is made by speakerbot and published with its seed.",
                    ),
                    clause("AMEND", 205, "Voting on a proposal lasts 7 days."),
                ],
            ),
            vote(10, 301, "FOR"),
        ],
        ignored=[(1, "Hello Speaker,")],
    ),
)

# --- Apple Mail: format=flowed without DelSp; the trailing space stays.
flowed = (
    "VOTE 301 FOR\n"
    "I vote for 301 because the current rules make every game last far \n"
    "too long for anyone to enjoy.\n"
    "VOTE 302 AGAINST\n"
)
add(
    "apple_mail_flowed_no_delsp",
    eml(
        """\
From: Carol Danvers <carol@icloud.com>
Content-Type: text/plain; charset=us-ascii; format=flowed
Content-Transfer-Encoding: 7bit
Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3731.700.6\\))
Subject: votes
Message-Id: <0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9@icloud.com>
Date: Fri, 7 Mar 2025 07:02:44 +0100
To: nomic@example.org
""",
        flowed,
        crlf=True,
    ),
    parsed(
        "carol@icloud.com",
        "votes",
        "<0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9@icloud.com>",
        commands=[vote(1, 301, "FOR"), vote(3, 302, "AGAINST")],
        ignored=[
            (
                2,
                "I vote for 301 because the current rules make every game last far too long "
                "for anyone to enjoy.",
            )
        ],
    ),
)

# --- Thunderbird: format=flowed, 8bit UTF-8, quoted flowed history, a space-stuffed line,
# and a CFJ with arguments.
flowed = (
    "On 03/03/2025 10:15, Alice Liddell wrote:\n"
    "> I think rule 105 is broken. \n"
    "> VOTE 301 FOR\n"
    "\n"
    "CFJ Rule 105 forbids dice\n"
    " From what I can see, the rule only talks about cards and never \n"
    "mentions dice at all.\n"
    "END CFJ\n"
    "\n"
    "-- \n"
    "Dave Lister\n"
)
add(
    "thunderbird_flowed_quoted_cfj",
    eml(
        """\
Message-ID: <8f3c1a2b-5d6e-4f70-8a9b-0c1d2e3f4a5b@example.net>
Date: Sat, 8 Mar 2025 11:20:05 +0000
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
Subject: Re: Rule 105
To: nomic@example.org
References: <CAF7x1+sV3qU9Yq0Q@mail.gmail.com>
In-Reply-To: <CAF7x1+sV3qU9Yq0Q@mail.gmail.com>
From: Dave Lister <dave@example.net>
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 8bit
""",
        flowed,
        crlf=False,
    ),
    parsed(
        "dave@example.net",
        "Re: Rule 105",
        "<8f3c1a2b-5d6e-4f70-8a9b-0c1d2e3f4a5b@example.net>",
        commands=[
            cmd(
                4,
                "CFJ",
                statement="Rule 105 forbids dice",
                arguments=(
                    "From what I can see, the rule only talks about cards and never mentions "
                    "dice at all."
                ),
                paradox=False,
            )
        ],
        ignored=[(1, "On 03/03/2025 10:15, Alice Liddell wrote:")],
    ),
)

# --- Thunderbird: inline replies between quoted lines; nested and indented quotes.
add(
    "thunderbird_inline_quoted_commands",
    eml(
        """\
Message-ID: <1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5@example.net>
Date: Sun, 9 Mar 2025 09:00:00 +0000
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
Subject: Re: Proposal 301 is open
To: nomic@example.org
From: Ivan Drago <ivan@example.net>
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 7bit
""",
        """\
On 02/03/2025 18:00, Speaker wrote:
> Proposal 301 (Fair dice) is open for voting.
> VOTE 301 FOR

VOTE 301 AGAINST

>> PROPOSE Old idea
>> text
>> END PROPOSE

I agree with the above.
  > indented quote: VOTE 302 FOR

--
Ivan
VOTE 999 FOR
""",
        crlf=False,
    ),
    parsed(
        "ivan@example.net",
        "Re: Proposal 301 is open",
        "<1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5@example.net>",
        commands=[vote(5, 301, "AGAINST")],
        ignored=[(1, "On 02/03/2025 18:00, Speaker wrote:"), (11, "I agree with the above.")],
    ),
)

# --- mutt: JUDGMENT (American spelling) with reasons, OVERRULE, "-- " signature.
add(
    "mutt_judgment_reasons",
    eml(
        """\
Return-Path: <erin@erin.example.net>
Date: Mon, 10 Mar 2025 22:14:09 +0100
From: Erin Hannon <erin@erin.example.net>
To: nomic@example.org
Subject: judgement on CFJ 12
Message-ID: <Z8y3kQ7pL2mN4vR1@erin.example.net>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii
Content-Disposition: inline
User-Agent: NeoMutt/20231103
""",
        """\
JUDGMENT 12 UNDECIDED
The statement refers to a rule that was repealed
while the CFJ was open, so it cannot be decided.
END JUDGMENT
OVERRULE #11

--\x20
Erin | https://erin.example.net
""",
        crlf=False,
    ),
    parsed(
        "erin@erin.example.net",
        "judgement on CFJ 12",
        "<Z8y3kQ7pL2mN4vR1@erin.example.net>",
        commands=[
            cmd(
                1,
                "JUDGEMENT",
                cfj=12,
                value="UNDECIDED",
                reasons=(
                    "The statement refers to a rule that was repealed\n"
                    "while the CFJ was open, so it cannot be decided."
                ),
            ),
            cmd(5, "OVERRULE", cfj=11),
        ],
    ),
)

# --- iPhone: multipart/alternative, both parts base64.
plain = "VOTE 301 FOR\nVOTE 302 FOR\n\nSent from my iPhone"
add(
    "iphone_base64",
    eml(
        """\
Return-Path: <frank.castle@icloud.com>
Content-Type: multipart/alternative; boundary=Apple-Mail-4F1E2D3C-B5A6-4978-8A9B-C0D1E2F3A4B5
Content-Transfer-Encoding: 7bit
From: Frank Castle <frank.castle@icloud.com>
Mime-Version: 1.0 (1.0)
Date: Tue, 11 Mar 2025 07:45:31 +0100
Subject: Votes
Message-Id: <9D8C7B6A-5F4E-4D3C-2B1A-0F9E8D7C6B5A@icloud.com>
To: nomic@example.org
X-Mailer: iPhone Mail (21D61)
""",
        f"""\

--Apple-Mail-4F1E2D3C-B5A6-4978-8A9B-C0D1E2F3A4B5
Content-Type: text/plain;
	charset=utf-8
Content-Transfer-Encoding: base64

{b64(plain)}
--Apple-Mail-4F1E2D3C-B5A6-4978-8A9B-C0D1E2F3A4B5
Content-Type: text/html;
	charset=utf-8
Content-Transfer-Encoding: base64

{b64('<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">VOTE 301 FOR<div>VOTE 302 FOR</div><div><br><div dir="ltr">Sent from my iPhone</div></div></body></html>')}
--Apple-Mail-4F1E2D3C-B5A6-4978-8A9B-C0D1E2F3A4B5--
""",
        crlf=True,
    ),
    parsed(
        "frank.castle@icloud.com",
        "Votes",
        "<9D8C7B6A-5F4E-4D3C-2B1A-0F9E8D7C6B5A@icloud.com>",
        commands=[vote(1, 301, "FOR"), vote(2, 302, "FOR")],
        ignored=[(4, "Sent from my iPhone")],
    ),
)

# --- Outlook for Android: base64 UTF-8, a JOIN with accented letters.
plain = "JOIN Zo\u00eb M\u00fcller\r\n\r\nGet Outlook for Android<https://aka.ms/AAb9ysg>\r\n"
add(
    "outlook_android_join",
    eml(
        """\
From: =?utf-8?B?Wm/DqyBNw7xsbGVy?= <Zoe.Mueller@Example.NET>
To: "nomic@example.org" <nomic@example.org>
Subject: Join
Date: Wed, 12 Mar 2025 12:00:00 +0000
Message-ID: <PAXPR10MB5E1F2A3B4C5D6E7F@PAXPR10MB5E1F.EURPRD10.PROD.OUTLOOK.COM>
Accept-Language: en-US
Content-Language: en-US
MIME-Version: 1.0
Content-Type: multipart/alternative;
	boundary="_000_PAXPR10MB5E1F2A3B4C5D6E7F_"
""",
        f"""\
--_000_PAXPR10MB5E1F2A3B4C5D6E7F_
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: base64

{b64(plain)}
--_000_PAXPR10MB5E1F2A3B4C5D6E7F_
Content-Type: text/html; charset="utf-8"
Content-Transfer-Encoding: base64

{b64('<html><body><div dir="auto">JOIN Zoë Müller</div></body></html>')}
--_000_PAXPR10MB5E1F2A3B4C5D6E7F_--
""",
        crlf=True,
    ),
    parsed(
        "zoe.mueller@example.net",
        "Join",
        "<PAXPR10MB5E1F2A3B4C5D6E7F@PAXPR10MB5E1F.EURPRD10.PROD.OUTLOOK.COM>",
        commands=[cmd(1, "JOIN", name="Zo\u00eb M\u00fcller")],
        ignored=[(3, "Get Outlook for Android<https://aka.ms/AAb9ysg>")],
    ),
)

# --- ISO-8859-1, 8bit (an older Thunderbird).
add(
    "latin1_8bit_join",
    eml(
        """\
Message-ID: <4A5B6C7D.8090A0B@example.se>
Date: Thu, 13 Mar 2025 15:30:00 +0100
From: =?ISO-8859-1?Q?Ren=E9e_=D6berg?= <renee@example.se>
User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:52.0) Gecko/20100101 Thunderbird/52.9.1
MIME-Version: 1.0
To: nomic@example.org
Subject: =?ISO-8859-1?Q?Hall=E5?=
Content-Type: text/plain; charset=ISO-8859-1
Content-Transfer-Encoding: 8bit
""",
        "Hall\u00e5!\nJOIN Ren\u00e9e \u00d6berg\nGr\u00fc\u00dfe\n",
        crlf=False,
        charset="iso-8859-1",
    ),
    parsed(
        "renee@example.se",
        "Hall\u00e5",
        "<4A5B6C7D.8090A0B@example.se>",
        commands=[cmd(2, "JOIN", name="Ren\u00e9e \u00d6berg")],
        ignored=[(1, "Hall\u00e5!"), (3, "Gr\u00fc\u00dfe")],
    ),
)

# --- Windows-1252 bytes (curly quotes 0x93/0x94, euro 0x80) labelled ISO-8859-1.
add(
    "cp1252_labelled_latin1",
    eml(
        headers("Bob Marley <bob@contoso.com>", "a CFJ", "Fri, 14 Mar 2025 10:00:00 +0000",
                "20250314100000.GA1234@contoso.com",
                content_type="text/plain; charset=\"iso-8859-1\"", encoding="8bit"),
        b"CFJ The word \x93dice\x94 in rule 105 includes \x80-coins\r\n",
        crlf=True,
    ),
    parsed(
        "bob@contoso.com",
        "a CFJ",
        "<20250314100000.GA1234@contoso.com>",
        commands=[
            cmd(
                1,
                "CFJ",
                statement="The word \u201cdice\u201d in rule 105 includes \u20ac-coins",
                arguments="",
                paradox=False,
            )
        ],
    ),
)

# --- An unknown charset label on UTF-8 text: read as UTF-8.
add(
    "unknown_charset_utf8",
    eml(
        headers("Lukasz Zolw <lukasz@example.pl>", "join", "Sat, 15 Mar 2025 10:00:00 +0100",
                "20250315.1@example.pl", content_type="text/plain; charset=\"x-mac-nonsense\"",
                encoding="8bit"),
        "JOIN \u0141ukasz \u017b\u00f3\u0142w\n",
        crlf=False,
    ),
    parsed(
        "lukasz@example.pl",
        "join",
        "<20250315.1@example.pl>",
        commands=[cmd(1, "JOIN", name="\u0141ukasz \u017b\u00f3\u0142w")],
    ),
)

# --- UTF-8 text labelled US-ASCII (a common mislabel): read as UTF-8.
add(
    "mislabelled_ascii_utf8",
    eml(
        headers("Jose Nunez <jose@example.es>", "hola", "Sat, 15 Mar 2025 11:00:00 +0100",
                "20250315.2@example.es", content_type="text/plain; charset=us-ascii"),
        "JOIN Jos\u00e9 \u00d1\u00fa\u00f1ez\n",
        crlf=False,
    ),
    parsed(
        "jose@example.es",
        "hola",
        "<20250315.2@example.es>",
        commands=[cmd(1, "JOIN", name="Jos\u00e9 \u00d1\u00fa\u00f1ez")],
    ),
)

# --- UTF-8 with one damaged byte: UTF-8 with a replacement character, not mojibake.
add(
    "damaged_utf8_replacement",
    eml(
        headers("Zoe Mueller <zoe@example.net>", "join", "Sat, 15 Mar 2025 12:00:00 +0100",
                "20250315.3@example.net", encoding="8bit"),
        b"JOIN Zo\xc3\xab \xffM\xc3\xbcller\nVOTE 301 FOR\n",
        crlf=False,
    ),
    parsed(
        "zoe@example.net",
        "join",
        "<20250315.3@example.net>",
        commands=[cmd(1, "JOIN", name="Zo\u00eb \ufffdM\u00fcller"), vote(2, 301, "FOR")],
    ),
)

# --- A UTF-8 byte-order mark at the start of the body, CRLF, 8bit.
add(
    "bom_8bit_crlf",
    eml(
        headers("Grace Hopper <grace@example.mil>", "status please",
                "Sun, 16 Mar 2025 09:00:00 -0500", "20250316.1@example.mil", encoding="8bit"),
        "\ufeffVOTE 301 FOR\nSTATUS\n",
        crlf=True,
    ),
    parsed(
        "grace@example.mil",
        "status please",
        "<20250316.1@example.mil>",
        commands=[vote(1, 301, "FOR"), cmd(2, "STATUS")],
    ),
)

# --- A byte-order mark inside a base64 body labelled Windows-1252 (a Windows script).
add(
    "bom_base64_mislabelled",
    eml(
        headers("build-bot owner <heidi@example.ch>", "scores", "Sun, 16 Mar 2025 10:00:00 +0100",
                "20250316.2@example.ch", content_type="text/plain; charset=windows-1252",
                encoding="base64"),
        b64("\ufeffSCORES\r\nJOIN Heidi M\u00fcller\r\n"),
        crlf=True,
    ),
    parsed(
        "heidi@example.ch",
        "scores",
        "<20250316.2@example.ch>",
        commands=[cmd(1, "SCORES"), cmd(2, "JOIN", name="Heidi M\u00fcller")],
    ),
)

# --- Attachments are ignored: a text attachment, a PDF and a forwarded message.
old_votes = b64("VOTE 301 AGAINST\nFORFEIT\n")
pdf = b64(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\nVOTE 301 AGAINST\n%%EOF\n")
add(
    "attachments_ignored",
    eml(
        """\
Message-ID: <b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e@example.net>
Date: Mon, 17 Mar 2025 08:00:00 +0000
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
To: nomic@example.org
From: Dave Lister <dave@example.net>
Subject: my vote, and the old list
Content-Type: multipart/mixed; boundary="------------0AbC1dEf2GhI3jKl4MnO5pQr"
""",
        f"""\
This is a multi-part message in MIME format.
--------------0AbC1dEf2GhI3jKl4MnO5pQr
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit

VOTE 301 FOR
The attached list is only for reference.

--------------0AbC1dEf2GhI3jKl4MnO5pQr
Content-Type: text/plain; charset=UTF-8; name="old-votes.txt"
Content-Disposition: attachment; filename="old-votes.txt"
Content-Transfer-Encoding: base64

{old_votes}
--------------0AbC1dEf2GhI3jKl4MnO5pQr
Content-Type: application/pdf; name="rules.pdf"
Content-Disposition: attachment; filename="rules.pdf"
Content-Transfer-Encoding: base64

{pdf}
--------------0AbC1dEf2GhI3jKl4MnO5pQr
Content-Type: message/rfc822; name="Fwd.eml"
Content-Disposition: attachment; filename="Fwd.eml"

From: Alice Liddell <alice.liddell@gmail.com>
To: nomic@example.org
Subject: votes
Content-Type: text/plain; charset=UTF-8

VOTE 302 FOR

--------------0AbC1dEf2GhI3jKl4MnO5pQr--
""",
        crlf=False,
    ),
    parsed(
        "dave@example.net",
        "my vote, and the old list",
        "<b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e@example.net>",
        commands=[vote(1, 301, "FOR")],
        ignored=[(2, "The attached list is only for reference.")],
    ),
)

# --- HTML only (a webmail): script and style dropped, <br>, <p>, <li>, entities,
# and a blockquote whose old commands are quoted.
html = """\
<html><head><style type="text/css">body { font-family: Arial; } .x:before { content: "VOTE 1 FOR"; }</style>
<script>var votes = "VOTE 2 FOR";</script></head>
<body><div dir="ltr"><div>Hello Speaker &amp; friends,</div><div><br></div>
<div>Here are my votes:</div>
<ul>
<li>VOTE 301 FOR</li>
<li>VOTE&nbsp;302&nbsp;AGAINST</li>
</ul>
<script type="text/javascript">document.write("VOTE 3 FOR")</script>
<p>SCORES</p>
<p>I&#39;d also like the rules:<br>RULES</p>
<div>Cheers,<br>Heidi</div>
</div><br>
<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Sun, 2 Mar 2025 at 18:00, Speaker &lt;nomic@example.org&gt; wrote:<br></div>
<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">
<div>Proposal 301 is open. Reply with</div><div>VOTE 301 FOR</div>
<blockquote><div>VOTE 300 AGAINST</div></blockquote>
</blockquote></div>
</body></html>
"""
add(
    "html_only_blockquote",
    eml(
        """\
From: Heidi Klum <heidi@example.ch>
To: nomic@example.org
Subject: my votes
Date: Tue, 18 Mar 2025 20:00:00 +0100
Message-ID: <1742324400.123456@webmail.example.ch>
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: quoted-printable
X-Mailer: Example Webmail 4.2
""",
        qp(html),
        crlf=True,
    ),
    parsed(
        "heidi@example.ch",
        "my votes",
        "<1742324400.123456@webmail.example.ch>",
        commands=[vote(4, 301, "FOR"), vote(5, 302, "AGAINST"), cmd(6, "SCORES"), cmd(8, "RULES")],
        ignored=[
            (1, "Hello Speaker & friends,"),
            (3, "Here are my votes:"),
            (7, "I'd also like the rules:"),
            (9, "Cheers,"),
            (10, "Heidi"),
            (12, "On Sun, 2 Mar 2025 at 18:00, Speaker <nomic@example.org> wrote:"),
        ],
    ),
)

# --- Raw UTF-8 in the Subject (no encoded-words), as some phones send: still a shortcut.
add(
    "raw_utf8_subject_propose",
    eml(
        headers("Renee Oberg <renee@example.se>", "PROPOSE: Café rules",
                "Wed, 19 Mar 2025 10:00:00 +0100", "20250319.1@example.se", encoding="8bit"),
        "SET coffee_breaks = 3\n",
        crlf=False,
    ),
    parsed(
        "renee@example.se",
        "PROPOSE: Caf\u00e9 rules",
        "<20250319.1@example.se>",
        commands=[
            cmd(
                0,
                "PROPOSE",
                title="Caf\u00e9 rules",
                text="SET coffee_breaks = 3",
                clauses=[set_clause("coffee_breaks", "3")],
            )
        ],
    ),
)


# =========================================================================== the language

def plain_mail(
    subject: str,
    body: str,
    *,
    mid: str,
    name: str = "Alice Liddell",
    addr: str = "alice@example.org",
    date: str = "Thu, 20 Mar 2025 10:00:00 +0000",
    extra: str = "",
    crlf: bool = False,
) -> bytes:
    head = headers(f"{name} <{addr}>", subject, date, mid, encoding="8bit", before=extra)
    return eml(head, body, crlf=crlf)


add(
    "near_miss_keywords",
    plain_mail(
        "votes",
        """\
VOET 301 FOR
VTOE 302 AGAINST
PROPSE Free coffee
Everyone gets free coffee.
END PROPOSE
Note to self: check rule 105.
HELP
Regards,
John Smith
""",
        mid="20250320.1@example.org",
    ),
    parsed(
        "alice@example.org",
        "votes",
        "<20250320.1@example.org>",
        commands=[cmd(7, "HELP")],
        errors=[
            err(1, "VOET 301 FOR", "unknown command VOET; did you mean VOTE?"),
            err(2, "VTOE 302 AGAINST", "unknown command VTOE; did you mean VOTE?"),
            err(3, "PROPSE Free coffee", "unknown command PROPSE; did you mean PROPOSE?"),
        ],
        ignored=[(6, "Note to self: check rule 105."), (8, "Regards,"), (9, "John Smith")],
    ),
)

add(
    "atomic_one_bad_line",
    plain_mail(
        "votes",
        "VOTE 301 FOR\nVOTE 302 MAYBE\n",
        mid="20250320.2@example.org",
    ),
    parsed(
        "alice@example.org",
        "votes",
        "<20250320.2@example.org>",
        commands=[vote(1, 301, "FOR")],
        errors=[vote_choice_error(2, "VOTE 302 MAYBE", 302)],
    ),
)

add(
    "keyword_case_numbers_and_synonyms",
    plain_mail(
        "ballots",
        """\
vote 301 yes
Vote #302 Aye
VOTE 303 no
VoTe #304 NAY
VOTE 305 abstain
VOTE 306 FOR.
Rules are fun, but
rules
Status?
consent #310
refuse 311
Help me please
""",
        mid="20250320.3@example.org",
    ),
    parsed(
        "alice@example.org",
        "ballots",
        "<20250320.3@example.org>",
        commands=[
            vote(1, 301, "FOR"),
            vote(2, 302, "FOR"),
            vote(3, 303, "AGAINST"),
            vote(4, 304, "AGAINST"),
            vote(5, 305, "ABSTAIN"),
            vote(6, 306, "FOR"),
            cmd(8, "RULES"),
            cmd(9, "STATUS"),
            cmd(10, "CONSENT", proposal=310),
            cmd(11, "REFUSE", proposal=311),
        ],
        ignored=[(7, "Rules are fun, but"), (12, "Help me please")],
    ),
)

add(
    "signature_dash_only",
    plain_mail(
        "vote",
        "VOTE 301 FOR\n--\nAlice\nVOTE 302 FOR\n",
        mid="20250320.4@example.org",
    ),
    parsed("alice@example.org", "vote", "<20250320.4@example.org>", commands=[vote(1, 301, "FOR")]),
)

add(
    "thanks_without_delimiter",
    plain_mail(
        "vote",
        """\
Hello,
VOTE 301 FOR
Thanks!
Alice Liddell
President, JOIN the Nomic Society today
VOTE 302 FOR
""",
        mid="20250320.5@example.org",
    ),
    parsed(
        "alice@example.org",
        "vote",
        "<20250320.5@example.org>",
        commands=[vote(2, 301, "FOR")],
        ignored=[(1, "Hello,")],
    ),
)

add(
    "end_and_stop_lines",
    plain_mail(
        "two messages in one",
        """\
FORFEIT
  end.
Best,
John Smith
STATUS
""",
        mid="20250320.6@example.org",
    ),
    parsed(
        "alice@example.org",
        "two messages in one",
        "<20250320.6@example.org>",
        commands=[cmd(1, "FORFEIT")],
    ),
)

add(
    "stop_line",
    plain_mail("scores", "SCORES\nSTOP\nSCORES\n", mid="20250320.7@example.org"),
    parsed("alice@example.org", "scores", "<20250320.7@example.org>", commands=[cmd(1, "SCORES")]),
)

add(
    "propose_block_all_clauses",
    plain_mail(
        "a proposal",
        """\
Dear all,

PROPOSE Tidy the ruleset
This proposal tidies up a few rules.
enact immutable rule: The Speaker's decisions are final.
ENACT RULE:
Every player may ask for a recount
once per game.
Amend Rule #205: Voting on a proposal lasts 5 days.
REPEAL RULE 105
TRANSMUTE RULE 213
SET quorum = 4
END PROPOSE

VOTE 301 FOR
""",
        mid="20250320.8@example.org",
    ),
    parsed(
        "alice@example.org",
        "a proposal",
        "<20250320.8@example.org>",
        commands=[
            cmd(
                3,
                "PROPOSE",
                title="Tidy the ruleset",
                text=(
                    "This proposal tidies up a few rules.\n"
                    "enact immutable rule: The Speaker's decisions are final.\n"
                    "ENACT RULE:\n"
                    "Every player may ask for a recount\n"
                    "once per game.\n"
                    "Amend Rule #205: Voting on a proposal lasts 5 days.\n"
                    "REPEAL RULE 105\n"
                    "TRANSMUTE RULE 213\n"
                    "SET quorum = 4"
                ),
                clauses=[
                    clause("ENACT", None, "The Speaker's decisions are final.", immutable=True),
                    clause("ENACT", None, "Every player may ask for a recount\nonce per game."),
                    clause("AMEND", 205, "Voting on a proposal lasts 5 days."),
                    clause("REPEAL", 105, ""),
                    clause("TRANSMUTE", 213, ""),
                    set_clause("quorum", "4"),
                ],
            ),
            vote(15, 301, "FOR"),
        ],
        ignored=[(1, "Dear all,")],
    ),
)

add(
    "propose_malformed_clause",
    plain_mail(
        "a proposal",
        """\
PROPOSE Longer votes
AMEND RULE abc: Voting lasts 9 days.
END PROPOSE
VOTE 301 FOR
""",
        mid="20250320.9@example.org",
    ),
    parsed(
        "alice@example.org",
        "a proposal",
        "<20250320.9@example.org>",
        commands=[vote(4, 301, "FOR")],
        errors=[
            err(
                2,
                "AMEND RULE abc: Voting lasts 9 days.",
                "AMEND RULE needs a rule number and a colon, e.g. AMEND RULE 205: followed by the "
                "new text (in the proposal \u201cLonger votes\u201d on line 1, which was not "
                "submitted)",
            )
        ],
    ),
)

add(
    "propose_unclosed_before_signature",
    plain_mail(
        "a proposal",
        """\
PROPOSE Shorter votes
AMEND RULE 205: Voting lasts 3 days.

--\x20
Alice Liddell
Nomic Society
""",
        mid="20250320.10@example.org",
    ),
    parsed(
        "alice@example.org",
        "a proposal",
        "<20250320.10@example.org>",
        errors=[
            err(
                1,
                "PROPOSE Shorter votes",
                "PROPOSE is never closed: write END PROPOSE on a line of its own after its text "
                "(before any signature)",
            )
        ],
    ),
)

add(
    "cfj_paradox_and_stray_end",
    plain_mail(
        "CFJs",
        """\
CFJ PARADOX: further play is impossible because rule 213 forbids every move
Rule 213 says no move may be made while a CFJ is open, and this CFJ is open.
END CFJ
CFJ Paradoxes are fun
END CFJ
END PROPOSE
""",
        mid="20250320.11@example.org",
    ),
    parsed(
        "alice@example.org",
        "CFJs",
        "<20250320.11@example.org>",
        commands=[
            cmd(
                1,
                "CFJ",
                statement="PARADOX: further play is impossible because rule 213 forbids every move",
                arguments=(
                    "Rule 213 says no move may be made while a CFJ is open, and this CFJ is open."
                ),
                paradox=True,
            ),
            cmd(4, "CFJ", statement="Paradoxes are fun", arguments="", paradox=False),
        ],
        errors=[
            err(
                6,
                "END PROPOSE",
                "END PROPOSE closes nothing here: no PROPOSE begins above it in this message",
            )
        ],
    ),
)

# --- Subject shortcuts.
add(
    "subject_proposal_latin1_encoded",
    eml(
        headers("Grace Hopper <grace@example.mil>",
                "=?iso-8859-1?q?Proposal:_M=FCnzen_statt_W=FCrfel?=",
                "Fri, 21 Mar 2025 10:00:00 -0500", "20250321.1@example.mil",
                content_type="text/plain; charset=us-ascii"),
        """\
Coins instead of dice.
REPEAL RULE 105
ENACT RULE:
Every random choice is made by tossing a coin.
THANKS
Grace
""",
        crlf=False,
    ),
    parsed(
        "grace@example.mil",
        "Proposal: M\u00fcnzen statt W\u00fcrfel",
        "<20250321.1@example.mil>",
        commands=[
            cmd(
                0,
                "PROPOSE",
                title="M\u00fcnzen statt W\u00fcrfel",
                text=(
                    "Coins instead of dice.\nREPEAL RULE 105\nENACT RULE:\n"
                    "Every random choice is made by tossing a coin."
                ),
                clauses=[
                    clause("REPEAL", 105, ""),
                    clause("ENACT", None, "Every random choice is made by tossing a coin."),
                ],
            )
        ],
    ),
)

add(
    "subject_propose_base64_encoded",
    eml(
        headers("Frank Castle <frank@example.org>", "=?UTF-8?B?UFJPUE9TRTogRmFpciBkw69jZQ==?=",
                "Fri, 21 Mar 2025 11:00:00 +0000", "20250321.2@example.org",
                encoding="quoted-printable"),
        qp("ENACT RULE: All dice are fair d\u00efce.\n\n-- \nFrank\n"),
        crlf=True,
    ),
    parsed(
        "frank@example.org",
        "PROPOSE: Fair d\u00efce",
        "<20250321.2@example.org>",
        commands=[
            cmd(
                0,
                "PROPOSE",
                title="Fair d\u00efce",
                text="ENACT RULE: All dice are fair d\u00efce.",
                clauses=[clause("ENACT", None, "All dice are fair d\u00efce.")],
            )
        ],
    ),
)

add(
    "subject_cfj_paradox",
    plain_mail(
        "CFJ: PARADOX: rule 213 forbids every move",
        """\
Rule 213 says no move may be made while a CFJ is open.
This CFJ is open, so no move can ever be made again.

--\x20
Alice
""",
        mid="20250321.3@example.org",
    ),
    parsed(
        "alice@example.org",
        "CFJ: PARADOX: rule 213 forbids every move",
        "<20250321.3@example.org>",
        commands=[
            cmd(
                0,
                "CFJ",
                statement="PARADOX: rule 213 forbids every move",
                arguments=(
                    "Rule 213 says no move may be made while a CFJ is open.\n"
                    "This CFJ is open, so no move can ever be made again."
                ),
                paradox=True,
            )
        ],
    ),
)

add(
    "subject_judgement",
    plain_mail(
        "JUDGEMENT 12: TRUE",
        "Rule 105 plainly says dice are allowed.\n",
        mid="20250321.4@example.org",
    ),
    parsed(
        "alice@example.org",
        "JUDGEMENT 12: TRUE",
        "<20250321.4@example.org>",
        commands=[
            cmd(
                0,
                "JUDGEMENT",
                cfj=12,
                value="TRUE",
                reasons="Rule 105 plainly says dice are allowed.",
            )
        ],
    ),
)

add(
    "subject_judgment_then_commands",
    plain_mail(
        "Judgment #13: false",
        """\
Nothing in the rules says so.
END JUDGMENT
VOTE 301 FOR
""",
        mid="20250321.5@example.org",
    ),
    parsed(
        "alice@example.org",
        "Judgment #13: false",
        "<20250321.5@example.org>",
        commands=[
            cmd(0, "JUDGEMENT", cfj=13, value="FALSE", reasons="Nothing in the rules says so."),
            vote(3, 301, "FOR"),
        ],
    ),
)

add(
    "subject_judgement_bad_value",
    plain_mail("JUDGEMENT 12: maybe", "I am not sure.\n", mid="20250321.6@example.org"),
    parsed(
        "alice@example.org",
        "JUDGEMENT 12: maybe",
        "<20250321.6@example.org>",
        errors=[
            err(
                0,
                "JUDGEMENT 12: maybe",
                "a Subject JUDGEMENT needs TRUE, FALSE or UNDECIDED after the colon, "
                "e.g. JUDGEMENT 12: TRUE",
            )
        ],
    ),
)

add(
    "subject_re_is_not_a_command",
    plain_mail(
        "Re: PROPOSE: Fair dice",
        "I like it.\nVOTE 301 FOR\n",
        mid="20250321.7@example.org",
    ),
    parsed(
        "alice@example.org",
        "Re: PROPOSE: Fair dice",
        "<20250321.7@example.org>",
        commands=[vote(2, 301, "FOR")],
        ignored=[(1, "I like it.")],
    ),
)

add(
    "subject_fwd_gmail_forward",
    eml(
        GMAIL_RECEIVED.format(addr="alice.liddell@gmail.com")
        + """\
Date: Sat, 22 Mar 2025 09:00:00 +0100
Message-ID: <CAF7x1+fWd0001@mail.gmail.com>
Subject: Fwd: CFJ: dice are cards
From: Alice Liddell <alice.liddell@gmail.com>
To: nomic@example.org
Content-Type: text/plain; charset="UTF-8"
""",
        """\
FYI

---------- Forwarded message ---------
From: Bob Marley <bob@contoso.com>
Date: Fri, 21 Mar 2025 at 18:00
Subject: CFJ: dice are cards
To: <alice.liddell@gmail.com>

VOTE 301 AGAINST
FORFEIT
""",
        crlf=True,
    ),
    parsed(
        "alice.liddell@gmail.com",
        "Fwd: CFJ: dice are cards",
        "<CAF7x1+fWd0001@mail.gmail.com>",
        ignored=[(1, "FYI")],
    ),
)

add(
    "subject_sv_fw_not_commands",
    plain_mail(
        "SV: Fw: Proposal: Coins",
        "RULES\n",
        mid="20250322.2@example.se",
        name="Sven Svensson",
        addr="sven@example.se",
    ),
    parsed(
        "sven@example.se",
        "SV: Fw: Proposal: Coins",
        "<20250322.2@example.se>",
        commands=[cmd(1, "RULES")],
    ),
)

add(
    "subject_plain_not_a_command",
    plain_mail("STATUS", "VOTE 301 FOR\n", mid="20250322.3@example.org"),
    parsed(
        "alice@example.org", "STATUS", "<20250322.3@example.org>", commands=[vote(1, 301, "FOR")]
    ),
)

add(
    "conflicting_votes_in_one_message",
    plain_mail(
        "votes", "VOTE 301 FOR\nVOTE 301 AGAINST\nVOTE 302 FOR\n", mid="20250322.4@example.org"
    ),
    parsed(
        "alice@example.org",
        "votes",
        "<20250322.4@example.org>",
        commands=[vote(1, 301, "FOR"), vote(3, 302, "FOR")],
        errors=[
            err(
                2,
                "VOTE 301 AGAINST",
                "proposal 301 already has a different VOTE on line 1 of this message; keep only one",
            )
        ],
    ),
)

add(
    "too_many_command_lines",
    plain_mail(
        "a lot of votes",
        "".join(f"VOTE {n} FOR\n" for n in range(1, 202)),
        mid="20250322.5@example.org",
    ),
    parsed(
        "alice@example.org",
        "a lot of votes",
        "<20250322.5@example.org>",
        errors=[
            err(
                0,
                "",
                "this message has more than 200 command lines; the Speaker reads at most 200 in "
                "one message, so none was applied. Split them over several messages.",
            )
        ],
    ),
)

add(
    "date_in_future",
    plain_mail(
        "from the future",
        "VOTE 301 FOR\n",
        mid="20990101.1@example.org",
        date="Thu, 01 Jan 2099 00:00:00 +0000",
    ),
    parsed(
        "alice@example.org",
        "from the future",
        "<20990101.1@example.org>",
        commands=[vote(1, 301, "FOR")],
    ),
)

add(
    "empty_body",
    plain_mail("nothing", "", mid="20250322.6@example.org"),
    parsed("alice@example.org", "nothing", "<20250322.6@example.org>"),
)


# =========================================================================== the Speaker

SPEAKER_NAME, SPEAKER_ADDR = "The Speaker", "speaker@example.org"
SECRET = "correct-horse-battery-staple"

add(
    "admin_every_action",
    plain_mail(
        "admin",
        f"""\
PASSWORD {SECRET}
ADMIN ADD zoe@example.net Zo\u00eb M\u00fcller
ADMIN REMOVE <Bob@Contoso.com>
ADMIN SCORE Alice Liddell +5 solved the riddle
ADMIN SCORE dave@example.net -3
ADMIN SET quorum 4
ADMIN EXTEND #301 1d12h
ADMIN CLOSE 302
ADMIN VOID 303 duplicate of 301
ADMIN RULE AMEND RULE 205:
Voting on a proposal lasts 5 days.
END RULE
ADMIN RULE REPEAL RULE 105
ADMIN JUDGE 12 Carol Danvers
ADMIN SPEAKER erin@erin.example.net
ADMIN DIGEST

--\x20
The Speaker
""",
        mid="20250323.1@example.org",
        name=SPEAKER_NAME,
        addr=SPEAKER_ADDR,
    ),
    parsed(
        "speaker@example.org",
        "admin",
        "<20250323.1@example.org>",
        commands=[
            admin(2, "add", email="zoe@example.net", name="Zo\u00eb M\u00fcller"),
            admin(3, "remove", player="bob@contoso.com"),
            admin(4, "score", player="Alice Liddell", delta=5, reason="solved the riddle"),
            admin(5, "score", player="dave@example.net", delta=-3, reason=None),
            admin(6, "set", parameter="quorum", value="4"),
            admin(7, "extend", proposal=301, duration="1d12h"),
            admin(8, "close", proposal=302),
            admin(9, "void", proposal=303, reason="duplicate of 301"),
            admin(10, "rule", clause=clause("AMEND", 205, "Voting on a proposal lasts 5 days.")),
            admin(13, "rule", clause=clause("REPEAL", 105, "")),
            admin(14, "judge", cfj=12, player="Carol Danvers"),
            admin(15, "speaker", player="erin@erin.example.net"),
            admin(16, "digest"),
        ],
    ),
)

add(
    "admin_rule_enact_and_set",
    plain_mail(
        "admin rules",
        f"""\
admin rule enact immutable rule: The Speaker may not be removed
while a CFJ about the Speaker is open.
end rule
ADMIN RULE TRANSMUTE RULE 213
ADMIN RULE SET voting_period = 7d
ADMIN SET voting_period = 5d
Password: {SECRET}
""",
        mid="20250323.2@example.org",
        name=SPEAKER_NAME,
        addr=SPEAKER_ADDR,
    ),
    parsed(
        "speaker@example.org",
        "admin rules",
        "<20250323.2@example.org>",
        commands=[
            admin(
                1,
                "rule",
                clause=clause(
                    "ENACT",
                    None,
                    "The Speaker may not be removed\nwhile a CFJ about the Speaker is open.",
                    immutable=True,
                ),
            ),
            admin(4, "rule", clause=clause("TRANSMUTE", 213, "")),
            admin(5, "rule", clause=set_clause("voting_period", "7d")),
            admin(6, "set", parameter="voting_period", value="5d"),
        ],
    ),
)

add(
    "admin_without_password",
    plain_mail(
        "admin",
        "ADMIN DIGEST\nADMIN CLOSE 302\nVOTE 301 FOR\n",
        mid="20250323.3@example.org",
        name=SPEAKER_NAME,
        addr=SPEAKER_ADDR,
    ),
    parsed(
        "speaker@example.org",
        "admin",
        "<20250323.3@example.org>",
        commands=[vote(3, 301, "FOR")],
        errors=[
            err(1, "ADMIN DIGEST", NEEDS_PASSWORD),
            err(2, "ADMIN CLOSE 302", NEEDS_PASSWORD),
        ],
    ),
)

add(
    "admin_password_misspelled",
    plain_mail(
        "admin",
        f"PASWORD {SECRET}\nADMIN DIGEST\n",
        mid="20250323.4@example.org",
        name=SPEAKER_NAME,
        addr=SPEAKER_ADDR,
    ),
    parsed(
        "speaker@example.org",
        "admin",
        "<20250323.4@example.org>",
        errors=[
            err(1, "PASWORD ********", "unknown command PASWORD; did you mean PASSWORD?"),
            err(2, "ADMIN DIGEST", NEEDS_PASSWORD),
        ],
    ),
)

add(
    "admin_password_elsewhere_scrubbed",
    plain_mail(
        f"scores {SECRET}",
        f"""\
PASSWORD {SECRET}
The old password was {SECRET}, do not use it.
ADMIN SCORE alice@example.org +1 for guessing {SECRET}
ADMIN EXTEND 301 forever
ADMIN FROB 3
ADMIN SCROE bob@contoso.com +2
""",
        mid="20250323.5@example.org",
        name=SPEAKER_NAME,
        addr=SPEAKER_ADDR,
    ),
    parsed(
        "speaker@example.org",
        "scores ********",
        "<20250323.5@example.org>",
        commands=[
            admin(3, "score", player="alice@example.org", delta=1, reason="for guessing ********"),
        ],
        errors=[
            err(
                4,
                "ADMIN EXTEND 301 forever",
                "ADMIN EXTEND: cannot read 'forever' as a duration; write it like 7d, 36h, 90m, "
                "45s or 1d12h",
            ),
            err(
                5,
                "ADMIN FROB 3",
                "unknown ADMIN action FROB; ADMIN needs one of ADD, REMOVE, SCORE, SET, EXTEND, "
                "CLOSE, VOID, RULE, JUDGE, SPEAKER, END GAME, NEW GAME, DONE, DIGEST, REVEAL, PAUSE, "
                "RESUME, ABSENT or SKIP",
            ),
            err(
                6,
                "ADMIN SCROE bob@contoso.com +2",
                "unknown ADMIN action SCROE; did you mean SCORE?",
            ),
        ],
        ignored=[(2, "The old password was ********, do not use it.")],
    ),
)


# =========================================================================== never answered

add(
    "auto_reply_vacation",
    eml(
        headers("Bob Marley <bob@contoso.com>", "Automatic reply: Proposal 301 is open",
                "Mon, 24 Mar 2025 10:00:00 +0000", "AUTO0001@contoso.com",
                after="Auto-Submitted: auto-replied\nX-Auto-Response-Suppress: All\n"),
        "I am out of the office until Monday.\nVOTE 301 FOR\n",
        crlf=True,
    ),
    parsed(
        "bob@contoso.com",
        "Automatic reply: Proposal 301 is open",
        "<AUTO0001@contoso.com>",
        skipped="auto-reply",
    ),
)

add(
    "auto_submitted_no_is_read",
    eml(
        headers("Bob Marley <bob@contoso.com>", "votes", "Mon, 24 Mar 2025 10:05:00 +0000",
                "NOTAUTO01@contoso.com", after="Auto-Submitted: no\n"),
        "VOTE 301 FOR\n",
        crlf=True,
    ),
    parsed("bob@contoso.com", "votes", "<NOTAUTO01@contoso.com>", commands=[vote(1, 301, "FOR")]),
)

add(
    "x_autoreply",
    eml(
        headers("Ivan Drago <ivan@example.net>", "Re: Proposal 301",
                "Mon, 24 Mar 2025 10:10:00 +0000", "AUTO0002@example.net",
                after="X-Autoreply: yes\n"),
        "I'm away. VOTE 301 FOR\n",
        crlf=False,
    ),
    parsed("ivan@example.net", "Re: Proposal 301", "<AUTO0002@example.net>", skipped="auto-reply"),
)

add(
    "x_autorespond",
    eml(
        headers("Dave Lister <dave@example.net>", "Away", "Mon, 24 Mar 2025 10:15:00 +0000",
                "AUTO0003@example.net", after="X-Autorespond: Away\n"),
        "FORFEIT\n",
        crlf=False,
    ),
    parsed("dave@example.net", "Away", "<AUTO0003@example.net>", skipped="auto-reply"),
)

add(
    "bounce_mailer_daemon_report",
    eml(
        """\
Return-Path: <>
Received: by mx.example.org (Postfix) id 3F2A1B0C9D; Mon, 24 Mar 2025 11:00:01 +0000 (UTC)
Date: Mon, 24 Mar 2025 11:00:01 +0000 (UTC)
From: MAILER-DAEMON@mx.example.org (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: nomic@example.org
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="3F2A1B0C9D.1742814001/mx.example.org"
Message-Id: <20250324110001.3F2A1B0C9D@mx.example.org>
""",
        """\
This is a MIME-encapsulated message.

--3F2A1B0C9D.1742814001/mx.example.org
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

--3F2A1B0C9D.1742814001/mx.example.org
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Final-Recipient: rfc822; gone@example.com
Action: failed
Status: 5.1.1

--3F2A1B0C9D.1742814001/mx.example.org--
""",
        crlf=False,
    ),
    parsed(
        "mailer-daemon@mx.example.org",
        "Undelivered Mail Returned to Sender",
        "<20250324110001.3F2A1B0C9D@mx.example.org>",
        skipped="bounce",
    ),
)

add(
    "bounce_null_return_path",
    eml(
        headers("Mail System <notifications@example.com>", "Delivery delayed",
                "Mon, 24 Mar 2025 11:05:00 +0000", "DELAY0001@example.com",
                content_type="text/plain; charset=us-ascii", before="Return-Path: <>\n"),
        "Your message to gone@example.com has been delayed.\n",
        crlf=False,
    ),
    parsed(
        "notifications@example.com", "Delivery delayed", "<DELAY0001@example.com>", skipped="bounce"
    ),
)

add(
    "bounce_postmaster",
    eml(
        headers("postmaster@example.com", "Message rejected", "Mon, 24 Mar 2025 11:10:00 +0000",
                "REJECT0001@example.com", content_type="text/plain; charset=us-ascii"),
        "Rejected: VOTE 301 FOR\n",
        crlf=False,
    ),
    parsed(
        "postmaster@example.com", "Message rejected", "<REJECT0001@example.com>", skipped="bounce"
    ),
)

add(
    "list_id_mailing_list",
    eml(
        headers("Alice Liddell <alice@example.org>", "[nomic-discuss] VOTE 301 FOR",
                "Mon, 24 Mar 2025 12:00:00 +0000", "20250324.list1@example.org",
                content_type="text/plain; charset=us-ascii", to="nomic-discuss@lists.example.org",
                after="List-Id: Nomic discussion <nomic-discuss.lists.example.org>\nList-Unsubscribe: <mailto:nomic-discuss-leave@lists.example.org>\nPrecedence: list\n"),
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    parsed(
        "alice@example.org",
        "[nomic-discuss] VOTE 301 FOR",
        "<20250324.list1@example.org>",
        skipped="list",
    ),
)

add(
    "precedence_bulk",
    eml(
        headers("Newsletter <news@example.com>", "This week in Nomic",
                "Mon, 24 Mar 2025 12:30:00 +0000", "NEWS0001@example.com",
                content_type="text/plain; charset=us-ascii", after="Precedence: bulk\n"),
        "HELP\n",
        crlf=False,
    ),
    parsed("news@example.com", "This week in Nomic", "<NEWS0001@example.com>", skipped="list"),
)

add(
    "x_loop_own_token",
    eml(
        headers("Speakerbot <nomic@example.org>", "Results of proposal 301",
                "Mon, 24 Mar 2025 13:00:00 +0000", "speakerbot.301@example.org",
                content_type="text/plain; charset=us-ascii", after="X-Loop: nomic@example.org\n"),
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    parsed(
        "nomic@example.org",
        "Results of proposal 301",
        "<speakerbot.301@example.org>",
        skipped="loop",
    ),
)

add(
    "x_loop_other_token",
    eml(
        headers("Alice Liddell <alice@example.org>", "votes", "Mon, 24 Mar 2025 13:05:00 +0000",
                "20250324.loop2@example.org", content_type="text/plain; charset=us-ascii",
                after="X-Loop: procmail-alice@example.org\n"),
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    parsed(
        "alice@example.org", "votes", "<20250324.loop2@example.org>", commands=[vote(1, 301, "FOR")]
    ),
)


# =========================================================================== senders

add(
    "from_two_addresses",
    eml(
        headers("Alice Liddell <alice@example.org>, Bob Marley <bob@contoso.com>", "votes",
                "Tue, 25 Mar 2025 10:00:00 +0000", "20250325.1@example.org",
                content_type="text/plain; charset=us-ascii"),
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    problem(None, "votes", "<20250325.1@example.org>", FROM_PROBLEM),
)

add(
    "from_missing",
    eml(
        """\
To: nomic@example.org
Subject: votes
Date: Tue, 25 Mar 2025 10:05:00 +0000
Message-ID: <20250325.2@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii
""",
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    problem(None, "votes", "<20250325.2@example.org>", FROM_PROBLEM),
)

add(
    "from_without_domain",
    eml(
        headers("alice", "votes", "Tue, 25 Mar 2025 10:10:00 +0000", "20250325.3@example.org",
                content_type="text/plain; charset=us-ascii"),
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    problem(None, "votes", "<20250325.3@example.org>", FROM_PROBLEM),
)

add(
    "from_header_twice",
    eml(
        headers("Mallory <mallory@example.com>", "votes", "Tue, 25 Mar 2025 10:15:00 +0000",
                "20250325.4@example.org", content_type="text/plain; charset=us-ascii",
                before="From: Alice Liddell <alice@example.org>\n"),
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    problem(None, "votes", "<20250325.4@example.org>", FROM_PROBLEM),
)

add(
    "reply_to_is_not_the_sender",
    eml(
        """\
From: "Alice Liddell" <Alice@Example.ORG>
Reply-To: Mallory <mallory@example.com>
Sender: mailer@example.org
To: nomic@example.org
Subject: votes
Date: Tue, 25 Mar 2025 10:20:00 +0000
Message-ID: <20250325.5@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii
""",
        "VOTE 301 FOR\n",
        crlf=False,
    ),
    parsed(
        "alice@example.org", "votes", "<20250325.5@example.org>", commands=[vote(1, 301, "FOR")]
    ),
)


# =========================================================================== limits and damage


def attachment_parts(boundary: str, count: int) -> str:
    return "".join(
        f'--{boundary}\nContent-Type: image/png; name="p{n}.png"\n'
        f'Content-Disposition: attachment; filename="p{n}.png"\nContent-Transfer-Encoding: base64\n\n'
        "iVBORw0KGgo=\n"
        for n in range(count)
    )


add(
    "too_many_parts",
    eml(
        headers("Frank Castle <frank@example.org>", "holiday pictures",
                "Wed, 26 Mar 2025 10:00:00 +0000", "20250326.1@example.org",
                content_type="multipart/mixed; boundary=\"many\""),
        "--many\nContent-Type: text/plain\n\nVOTE 301 FOR\n"
        + attachment_parts("many", 100)
        + "--many--\n",
        crlf=False,
    ),
    problem(
        "frank@example.org",
        "holiday pictures",
        "<20250326.1@example.org>",
        TOO_MANY_PARTS,
        "too-many-parts",
    ),
)

deep = "Content-Type: text/plain\n\nVOTE 301 FOR\n"
for level in range(11, 0, -1):
    deep = (
        f'Content-Type: multipart/mixed; boundary="level{level}"\n\n'
        f"--level{level}\n{deep}\n--level{level}--\n"
    )
add(
    "too_deep",
    eml(
        """\
From: Frank Castle <frank@example.org>
To: nomic@example.org
Subject: forwarded many times
Date: Wed, 26 Mar 2025 10:05:00 +0000
Message-ID: <20250326.2@example.org>
MIME-Version: 1.0
""",
        deep.split("\n\n", 1)[1],
        crlf=False,
    ).replace(
        b"MIME-Version: 1.0\n",
        b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="level1"\n',
        1,
    ),
    problem(
        "frank@example.org",
        "forwarded many times",
        "<20250326.2@example.org>",
        TOO_DEEP,
        "too-deep",
    ),
)

big = b64(bytes(range(256)) * 800)
too_large = eml(
    """\
From: Frank Castle <frank@example.org>
To: nomic@example.org
Subject: the whole rulebook as a scan
Date: Wed, 26 Mar 2025 10:10:00 +0000
Message-ID: <20250326.3@example.org>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="big"
""",
    "--big\nContent-Type: text/plain\n\nVOTE 301 FOR\n"
    '--big\nContent-Type: application/octet-stream; name="scan.bin"\n'
    "Content-Transfer-Encoding: base64\n\n" + big + "--big--\n",
    crlf=False,
)
add(
    "too_large",
    too_large,
    problem(
        "frank@example.org",
        "the whole rulebook as a scan",
        "<20250326.3@example.org>",
        f"This message is {(len(too_large) + 1023) // 1024} KB long, more than the 256 KB the "
        "Speaker reads. Send your commands again without attachments, pictures or quoted history.",
        "too-large",
    ),
)

add(
    "defective_no_boundary",
    eml(
        headers("Alice Liddell <alice@example.org>", "votes", "Wed, 26 Mar 2025 11:00:00 +0000",
                "20250326.4@example.org", content_type="multipart/mixed"),
        "--xyz\nContent-Type: text/plain\n\nVOTE 301 FOR\n--xyz--\n",
        crlf=False,
    ),
    problem("alice@example.org", "votes", "<20250326.4@example.org>", BROKEN_MIME),
)

add(
    "defective_start_boundary_missing",
    eml(
        headers("Alice Liddell <alice@example.org>", "votes", "Wed, 26 Mar 2025 11:05:00 +0000",
                "20250326.5@example.org",
                content_type="multipart/alternative; boundary=\"declared\""),
        "--other\nContent-Type: text/plain\n\nVOTE 301 FOR\n--other--\n",
        crlf=False,
    ),
    problem("alice@example.org", "votes", "<20250326.5@example.org>", BROKEN_MIME),
)

add(
    "defective_truncated_still_readable",
    eml(
        headers("Alice Liddell <alice@example.org>", "votes", "Wed, 26 Mar 2025 11:10:00 +0000",
                "20250326.6@example.org", content_type="multipart/alternative; boundary=\"cut\""),
        "--cut\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        "Vk9URSAzMDEgRk9SClZPVEUgMzAyIEFHQUlOU1QK!!\n",
        crlf=False,
    ),
    parsed(
        "alice@example.org",
        "votes",
        "<20250326.6@example.org>",
        commands=[vote(1, 301, "FOR"), vote(2, 302, "AGAINST")],
    ),
)

add(
    "no_text_part",
    eml(
        headers("Frank Castle <frank@example.org>", "photo of my ballot",
                "Wed, 26 Mar 2025 11:15:00 +0000", "20250326.7@example.org",
                content_type="multipart/mixed; boundary=\"pic\""),
        '--pic\nContent-Type: image/jpeg; name="ballot.jpg"\nContent-Transfer-Encoding: base64\n\n'
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/\n"
        "--pic--\n",
        crlf=False,
    ),
    problem("frank@example.org", "photo of my ballot", "<20250326.7@example.org>", NO_TEXT),
)


NOT_CHECKED = {"checked": False, "authenticated": False, "by": None,
               "why": "not checked: give --config to check it"}


def main() -> int:
    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.glob("*.eml"):
        old.unlink()
    for old in CORPUS.glob("*.json"):
        old.unlink()
    for name, (raw, expected) in sorted(CASES.items()):
        # Without a configuration nothing is authenticated: that is what parse says.
        expected = {**expected, "authentication": NOT_CHECKED}
        (CORPUS / f"{name}.eml").write_bytes(raw)
        (CORPUS / f"{name}.json").write_text(
            json.dumps(expected, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
    print(f"wrote {len(CASES)} messages to {CORPUS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
