"""Unit tests of the mail reader: charsets, format=flowed, HTML, MIME, senders, skips."""

from __future__ import annotations

import pytest

from speakerbot.mail.inbound.reading import (
    FROM_PROBLEM,
    NEVER_ANSWER,
    REFUSED,
    InboundMail,
    can_acknowledge,
    decode_bytes,
    html_to_text,
    read_message,
    unflow,
)
from tests.mail.conftest import LIMIT_SECONDS, cpu_seconds


def mail(headers: str, body: str | bytes = "VOTE 301 FOR\n") -> bytes:
    data = body if isinstance(body, bytes) else body.encode("utf-8")
    return headers.strip("\n").encode("utf-8") + b"\n\n" + data


BASIC = "From: Alice <alice@example.org>\nSubject: votes\nMessage-ID: <1@example.org>\n"

# ---------------------------------------------------------------------- charsets


@pytest.mark.parametrize(
    ("data", "charset", "text"),
    [
        (b"caf\xe9", "iso-8859-1", "café"),
        (b"\x93quoted\x94 \x80", "ISO-8859-1", "“quoted” €"),
        (b"\x93quoted\x94", "windows-1252", "“quoted”"),
        (b"caf\xc3\xa9", "x-unknown-charset", "café"),
        (b"caf\xc3\xa9", None, "café"),
        (b"caf\xc3\xa9", "us-ascii", "café"),
        (b"caf\xc3\xa9", '"UTF-8"', "café"),
        (b"caf\xe9", "utf-8", "café"),
        (b"Zo\xc3\xab \xff", "utf-8", "Zoë \ufffd"),
        (b"\xef\xbb\xbfhi", "windows-1252", "hi"),
        (b"\x81\x8d", "utf-8", "\x81\x8d"),
        (b"hi", "base64", "hi"),
        (b"hi", "rot13", "hi"),
        (b"caf\xc3\xa9", "punycode", "café"),
        (b"a\\u00e9", "unicode_escape", "a\\u00e9"),
        (b"\xa4", "iso-8859-15", "€"),
        (b"caf\xc3\xa9", "utf-8*en", "café"),
    ],
)
def test_decode_bytes(data: bytes, charset: str | None, text: str) -> None:
    assert decode_bytes(data, charset) == text


def test_punycode_label_is_not_used() -> None:
    start = cpu_seconds()
    decode_bytes(b"a" * 100_000 + b"-" + b"b" * 100_000, "punycode")
    assert cpu_seconds() - start < 0.5


# ---------------------------------------------------------------------- format=flowed


@pytest.mark.parametrize(
    ("flowed", "delsp", "text"),
    [
        ("a \nb\n", False, "a b\n"),
        ("a \nb\n", True, "ab\n"),
        ("a  \nb", True, "a b"),
        ("one \ntwo \nthree\nfour", False, "one two three\nfour"),
        ("> a \n> b\n", False, "> a b\n"),
        (">> a \n>> b\n> c", False, ">> a b\n> c"),
        ("> a \nb", False, "> a \nb"),
        ("-- \nAlice", False, "-- \nAlice"),
        (" From here\n  two", False, "From here\n two"),
        ("last \n", False, "last \n"),
        ("", False, ""),
    ],
)
def test_unflow(flowed: str, delsp: bool, text: str) -> None:
    assert unflow(flowed, delsp=delsp) == text


