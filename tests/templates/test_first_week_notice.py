"""The host's "Action needed by the Speaker" notice: the channel the host has, the values and
reasons of each mechanic to check, and nothing of it in the players' mail."""

from __future__ import annotations

import re
from datetime import timedelta

from speakerbot.engine import events as e
from speakerbot.engine import replay
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import GameIdentity, Outgoing, Renderer
from speakerbot.mail.outbound.handwork import finishing_line
from speakerbot.resources import templates_dir
from tests.engine import harness
from tests.engine.cast import ALICE, SPEAKER
from tests.engine.conftest import replay_every_game  # noqa: F401  (autouse: games replay)

RENDERER = Renderer(templates_dir())
LOOPBACK = GameIdentity("Loopback Nomic", "nomic@loopback.example")
NOTICE = "Action needed by the Speaker"
FLOW_RULE = ("A proposal shall be made by submitting it to the Speaker, by the Voter whose "
             "turn it is.")


def flat(text: str) -> str:
    return " ".join(text.split())


def adopt_flow_change(*, admin_by_mail: bool) -> list[Outgoing]:
    """Adopt an amendment of nomicam's rule 204 (flow comes from it, unread): the mail sent."""
    g = harness.nomicam(phrases=True)
    number = g.propose(ALICE, harness.amend(204, FLOW_RULE))
    g.votes(number, alice="FOR", bob="FOR", carol="FOR", dave="FOR", erin="FOR")
    before = replay(g.events)
    events = g.later(timedelta(days=7))
    assert g.of(e.MechanicsMayHaveChanged, events)
    return Announcer(LOOPBACK, RENDERER, admin_by_mail=admin_by_mail).messages(
        events, g.state, "1", before)


def test_without_an_admin_password_the_notice_names_speakerbot_admin() -> None:
    [notice] = [m for m in adopt_flow_change(admin_by_mail=False) if m.subject == NOTICE]
    assert notice.recipients == (SPEAKER,) and not notice.public
    words = flat(notice.body)
    assert "PASSWORD" not in words and "by mail" not in words.replace("ADMIN by mail is off", "")
    assert "ADMIN by mail is off in this game" in words
    assert "speakerbot admin SET flow = ..." in words
    # Every command in it is one the host can run: none begins with a bare ADMIN.
    assert not re.search(r"(?<!speakerbot admin )\bADMIN (SET|DONE|RULE)\b", words), words
    assert "speakerbot admin DONE 1 <reason>" in words


def test_the_notice_gives_each_mechanic_its_value_and_the_reason() -> None:
    [notice] = [m for m in adopt_flow_change(admin_by_mail=True) if m.subject == NOTICE]
    words = flat(notice.body)
    assert "Rule 204 changed by proposal 301" in words
    assert f"now reads: “{FLOW_RULE}”" in words  # what the rule says now
    assert "it keeps its value: flow = open" in words
    assert "ADMIN SET flow = ..." in words
    assert "with a PASSWORD line" in words
    assert "should check" not in words


def test_the_host_s_to_do_is_not_in_the_public_results() -> None:
    public = [m for m in adopt_flow_change(admin_by_mail=True) if m.public]
    assert public
    for message in public:
        words = flat(message.body)
        assert "should check" not in words and "ADMIN SET" not in words, message.subject
        assert "keep their values" not in words and "keeps its value" not in words


def test_a_finishing_line_names_the_host_s_channel() -> None:
    assert finishing_line(3, 305, "Tea", (206,), via="speakerbot admin") == (
        "Item 3 (proposal 305): “Tea” (to finish it: speakerbot admin RULE <clause> of rule "
        "206, or speakerbot admin DONE 3 <reason>)")
