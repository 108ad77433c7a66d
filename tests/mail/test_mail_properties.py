"""Property tests: whatever arrives, reading and parsing never fail, stay fast, and explain.

Random bytes, mutated corpus messages (byte flips, truncation, duplicated headers,
inserted junk), deeply nested and many-part MIME, random text bodies, and
generated Speaker mail. Every parse is timed; the slowest is printed at the end
of the module and must stay under a second.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.parse_json import parse_to_json
from speakerbot.mail.inbound.reading import MAX_DEPTH, MAX_PARTS, read_message
from tests.mail.conftest import LIMIT_SECONDS, PARSE_FIELDS, cpu_seconds

CORPUS = Path(__file__).resolve().parent / "corpus"
SMALL_CORPUS = sorted(p.read_bytes() for p in CORPUS.glob("*.eml") if p.stat().st_size < 20_000)
# SPEAKERBOT_FUZZ_EXAMPLES=20000 SPEAKERBOT_FUZZ_RANDOM=1 runs a long, freshly random search.
SETTINGS = settings(
    max_examples=int(os.environ.get("SPEAKERBOT_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not os.environ.get("SPEAKERBOT_FUZZ_RANDOM"),
)
TIMES: list[float] = []


@pytest.fixture(scope="module", autouse=True)
def report_times(parse_times: list[float]) -> Iterator[None]:
    """Hand this module's parse times to the end-of-run report (see conftest.py)."""
    yield
    parse_times.extend(TIMES)


def timed_parse(raw: bytes, **options: object) -> dict[str, object]:
    start = cpu_seconds()
    result = parse_to_json(raw, **options)  # type: ignore[arg-type]
    elapsed = cpu_seconds() - start
    TIMES.append(elapsed)
    assert elapsed < LIMIT_SECONDS, f"parse took {elapsed:.3f} s"
    return result


# An independent, deliberately simple account of lines that may go unreported.
_STOP = re.compile(
    r"--|(?:END|THANKS|STOP)[.!,]*|-{2,}\s*(?:original|forwarded)\s+message\s*-{2,}|_{10,}"
    r"|begin forwarded message:",
    re.IGNORECASE,
)
_HEADERISH = re.compile(r"\*?[^\W\d_]+\s*:.*")


def silence_is_explained(body: str) -> bool:
    """True when no line of ``body`` needs a mention: blank, quoted, PASSWORD, or after a stop."""
    lines = body.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for index, line in enumerate(lines):
        text = line.strip()
        if not text or text.startswith(">"):
            continue
        if _STOP.fullmatch(text):
            return True
        if _HEADERISH.fullmatch(text) and any(
            _HEADERISH.fullmatch(later.strip()) for later in lines[index + 1 : index + 4]
        ):
            return True  # perhaps an Outlook header block above quoted history
        if text.split()[0].upper().rstrip(":") == "PASSWORD":
            continue
        return False
    return True


def check(raw: bytes, **options: object) -> dict[str, object]:
    """Parse ``raw`` and check the invariants every parse must keep."""
    got = timed_parse(raw, **options)
    assert list(got) == PARSE_FIELDS
    json.dumps(got, ensure_ascii=False)
    said = got["commands"] or got["ignored"] or got["errors"] or got["skipped"]
    if not said:
        mail = read_message(raw, **options)  # type: ignore[arg-type]
        assert silence_is_explained(mail.body), mail.body
    if got["skipped"] in ("auto-reply", "bounce", "list", "loop"):
        assert got["commands"] == [] and got["ignored"] == []
    if got["sender"] is None:
        assert got["errors"] and got["commands"] == []
    return got


# ---------------------------------------------------------------------- random input


@SETTINGS
@given(st.binary(max_size=4096))
def test_random_bytes(raw: bytes) -> None:
    check(raw)


@SETTINGS
@given(st.binary(max_size=2048))
def test_random_bytes_after_real_headers(junk: bytes) -> None:
    check(
        b"From: alice@example.org\nSubject: x\nContent-Type: multipart/mixed; boundary=b\n\n" + junk
    )


@SETTINGS
@given(st.text(max_size=2000), st.text(max_size=80))
def test_random_text_bodies(body: str, subject: str) -> None:
    start = cpu_seconds()
    result = parse_commands(subject, body)
    TIMES.append(cpu_seconds() - start)
    assert TIMES[-1] < LIMIT_SECONDS
    if not (result.commands or result.errors or result.ignored):
        assert silence_is_explained(body)


LINES = st.sampled_from(
    [
        "VOTE 301 FOR", "vote #302 nay", "VOET 1 FOR", "PROPOSE Title", "END PROPOSE", "END",
        "ENACT RULE: x", "AMEND RULE 5:", "AMEND RULE x:", "REPEAL RULE 3", "SET a = 1", "CFJ s",
        "END CFJ", "JUDGEMENT 1 TRUE", "END JUDGMENT", "> VOTE 1 FOR", "-- ", "--", "Thanks!",
        "STATUS", "Rules are fun", "HELP", "JOIN Alice", "ADMIN DIGEST", "PASSWORD pw-x",
        "ADMIN RULE ENACT RULE:", "END RULE", "-----Original Message-----", "From: a",
        "Sent: today", "", "   ", "CONSENT 3", "REFUSE 3", "OVERRULE 2", "FORFEIT", "x" * 300,
    ]
)  # fmt: skip