# ---------------------------------------------------------------------- HTML


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ("<p>a</p><p>b</p>", "a\nb"),
        ("a<br>b<br><br>c", "a\nb\n\nc"),
        ("<div>a</div><div><br></div><div>b</div>", "a\n\nb"),
        ("<p>a</p><p>&nbsp;</p><p>b</p>", "a\n\nb"),
        ("<P>A</P><BR/>b", "A\n\nb"),
        ("<P>A<BR/>b</P>", "A\nb"),
        ("<script>VOTE 1 FOR</script>a<style>p{}</style>", "a"),
        ("<head><title>VOTE 1 FOR</title><meta x></head><body>a</body>", "a"),
        ("<title>VOTE 1 FOR</title>a", "a"),
        ("&lt;VOTE&gt; &amp; &#8217;&#x2019; &eacute;", "<VOTE> & ’’ é"),
        ("VOTE&nbsp;1&nbsp;FOR", "VOTE 1 FOR"),
        ("a\n   b\n\tc", "a b c"),
        ("a<blockquote>b<blockquote>c</blockquote>d</blockquote>e", "a\n> b\n> > c\n> d\ne"),
        ('<blockquote type="cite"><div>VOTE 1 FOR</div></blockquote>', "> VOTE 1 FOR"),
        ("<ul><li>VOTE 1 FOR</li><li>VOTE 2 FOR</li></ul>", "VOTE 1 FOR\nVOTE 2 FOR"),
        ("<table><tr><td>VOTE</td><td>1</td><td>FOR</td></tr></table>", "VOTE 1 FOR"),
        ("<pre>a\nb</pre>", "a\nb"),
        ("<!-- VOTE 1 FOR -->a<!--[if mso]>x<![endif]-->", "a"),
        ("<!DOCTYPE html><html>a</html>", "a"),
        ("1 < 2 and 3<4", "1 < 2 and 3<4"),
        ("a<b", "a"),
        ("a<!-- unfinished", "a"),
        ("a<script>unfinished", "a"),
        ("<p>a</p>\n\n\n<p></p><p></p><br><br><br><p>b</p>", "a\n\nb"),
        ('<a href="x>y">link</a>', 'y">link'),
    ],
)
def test_html_to_text(html: str, text: str) -> None:
    assert html_to_text(html) == text


@pytest.mark.parametrize(
    "hostile",
    ["<a " * 80000, "</" * 100000, "<!--" * 60000, "<" * 200000, "<!" * 100000, "<a b='" * 40000,
     "<script>" + "</scrip" * 30000, "&#" * 100000, "<br>" * 60000, "<blockquote>" * 20000],
    ids=["open-tags", "close-tags", "comments", "lt", "decl", "quotes", "script", "charref", "br",
         "deep-quote"],
)  # fmt: skip
def test_html_to_text_is_linear_on_hostile_input(hostile: str) -> None:
    start = cpu_seconds()
    html_to_text(hostile)
    assert cpu_seconds() - start < LIMIT_SECONDS


# ---------------------------------------------------------------------- reading whole messages


def test_read_basic_fields() -> None:
    raw = mail(
        "From: =?utf-8?q?Zo=C3=AB?= <Zoe@Example.NET>\nSubject: =?utf-8?q?caf=C3=A9?=\n"
        "Message-ID:  <abc@example.net> \nIn-Reply-To: <x@y>\n"
        "References: <a@b>\n <c@d> <e@f>\nReply-To: other@example.com\n"
    )
    read = read_message(raw)
    assert read == InboundMail(
        sender="zoe@example.net",
        sender_name="Zoë",
        subject="café",
        message_id="<abc@example.net>",
        in_reply_to="<x@y>",
        references=("<a@b>", "<c@d>", "<e@f>"),
        body="VOTE 301 FOR\n",
        skipped=None,
        problem=None,
    )
    assert can_acknowledge(read)
    assert "VOTE" not in repr(read)  # the body may hold the Speaker's PASSWORD line


def test_folded_subject_is_unfolded() -> None:
    read = read_message(mail("From: a@example.org\nSubject: PROPOSE: a long\n  title here\n"))
    assert read.subject == "PROPOSE: a long title here"


@pytest.mark.parametrize(
    "value",
    [
        "Alice <alice@example.org>, Bob <bob@example.org>",
        "alice",
        "Alice <alice>",
        "@example.org",
        "alice@",
        "a@b@c",
        "<>",
        "",
        "Team: alice@example.org;",
        "undisclosed-recipients:;",
        "Alice <alice@example.org> <bob@evil.example>",
        "alice@example.org)<bob@evil.example>",
        '"quoted local"@example.org',
        "alice@[127.0.0.1]",
    ],
)
def test_bad_from(value: str) -> None:
    read = read_message(mail(f"From: {value}\nSubject: x\n"))
    assert read.sender is None
    assert read.problem == FROM_PROBLEM
    assert not can_acknowledge(read)


