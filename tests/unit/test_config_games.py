"""Many games in one configuration file: [[games]], their ids, and the shared [workers]."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from speakerbot.config import (
    GAME_ENV,
    GAMES_KEYS,
    ConfigError,
    GameNotChosen,
    Games,
    Settings,
    UnknownGame,
    WorkersSettings,
    load_games,
    load_settings,
    parse_games,
    parse_settings,
)
from speakerbot.mail.verp import bounce_address, token_of

ROOT = Path(__file__).resolve().parents[2]
PATH = Path("/etc/speakerbot/speakerbot.toml")
IMAP = "imap-Secret-2"


def game(game_id: str, ruleset: str, address: str, **more: Any) -> dict[str, Any]:
    """One [[games]] table."""
    return {"id": game_id, "name": f"Nomic {game_id}", "ruleset": ruleset, "address": address,
            "speaker": "host@example.org", "speaker_name": "Host", **more}


def three() -> dict[str, Any]:
    """A file of three games of different rulesets; two read their own mailbox."""
    return {
        "games": [
            game("main", "nomicam", "main@example.org", list="players@example.org",
                 mechanics={"voting_period": "7d"},
                 imap={"host": "imap.example.org", "password": IMAP}),
            game("newcomers", "suber", "New@Example.org", mechanics={"voting_period": "3d"}),
            game("rurru-2", "rurru", "rurru@example.org", judge="judge@example.org",
                 imap={"host": "imap.other.org", "port": 143, "security": "starttls",
                       "password": IMAP, "folder": "Nomic"}),
        ],
        "database": {"url": "postgresql+psycopg://nomic@db.example.org/nomic"},
        "lmtp": {"port": 2424},
        "smtp": {"host": "smtp.example.org", "username": "bot@example.org", "password": "s"},
        "site": {"dir": "site"},
        "workers": {"lease": "30s"},
    }


def parse(data: dict[str, Any]) -> Games:
    return parse_games(data, PATH, {})


def refused(data: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse(data)
    return caught.value


# Three games in one file.


def test_three_games_load_with_their_own_ids_rulesets_mechanics_and_mailboxes() -> None:
    games = parse(three())
    assert games.path == PATH
    assert games.ids() == ("main", "newcomers", "rurru-2")
    assert [s.game_id for s in games.games] == ["main", "newcomers", "rurru-2"]
    assert [s.game.ruleset for s in games.games] == ["nomicam", "suber", "rurru"]
    assert [s.game.address for s in games.games] == [
        "main@example.org", "new@example.org", "rurru@example.org"]
    assert [s.mechanics for s in games.games] == [
        {"voting_period": "7d"}, {"voting_period": "3d"}, {}]
    main, newcomers, rurru = games.games
    assert main.imap is not None and newcomers.imap is None and rurru.imap is not None
    assert (main.imap.host, main.imap.port, main.imap.username) == (
        "imap.example.org", 993, "main@example.org")
    assert (rurru.imap.host, rurru.imap.port, rurru.imap.folder, rurru.imap.username) == (
        "imap.other.org", 143, "Nomic", "rurru@example.org")
    assert rurru.game.judge == "judge@example.org" and main.game.list == "players@example.org"


@pytest.mark.parametrize("section", ["limits", "database", "lmtp", "smtp", "auth", "site",
                                     "workers"])
def test_the_shared_sections_are_one_object_in_every_game(section: str) -> None:
    games = parse(three())
    shared = getattr(games.shared, section)
    assert all(getattr(s, section) is shared for s in games.games)
    assert games.shared is games.games[0]
    assert games.shared.workers == WorkersSettings(lease=30.0)
    assert games.shared.lmtp is not None and games.shared.lmtp.port == 2424


def test_get_select_and_by_address() -> None:
    games = parse(three())
    assert games.get("newcomers").game.ruleset == "suber"
    assert games.select("rurru-2") is games.get("rurru-2")
    with pytest.raises(UnknownGame) as unknown:
        games.get("nope")
    assert "main, newcomers, rurru-2" in str(unknown.value) and str(PATH) in str(unknown.value)
    with pytest.raises(UnknownGame):
        games.select("nope")
    with pytest.raises(GameNotChosen) as not_chosen:
        games.select(None)
    message = str(not_chosen.value)
    assert "main, newcomers, rurru-2" in message
    assert "--game ID" in message and GAME_ENV in message
    assert games.by_address("NEW@example.ORG") is games.get("newcomers")
    assert games.by_address(" rurru@Example.org ") is games.get("rurru-2")
    # Only the game's own address: its list, a stranger and nonsense are no game.
    for other in ("players@example.org", "someone@example.org", "not an address", ""):
        assert games.by_address(other) is None, other


def test_one_game_is_chosen_without_an_id_and_a_game_section_is_main() -> None:
    one = {"games": [game("solo", "suber", "solo@example.org")]}
    assert parse(one).select(None).game_id == "solo"
    single = {"game": {k: v for k, v in game("x", "suber", "g@example.org").items()
                       if k != "id"}}
    games = parse(single)
    assert games.ids() == ("main",)
    settings = games.select(None)
    assert settings.game_id == "main" and settings.workers == WorkersSettings(lease=10.0)
    assert parse_settings(single, path=PATH, environ={}) == settings
    assert parse_settings(single, path=PATH, environ={}, game="main") == settings


def test_load_games_reads_the_file_once_and_load_settings_chooses(tmp_path: Path) -> None:
    config = tmp_path / "speakerbot.toml"
    config.write_text('''
[[games]]
id = "main"
name = "Main"
ruleset = "nomicam"
address = "main@example.org"
speaker = "host@example.org"
speaker_name = "Host"

[games.mechanics]
voting_period = "2d"

[[games]]
id = "second"
name = "Second"
ruleset = "suber"
address = "second@example.org"
speaker = "host@example.org"
speaker_name = "Host"

[games.imap]
host = "imap.example.org"

[workers]
lease = "1m"
''', encoding="utf-8")
    games = load_games(config, {})
    assert games.ids() == ("main", "second") and games.path == config
    assert games.get("main").mechanics == {"voting_period": "2d"}
    second = load_settings(str(config), {}, game="second")
    assert second.game.name == "Second" and second.workers.lease == 60
    # The mailbox's password is asked for by run, as in a one-game file.
    assert second.imap is None
    with pytest.raises(ConfigError) as missing:
        second.require_mail()
    assert missing.value.key == "games[2].imap.password"
    assert load_games(config, {"SPEAKERBOT_IMAP_PASSWORD": IMAP}).get("second").imap
    with pytest.raises(GameNotChosen):
        load_settings(config, {})
    # No path: the file SPEAKERBOT_CONFIG names.
    assert load_games(None, {"SPEAKERBOT_CONFIG": str(config)}).ids() == ("main", "second")


# What is refused, and the key path each refusal names.


def edited(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = three()
    change(data)
    return data


def games_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = data["games"]
    return games


REFUSED: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("a bad id", lambda d: games_of(d)[1].update(id="New"), "games[2].id",
     "lower-case letters, digits and hyphens"),
    ("an id too long", lambda d: games_of(d)[2].update(id="x" * 33), "games[3].id",
     "1 to 32"),
    ("an empty id", lambda d: games_of(d)[0].update(id=""), "games[1].id", "not ''"),
    ("an id not a string", lambda d: games_of(d)[0].update(id=7), "games[1].id", "not 7"),
    ("no id", lambda d: games_of(d)[1].pop("id"), "games[2].id", "required"),
    ("a duplicate id", lambda d: games_of(d)[2].update(id="main"), "games[3].id",
     "'main' is given twice (games[1] and games[3])"),
    ("a duplicate address", lambda d: games_of(d)[2].update(address="NEW@example.org"),
     "games[3].address", "games 'newcomers' and 'rurru-2'"),
    ("an address that is another game's list",
     lambda d: games_of(d)[1].update(address="players@example.org"), "games[2].address",
     "the list of the game 'main'; the game 'newcomers' needs an address of its own"),
    ("a list that is another game's address",
     lambda d: games_of(d)[2].update(list="main@example.org"), "games[3].list",
     "the game 'main', not a list of the game 'rurru-2'"),
    ("an id with a final line break", lambda d: games_of(d)[2].update(id="main\n"),
     "games[3].id", "lower-case letters, digits and hyphens"),
    ("an address that is another game's up to a +tag",
     lambda d: games_of(d)[1].update(address="Main+New@example.org"), "games[2].address",
     "main+new@example.org and main@example.org, the address of the game 'main', come to one "
     "mailbox (games[1].address and games[2].address): mail servers deliver "
     "main+anything@example.org to main@example.org"),
    ("a list that is another game's address up to a +tag",
     lambda d: games_of(d)[2].update(list="NEW+list@example.org"), "games[3].list",
     "the address of the game 'newcomers', come to one mailbox (games[2].address and "
     "games[3].list)"),
    ("an address that is another game's list up to a +tag",
     lambda d: games_of(d)[2].update(address="players+rurru@example.org"),
     "games[3].address", "the list of the game 'main', come to one mailbox (games[1].list "
     "and games[3].address)"),
    ("a list that is another game's list", lambda d: games_of(d)[2].update(
        list="PLAYERS@example.org"), "games[3].list",
     "players@example.org is the list of the games 'main' and 'rurru-2'; each game needs a "
     "list of its own (games[1].list and games[3].list)"),
    ("an address in the form of another game's return paths",
     lambda d: games_of(d)[2].update(address="new+bounce-x@example.org"),
     "games[3].address", "new+bounce-x@example.org has the form of the return paths of a "
     "game at new@example.org (new+bounce-...@example.org)"),
    ("another game's address in the form of this one's return paths",
     lambda d: games_of(d)[0].update(address="new+bounce-x@example.org"),
     "games[2].address", "(games[1].address and games[2].address): "
     "new+bounce-x@example.org has the form of the return paths"),
    ("a game's own address in the form of a return path",
     lambda d: games_of(d)[2].update(address="rurru+bounce-0@example.org"),
     "games[3].address", "has the form of a return path (local+bounce-...@domain)"),
    ("both [game] and [[games]]",
     lambda d: d.update(game={k: v for k, v in games_of(d)[1].items()
                              if k not in ("id", "mechanics")}),
     "[game] and [[games]]", "not both"),
    ("[mechanics] beside [[games]]", lambda d: d.update(mechanics={"voting_period": "1d"}),
     "[mechanics]", "[games.mechanics]"),
    ("[imap] beside [[games]]", lambda d: d.update(imap={"host": "imap.example.org"}),
     "[imap]", "[games.imap]"),
    ("no game", lambda d: d.update(games=[]), "[[games]]", "at least one game"),
    ("games as a table", lambda d: d.update(games={"id": "main"}), "[[games]]",
     "one [[games]] table per game"),
    ("an unknown key in a game", lambda d: games_of(d)[0].update(adress="x@example.org"),
     "games[1].adress", "did you mean address?"),
    ("an unknown key in a game's mailbox",
     lambda d: games_of(d)[2]["imap"].update(hots="x"), "games[3].imap.hots",
     "the keys of [imap] are"),
    ("a game's mechanics not a table", lambda d: games_of(d)[1].update(mechanics="3d"),
     "games[2].mechanics", "expected a table"),
    ("an unknown mechanic", lambda d: games_of(d)[1]["mechanics"].update(voting="3d"),
     "games[2].mechanics.voting", "no mechanic called 'voting'"),
    ("a bad mechanic value",
     lambda d: games_of(d)[0]["mechanics"].update(quorum_percent=101),
     "games[1].mechanics.quorum_percent", "from 0 to 100"),
    ("a missing game key", lambda d: games_of(d)[1].pop("speaker"), "games[2].speaker",
     "required"),
    ("a game value of the wrong type", lambda d: games_of(d)[2].update(open_registration=1),
     "games[3].open_registration", "expected true or false"),
    ("an unknown ruleset", lambda d: games_of(d)[1].update(ruleset="subber"),
     "games[2].ruleset", "did you mean suber?"),
    ("a speaker who is the game", lambda d: games_of(d)[0].update(speaker="main@example.org"),
     "games[1].speaker", "not the game's own"),
    ("a mailbox port of the wrong type", lambda d: games_of(d)[2]["imap"].update(port="x"),
     "games[3].imap.port", "from 1 to 65535"),
    ("a mailbox with no host", lambda d: games_of(d)[0]["imap"].pop("host"),
     "games[1].imap.host", "required"),
    ("a bad mailbox folder", lambda d: games_of(d)[0]["imap"].update(processed_folder="INBOX"),
     "games[1].imap.processed_folder", "must differ from folder"),
    ("two secret sources", lambda d: games_of(d)[1].update(admin_password="a",
                                                            admin_password_file="f"),
     "games[2].admin_password_file", "not both"),
    ("an unreadable secret file",
     lambda d: games_of(d)[1].update(admin_password_file="/nonexistent/secret"),
     "games[2].admin_password_file", "cannot read"),
    ("a shared smtp login with no username", lambda d: d["smtp"].pop("username"),
     "[smtp] username", "several games"),
    ("a shared section's error keeps its name", lambda d: d["lmtp"].update(port=0),
     "[lmtp] port", "from 1 to 65535"),
    ("a lease in milliseconds", lambda d: d["workers"].update(lease="500ms"),
     "[workers] lease", "cannot read '500ms' as a duration"),
    ("a lease of zero", lambda d: d["workers"].update(lease="0s"), "[workers] lease",
     "from 1s to 10m"),
    ("a lease too long", lambda d: d["workers"].update(lease="11m"), "[workers] lease",
     "from 1s to 10m"),
    ("a lease as a number", lambda d: d["workers"].update(lease=10), "[workers] lease",
     "a duration in quotes"),
    ("an unknown key in [workers]", lambda d: d["workers"].update(leases="1s"),
     "[workers] leases", "did you mean lease?"),
]


@pytest.mark.parametrize(("change", "key", "words"), [case[1:] for case in REFUSED],
                         ids=[case[0] for case in REFUSED])
def test_refused(change: Callable[[dict[str, Any]], None], key: str, words: str) -> None:
    error = refused(edited(change))
    assert error.key == key and error.path == PATH, str(error)
    assert words in error.detail, str(error)
    assert str(error).startswith(f"{PATH}: {key}: ")


def test_a_game_address_is_compared_in_its_canonical_form() -> None:
    # Case aside, the two are one mailbox: one game would read the other's mail.
    data = three()
    games_of(data)[0]["address"] = "NEWCOMERS@example.org"
    games_of(data)[1]["address"] = "newcomers@EXAMPLE.org"
    assert refused(data).key == "games[2].address"


# Issue 37 (4): two games a mail server delivers to one mailbox read each other's mail, and
# share their return paths (speakerbot.mail.verp): each would take the other's bounces.

REF = "0123456789abcdef"


def test_two_games_one_address_up_to_a_tag_are_refused_naming_both_keys(
        tmp_path: Path) -> None:
    path = tmp_path / "speakerbot.toml"
    path.write_text("".join(f"""
