"""The Speaker's notice ("Action needed by the Speaker"): what needs the host's hand, and how.

Sent to the Speaker alone, never to the players: the results say what was adopted, this
says what the host should do about it. Each mechanic to check is given with its value now
and the reason (the rule that changed and what it says now, or why its value could not be
read from it), and every command is written the way the host can send it: ``ADMIN ...`` by
mail when the game has an admin password, else ``speakerbot admin ...`` on the host's
machine (ADMIN by mail is off without one).
"""

from __future__ import annotations

from speakerbot.engine import events as e
from speakerbot.engine.model import GameState
from speakerbot.mail.outbound.batch import Batch
from speakerbot.mail.outbound.handwork import finishing_line
from speakerbot.mail.outbound.naming import listed
from speakerbot.mail.outbound.sentences import news_line

BY_MAIL = "ADMIN"
"""How the host's commands begin when ADMIN by mail is on (an admin password is set)."""
AT_THE_DESK = "speakerbot admin"
"""How they begin on the host's machine, the one way when no admin password is set."""

QUOTED_RULE = 300
"""A changed rule is quoted up to this many characters (SHOW RULE gives it whole)."""

def notice_lines(batch: Batch, via: str) -> list[str]:
    """Say what the group's events leave to the host, each command begun with ``via``."""
    lines: list[str] = []
    for event in batch.rest:
        match event:
            case e.MechanicsMayHaveChanged():
                lines.append(_may_have_changed(event, batch, via))
            case e.MechanicNotRead():
                lines.append(_not_read(event, batch.state, via))
            case e.InformalProposalAdopted() | e.ClauseFailed():
                lines.append(news_line(event, batch.state))
    return lines + [finishing_line(ev.item, ev.proposal, ev.words, ev.rules, via=via)
                    for ev in batch.rest if isinstance(ev, e.HandWorkOpened)]


def channel_words(via: str) -> str:
    """Say how the host sends the commands above: by mail, or on the host's machine."""
    if via == BY_MAIL:
        return ("Send these commands by mail from the Speaker's address with a PASSWORD line "
                "(send HELP for the list), or run them on the host's machine as "
                "`speakerbot admin <command>`.")
    return ("ADMIN by mail is off in this game, as no admin password is configured: run "
            "these commands on the host's machine (`speakerbot admin --help` says how).")


def _may_have_changed(event: e.MechanicsMayHaveChanged, batch: Batch, via: str) -> str:
    """Name the rule that changed, what it says now, and each mechanic's value to check."""
    mechanics = batch.state.rules_mechanics
    names = list(event.mechanics)
    said = f"Rule {event.rule} changed{_by(event.proposal)}{_reads_now(event, batch)}"
    # A full stop, unless the rule's words quoted last ended their own sentence.
    said += "" if said.endswith((".”", "?”", "!”")) else "."
    if len(names) == 1:
        name = names[0]
        return (f"{said} The mechanic {name} is not read from a rule's words, so it keeps "
                f"its value: {name} = {mechanics.formatted(name)}. If the rule now says "
                f"otherwise, set it ({via} SET {name} = ...).")
    values = listed([f"{name} = {mechanics.formatted(name)}" for name in names])
    return (f"{said} The mechanics {listed(names)} are not read from a rule's words, so "
            f"they keep their values: {values}. Check each against the rule, and set any it "
            f"now says otherwise ({via} SET <mechanic> = ...).")


def _not_read(event: e.MechanicNotRead, state: GameState, via: str) -> str:
    """Name the mechanic, its rule, why it could not be read, and the value it keeps."""
    value = state.rules_mechanics.formatted(event.mechanic)
    return (f"Rule {event.rule} changed, and {event.mechanic} could not be read from it: "
            f"{event.why}; it stays {event.mechanic} = {value}{_by(event.proposal, ' after')}"
            f" unless you set it ({via} SET {event.mechanic} = ...).")


def _by(proposal: int | None, word: str = " by") -> str:
    return f"{word} proposal {proposal}" if proposal is not None else ""


def _reads_now(event: e.MechanicsMayHaveChanged, batch: Batch) -> str:
    """Say what the changed rule says now (under its new number, if it was renumbered)."""
    number = event.rule
    for change in batch.rest:
        if isinstance(change, e.RuleAmended | e.RuleTransmuted) and change.number == number:
            number = change.new_number
    rule = batch.state.rules.get(number)
    if rule is None:
        return " and is repealed"
    text = " ".join(rule.text.split())
    if len(text) > QUOTED_RULE:
        text = text[:QUOTED_RULE - 1] + "…"
    renumbered = f", is now rule {number}," if number != event.rule else ""
    return f"{renumbered} and now reads: “{text}”"  # the caller ends the sentence
