"""The [site] section: where the archive is written and the address mail links to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from speakerbot.config import ConfigError, SiteSettings, parse_settings

PATH = Path("/etc/speakerbot/speakerbot.toml")


def with_site(site: dict[str, Any] | None) -> dict[str, Any]:
    data: dict[str, Any] = {"game": {
        "name": "Test Nomic", "ruleset": "suber", "address": "game@example.org",
        "speaker": "host@example.org", "speaker_name": "Host", "admin_password": "pw-1",
    }}
    if site is not None:
        data["site"] = site
    return data


def test_no_site_section_means_no_archive_and_no_links() -> None:
    site = parse_settings(with_site(None), path=PATH, environ={}).site
    assert site == SiteSettings(None, None)
    assert site.link("proposals/3.html") is None


def test_dir_and_url_are_read_and_the_trailing_slash_dropped() -> None:
    data = with_site({"dir": "site", "url": "https://nomic.example.org/game/"})
    site = parse_settings(data, path=PATH, environ={}).site
    assert site.dir == Path("site")
    assert site.url == "https://nomic.example.org/game"
    assert site.link("proposals/3.html") == "https://nomic.example.org/game/proposals/3.html"


@pytest.mark.parametrize("url", [
    "nomic.example.org", "ftp://nomic.example.org", "https://", "https://a b.org",
    "https://nomic.example.org/?x=1", "https://nomic.example.org/#top",
    "https://user@nomic.example.org", "https://nomic.example.org/\"><script>",
    "javascript:alert(1)", "https://nomic.example.org:99999", "https://nömic.example.org",
    "",
])
def test_a_url_that_is_not_a_plain_web_address_is_refused(url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(with_site({"url": url}), path=PATH, environ={})
    assert caught.value.key == "[site] url"


def test_unknown_keys_and_an_empty_dir_are_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(with_site({"folder": "x"}), path=PATH, environ={})
    assert caught.value.key == "[site] folder"
    assert "dir" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        parse_settings(with_site({"dir": "  "}), path=PATH, environ={})
    assert caught.value.key == "[site] dir"
