"""Golden tests of the mail the Speaker sends: every template, rendered from scripted games.

Three deterministic games (nomicam, suber and rurru, at the harness's fixed times with
scripted dice) are played command by command; every batch of events goes through the
Announcer, and every player's message through the parser and the ReplyWriter, as the service
does. Each message's kind, recipients, subject and body is compared with a file in
``golden/``. The golden files are claims about what the contract requires (the right
numbers, names, ballots and scores), read and checked by hand when they were written.

Regenerate them with ``SPEAKERBOT_REGOLD=1 pytest tests/templates`` and read every diff.
"""

from __future__ import annotations

import itertools
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from speakerbot.engine import apply
from speakerbot.engine import commands as c
from speakerbot.engine import events as e
from speakerbot.mail.inbound import language as lang
from speakerbot.mail.inbound.translate import (
    AudienceRequest,
    DigestChoice,
    DigestRequest,
    NewGameRequest,
    Query,
    translate,
)
from speakerbot.mail.outbound.announcements import Announcer
from speakerbot.mail.outbound.compose import (
    WIDTH,
    GameIdentity,
    Outgoing,
    Renderer,
    compose,
    headers_of,
)
from speakerbot.mail.outbound.replies import Outcome, ReplyWriter, command_text, outcome_of
from speakerbot.mail.outbound.subjects import reply_subject, tagged_subject
from speakerbot.mail.outbound.wire import message_bytes_by_the_book
from speakerbot.mail.verp import bounce_address, message_ref
from speakerbot.resources import templates_dir
from speakerbot.service import applying
from tests.engine import cast, harness
from tests.engine.cast import ALICE, BOB, CAROL, DAVE, ERIN, SPEAKER, T0
from tests.engine.harness import Game, enact
from tests.support import mailgame
from tests.support.dsn import make_dsn
from tests.support.mailgame import ballot_leaks

GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLE_IMPORT = Path(__file__).resolve().parents[2] / "config" / "example-import.toml"
REGOLD = os.environ.get("SPEAKERBOT_REGOLD") == "1"

CAMFORD = GameIdentity("Camford Nomic", "nomic@camford.example")
SUBER = GameIdentity("Suber Nomic", "game@suber.example", "players@suber.example")
RURRU = GameIdentity("Rurru Nomic", "speaker@rurru.example")