@pytest.mark.parametrize(
    ("value", "sender", "name"),
    [
        ("alice@example.org", "alice@example.org", ""),
        ("ALICE@EXAMPLE.ORG (Alice)", "alice@example.org", ""),
        ('"Liddell, Alice" <alice@example.org>', "alice@example.org", "Liddell, Alice"),
        ('"alice@example.org" <bob@example.org>', "bob@example.org", "alice@example.org"),
        (
            "Alice   Liddell <alice+nomic@mail.example.org>",
            "alice+nomic@mail.example.org",
            "Alice Liddell",
        ),
    ],
)
def test_good_from(value: str, sender: str, name: str) -> None:
    read = read_message(mail(f"From: {value}\nSubject: x\n"))
    assert (read.sender, read.sender_name, read.problem) == (sender, name, None)


@pytest.mark.parametrize("junk", ["\\", '"', "a,", "a.", "(a", "a@", "=?utf-8?q?x?= ", "a "])
def test_hostile_from_is_refused_quickly(junk: str) -> None:
    start = cpu_seconds()
    read = read_message(mail(f"From: {junk * (60_000 // len(junk))}<a@example.org>\nSubject: x\n"))
    assert cpu_seconds() - start < 0.5
    assert read.problem == FROM_PROBLEM


def test_no_from_and_two_froms() -> None:
    assert read_message(mail("Subject: x\n")).problem == FROM_PROBLEM
    assert read_message(mail("From: a@example.org\nFrom: a@example.org\n")).problem == FROM_PROBLEM


@pytest.mark.parametrize(
    ("headers", "skipped"),
    [
        ("Auto-Submitted: auto-replied\n", "auto-reply"),
        ("Auto-Submitted: auto-generated\n", "auto-reply"),
        ("Auto-Submitted: No (a person wrote this)\n", None),
        ("Auto-Submitted: no\n", None),
        ("X-Autoreply: yes\n", "auto-reply"),
        ("X-Autorespond: yes\n", "auto-reply"),
        ("Return-Path: <>\n", "bounce"),
        ("Return-Path: <alice@example.org>\n", None),
        ("Content-Type: multipart/report; report-type=delivery-status; boundary=x\n", "bounce"),
        ("Precedence: Bulk\n", "list"),
        ("Precedence: junk\n", "list"),
        ("Precedence: list\n", "list"),
        ("Precedence: first-class\n", None),
        ("List-Id: <nomic.lists.example.org>\n", "list"),
        ("X-Loop: NOMIC@example.org\n", "loop"),
        ("X-Loop: someone-else@example.org\n", None),
    ],
)
def test_skip_reasons(headers: str, skipped: str | None) -> None:
    read = read_message(mail(BASIC + headers), loop_token="nomic@example.org")
    assert read.skipped == skipped
    assert can_acknowledge(read) == (skipped is None)


@pytest.mark.parametrize("local", ["MAILER-DAEMON", "postmaster", "Postmaster"])
def test_bounce_senders(local: str) -> None:
    read = read_message(mail(f"From: {local}@mx.example.org\nSubject: failure\n"))
    assert read.skipped == "bounce"


def test_no_loop_token_no_loop() -> None:
    assert read_message(mail(BASIC + "X-Loop: nomic@example.org\n")).skipped is None


def test_skip_reasons_are_sets() -> None:
    assert frozenset({"auto-reply", "bounce", "list", "loop"}) == NEVER_ANSWER
    assert frozenset({"too-large", "too-many-parts", "too-deep"}) == REFUSED
    assert not NEVER_ANSWER & REFUSED


def test_too_large() -> None:
    raw = mail(BASIC, "x" * 2000)
    read = read_message(raw, max_bytes=1024)
    assert read.skipped == "too-large"
    assert read.sender == "alice@example.org"
    assert read.subject == "votes"
    assert read.body == ""
    assert read.problem is not None and "1 KB" in read.problem
    assert can_acknowledge(read)