@SETTINGS
@given(
    st.lists(LINES | st.text(max_size=40), max_size=60),
    st.sampled_from(["", "PROPOSE: T", "CFJ: s", "JUDGEMENT 1: TRUE", "Re: x"]),
)
def test_command_soup(lines: list[str], subject: str) -> None:
    body = "\n".join(lines)
    result = parse_commands(subject, body)
    if not (result.commands or result.errors or result.ignored):
        assert silence_is_explained(body)
    line_count = len(body.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    for command in result.commands:
        assert 0 <= command.line <= line_count
    assert "pw-x" not in json.dumps(result.to_json())


# ---------------------------------------------------------------------- mutated corpus


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    raw = bytearray(draw(st.sampled_from(SMALL_CORPUS)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "truncate", "duplicate", "insert", "delete"]))
        if not raw:
            break
        at = draw(st.integers(0, len(raw) - 1))
        if kind == "flip":
            raw[at] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del raw[at:]
        elif kind == "duplicate":
            lines = bytes(raw).split(b"\n")
            header = draw(st.integers(0, min(len(lines) - 1, 20)))
            lines.insert(header, lines[header])
            raw = bytearray(b"\n".join(lines))
        elif kind == "insert":
            raw[at:at] = draw(
                st.sampled_from([b"\n", b"\r\n", b"--", b"=?utf-8?b?", b"\xff\xfe", b"<", b">"])
                | st.binary(max_size=16)
            )
        else:
            del raw[at : at + draw(st.integers(1, 64))]
    return bytes(raw)


@SETTINGS
@given(mutated())
def test_mutated_corpus(raw: bytes) -> None:
    check(raw, loop_token="nomic@example.org")


# ---------------------------------------------------------------------- MIME shapes


@st.composite
def nested_mail(draw: st.DrawFn) -> tuple[bytes, int, bool]:
    levels = draw(st.integers(0, 2500))
    rfc822 = draw(st.booleans())
    heads, tails = [], []  # built outside-in, so that deep cases cost linear time
    for level in range(1, levels + 1):
        if rfc822 and level % 2:
            heads.append("Content-Type: message/rfc822\n\nFrom: x@example.org\n")
        else:
            heads.append(f'Content-Type: multipart/mixed; boundary="n{level}"\n\n--n{level}\n')
            tails.append(f"\n--n{level}--\n")
    body = "".join(heads) + "Content-Type: text/plain\n\nVOTE 1 FOR\n" + "".join(reversed(tails))
    return ("From: alice@example.org\nSubject: nest\n" + body).encode(), levels, rfc822


@SETTINGS
@given(nested_mail())
def test_deep_nesting(case: tuple[bytes, int, bool]) -> None:
    raw, levels, rfc822 = case
    got = check(raw)
    if len(raw) <= 256 * 1024 and levels > MAX_DEPTH:
        assert got["skipped"] == "too-deep" and got["errors"]
    elif levels <= MAX_DEPTH:
        assert got["skipped"] is None
        # A forwarded message (message/rfc822) is an attachment: its text is not read.
        assert got["commands"] if not rfc822 else (got["commands"] or got["errors"])


@SETTINGS
@given(st.integers(0, 400))
def test_many_parts(count: int) -> None:
    parts = "".join(f"--p\nContent-Type: text/plain\n\nVOTE {n} FOR\n" for n in range(count))
    raw = f'From: a@example.org\nContent-Type: multipart/mixed; boundary="p"\n\n{parts}--p--\n'
    got = check(raw.encode())
    assert (got["skipped"] == "too-many-parts") == (count > MAX_PARTS)


# ---------------------------------------------------------------------- Speaker mail

SECRETS = st.text(
    alphabet=st.characters(
        min_codepoint=33,
        max_codepoint=0x2FF,
        exclude_characters="@.<>\"'\\=",
        categories=("L", "N", "P", "S"),
    ),
    min_size=6,
    max_size=30,
).map(lambda text: "pw-" + text)

ADMIN_LINES = st.sampled_from(
    [
        "ADMIN ADD zoe@example.net Zoë {word}",
        "ADMIN REMOVE {word}",
        "ADMIN SCORE {word} +{n} {word}",
        "ADMIN SCORE {word} -{n}",
        "ADMIN SET quorum {n}",
        "ADMIN SET {word} = {word}",
        "ADMIN EXTEND {n} {n}d",
        "ADMIN EXTEND {n} {word}",
        "ADMIN CLOSE {n}",
        "ADMIN VOID {n} {word}",
        "ADMIN RULE REPEAL RULE {n}",
        "ADMIN RULE AMEND RULE {n}:\n{word} {secret}\nEND RULE",
        "ADMIN RULE ENACT RULE: {word}\nEND RULE",
        "ADMIN JUDGE {n} {word}",
        "ADMIN SPEAKER {word}",
        "ADMIN DIGEST",
        "ADMIN {word}",
        "admin score {secret} +1 {secret}",
        "VOTE {n} FOR",
        "PROPOSE {word}\n{secret}\nEND PROPOSE",
        "PROPSE {secret}\ntext\nEND PROPOSE",
        "VOET {secret} FOR",
        "{word} {secret}",
        "> PASSWORD {secret}",
        "PASWORD {secret}",
        "Password: {secret}",
        "",
    ]
)


