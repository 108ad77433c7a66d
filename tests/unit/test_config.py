"""The configuration file: a contract users write by hand."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from speakerbot.config import (
    KEYS,
    AuthSettings,
    ConfigError,
    DatabaseSettings,
    GameSettings,
    ImapConfig,
    LimitsSettings,
    LmtpConfig,
    MissingValue,
    Settings,
    SmtpConfig,
    load_settings,
    parse_settings,
    resolve_config_path,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config" / "speakerbot.example.toml"
PATH = Path("/etc/speakerbot/speakerbot.toml")
ADMIN, IMAP, SMTP = "admin-Secret-1", "imap-Secret-2", "smtp-Secret-3"
ENV = {
    "SPEAKERBOT_ADMIN_PASSWORD": ADMIN,
    "SPEAKERBOT_IMAP_PASSWORD": IMAP,
    "SPEAKERBOT_SMTP_PASSWORD": SMTP,
}
DELETE = object()


def full() -> dict[str, Any]:
    """A complete, valid configuration with every section."""
    return {
        "game": {
            "name": "Test Nomic", "ruleset": "nomicam", "address": "game@example.org",
            "speaker": "host@example.org", "speaker_name": "Host", "admin_password": ADMIN,
            "list": "list@example.org", "open_registration": True, "digest": "0 8 * * *",
            "judge": "judge@example.org", "judge_name": "Judy",
        },
        "mechanics": {"voting_period": "1h"},
        "limits": {"max_message_size": 65536, "replies_per_day": 5, "max_command_lines": 50},
        "database": {"url": "sqlite:///test.db"},
        "imap": {
            "host": "imap.example.org", "port": 993, "security": "ssl",
            "username": "game@example.org", "password": IMAP, "folder": "INBOX",
            "processed_folder": "done", "idle": True, "poll_interval": "30s",
        },
        "lmtp": {"host": "127.0.0.1", "port": 8024},
        "smtp": {
            "host": "smtp.example.org", "port": 587, "security": "starttls",
            "username": "game@example.org", "password": SMTP,
        },
    }


def minimal() -> dict[str, Any]:
    return {"game": {
        "name": "Test Nomic", "ruleset": "suber", "address": "game@example.org",
        "speaker": "host@example.org", "speaker_name": "Host", "admin_password": ADMIN,
    }}


def parse(data: dict[str, Any], environ: dict[str, str] | None = None) -> Settings:
    return parse_settings(data, path=PATH, environ=environ or {})


def refused(data: dict[str, Any], environ: dict[str, str] | None = None) -> ConfigError:
    # A mail section's missing value is refused by run (require_mail), not by the loading.
    with pytest.raises(ConfigError) as caught:
        parse(data, environ).require_mail()
    return caught.value


# The example file.


def test_example_loads_with_the_passwords_from_the_environment() -> None:
    settings = load_settings(EXAMPLE, ENV)
    assert settings == Settings(
        path=EXAMPLE,
        game=GameSettings(
            name="Camford Nomic", ruleset="nomicam", address="speaker@example.org",
            speaker="chuck@example.org", speaker_name="Chuck", admin_password=ADMIN,
            list="players@example.org", open_registration=True, digest="0 8 * * *",
            judge="chuck@example.org", judge_name="Chuck",
        ),
        mechanics={"voting_period": "7d", "judge_period": "7d", "reminder_before": "24h"},
        limits=LimitsSettings(max_message_size=262144, replies_per_day=20,
                              max_command_lines=200),
        database=DatabaseSettings(url="sqlite:///data/speakerbot.db"),
        imap=ImapConfig(
            host="imap.example.org", port=993, security="ssl", username="speaker@example.org",
            password=IMAP, folder="INBOX", processed_folder="speakerbot/processed", idle=True,
            poll_interval=60.0,
        ),
        lmtp=None,
        smtp=SmtpConfig(host="smtp.example.org", port=587, security="starttls",
                        username="speaker@example.org", password=SMTP),
        auth=AuthSettings(require="dmarc", authserv_id=("mx.example.org",),
                          unauthenticated="confirm", confirm_within=3 * 86400),
    )
    settings.require_inbound()
    assert settings.require_outbound() is settings.smtp
    assert settings.game.subject_tag == "[Camford Nomic]"


def test_example_loads_with_the_passwords_from_files(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    for key, value in (("admin_password", ADMIN), ("imap_password", IMAP),
                       ("smtp_password", SMTP)):
        (tmp_path / key).write_text(value + "\n", encoding="utf-8")
    # Uncomment the documented *_file lines, pointing them at files beside the config.
    text = re.sub(r'^# ((?:admin_)?password_file) = "/etc/speakerbot/(\w+)"$',
                  r'\1 = "\2"', text, flags=re.MULTILINE)
    config = tmp_path / "speakerbot.toml"
    config.write_text(text, encoding="utf-8")
    settings = load_settings(config, {})
    assert settings.game.admin_password == ADMIN
    assert settings.imap is not None and settings.imap.password == IMAP
    assert settings.smtp is not None and settings.smtp.password == SMTP


def test_example_lists_every_key_of_every_section() -> None:
    found: dict[str, set[str]] = {}
    section = ""
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        if header := re.fullmatch(r"#? ?\[(\w+)\].*", line):
            section = header.group(1)
            found.setdefault(section, set())
        elif key := re.fullmatch(r"#? ?(\w+) = .*", line):
            found[section].add(key.group(1))
    assert set(found) == set(KEYS)
    for name, keys in KEYS.items():
        if name != "mechanics":
            assert found[name] == set(keys), name
    assert found["mechanics"] <= set(KEYS["mechanics"])


def test_example_is_valid_toml_and_everything_in_it_is_commented() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    tomllib.loads(text)
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if re.fullmatch(r"\w+ = .*", line):
            assert lines[number - 1].startswith("#"), f"{line!r} has no comment above it"


# Defaults.


def test_defaults() -> None:
    settings = parse(minimal())
    assert settings.game.list is None
    assert settings.game.open_registration is True
    assert settings.game.digest is None
    assert (settings.game.judge, settings.game.judge_name) == ("host@example.org", "Host")
    assert settings.mechanics == {}
    assert settings.limits == LimitsSettings(262144, 20, 200)
    assert settings.database.url == "sqlite:///data/speakerbot.db"
    assert settings.database.sqlite_path == Path("data/speakerbot.db")
    assert (settings.imap, settings.lmtp, settings.smtp) == (None, None, None)


def test_section_defaults() -> None:
    data = minimal()
    data["imap"] = {"host": "imap.example.org", "password": IMAP}
    data["lmtp"] = {}
    data["smtp"] = {"host": "smtp.example.org"}
    settings = parse(data)
    assert settings.imap == ImapConfig("imap.example.org", 993, "ssl", "game@example.org",
                                       IMAP, "INBOX", "speakerbot/processed", True, 60.0)
    assert settings.lmtp == LmtpConfig("127.0.0.1", 8024)
    assert settings.smtp == SmtpConfig("smtp.example.org", 587, "starttls", "", None)


@pytest.mark.parametrize(("security", "imap_port", "smtp_port"), [
    ("ssl", 993, 465), ("starttls", 143, 587), ("none", 143, 25), ("STARTTLS", 143, 587),
])
def test_default_ports_follow_security(security: str, imap_port: int, smtp_port: int) -> None:
    data = minimal()
    data["imap"] = {"host": "h", "password": IMAP, "security": security,
                    "allow_plaintext": True}
    data["smtp"] = {"host": "h", "security": security}
    settings = parse(data)
    assert settings.imap is not None and settings.smtp is not None
    assert (settings.imap.port, settings.smtp.port) == (imap_port, smtp_port)
    assert settings.imap.security == security.lower()


def test_a_named_judge_without_a_name_is_called_by_the_address() -> None:
    data = minimal()
    data["game"]["judge"] = "Judge@Example.org"
    assert (parse(data).game.judge, parse(data).game.judge_name) == ("judge@example.org",) * 2


def test_addresses_are_stored_lower_case() -> None:
    data = full()
    data["game"].update(address="Game@Example.ORG", speaker=" Host@EXAMPLE.org ")
    game = parse(data).game
    assert (game.address, game.speaker) == ("game@example.org", "host@example.org")


@pytest.mark.parametrize(("written", "size"), [
    (262144, 262144), ("256KiB", 262144), ("1MiB", 1048576), ("1 MB", 1000000),
    ("2048", 2048), ("4096B", 4096), ("1GiB", 1024**3),
])
def test_message_size_units(written: object, size: int) -> None:
    data = minimal()
    data["limits"] = {"max_message_size": written}
    assert parse(data).limits.max_message_size == size


def test_mechanics_are_kept_as_written_strings() -> None:
    data = minimal()
    data["mechanics"] = {"voting_period": "1h", "quorum_percent": 30, "overrule": False,
                         "refused_consent_threshold": "3/4", "max_mutable_rules": "none"}
    assert parse(data).mechanics == {
        "voting_period": "1h", "quorum_percent": "30", "overrule": "false",
        "refused_consent_threshold": "3/4", "max_mutable_rules": "none",
    }


def test_cron_weekdays_by_name_are_accepted() -> None:
    data = minimal()
    data["game"]["digest"] = "30 18 * * mon-fri"
    assert parse(data).game.digest == "30 18 * * mon-fri"


# Refusals: every bad value names its key.

BAD: list[tuple[str, str, object, str]] = [
    # Unknown sections and keys.
    ("", "gmae", {}, "[gmae]"),
    ("", "name", "x", "name"),
    ("game", "nmae", "x", "[game] nmae"),
    ("mechanics", "voting_periode", "7d", "[mechanics] voting_periode"),
    ("limits", "max_size", 1, "[limits] max_size"),
    ("database", "uri", "x", "[database] uri"),
    ("imap", "hostname", "x", "[imap] hostname"),
    ("lmtp", "address", "x", "[lmtp] address"),
    ("smtp", "tls", True, "[smtp] tls"),
    ("", "imap", "imap.example.org", "[imap]"),
    # [game]
    ("game", "name", DELETE, "[game] name"),
    ("game", "name", 5, "[game] name"),
    ("game", "name", "  ", "[game] name"),
    ("game", "name", "[Nomic]", "[game] name"),
    ("game", "name", "Two\nlines", "[game] name"),
    ("game", "ruleset", "agora", "[game] ruleset"),
    ("game", "ruleset", DELETE, "[game] ruleset"),
    ("game", "address", "not an address", "[game] address"),
    ("game", "address", "Game <game@example.org>", "[game] address"),
    ("game", "address", "a@example.org, b@example.org", "[game] address"),
    ("game", "address", "nodomain", "[game] address"),
    ("game", "address", "@example.org", "[game] address"),
    ("game", "address", "user@", "[game] address"),
    ("game", "address", ["game@example.org"], "[game] address"),
    ("game", "speaker", "game@example.org", "[game] speaker"),
    ("game", "speaker", "chuck@exa mple.org", "[game] speaker"),
    ("game", "speaker", "ünïcode@example.org", "[game] speaker"),
    ("game", "speaker_name", DELETE, "[game] speaker_name"),
    ("game", "list", "list", "[game] list"),
    ("game", "list", "game@example.org", "[game] list"),
    ("game", "judge", "judge", "[game] judge"),
    ("game", "judge_name", 3, "[game] judge_name"),
    ("game", "open_registration", "yes", "[game] open_registration"),
    ("game", "open_registration", 1, "[game] open_registration"),
    ("game", "digest", "0 8 * *", "[game] digest"),
    ("game", "digest", "99 8 * * *", "[game] digest"),
    ("game", "digest", "0 8 * * 1", "[game] digest"),
    ("game", "digest", "@daily", "[game] digest"),
    ("game", "digest", 8, "[game] digest"),
    ("game", "admin_password", 1234, "[game] admin_password"),
    ("game", "admin_password", "", "[game] admin_password"),
    ("game", "admin_password_file", "/nonexistent/admin", "[game] admin_password_file"),
    # [mechanics]
    ("mechanics", "voting_period", "forever", "[mechanics] voting_period"),
    ("mechanics", "voting_period", "0s", "[mechanics] voting_period"),
    ("mechanics", "quorum_percent", 101, "[mechanics] quorum_percent"),
    ("mechanics", "overrule", "maybe", "[mechanics] overrule"),
    ("mechanics", "judge_policy", "dice", "[mechanics] judge_policy"),
    ("mechanics", "win_points", [100], "[mechanics] win_points"),
    ("mechanics", "refused_consent_threshold", 0.3, "[mechanics] refused_consent_threshold"),
    # [limits]
    ("limits", "max_message_size", "big", "[limits] max_message_size"),
    ("limits", "max_message_size", 100, "[limits] max_message_size"),
    ("limits", "max_message_size", "2GiB", "[limits] max_message_size"),
    ("limits", "max_message_size", True, "[limits] max_message_size"),
    ("limits", "replies_per_day", 0, "[limits] replies_per_day"),
    ("limits", "replies_per_day", "20", "[limits] replies_per_day"),
    ("limits", "max_command_lines", 2.5, "[limits] max_command_lines"),
    ("limits", "max_command_lines", True, "[limits] max_command_lines"),
    # [database]
    ("database", "url", "not a url", "[database] url"),
    ("database", "url", "mysql://db/speakerbot", "[database] url"),
    ("database", "url", 5, "[database] url"),
    # [imap]
    ("imap", "host", DELETE, "[imap] host"),
    ("imap", "host", "imap example", "[imap] host"),
    ("imap", "port", "abc", "[imap] port"),
    ("imap", "port", "993", "[imap] port"),
    ("imap", "port", 0, "[imap] port"),
    ("imap", "port", 65536, "[imap] port"),
    ("imap", "port", -1, "[imap] port"),
    ("imap", "port", True, "[imap] port"),
    ("imap", "port", 993.0, "[imap] port"),
    ("imap", "security", "tls", "[imap] security"),
    ("imap", "security", True, "[imap] security"),
    ("imap", "username", 7, "[imap] username"),
    ("imap", "password", DELETE, "[imap] password"),
    ("imap", "folder", "", "[imap] folder"),
    ("imap", "processed_folder", "INBOX", "[imap] processed_folder"),
    ("imap", "idle", "true", "[imap] idle"),
    ("imap", "poll_interval", "soon", "[imap] poll_interval"),
    ("imap", "poll_interval", 60, "[imap] poll_interval"),
    ("imap", "poll_interval", "0s", "[imap] poll_interval"),
    ("imap", "poll_interval", "2d", "[imap] poll_interval"),
    # [lmtp]
    ("lmtp", "port", 70000, "[lmtp] port"),
    ("lmtp", "port", "8024", "[lmtp] port"),
    ("lmtp", "host", "", "[lmtp] host"),
    # [smtp]
    ("smtp", "host", DELETE, "[smtp] host"),
    ("smtp", "port", "abc", "[smtp] port"),
    ("smtp", "port", 0, "[smtp] port"),
    ("smtp", "security", "SSL/TLS", "[smtp] security"),
    ("smtp", "password", DELETE, "[smtp] password"),  # a username without a password
    ("smtp", "password", 42, "[smtp] password"),
]


@pytest.mark.parametrize(("section", "key", "value", "named"), BAD,
                         ids=[f"{s}.{k}=" + ("<deleted>" if v is DELETE else repr(v))
                              for s, k, v, _ in BAD])
def test_bad_values_are_refused_naming_the_key(section: str, key: str, value: object,
                                                named: str) -> None:
    data = full()
    table = data[section] if section else data
    if value is DELETE:
        del table[key]
    else:
        table[key] = value
    error = refused(data)
    assert error.key == named
    assert str(error).startswith(f"{PATH}: {named}: ")
    assert error.path == PATH


def test_the_imap_port_message() -> None:
    data = full()
    data["imap"]["port"] = "abc"
    assert str(refused(data)) == (
        f"{PATH}: [imap] port: expected a whole number from 1 to 65535, not 'abc'")


def test_unknown_keys_are_refused_with_a_suggestion() -> None:
    data = full()
    data["imap"]["hots"] = "x"
    assert "did you mean host?" in str(refused(data))


def test_an_unknown_mechanic_lists_some_known_ones() -> None:
    data = minimal()
    data["mechanics"] = {"voting_time": "7d"}
    message = str(refused(data))
    assert "[mechanics] voting_time" in message
    assert "voting_period" in message and "judge_period" in message


def test_a_bad_mechanic_value_says_what_is_accepted() -> None:
    data = minimal()
    data["mechanics"] = {"quorum_percent": 101}
    message = str(refused(data))
    assert message == (f"{PATH}: [mechanics] quorum_percent: expected a whole number from 0 "
                       "to 100, not 101")


def test_an_unknown_ruleset_lists_the_presets() -> None:
    data = minimal()
    data["game"]["ruleset"] = "nomicamm"
    message = str(refused(data))
    assert "did you mean nomicam?" in message
    assert "suber, locked-open, speaker, rurru, nomicam" in message


def test_a_numbered_weekday_is_refused_because_apscheduler_counts_from_monday() -> None:
    data = minimal()
    data["game"]["digest"] = "0 8 * * 1-5"
    assert "by name" in str(refused(data))


def test_a_missing_game_section() -> None:
    assert refused({}).key == "[game]"


# Secrets.


def test_the_admin_password_may_be_left_out() -> None:
    # Without it ADMIN by mail is refused; the game itself needs none.
    data = minimal()
    del data["game"]["admin_password"]
    assert parse(data).game.admin_password is None


def test_a_missing_mail_password_waits_for_run_and_says_where_it_may_come_from() -> None:
    data = full()
    del data["imap"]["password"]
    settings = parse(data)
    assert settings.imap is None and settings.smtp is not None
    for require in (settings.require_mail, settings.require_outbound, settings.require_inbound):
        with pytest.raises(MissingValue) as caught:
            require()
        assert caught.value.key == "[imap] password"
        assert "password_file" in str(caught.value)
        assert "SPEAKERBOT_IMAP_PASSWORD" in str(caught.value)


def test_a_password_and_a_password_file_together_are_refused(tmp_path: Path) -> None:
    secret_file = tmp_path / "pw"
    secret_file.write_text("other\n", encoding="utf-8")
    data = full()
    data["imap"]["password_file"] = str(secret_file)
    error = refused(data)
    assert error.key == "[imap] password_file"
    assert "not both" in str(error)


def test_secret_precedence_key_then_file_then_environment(tmp_path: Path) -> None:
    (tmp_path / "admin").write_text("from-file\n", encoding="utf-8")
    path = tmp_path / "speakerbot.toml"
    env = {"SPEAKERBOT_ADMIN_PASSWORD": "from-env"}
    data = minimal()
    assert parse_settings(data, path=path, environ=env).game.admin_password == ADMIN
    del data["game"]["admin_password"]
    data["game"]["admin_password_file"] = "admin"  # relative to the config file's folder
    assert parse_settings(data, path=path, environ=env).game.admin_password == "from-file"
    del data["game"]["admin_password_file"]
    assert parse_settings(data, path=path, environ=env).game.admin_password == "from-env"


def test_environment_passwords_for_imap_smtp_and_the_database_url() -> None:
    data = full()
    del data["imap"]["password"], data["smtp"]["password"], data["database"]["url"]
    env = {"SPEAKERBOT_IMAP_PASSWORD": "i", "SPEAKERBOT_SMTP_PASSWORD": "s",
           "SPEAKERBOT_DATABASE_URL": "postgresql+psycopg://bot:pw@db/nomic"}
    settings = parse(data, env)
    assert settings.imap is not None and settings.imap.password == "i"
    assert settings.smtp is not None and settings.smtp.password == "s"
    assert settings.database.url == "postgresql+psycopg://bot:pw@db/nomic"
    assert settings.database.display_url == "postgresql+psycopg://bot:***@db/nomic"
    assert settings.database.sqlite_path is None


def test_the_database_url_in_the_file_wins_over_the_environment() -> None:
    env = {"SPEAKERBOT_DATABASE_URL": "postgresql+psycopg://db/nomic"}
    assert parse(full(), env).database.url == "sqlite:///test.db"
    assert parse(minimal(), env).database.url == "postgresql+psycopg://db/nomic"


@pytest.mark.parametrize(("content", "secret"), [
    ("pw\n", "pw"), ("pw\r\n", "pw"), ("pw", "pw"), (" spaced pw \n", " spaced pw "),
])
def test_a_secret_file_loses_one_trailing_newline(tmp_path: Path, content: str,
                                                  secret: str) -> None:
    (tmp_path / "smtp").write_bytes(content.encode())
    data = full()
    del data["smtp"]["password"]
    data["smtp"]["password_file"] = str(tmp_path / "smtp")
    settings = parse(data)
    assert settings.smtp is not None and settings.smtp.password == secret


@pytest.mark.parametrize("content", ["", "\n", "pw\n\n", "two\nlines\n"])
def test_an_empty_or_multi_line_secret_file_is_refused(tmp_path: Path, content: str) -> None:
    (tmp_path / "imap").write_text(content, encoding="utf-8")
    data = full()
    del data["imap"]["password"]
    data["imap"]["password_file"] = str(tmp_path / "imap")
    assert refused(data).key == "[imap] password_file"


def test_an_empty_environment_variable_counts_as_absent() -> None:
    data = minimal()
    del data["game"]["admin_password"]
    assert parse(data, {"SPEAKERBOT_ADMIN_PASSWORD": ""}).game.admin_password is None
    data = full()
    del data["imap"]["password"]
    assert refused(data, {"SPEAKERBOT_IMAP_PASSWORD": ""}).key == "[imap] password"


def test_smtp_without_credentials_sends_without_logging_in() -> None:
    data = full()
    del data["smtp"]["username"], data["smtp"]["password"]
    smtp = parse(data).smtp
    assert smtp is not None and (smtp.username, smtp.password) == ("", None)
    data["smtp"]["password"] = SMTP
    smtp = parse(data).smtp
    assert smtp is not None and (smtp.username, smtp.password) == ("game@example.org", SMTP)


DB_SECRET = "db-Secret-4"


def secret_failures(tmp_path: Path) -> list[dict[str, Any]]:
    """Configurations that fail while holding secrets."""
    cases = []
    both = full()
    (tmp_path / "pw").write_text(f"{ADMIN}\n", encoding="utf-8")
    both["game"]["admin_password_file"] = str(tmp_path / "pw")
    cases.append(both)
    multi = full()
    multi["imap"]["password"] = f"{IMAP}\nsecond line"
    cases.append(multi)
    backend = full()
    backend["database"]["url"] = f"mysql://bot:{DB_SECRET}@db/nomic"
    cases.append(backend)
    unreadable = full()
    unreadable["database"]["url"] = f"postgresql+psycopg://bot:{DB_SECRET}@db:port/nomic"
    cases.append(unreadable)
    later = full()  # every secret read, then a bad value
    later["smtp"]["port"] = "abc"
    cases.append(later)
    return cases


def test_secrets_never_appear_in_repr_or_errors(tmp_path: Path) -> None:
    data = full()
    data["database"]["url"] = f"postgresql+psycopg://bot:{DB_SECRET}@db/nomic"
    settings = parse(data)
    secrets = (ADMIN, IMAP, SMTP, DB_SECRET)
    for text in (repr(settings), str(settings), repr(settings.game), repr(settings.imap),
                 repr(settings.smtp), repr(settings.database)):
        assert not any(secret in text for secret in secrets), text
    assert "bot:***@db" in repr(settings.database)
    for case in secret_failures(tmp_path):
        error = refused(case)
        assert not any(secret in str(error) or secret in repr(error) for secret in secrets)


# The file itself.


def test_load_settings_from_a_file(tmp_path: Path) -> None:
    config = tmp_path / "speakerbot.toml"
    config.write_text('[game]\nname = "N"\nruleset = "rurru"\naddress = "g@example.org"\n'
                      'speaker = "h@example.org"\nspeaker_name = "H"\n', encoding="utf-8")
    settings = load_settings(config, {"SPEAKERBOT_ADMIN_PASSWORD": "pw"})
    assert settings.path == config and settings.game.ruleset == "rurru"


def test_load_settings_defaults_to_the_process_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "speakerbot.toml"
    config.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    assert load_settings(config).game.admin_password == ADMIN


def test_a_missing_file_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path / "nope.toml", {})
    assert str(tmp_path / "nope.toml") in str(caught.value)
    # Not a file of the checkout, which an installed speakerbot lacks: a command it has.
    assert "speakerbot config example > PATH" in str(caught.value)
    assert "config/speakerbot.example.toml" not in str(caught.value)


def test_a_broken_file_names_the_file(tmp_path: Path) -> None:
    config = tmp_path / "speakerbot.toml"
    config.write_text('[game]\nname = "unterminated\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(config, {})
    assert str(caught.value).startswith(f"{config}: is not valid TOML")
    with pytest.raises(ConfigError, match="is a directory"):
        load_settings(tmp_path, {})


def test_require_inbound_and_outbound() -> None:
    settings = parse(minimal())
    with pytest.raises(ConfigError, match=r"\[imap\] or \[lmtp\]"):
        settings.require_inbound()
    with pytest.raises(ConfigError, match=r"\[smtp\]"):
        settings.require_outbound()
    data = minimal()
    data["lmtp"] = {}
    parse(data).require_inbound()


def test_settings_do_not_share_state_with_the_input() -> None:
    data = full()
    before = copy.deepcopy(data)
    parse(data)
    assert data == before


# Choosing the file.


@pytest.mark.parametrize(("cli", "environ", "expected"), [
    ("given.toml", {"SPEAKERBOT_CONFIG": "/env.toml"}, "given.toml"),
    (None, {"SPEAKERBOT_CONFIG": "/env.toml"}, "/env.toml"),
    (None, {}, "config/speakerbot.toml"),
    (None, {"SPEAKERBOT_CONFIG": ""}, "config/speakerbot.toml"),
    ("", {"SPEAKERBOT_CONFIG": "/env.toml"}, "/env.toml"),
])
def test_resolve_config_path(cli: str | None, environ: dict[str, str], expected: str) -> None:
    assert resolve_config_path(cli, environ) == Path(expected)


def test_the_documentation_names_every_key_and_mechanic() -> None:
    docs = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for section, keys in KEYS.items():
        assert f"## [{section}]" in docs
        for key in keys:
            assert f"| `{key}` |" in docs, f"[{section}] {key}"
    for variable in ("SPEAKERBOT_CONFIG", "SPEAKERBOT_ADMIN_PASSWORD", "SPEAKERBOT_IMAP_PASSWORD",
                     "SPEAKERBOT_SMTP_PASSWORD", "SPEAKERBOT_DATABASE_URL"):
        assert variable in docs


# [auth], the new [limits], [smtp] give_up_after and allow_plaintext.


def test_auth_defaults_are_the_safe_ones() -> None:
    auth = parse(minimal()).auth
    assert (auth.require, auth.authserv_id, auth.unauthenticated) == ("dmarc", (), "confirm")
    assert auth.confirm_within == 3 * 86400
    assert auth.confirm_gap == 600


def test_auth_values_are_read_and_checked() -> None:
    data = minimal()
    data["auth"] = {"require": "NONE", "authserv_id": "MX.Example.org",
                    "unauthenticated": "refuse", "confirm_within": "1d", "confirm_gap": "2s"}
    auth = parse(data).auth
    assert (auth.require, auth.authserv_id, auth.unauthenticated, auth.confirm_within,
            auth.confirm_gap) == ("none", ("mx.example.org",), "refuse", 86400, 2)
    for key, value, words in (("require", "dkim", "expected one of dmarc, none"),
                              ("unauthenticated", 1, "expected one of confirm, refuse"),
                              ("authserv_id", ["mx.example.org; dmarc=pass"], "host names"),
                              ("authserv_id", [""], "host names"),
                              ("confirm_within", "1s", "from 1m to 30d"),
                              ("confirm_gap", "0s", "from 1s to 1h"),
                              ("confirm_gap", "2h", "from 1s to 1h"),
                              ("trust", "yes", "unknown key")):
        data = minimal()
        data["auth"] = {key: value}
        error = refused(data)
        assert error.key == f"[auth] {key}" and words in str(error), (key, str(error))


def test_new_limits_and_the_outbox_give_up_time() -> None:
    data = minimal()
    data["limits"] = {"proposals_per_message": 2, "proposals_per_day": 9}
    data["smtp"] = {"host": "127.0.0.1", "security": "none", "give_up_after": "2d"}
    settings = parse(data)
    assert (settings.limits.proposals_per_message, settings.limits.proposals_per_day) == (2, 9)
    assert settings.smtp is not None and settings.smtp.give_up_after == 2 * 86400
    data["limits"] = {"proposals_per_message": 0}
    assert refused(data).key == "[limits] proposals_per_message"
    data = minimal()
    data["smtp"] = {"host": "127.0.0.1", "give_up_after": 5}
    assert refused(data).key == "[smtp] give_up_after"


def test_a_password_in_clear_to_another_machine_is_refused_unless_allowed() -> None:
    for section, table in (("imap", {"host": "mail.example.org", "password": IMAP}),
                           ("smtp", {"host": "mail.example.org", "password": SMTP,
                                     "username": "u"})):
        data = minimal()
        data[section] = {**table, "security": "none"}
        error = refused(data)
        assert error.key == f"[{section}] security" and "allow_plaintext" in str(error)
        data[section]["allow_plaintext"] = True
        assert getattr(parse(data), section).allow_plaintext is True
        for host in ("127.0.0.1", "localhost", "::1", "127.9.9.9"):
            data = minimal()
            data[section] = {**table, "security": "none", "host": host}
            assert getattr(parse(data), section).security == "none"
    # Sending without a login to a relay in clear is no password in clear: allowed.
    data = minimal()
    data["smtp"] = {"host": "relay.example.org", "security": "none"}
    assert parse(data).smtp is not None


# [imap] and [smtp] are the adapters' own settings records, built by the configuration.


def test_imap_and_smtp_are_the_adapters_settings() -> None:
    from speakerbot.adapters.imap import ImapSettings
    from speakerbot.adapters.smtp import SmtpSettings

    settings = parse(full())
    assert type(settings.imap) is ImapSettings and ImapConfig is ImapSettings
    assert type(settings.smtp) is SmtpSettings and SmtpConfig is SmtpSettings
    assert settings.imap.max_size is None  # [limits] max_message_size is the daemon's to set


def test_a_watched_folder_that_is_the_rejected_folder_is_refused() -> None:
    data = full()
    data["imap"]["folder"] = "speakerbot/rejected"
    error = refused(data)
    assert error.key == "[imap] folder" and "rejected_folder" in str(error)


def test_keys_are_read_from_the_schema() -> None:
    assert KEYS["imap"][:3] == ("host", "port", "security")
    assert "give_up_after" in KEYS["smtp"] and "password_file" in KEYS["smtp"]


def test_unknown_sections_and_keys_are_named_before_any_bad_value() -> None:
    data = full()
    data["smtp"]["port"] = "many"
    data["surprise"] = {"key": 1}
    assert refused(data).key == "[surprise]"
    del data["surprise"]
    data["imap"]["hots"] = "x"
    assert refused(data).key == "[imap] hots"