def test_too_large_auto_reply_is_never_answered() -> None:
    read = read_message(mail(BASIC + "Auto-Submitted: auto-replied\n", "x" * 2000), max_bytes=1024)
    assert read.skipped == "auto-reply"
    assert read.problem is not None
    assert not can_acknowledge(read)


def test_too_large_without_blank_line() -> None:
    raw = b"From: alice@example.org\nSubject: x\n" + b"X-Junk: " + b"y" * 300_000
    read = read_message(raw)
    assert read.skipped == "too-large"
    assert read.sender == "alice@example.org"


def nested(levels: int, inner: str = "Content-Type: text/plain\n\nVOTE 1 FOR\n") -> bytes:
    body = inner
    for level in range(levels, 0, -1):
        body = (
            f'Content-Type: multipart/mixed; boundary="b{level}"\n\n'
            f"--b{level}\n{body}\n--b{level}--\n"
        )
    return ("From: alice@example.org\nSubject: deep\n" + body).encode()


@pytest.mark.parametrize(("levels", "deep"), [(10, False), (11, True), (400, True), (3000, True)])
def test_nesting(levels: int, deep: bool) -> None:
    start = cpu_seconds()
    read = read_message(nested(levels))
    assert cpu_seconds() - start < LIMIT_SECONDS
    if deep:
        assert read.skipped == "too-deep"
        assert read.problem is not None and "10 levels" in read.problem
    else:
        assert read.problem is None
        assert read.body.strip() == "VOTE 1 FOR"


@pytest.mark.parametrize(("parts", "too_many"), [(100, False), (101, True)])
def test_part_count(parts: int, too_many: bool) -> None:
    body = "--p\nContent-Type: text/plain\n\nVOTE 1 FOR\n" + "".join(
        "--p\nContent-Type: image/png\n\nx\n" for _ in range(parts - 1)
    )
    raw = mail(BASIC + 'Content-Type: multipart/mixed; boundary="p"\n', body + "--p--\n")
    read = read_message(raw)
    assert (read.skipped == "too-many-parts") == too_many
    if not too_many:
        assert read.body.strip() == "VOTE 1 FOR"


def test_alternative_prefers_plain_even_when_last() -> None:
    body = (
        "--a\nContent-Type: text/html\n\n<p>VOTE 1 AGAINST</p>\n"
        "--a\nContent-Type: text/plain\n\nVOTE 1 FOR\n--a--\n"
    )
    read = read_message(mail(BASIC + 'Content-Type: multipart/alternative; boundary="a"\n', body))
    assert read.body.strip() == "VOTE 1 FOR"


@pytest.mark.parametrize(
    ("content_type", "body", "text"),
    [
        pytest.param(
            'multipart/alternative; boundary="a"',
            '--a\nContent-Type: multipart/related; boundary="r"\n\n'
            "--r\nContent-Type: text/html\n\n<div>VOTE 1 FOR</div>\n"
            "--r\nContent-Type: image/png\n\nxx\n--r--\n--a--\n",
            "VOTE 1 FOR",
            id="alternative_html_only_inside_related",
        ),
        pytest.param(
            'multipart/mixed; boundary="m"',
            "--m\nContent-Type: text/plain\n\nVOTE 1 FOR\n"
            "--m\nContent-Type: image/png\nContent-Disposition: inline\n\nxx\n"
            "--m\nContent-Type: text/plain\n\nVOTE 2 FOR\n--m--\n",
            "VOTE 1 FOR\nVOTE 2 FOR",
            id="mixed_joins_inline_text_parts",
        ),
        pytest.param(
            'multipart/mixed; boundary="m"',
            "--m\nContent-Type: text/html\n\n<p>VOTE 1 AGAINST</p>\n"
            "--m\nContent-Type: text/plain\n\nVOTE 1 FOR\n--m--\n",
            "VOTE 1 FOR",
            id="mixed_prefers_plain_parts_over_html_parts",
        ),
    ],
)
def test_the_text_parts_a_client_means_are_the_body(content_type: str, body: str,
                                                    text: str) -> None:
    read = read_message(mail(BASIC + f"Content-Type: {content_type}\n", body))
    assert read.body == text