@st.composite
def speaker_mail(draw: st.DrawFn) -> tuple[bytes, str]:
    secret = draw(SECRETS)
    lines = []
    for template in draw(st.lists(ADMIN_LINES, min_size=1, max_size=25)):
        word = draw(st.text(min_size=1, max_size=12).filter(lambda w: w.strip() and "\r" not in w))
        lines.append(
            template.format(
                word=word.replace("\n", " "), n=draw(st.integers(0, 10**6)), secret=secret
            )
        )
    lines.insert(draw(st.integers(0, len(lines))), f"PASSWORD {secret}")
    if draw(st.booleans()):
        lines.append(f"-- \nThe Speaker\nPASSWORD {secret}")
    subject = draw(st.sampled_from(["admin", f"admin {secret}", "PROPOSE: x", f"CFJ: {secret}"]))
    body = "\n".join(lines)
    raw = (
        f"From: Speaker <speaker@example.org>\nSubject: {subject}\n"
        "Message-ID: <admin-test@example.org>\nContent-Type: text/plain; charset=utf-8\n\n" + body
    ).encode("utf-8", "surrogatepass")
    return raw, secret


@SETTINGS
@given(speaker_mail())
def test_password_never_in_output(case: tuple[bytes, str]) -> None:
    raw, secret = case
    got = check(raw)
    assert secret not in json.dumps(got, ensure_ascii=False)
    assert secret not in json.dumps(got, ensure_ascii=True)
    mail = read_message(raw)
    result = parse_commands(mail.subject, mail.body)
    assert secret not in repr(result)
    assert f"PASSWORD {secret}" not in repr(mail)


# ---------------------------------------------------------------------- worst shapes found so far

HEAD = b"From: a@example.org\nSubject: x\n\n"
WORST = {
    "short-prose-lines": HEAD + b"x\n" * 130_000,
    "near-miss-block-verbs": HEAD + b"JUDGEMNT 1 TRUE\n" * 16_000,
    "near-miss-then-blank": HEAD + b"JUDGEMNT 1 TRUE\n" * 200 + b"\n" * 250_000,
    "cfj-then-prose": HEAD + b"CFJ x\n" * 150 + b"prose line here\n" * 15_000,
    "outlook-from-lines": HEAD + b"From: x\n" * 32_000,
    "unclosed-propose": HEAD + b"PROPOSE x\n" + b"text\n" * 50_000,
    "password-lines": HEAD + b"".join(b"PASSWORD p%d\n" % n for n in range(20_000)),
    "html-paragraphs": b"From: a@example.org\nContent-Type: text/html\n\n" + b"<p>ab</p>" * 29_000,
    "html-deep-quotes": b"From: a@example.org\nContent-Type: text/html\n\n"
    + b"<blockquote>a<br>" * 15_000,
    "html-open-comments": b"From: a@example.org\nContent-Type: text/html\n\n" + b"<!--" * 60_000,
    "flowed-quotes": b"From: a@example.org\nContent-Type: text/plain; format=flowed\n\n"
    + b"> a \n>> b \n" * 30_000,
    "many-boundaries": b'From: a@example.org\nContent-Type: multipart/mixed; boundary="b"\n\n'
    + b"--b\nContent-Type: text/plain\n\nx\n" * 8_000,
}


@pytest.mark.parametrize("raw", WORST.values(), ids=WORST.keys())
def test_worst_shapes(raw: bytes) -> None:
    check(raw[: 256 * 1024])


HEADER_JUNK = st.text(alphabet="\\\"(),.:;<>@[]\t a=?*%'", max_size=6000)


@SETTINGS
@given(
    HEADER_JUNK,
    st.sampled_from(["From", "Subject", "Content-Type", "Content-Disposition", "X-Loop"]),
    st.booleans(),
)
def test_hostile_header_values(value: str, name: str, in_part: bool) -> None:
    header = f"{name}: text/plain; {value}" if name.startswith("Content") else f"{name}: {value}"
    if in_part:
        raw = (
            'Subject: x\nContent-Type: multipart/mixed; boundary="b"\n\n'
            f"--b\n{header}\n\nVOTE 1 FOR\n--b--\n"
        )
    else:
        raw = f"{header}\nSubject: x\n\nVOTE 1 FOR\n"
    check(("From: a@example.org\n" if name != "From" else "").encode() + raw.encode())