[[games]]
id = "{game_id}"
name = "Nomic {game_id}"
ruleset = "suber"
address = "{address}"
speaker = "host@example.org"
speaker_name = "Host"
""" for game_id, address in (("alpha", "nomic@example.org"),
                             ("beta", "nomic+beta@example.org"))), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_games(path, {})
    assert caught.value.key == "games[2].address"
    assert "(games[1].address and games[2].address)" in caught.value.detail
    assert "\n" not in str(caught.value)


PAIRS = [("nomic@example.org", "nomic+beta@example.org"),
         ("nomic@example.org", "NOMIC+Beta@Example.ORG"),
         ("nomic+alpha@example.org", "nomic+beta@example.org"),
         ("nomic@example.org", "nomic+bounce-x@example.org"),
         ("nomic+bounce-x@example.org", "Nomic@example.org")]


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_games_whose_return_paths_verp_cannot_tell_apart_are_refused(first: str,
                                                                     second: str) -> None:
    # What the config refuses is what the return paths would confuse.
    for one, other in ((first, second), (second, first)):
        assert token_of(bounce_address(one, "s", REF, "ann@example.org"), other) is not None
    data = {"games": [game("alpha", "suber", first), game("beta", "suber", second)]}
    error = refused(data)
    assert error.key == "games[2].address"
    assert "(games[1].address and games[2].address)" in error.detail


def test_games_the_config_takes_never_take_each_others_bounces() -> None:
    data = three()
    games_of(data)[1]["address"] = "nomic+new@example.org"
    games_of(data)[2]["address"] = "nomic-rurru@example.org"
    games = parse(data).games
    for one in games:
        path = bounce_address(one.game.address, "s", REF, "ann@example.org")
        assert [token_of(path, other.game.address) is not None for other in games] == [
            other is one for other in games]


def test_the_lease_is_read_in_any_unit_from_one_second_to_ten_minutes() -> None:
    for written, seconds in (("1s", 1.0), ("10s", 10.0), ("1m30s", 90.0), ("10m", 600.0)):
        data = three()
        data["workers"] = {"lease": written}
        assert parse(data).shared.workers.lease == seconds, written
    data = three()
    del data["workers"]
    assert parse(data).shared.workers == WorkersSettings(lease=10.0)


def test_a_game_secret_is_kept_out_of_the_error_and_the_repr() -> None:
    data = three()
    games_of(data)[0]["admin_password"] = "Hunter-2-secret"
    games_of(data)[0]["admin_password_file"] = "f"
    error = refused(data)
    assert "Hunter-2-secret" not in str(error)
    games_of(data)[0].pop("admin_password_file")
    assert "Hunter-2-secret" not in repr(parse(data))


def test_each_game_reads_its_own_secret_file(tmp_path: Path) -> None:
    for name, secret in (("main", "main-secret"), ("new", "new-secret")):
        (tmp_path / name).write_text(secret + "\n", encoding="utf-8")
    data = three()
    games_of(data)[0]["admin_password_file"] = "main"
    games_of(data)[1]["admin_password_file"] = "new"
    games = parse_games(data, tmp_path / "speakerbot.toml", {})
    assert [s.game.admin_password for s in games.games] == ["main-secret", "new-secret", None]


def test_settings_made_by_hand_are_the_game_main_with_the_default_lease() -> None:
    settings = parse(three()).get("newcomers")
    fields = {name: getattr(settings, name) for name in (
        "path", "game", "mechanics", "limits", "database", "imap", "lmtp", "smtp")}
    by_hand = Settings(**fields)
    assert by_hand.game_id == "main" and by_hand.workers == WorkersSettings()


def test_the_documentation_names_every_key_of_a_games_table() -> None:
    docs = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "## Many games in one config" in docs
    for key in GAMES_KEYS:
        documented = f"`[games.{key}]`" if key in ("mechanics", "imap") else f"`{key}`"
        assert f"| {documented} |" in docs, key
    assert "[[games]]" in docs and GAME_ENV in docs and "## [workers]" in docs
