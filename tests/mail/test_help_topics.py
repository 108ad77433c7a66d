"""HELP by topic (issue 39): a short index, and HELP <topic> for each subject and command."""

from __future__ import annotations

import re

import pytest

from speakerbot.mail.inbound.language import parse_commands
from speakerbot.mail.inbound.language.admin import ADMIN_ACTIONS
from speakerbot.mail.inbound.language.grammar import COMMANDS
from speakerbot.mail.inbound.language.help import TOPICS, help_text
from speakerbot.mail.inbound.language.prose import NATURAL_FORMS


def test_the_index_is_short_and_names_every_players_command_and_topic() -> None:
    index = help_text()
    assert len(index.splitlines()) < 60
    for spec in COMMANDS:
        if spec.who != "Speaker":
            assert f"  {spec.verb}" in index, spec.verb
    named = set(re.findall(r"HELP ([A-Z]{3,})", index))
    assert named >= {"VOTE", "PROPOSE", "RULES", "CFJ", "OBSERVE", "DIGEST", "ADMIN"}
    assert named <= set(TOPICS)  # every topic the index names has its help


@pytest.mark.parametrize("topic", ["VOTE", "PROPOSE", "RULES", "CFJ", "OBSERVE", "DIGEST",
                                   "ADMIN", "SUBJECT", "READING"])
def test_each_topic_has_its_help(topic: str) -> None:
    assert help_text(topic).strip()
    assert help_text(topic.lower()) == help_text(topic)


def test_every_command_and_admin_action_is_a_topic() -> None:
    for spec in COMMANDS:
        assert spec.verb in help_text(spec.verb), spec.verb
    for action in ADMIN_ACTIONS:
        assert f"ADMIN {action.action}" in help_text(action.action), action.action


def test_help_rules_holds_every_form_of_rule_change_grouped() -> None:
    rules = help_text("RULES")
    for syntax, example in NATURAL_FORMS:
        assert syntax in rules and example in rules
    headings = [line for line in rules.splitlines() if line.endswith(":")
                and not line.startswith(" ")]
    assert {"New rules:", "Titles:", "Repealing and transmuting:"} <= set(headings)
    assert "A proposal may change several rules, and\none rule by several edits." in rules


def test_help_admin_names_the_channel_of_a_host_without_a_password() -> None:
    admin = help_text("ADMIN")
    assert "PASSWORD <password>" in admin and "speakerbot\nadmin ..." in admin


def test_an_unknown_topic_names_the_nearest() -> None:
    said = help_text("VOET")
    assert said.startswith("There is no help on VOET. The nearest topic is VOTE: send HELP")
    assert "HELP alone gives the index" in said


@pytest.mark.parametrize(("body", "topic"), [
    ("HELP\n", ""), ("help vote\n", "VOTE"), ("HELP RULES.\n", "RULES"),
    ("Help call vote\n", "CALL VOTE"),
])
def test_help_is_read_with_its_topic(body: str, topic: str) -> None:
    (command,) = parse_commands("", body).commands
    assert command.to_json() == {"line": 1, "verb": "HELP", **({"topic": topic} if topic else {})}


def test_help_in_a_sentence_is_no_command() -> None:
    parsed = parse_commands("", "Help! I cannot find how to vote\n")
    assert parsed.commands == () and parsed.errors == ()