class RecordingRenderer(Renderer):
    """A Renderer that remembers which templates it rendered."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.used: Counter[str] = Counter()

    def render(self, template: str, **context: Any) -> str:
        self.used[template] += 1
        return super().render(template, **context)


@dataclass
class Sent:
    """One message of a scripted game, with the name of its golden file."""

    name: str
    message: Outgoing


@dataclass
class Script:
    """A scripted game that keeps every message it causes, as the service would send them."""

    scenario: str
    game: Game
    identity: GameIdentity
    renderer: RecordingRenderer
    sent: list[Sent] = field(default_factory=list)
    digested: int = 0  # how many of the game's events the last digest covered

    @property
    def announcer(self) -> Announcer:
        return Announcer(self.identity, self.renderer)

    @property
    def writer(self) -> ReplyWriter:
        return ReplyWriter(self.renderer, lang.help_text, game_name=self.identity.name)

    def _add(self, message: Outgoing) -> Outgoing:
        slug = re.sub(r"[^a-z0-9]+", "-", message.subject.lower()).strip("-")[:48].strip("-")
        if not message.public:
            slug += "-to-" + message.recipients[0].partition("@")[0]
        self.sent.append(Sent(f"{self.scenario}-{len(self.sent) + 1:02d}-{slug}", message))
        return message

    def _announce(self, events: Sequence[e.Event], before: Any) -> list[Outgoing]:
        key = f"{self.scenario}.{len(self.game.events)}"
        return [self._add(message) for message in
                self.announcer.messages(events, self.game.state, key, before)]

    def act(self, command: c.Command) -> list[Outgoing]:
        """Apply a command (a Speaker's override, from the command line) and announce it."""
        before = self.game.state
        events = self.game.ok(command)
        return self._announce(events, before)

    def wait(self, delta: timedelta) -> list[Outgoing]:
        """Let time pass and announce what it brought."""
        before = self.game.state
        events = self.game.later(delta)
        return self._announce(events, before)

    def mail(self, sender: str, subject: str, body: str, *, applied: bool = True) -> Outgoing:
        """Read a player's message (nothing of it when a line has an error, else each command
        on its own, as the service does); announce its events; reply."""
        parsed = lang.parse_commands(subject, body)
        errors = [(err.line, err.text, err.reason) for err in parsed.errors]
        before = work = self.game.state
        events: list[e.Event] = []
        outcomes: list[Outcome] = []
        queries: list[Query] = []
        ok = not errors
        for command in parsed.commands if ok else ():
            action = translate(command, sender)
            assert not isinstance(action, DigestRequest | NewGameRequest | AudienceRequest
                                  | DigestChoice)
            if isinstance(action, Query):
                queries.append(action)
                continue
            after, produced = apply(work, action, self.game.now, self.game.dice)
            refused = any(isinstance(event, e.CommandRejected) for event in produced)
            outcomes.append(Outcome(command.line, command_text(command),
                                    outcome_of(produced, after, sender), refused=refused))
            if not refused:
                work, events = after, [*events, *produced]
        ok = ok and (not outcomes or any(not outcome.refused for outcome in outcomes))
        assert ok == applied, (subject, body, errors, outcomes)
        self.game.state = work
        self.game.events.extend(events)
        self._announce(events, before)
        answers = [self.writer.answer(query.verb, work, sender, query.topic)
                   for query in queries]
        ignored, suggested = applying.plain_words(parsed)
        reply = self.writer.reply(work, sender, outcomes=outcomes, errors=errors,
                                  ignored=ignored, answers=answers, applied=ok,
                                  suggested=suggested)
        number = len(self.sent) + 1
        # As the service writes it: "Re: " once, before the subject without tag or prefixes.
        answering = reply_subject(self.identity.tag, subject)
        return self._add(Outgoing(
            "reply", (sender,), answering, reply, f"{self.scenario}.reply.{number}",
            in_reply_to=f"<{self.scenario}.{number}@{sender.partition('@')[2]}>",
        ))

    def digest(self) -> Outgoing:
        since = self.game.events[self.digested:]
        self.digested = len(self.game.events)
        return self._add(self.announcer.digest(self.game.state, since,
                                               f"{self.scenario}.digest.{len(self.sent)}"))


def body(text: str) -> str:
    """Dedent a message body written in the test (a leading newline is dropped)."""
    lines = text.removeprefix("\n").splitlines()
    margin = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(line[margin:] for line in lines) + "\n"


# --- The scripted games ---------------------------------------------------------------------


def nomicam_game(renderer: RecordingRenderer) -> Script:
    """NomiCam: open proposals, consent, quorum, reminders, a missed judge, a new game."""
    s = Script("nomicam", Game("nomicam", [ALICE, BOB, CAROL, DAVE]), CAMFORD, renderer)
    g = s.game
    # A newcomer joins by mail: public news, and a welcome in the reply.
    s.mail(ERIN, "joining", "JOIN Erin\n")
    g.step(timedelta(hours=1))
    s.mail(ALICE, "PROPOSE: Fair dice", body("""
        Dice decide too much in this game, and too slowly.
        AMEND RULE 205:
        The prescribed voting period for a proposal shall be five days,
        beginning at the time the Speaker distributes the proposal.
        ENACT RULE:
        Every die roll is made by speakerbot and published with its seed.
        SET voting_period = 5d
        """))
    s.mail(BOB, "my vote", "Looks good to me.\nVOTE 301 FOR\nCheers, Bob\n")
    s.mail(CAROL, "vote and status", "vote #301 against\nStatus?\n")
    s.mail(SPEAKER, "consent", "REFUSE 301\n")
    s.mail(ALICE, "vote", "VOTE 301 FOR\n")
    # A day before the vote closes, Dave and Erin (who have not voted) are reminded.
    s.wait(timedelta(days=6))
    s.mail(DAVE, "Re: [Camford Nomic] Reminder", "VOTE 301 YES\n")
    # The vote closes: 3 FOR, 1 AGAINST, and the Speaker refused consent (2/3 needed).
    s.wait(timedelta(days=1))
    s.mail(BOB, "PROPOSE: Tea at every meeting",
           "Every meeting of the players shall begin with a pot of tea.\n")
    s.mail(ALICE, "votes", "VOTE 302 FOR\n")
    s.mail(CAROL, "votes", "VOTE 302 FOR\nVOTE 302 FOR\n")
    g.step(timedelta(hours=2))
    s.mail(CAROL, "CFJ: Rule 301 makes every die fair", body("""
        Rule 301 says every die roll is published with its seed,
        so no die can be loaded.
        """))
    s.mail(BOB, "status", "STATUS\n")
    s.digest()
    # The Speaker closes the vote early: an override, then the results; the proposal has no
    # clauses, so the Speaker is told to carry it out by hand.
    s.act(c.CloseVote(SPEAKER, 302))
    s.wait(timedelta(days=6))  # the Judge is reminded a day before the deadline
    g.dice.load(2)  # the new Judge is drawn among Alice, Bob, Dave and Erin: Dave
    s.wait(timedelta(days=1))  # the Speaker missed the deadline: -10, and a new Judge
    s.mail(DAVE, "JUDGEMENT 1: TRUE", body("""
        Rule 301 requires the seed to be published.
        END JUDGEMENT
        """))
    s.mail(BOB, "scores please", "SCORES\n")
    # Alice reaches 100 points: she wins, and a new game begins with her as the Speaker.
    s.act(c.AdjustScore(SPEAKER, "Alice", Decimal(90), "solved the riddle of rule 301"))
    s.digest()
    return s


def suber_game(renderer: RecordingRenderer) -> Script:
    """Suber: turns, dice, a blocked turn, an overruled judgement, a paradox, a list."""
    s = Script("suber", Game("suber", [ALICE, BOB, CAROL]), SUBER, renderer)
    g = s.game
    s.mail(ALICE, "PROPOSE: Punctuality", body("""
        ENACT RULE:
        A player who votes within a day of a proposal's distribution
        gains 1 point.
        """))
    s.mail(BOB, "vote", "VOTE 301 FOR\n")
    s.mail(CAROL, "vote", "VOTE 301 FOR\n")
    g.dice.load(4)
    # The last ballot closes the vote: adopted, Alice throws a 4, and it is Bob's turn.
    s.mail(ALICE, "vote", "VOTE 301 FOR\n")
    s.mail(CAROL, "CFJ: Rule 301 rewards early ballots only", "")
    # The CFJ holds back Bob's turn.
    s.mail(BOB, "PROPOSE: Longer turns", "AMEND RULE 202:\nTurns last a week.\n", applied=False)
    s.mail(ALICE, "JUDGEMENT 1: FALSE", "Rule 301 says nothing of late ballots.\n")
    s.mail(BOB, "overrule", "OVERRULE 1\n")
    s.mail(CAROL, "overrule", "OVERRULE 1\n")
    s.mail(CAROL, "judgement", "JUDGEMENT 1 TRUE\n")
    s.mail(BOB, "PROPOSE: Double dice", body("""
        AMEND RULE 202:
        One turn consists of two parts, in this order: (1) proposing one
        rule change and having it voted on; and (2) throwing two dice once
        and adding the number of points on their faces to one's score.
        """))
    s.mail(ALICE, "vote", "VOTE 302 FOR\n")
    s.mail(CAROL, "vote", "VOTE 302 AGAINST\n")
    g.dice.load(2)
    # Unanimity fails: Bob loses 10 points, throws a 2, and it is Carol's turn.
    s.mail(BOB, "vote", "VOTE 302 FOR\n")
    s.mail(ALICE, "status", "STATUS\n")
    s.mail(CAROL, "CFJ: PARADOX: no rule lets a player pass a turn", "")
    # Bob, who precedes Carol, judges the paradox TRUE: Carol, the mover, wins.
    s.mail(BOB, "JUDGEMENT 2: TRUE", "")
    return s


def rurru_game(renderer: RecordingRenderer) -> Script:
    """Rurru: Heavens, renumbering, a named Judge, errors, refusals, forfeits, overrides."""
    s = Script("rurru", Game("rurru", [ALICE, BOB, CAROL], judge=DAVE, judge_name="Dave"),
               RURRU, renderer)
    s.mail(ALICE, "PROPOSE: Faster votes", body("""
        AMEND RULE 205:
        An adopted rurru-change takes full effect as soon as every
        eligible voter has voted for it.
        """))
    s.mail(BOB, "votes", "VOTE 300 FOR\nVOET 300 FOR\n", applied=False)
    s.mail(BOB, "votes", "VOTE 300 FOR\n")
    s.mail(CAROL, "votes", "VOTE 300 FOR\n")
    # Unanimous: rule 205 becomes rule 300; Heavens (300 - 290) x 3/3 = 10 to Alice.
    s.mail(ALICE, "votes", "VOTE 300 FOR\n")
    s.mail(ALICE, "too late", "VOTE 300 AGAINST\nVOTE 301 FOR\n", applied=False)
    s.mail(BOB, "PROPOSE: No judge", "REPEAL RULE 210\n")
    s.mail(ALICE, "votes", "VOTE 301 FOR\n")
    s.mail(CAROL, "votes", "VOTE 301 AGAINST\n")
    # Not unanimous: Bob loses 10 Heavens, gains (301 - 290) x 2/3 = 7.33, so 7.
    s.mail(BOB, "votes", "VOTE 301 FOR\n")
    s.mail(ALICE, "CFJ: Heavens are points", body("""
        Rule 202 speaks of Heavens and rule 208 of Heavens too.
        END CFJ
        """))
    s.mail(DAVE, "JUDGEMENT 1: UNDECIDED", "")
    s.mail(CAROL, "hello", "Just saying hello.\n> VOTE 301 AGAINST\n")
    s.mail(BOB, "goodbye", "FORFEIT\n")
    s.act(c.EditRule(SPEAKER, enact("Tea is served at every turn.")))
    s.mail(CAROL, "rules", "RULES\n")
    s.act(c.EndGame(SPEAKER, "the players agreed to stop"))
    return s


def debate_game(renderer: RecordingRenderer) -> Script:
    """Rurru's debate (109): an argument, refusals, a revision, the vote called, then one
    whose debate runs out; the vote counts the revised text."""
    s = Script("debate", Game("rurru", [ALICE, BOB, CAROL], judge=DAVE, judge_name="Dave",
                              mechanics={"debate": "proponent"}),
               RURRU, renderer)
    s.mail(ALICE, "PROPOSE: Faster votes", body("""
        AMEND RULE 205:
        An adopted rurru-change takes full effect at once.
        """))
    s.mail(BOB, "votes", "VOTE 300 FOR\n", applied=False)
    s.mail(BOB, "my view", body("""
        DEBATE 300
        "At once" is unclear: at the close of the vote?
        END DEBATE
        """))
    s.mail(CAROL, "fix", "REVISE 300\nAMEND RULE 205:\nMine.\nEND REVISE\n", applied=False)
    s.game.now += timedelta(hours=3)
    s.mail(ALICE, "revised", body("""
        REVISE 300
        AMEND RULE 205:
        An adopted rurru-change takes full effect when its vote closes.
        END REVISE
        """))
    s.mail(ALICE, "go", "CALL VOTE 300\n")
    s.mail(ALICE, "again", "REVISE 300\nAMEND RULE 205:\nOther.\nEND REVISE\n", applied=False)
    s.mail(BOB, "votes", "VOTE 300 FOR\n")
    s.mail(CAROL, "votes", "VOTE 300 FOR\n")
    s.mail(ALICE, "votes", "VOTE 300 FOR\n")  # adopted: rule 300 reads the revised text
    s.mail(BOB, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every turn.\n")
    s.wait(timedelta(days=2))  # Bob never calls the vote: it starts by itself
    return s


def turn_order_game(renderer: RecordingRenderer) -> Script:
    """locked-open (111, 203): a debate period no one shortens, then ballots in turn order."""
    s = Script("turnorder", Game("locked-open", [ALICE, BOB, CAROL],
                                 mechanics={"debate": "period"}), SUBER, renderer)
    s.mail(ALICE, "PROPOSE: Dice", "ENACT RULE:\nDice have six faces.\n")
    s.mail(ALICE, "go", "CALL VOTE 301\n", applied=False)
    s.wait(timedelta(days=2))
    s.mail(CAROL, "votes", "VOTE 301 FOR\n")  # held: Alice and Bob vote before her
    s.mail(ALICE, "votes", "VOTE 301 FOR\n")
    s.game.dice.load(4)
    s.mail(BOB, "votes", "VOTE 301 FOR\n")
    return s


def pace_game(renderer: RecordingRenderer) -> Script:
    """The pace of play: an absence, a silent mover reminded and everyone told, ADMIN SKIP,
    a pause across a voting deadline and the resumption; STATUS and the digest show them."""
    s = Script("pace", Game("suber", [ALICE, BOB, CAROL], mechanics={"turn_period": "3d"}),
               SUBER, renderer)
    s.mail(CAROL, "away", "ABSENT UNTIL 2026-01-15 visiting family\n")
    s.mail(BOB, "away", "ABSENT UNTIL 2026-01-01\n", applied=False)  # a date in the past
    s.mail(BOB, "back", "BACK\n", applied=False)  # Bob is not away
    s.wait(timedelta(days=2))  # Alice, the mover, is reminded
    s.wait(timedelta(days=1))  # her time is up: everyone is told who holds the game
    s.mail(SPEAKER, "skip", "PASSWORD kettle-42\nADMIN SKIP\n")
    s.mail(BOB, "PROPOSE: Tea", "ENACT RULE:\nTea is served at every turn.\n")
    s.mail(ALICE, "votes", "VOTE 301 FOR\n")
    s.mail(SPEAKER, "holidays", "PASSWORD kettle-42\nADMIN PAUSE the holidays\n")
    s.mail(SPEAKER, "again", "PASSWORD kettle-42\nADMIN PAUSE\n", applied=False)
    s.mail(BOB, "status", "STATUS\n")
    s.digest()
    s.wait(timedelta(days=10))  # across the vote's deadline: only Carol's absence ends
    s.mail(SPEAKER, "back to it", "PASSWORD kettle-42\nADMIN RESUME\n")
    s.mail(SPEAKER, "again", "PASSWORD kettle-42\nADMIN RESUME\n", applied=False)
    s.mail(BOB, "votes", "VOTE 301 FOR\n")
    s.game.dice.load(5)
    s.wait(timedelta(days=6))  # Carol, back, is reminded before the moved deadline
    s.wait(timedelta(days=1))  # the moved deadline: Carol never voted
    return s


def reminders_game(renderer: RecordingRenderer) -> Script:
    """One reminder per player: Bob owes two votes and a judgement, Alice one vote."""
    s = Script("reminders", Game("nomicam", [ALICE, BOB, CAROL], judge=BOB, judge_name="Bob",
                                 mechanics={"judge_policy": "named"}), CAMFORD, renderer)
    s.mail(ALICE, "PROPOSE: Tea", "Tea is served at every meeting.\n")
    s.mail(CAROL, "CFJ: Tea is compulsory", "")
    s.game.step(timedelta(minutes=5))
    s.mail(CAROL, "PROPOSE: Biscuits", "Biscuits are served with the tea.\n")
    s.mail(ALICE, "votes", "VOTE 302 FOR\n")
    s.mail(CAROL, "votes", "VOTE 301 FOR\nVOTE 302 FOR\n")
    s.wait(timedelta(days=6))  # one round: Bob owes 301, 302 and CFJ 1; Alice owes 301
    s.mail(BOB, "Re: [Camford Nomic] Reminder", "VOTE 301 FOR\nVOTE 302 AGAINST\n")
    return s


SCENARIOS: dict[str, Callable[[RecordingRenderer], Script]] = {
    "nomicam": nomicam_game,
    "suber": suber_game,
    "rurru": rurru_game,
    "debate": debate_game,
    "turnorder": turn_order_game,
    "pace": pace_game,
    "reminders": reminders_game,
}


@dataclass
class Played:
    scripts: dict[str, Script]
    renderer: RecordingRenderer
    notices: list[Sent]


def service_notices(renderer: RecordingRenderer, folder: Path) -> list[Sent]:
    """The notices only the service sends: the reply limit, and a message set aside.

    They come from the real GameService (on SQLite), rendered by the recording renderer.
    """
    game = mailgame.MailGame(folder, "nomicam", [mailgame.ALICE, mailgame.BOB],
                             limits={"replies_per_day": 1})
    game.service.replies.renderer = renderer
    try:
        game.send(mailgame.BOB, "hello", "SCORES\n")
        game.send(mailgame.BOB, "hello again", "SCORES\n")  # over the limit: one notice

        def broken(*args: object, **kwargs: object) -> Any:
            raise RuntimeError("the kettle boiled over")

        game.receive(mailgame.ALICE, "vote", "VOTE 301 FOR\n",
                     message_id="<set-aside-1@example.org>")
        # It fails every time it is retried, over the whole backoff: set aside, host told.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(applying, "apply_mail", broken)
            for delay in (0, *game.service.retry_delays):
                game.clock.now += timedelta(seconds=delay)
                game.process()
        notices = [mail for mail in game.outbox() if mail.row.kind in ("notice", "limit")]
        notices += trust_notices(renderer, folder)
        notices += lookup_answers(renderer, folder / "lookups")
        notices += new_game_announcement(renderer, folder / "new-game")
        notices += several_held(renderer, folder / "several-held")
        notices += gathered_announcements(renderer, folder / "gathering")
        notices += imported_announcement(renderer, folder / "imported")
        notices += unreachable_notice(renderer, folder / "unreachable")
        notices += notice_without_password(renderer, folder / "no-password")
        notices += first_week_answers(renderer, folder / "first-week")
        notices += welcome_by_the_host(renderer, folder / "welcome")
        notices += daily_digest(renderer, folder / "daily-digest")
    finally:
        game.close()
    sent = []
    for n, mail in enumerate(notices, 1):
        subject = mail.subject.removeprefix(mailgame.TAG + " ")
        slug = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")
        sent.append(Sent(f"service-{n:02d}-{slug}", Outgoing(
            mail.row.kind, mail.recipients, subject, _drawn_masked(mail.body),
            mail.row.message_id)))
    return sent


def _drawn_masked(body: str) -> str:
    """Mask what the service draws afresh for each game (its id, salts, hashes)."""
    body = re.sub(r"^Game id: \S+$", "Game id: <game id>", body, flags=re.MULTILINE)
    body = re.sub(r"^(Receipt:|Record: \d+) [0-9a-f]{64}$", r"\1 <sha-256>", body,
                  flags=re.MULTILINE)
    return re.sub(r"^[0-9a-f]{64} (\S+) (FOR|AGAINST) [0-9a-f]{32}$", r"<receipt> \1 \2 <salt>",
                  body, flags=re.MULTILINE)


@contextmanager
def service_game(renderer: RecordingRenderer, folder: Path,
                 **options: Any) -> Iterator[mailgame.MailGame]:
    """A nomicam game of Alice and Bob on the real service in a new ``folder``, its replies
    rendered by ``renderer``, closed when done; ``options`` as ``MailGame`` takes them."""
    folder.mkdir()
    game = mailgame.MailGame(folder, "nomicam", [mailgame.ALICE, mailgame.BOB], **options)
    game.service.replies.renderer = renderer
    try:
        yield game
    finally:
        game.close()


def lookup_answers(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """The answers to SHOW PROPOSAL, SHOW RULE, SHOW CFJ and HISTORY, before and after a close."""
    with service_game(renderer, folder) as game:
        game.send(mailgame.ALICE, "PROPOSE: Three days",
                  'Amend Rule 205 by replacing "one week" with "three days".\n')
        game.send(mailgame.BOB, "CFJ: Rule 205 is too slow", "")
        asked = [game.send(mailgame.BOB, "lookups", "SHOW PROPOSAL 301\nSHOW CFJ 1\n")]
        game.send(mailgame.ALICE, "vote", "VOTE 301 FOR\n")
        game.send(mailgame.BOB, "vote", "VOTE 301 FOR\n")
        game.clock.now += timedelta(days=8)
        asked.append(game.send(mailgame.BOB, "lookups", "SHOW PROPOSAL 301\nSHOW RULE 205\n"
                               "HISTORY 6\nSHOW RULE 999\nSHOW MECHANICS\n"))
        return [mail for received in asked for mail in game.replies_to(received.message_id)]


def first_week_answers(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """HELP and three of its topics, plain words answered with the exact command, and an
    authenticated OBSERVE's request to confirm the subscription (issue 39)."""
    with service_game(renderer, folder) as game:
        game.service.new_secret = lambda: "0" * 32
        game.send(mailgame.ALICE, "PROPOSE: Three days",
                  'Amend Rule 205 by replacing "one week" with "three days".\n')
        asked = [game.send(mailgame.BOB, subject, body) for subject, body in (
            ("help", "HELP\n"), ("help vote", "HELP VOTE\n"), ("help rules", "HELP RULES\n"),
            ("help cfj", "HELP CFJ\n"),
            ("my vote", "I vote against 301.\nplease withdraw my proposal 301\nThanks, Bob\n"))]
        replies = [mail for received in asked for mail in game.replies_to(received.message_id)]
        game.send("olive@watchers.example", "OBSERVE", "")
        return replies + [mail for mail in game.outbox() if mail.row.kind == "confirm"]


def daily_digest(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """A player's daily digest (DIGEST ON): a distribution and its results, as one MIME
    digest at 18:00; its golden body is the digest's first part, then each message it holds
    as a mail client shows it (issue 39)."""
    with service_game(renderer, folder, game_keys={"handwork_reminder": ""}) as game:
        game.send(mailgame.ALICE, "digest please", "DIGEST ON\n")
        game.send(mailgame.BOB, "PROPOSE: Three days",
                  'Amend Rule 205 by replacing "one week" with "three days".\n')
        for voter in (mailgame.ALICE, mailgame.BOB):
            game.send(voter, "vote", "VOTE 301 FOR\n")
        game.clock.now += timedelta(minutes=5)
        game.service.speaker_command(c.CloseVote(mailgame.SPEAKER, 301))
        start = len(game.outbox())
        game.clock.now = game.clock.now.replace(hour=18, minute=0)
        game.service.tick()
        return [replace(mail, body=_with_enclosed(mail)) for mail in game.outbox()[start:]]


def _with_enclosed(mail: mailgame.Mail) -> str:
    """Return a digest's text, then each message/rfc822 part: its headers and its text."""
    shown = [mail.body]
    for part in mail.message.walk():
        if part.get_content_type() == "message/rfc822":
            inner = part.get_content()
            text = inner.get_body(("plain",)).get_content().replace("\r\n", "\n")
            shown.append(f"\n--- message/rfc822 ---\nSubject: {inner['Subject']}\n"
                         f"Date: {inner['Date']}\n\n{text}")
    return "".join(shown)


def welcome_by_the_host(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """A player the host adds (``speakerbot player add``) while a proposal is open: the
    additions' announcement, then the newcomer's welcome with the lines to vote."""
    with service_game(renderer, folder) as game:
        game.send(mailgame.ALICE, "PROPOSE: Three days",
                  'Amend Rule 205 by replacing "one week" with "three days".\n')
        start = len(game.outbox())
        game.service.host_command(["ADD", "dora@example.org", "Dora"])
        game.service.tick()
        return game.outbox()[start:]


def notice_without_password(renderer: RecordingRenderer,
                            folder: Path) -> list[mailgame.Mail]:
    """The host's "Action needed" notice in a game with no admin password (ADMIN by mail off).

    Rule 204, which nomicam's flow comes from but which no phrase reads, is amended: the
    notice gives flow's value, the rule's words now, and ``speakerbot admin`` commands.
    """
    folder.mkdir()
    made = mailgame.make_settings

    def without_password(*args: Any, **kwargs: Any) -> Any:
        settings = made(*args, **kwargs)
        return replace(settings, game=replace(settings.game, admin_password=None))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mailgame, "make_settings", without_password)
        game = mailgame.MailGame(folder, "nomicam", [mailgame.ALICE, mailgame.BOB],
                                 renderer=renderer)
    try:
        game.send(mailgame.ALICE, "PROPOSE: Turns", "Amend Rule 204 to read: A proposal "
                  "shall be made by the Voter whose turn it is, by submitting it to the "
                  "Speaker.\n")
        game.send(mailgame.ALICE, "vote", "VOTE 301 FOR\n")
        game.send(mailgame.BOB, "vote", "VOTE 301 FOR\n")
        game.clock.now += timedelta(days=8)
        game.service.tick()
        return [mail for mail in game.outbox()
                if mail.subject.endswith("Action needed by the Speaker")]
    finally:
        game.close()


def new_game_announcement(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """The announcement of the next game, started in the same database after one ended."""
    folder.mkdir()
    game = mailgame.MailGame(folder, "suber", [mailgame.ALICE, mailgame.BOB])
    game.service.announcer.renderer = renderer
    try:
        game.service.speaker_command(c.EndGame(mailgame.SPEAKER, "we are going on holiday"))
        start = len(game.outbox())
        game.service.new_game("nomicam")
        return game.outbox()[start:]
    finally:
        game.close()


def imported_announcement(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """The announcement of a hand-run game imported (the README's example), and its open vote."""
    folder.mkdir()
    game = mailgame.MailGame(folder, "suber", imported=EXAMPLE_IMPORT, renderer=renderer)
    try:
        return game.outbox()
    finally:
        game.close()


def unreachable_notice(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """The host told that a player's mail bounces (``[limits] bounce_score`` reached)."""
    with service_game(renderer, folder, limits={"bounce_score": 1}) as game:
        game.send(mailgame.ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
        [distribution] = [mail for mail in game.outbox()
                          if mail.subject.endswith("Proposal 301: Tea")]
        identity = game.service.deps.identity
        return_path = bounce_address(identity.address, identity.secret,
                                     message_ref(distribution.row.message_id), mailgame.BOB)
        start = len(game.outbox())
        game.clock.now += timedelta(minutes=5)
        game.service.receive(make_dsn(distribution.row.raw, return_path, mailgame.BOB),
                             game.clock.now, source="test")
        game.process()
        return game.outbox()[start:]


def several_held(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """A request listing several held messages, each with its own code."""
    codes = itertools.count(1)
    with service_game(renderer, folder) as game:
        game.service.new_secret = lambda: f"{next(codes):032x}"
        game.send(mailgame.ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
        for subject, body in (("hello", "VOTE 301 AGAINST\n"), ("my vote", "VOTE 301 FOR\n"),
                              ("bye", "FORFEIT\n")):
            game.send(mailgame.BOB, subject, body, authenticated=False)
        game.clock.now += timedelta(minutes=10)
        game.service.tick()
        return [mail for mail in game.outbox() if mail.row.kind == "confirm"][-1:]


def gathered_announcements(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """Announcements beyond ``[limits] public_per_hour``, gathered at the end of the hour."""
    with service_game(renderer, folder, limits={"public_per_hour": 1}) as game:
        game.clock.now += timedelta(hours=2)
        game.service.tick()  # the players' additions: the host's, which are not counted
        # The hour's one public message, then three kept to be gathered (the host's
        # overrides would not be: they neither count nor are kept).
        for sender, title in ((mailgame.ALICE, "Tea"), (mailgame.BOB, "Cake"),
                              (mailgame.ALICE, "Scones"), (mailgame.BOB, "Jam")):
            game.send(sender, f"PROPOSE: {title}", f"{title} at four.\n",
                      after=timedelta(minutes=2))
        start = len(game.outbox())
        game.clock.now += timedelta(hours=1)
        game.service.tick()
        return game.outbox()[start:]


def trust_notices(renderer: RecordingRenderer, folder: Path) -> list[mailgame.Mail]:
    """The mail of the trust rules: strangers, confirmations, refusals, size, brute force."""
    codes = itertools.count(1)
    out: list[mailgame.Mail] = []
    for mode in ("confirm", "refuse"):
        with service_game(renderer, folder / mode, auth={"unauthenticated": mode}) as game:
            game.service.new_secret = lambda: f"{next(codes):032x}"
            start = len(game.outbox())
            game.send(mailgame.ALICE, "PROPOSE: Tea", "Tea is served at four.\n")
            game.send(mailgame.BOB, "my vote", "VOTE 301 FOR\n", authenticated=False)
            if mode == "confirm":
                game.send("eve@elsewhere.example", "hello", "Hello! " + "I like games. " * 60)
                head = mailgame.raw_mail(mailgame.ALICE, "my holiday photos", "").split(
                    b"\n\n", 1)[0] + b"\n\n"
                game.service.receive(head, game.clock.now, source="test", oversized=9_000_000)
                for _ in range(5):
                    game.send(mailgame.SPEAKER, "fix", "PASSWORD guess\nADMIN DIGEST\n")
            out += [mail for mail in game.outbox()[start:] if mail.row.kind != "announcement"
                    and mail.subject.split("] ", 1)[1] not in ("Re: PROPOSE: Tea", "Re: fix")]
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    renderer = RecordingRenderer(templates_dir())
    harness.ALL_GAMES.clear()
    scripts = {name: play(renderer) for name, play in SCENARIOS.items()}
    for script in scripts.values():
        script.game.check_replay()
    harness.ALL_GAMES.clear()
    notices = service_notices(renderer, tmp_path_factory.mktemp("service"))
    yield Played(scripts, renderer, notices)


# --- Golden files ---------------------------------------------------------------------------


def golden_text(message: Outgoing, identity: GameIdentity) -> str:
    return (f"Kind: {message.kind}\nTo: {', '.join(message.recipients)}\n"
            f"Subject: {tagged_subject(identity.tag, message.subject)}\n\n{message.body}")


@pytest.mark.parametrize("scenario", [*SCENARIOS, "service"])
def test_every_message_matches_its_golden_file(played: Played, scenario: str) -> None:
    if scenario == "service":
        sent_list = played.notices
        identity = GameIdentity(mailgame.NAME, mailgame.GAME)
    else:
        sent_list = played.scripts[scenario].sent
        identity = played.scripts[scenario].identity
    assert sent_list
    GOLDEN.mkdir(exist_ok=True)
    mismatched, missing = [], []
    for sent in sent_list:
        path = GOLDEN / f"{sent.name}.txt"
        text = golden_text(sent.message, identity)
        if REGOLD:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            continue
        if not path.exists():
            missing.append(path.name)
        elif path.read_text(encoding="utf-8") != text:
            mismatched.append(path.name)
    assert not missing, f"no golden file (SPEAKERBOT_REGOLD=1 writes them): {missing}"
    assert not mismatched, f"differs from its golden file: {mismatched}"


def test_no_golden_file_is_left_over(played: Played) -> None:
    names = {f"{sent.name}.txt" for s in played.scripts.values() for sent in s.sent}
    names |= {f"{sent.name}.txt" for sent in played.notices}
    stale = sorted(p.name for p in GOLDEN.glob("*.txt") if p.name not in names)
    if REGOLD:
        for name in stale:
            (GOLDEN / name).unlink()
        return
    assert not stale, f"golden files no message produces: {stale}"


def test_every_template_is_rendered(played: Played) -> None:
    templates = {path.name for path in templates_dir().glob("*.txt")}
    assert templates, "no templates found"
    assert set(played.renderer.used) == templates, (
        f"never rendered: {sorted(templates - set(played.renderer.used))}")


# --- Width and headers ----------------------------------------------------------------------


def long_lines(text: str) -> list[str]:
    """Return the lines wider than 72 columns, except a single unbreakable word."""
    return [line for line in text.splitlines()
            if len(line) > WIDTH and len(line.split()) > 1]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_line_fits_in_72_columns(played: Played, scenario: str) -> None:
    too_long = {sent.name: long_lines(sent.message.body)
                for sent in played.scripts[scenario].sent if long_lines(sent.message.body)}
    assert not too_long


def parse(raw: bytes) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_composed_messages_carry_the_required_headers(played: Played, scenario: str) -> None:
    script = played.scripts[scenario]
    identity = script.identity
    date = datetime(2026, 2, 1, 9, 30, tzinfo=UTC)
    ids: set[str] = set()
    for sent in script.sent:
        outgoing = sent.message
        message_id, raw = compose(identity, outgoing, date)
        assert all(len(line) <= 998 for line in raw.split(b"\r\n")), sent.name
        message = parse(raw)
        assert message["Message-ID"] == message_id
        assert message_id not in ids, f"{sent.name}: Message-ID used twice"
        ids.add(message_id)
        assert re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", message_id), message_id
        reply = outgoing.kind == "reply"
        assert message["Auto-Submitted"] == ("auto-replied" if reply else "auto-generated")
        assert message["X-Loop"] == identity.address
        assert message["Reply-To"] == identity.address
        assert message["From"].addresses[0].addr_spec == identity.address
        # Unfolded, the header may start with the folding white space (see below).
        subject = str(message["Subject"]).strip()
        assert subject == tagged_subject(identity.tag, outgoing.subject), sent.name
        assert subject.count(identity.tag) == 1, sent.name
        to = [address.addr_spec for address in message["To"].addresses]
        # No header hands one player's address to another: public mail goes to the list,
        # else to the game, with the players only in the envelope.
        if outgoing.public:
            assert to == [identity.list_address or identity.address], sent.name
        else:
            assert to == list(outgoing.recipients), sent.name
        if reply:
            assert outgoing.in_reply_to is not None
            assert message["In-Reply-To"] == outgoing.in_reply_to
            assert outgoing.in_reply_to in str(message["References"]).split()
            assert subject.startswith(f"{identity.tag} Re: ")
            assert len(outgoing.recipients) == 1 and not outgoing.public
        if outgoing.public:
            assert message["List-Id"] == identity.list_id
            assert message["List-Help"] == f"<mailto:{identity.address}?subject=HELP>"
            assert message["List-Post"] == f"<mailto:{identity.address}>"
        else:
            assert all(message[name] is None for name in (
                "List-Id", "List-Post", "List-Help", "List-Archive", "List-Unsubscribe"))
        if outgoing.public and identity.list_address:
            assert to == [identity.list_address]
        part = message.get_body(("plain",))
        assert part is not None
        assert part.get_content_type() == "text/plain"
        assert part.get_content().replace("\r\n", "\n") == outgoing.body, sent.name
        assert not message.is_multipart()
    assert len(ids) == len(script.sent)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_composed_messages_are_the_stdlibs_bytes(played: Played, scenario: str) -> None:
    script = played.scripts[scenario]
    for sent in script.sent:
        message_id, raw = compose(script.identity, sent.message, T0)
        headers = headers_of(script.identity, sent.message, T0, message_id)
        assert raw == message_bytes_by_the_book(headers, sent.message.body), sent.name


def test_the_same_message_composed_twice_keeps_its_message_id(played: Played) -> None:
    sent = played.scripts["nomicam"].sent[0].message
    first, _ = compose(CAMFORD, sent, T0)
    again, _ = compose(CAMFORD, sent, T0 + timedelta(days=1))
    assert first == again


# --- What the golden files claim, checked once more -----------------------------------------


def voters_of(script: Script) -> dict[str, str]:
    return {p.address: p.name for p in script.game.state.players.values()}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_message_but_the_results_reveals_a_ballot(played: Played, scenario: str) -> None:
    script = played.scripts[scenario]
    voters = voters_of(script)
    results = re.compile(r"Proposal \d+ (ADOPTED|REJECTED): ")
    for sent in script.sent:
        if results.match(sent.message.subject):
            continue
        leaks = ballot_leaks(f"{sent.message.subject}\n{sent.message.body}",
                             sent.message.recipients, voters)
        assert not leaks, (sent.name, leaks)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_results_reveal_exactly_the_ballots_cast(played: Played, scenario: str) -> None:
    script = played.scripts[scenario]
    closes = {event.proposal: event for event in script.game.of(e.VoteClosed)}
    seen = set()
    for sent in script.sent:
        found = re.match(r"Proposal (\d+) (ADOPTED|REJECTED): ", sent.message.subject)
        if not found:
            continue
        closed = closes[int(found.group(1))]
        seen.add(closed.proposal)
        assert found.group(2) == ("ADOPTED" if closed.adopted else "REJECTED")
        name = script.game.state.name_of
        revealed = re.findall(r"^  (\S+) +(FOR|AGAINST)$", sent.message.body, re.MULTILINE)
        assert revealed == [(name(voter), choice.value) for voter, choice in closed.ballots]
        assert sent.message.public
    assert seen == set(closes)


# --- Found wanting --------------------------------------------------------------------------

LONG_NAME = "Maximilian Bartholomew Fitzwilliam-Montgomery of Camford"  # 56 characters
LONG_TITLE = ("Dice, votes and judges: a thorough reform of how the game is played, "
              "including every rule about the dice and the votes")
LONG_STATEMENT = ("Rule 301, read together with rules 205 and 209, means that a proposal "
                  "distributed on a Sunday closes on the following Sunday at the same hour")


def test_long_titles_names_and_statements_fit_in_72_columns() -> None:
    renderer = RecordingRenderer(templates_dir())
    max_address = "max@example.org"
    cast.NAMES[max_address] = LONG_NAME
    try:
        s = Script("long", Game("nomicam", [ALICE, max_address]), CAMFORD, renderer)
    finally:
        del cast.NAMES[max_address]
    harness.ALL_GAMES.remove(s.game)
    s.mail(max_address, f"PROPOSE: {LONG_TITLE}", "ENACT RULE:\nDice are fair.\n")
    s.mail(max_address, "vote", "VOTE 301 FOR\nSTATUS\n")
    s.wait(timedelta(days=6))  # Alice is reminded
    s.wait(timedelta(days=1))  # the results
    s.mail(max_address, f"CFJ: {LONG_STATEMENT}", "")
    s.mail(SPEAKER, "JUDGEMENT 1: TRUE", "")
    assert {"proposal.txt", "results.txt", "reminder_vote.txt", "status.txt", "cfj.txt",
            "judgement.txt"} <= set(renderer.used)
    too_long = {sent.name: long_lines(sent.message.body)
                for sent in s.sent if long_lines(sent.message.body)}
    assert not too_long


def test_the_subject_header_line_itself_starts_with_the_tag(played: Played) -> None:
    for script in played.scripts.values():
        for sent in script.sent:
            _, raw = compose(script.identity, sent.message, T0)
            line = next(line for line in raw.split(b"\r\n") if line.startswith(b"Subject:"))
            assert line.startswith(f"Subject: {script.identity.tag}".encode()), sent.name


def test_the_ballot_that_closes_a_vote_is_not_said_to_stay_open(played: Played) -> None:
    closing = [sent for sent in played.scripts["suber"].sent
               if sent.message.kind == "reply" and "closed: ADOPTED" in
               " ".join(sent.message.body.split())]
    assert closing
    for sent in closing:
        assert "you may change it" not in " ".join(sent.message.body.split()), sent.name


def test_a_judgement_that_ended_the_game_invites_no_overrule(played: Played) -> None:
    [judged] = [sent for sent in played.scripts["suber"].sent
                if sent.message.subject == "CFJ 2 judged TRUE"]
    assert played.scripts["suber"].game.state.ended
    assert "OVERRULE" not in judged.message.body


def test_a_named_judge_who_is_not_a_player_is_sent_the_cfj(played: Played) -> None:
    [cfj] = [sent for sent in played.scripts["rurru"].sent
             if sent.message.subject == "CFJ 1: Heavens are points"]
    assert "Judge: Dave" in cfj.message.body
    assert DAVE not in played.scripts["rurru"].game.state.players
    assert DAVE in cfj.message.recipients


def test_a_new_game_announcement_shows_the_scores_the_game_was_won_with(
        played: Played) -> None:
    [won] = [sent for sent in played.scripts["nomicam"].sent
             if sent.message.subject == "Alice won the game"]
    final = won.message.body.partition("Final scores:")[2]
    assert re.search(r"^  Alice\b.* 100$", final, re.MULTILINE), final