def test_single_part_attachment_is_still_the_body() -> None:
    headers = (
        BASIC + 'Content-Type: text/plain\nContent-Disposition: attachment; filename="a.txt"\n'
    )
    assert read_message(mail(headers)).body == "VOTE 301 FOR\n"


def test_only_a_forwarded_message_has_no_text() -> None:
    body = "--m\nContent-Type: message/rfc822\n\nFrom: b@example.org\n\nVOTE 1 FOR\n--m--\n"
    read = read_message(mail(BASIC + 'Content-Type: multipart/mixed; boundary="m"\n', body))
    assert read.problem is not None and "no readable text" in read.problem
    assert read.skipped is None


def test_non_text_single_part_has_no_text() -> None:
    read = read_message(mail(BASIC + "Content-Type: application/pdf\n", b"%PDF"))
    assert read.problem is not None and read.skipped is None


def test_8bit_header_bytes() -> None:
    raw = b"From: Ren\xc3\xa9e <renee@example.org>\nSubject: caf\xe9\n\nVOTE 1 FOR\n"
    read = read_message(raw)
    assert (read.sender, read.sender_name, read.subject) == ("renee@example.org", "Renée", "café")


def test_crlf_and_cr_bodies() -> None:
    raw = b"From: a@example.org\r\nSubject: x\r\n\r\nVOTE 1 FOR\r\nVOTE 2 FOR\r\n"
    assert read_message(raw).body == "VOTE 1 FOR\nVOTE 2 FOR\n"


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00" * 100,
        b"\n\n\n",
        b"From: a@example.org",
        b"From: a@example.org\n\n",
        b"From: a@example.org\nContent-Type: multipart/mixed; boundary=\n\n--\n",
        b"From: a@example.org\nContent-Type: text/plain; charset*=''\n\nx",
        b"From: a@example.org\nContent-Transfer-Encoding: base64\n\n====",
        b"From: a@example.org\nContent-Transfer-Encoding: x-uuencode\n\nbegin 644 x\n",
        b"From: =?utf-8?b?!!!?= <a@example.org>\nSubject: =?x?q?=ZZ?=\n\nx",
        b"\xff\xfe\x00F\x00r\x00o\x00m",
        b":\n:\n\n",
    ],
)
def test_never_raises(raw: bytes) -> None:
    read = read_message(raw)
    assert isinstance(read, InboundMail)
    assert read.problem is not None or read.sender is not None


@pytest.mark.parametrize(
    "inner_end",
    [
        # Fifteen sibling multiparts, each closed: siblings, not nesting.
        pytest.param("--a{n}--\n", id="sibling_multiparts_are_not_nesting"),
        # Unclosed inner multiparts end at the outer delimiter.
        pytest.param("", id="unclosed_inner_multiparts_end_at_the_outer_delimiter"),
    ],
)
def test_inner_multiparts_in_a_row(inner_end: str) -> None:
    parts = "".join(
        f'--m\nContent-Type: multipart/alternative; boundary="a{n}"\n\n'
        f"--a{n}\nContent-Type: text/plain\n\nVOTE {n} FOR\n" + inner_end.format(n=n)
        for n in range(15)
    )
    read = read_message(
        mail(BASIC + 'Content-Type: multipart/mixed; boundary="m"\n', parts + "--m--\n")
    )
    assert read.problem is None
    assert read.body.split("\n") == [f"VOTE {n} FOR" for n in range(15)]


def test_long_content_type_header_is_refused() -> None:
    raw = mail(BASIC + 'Content-Type: text/plain; name="' + ";" * 5000 + '"\n')
    read = read_message(raw)
    assert read.problem is not None and "longer than 4 KB" in read.problem
    assert read.skipped is None
