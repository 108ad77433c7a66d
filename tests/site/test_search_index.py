"""The archive's search index: its words, its shards, what each word finds (no browser)."""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any

import pytest

from speakerbot.resources import templates_dir
from speakerbot.site import build_site
from speakerbot.site.folding import read_games
from speakerbot.site.search import (
    Document,
    KeptIndex,
    documents,
    game_index,
    index_files,
    shard_name,
    terms,
)
from tests.engine.cast import CAROL
from tests.site.records import public_lines
from tests.site.search_game import REASONS, STATEMENT, TITLE, search_game

_CALL = re.compile(r"^(speakerbotTerms|speakerbotDocs)\(\"([^\"]+)\",(.*)\);\n$", re.S)


def read(content: bytes) -> tuple[str, str, Any]:
    """Return the function, name and data of one file of the index."""
    found = _CALL.match(content.decode("ascii"))
    assert found, content[:80]
    return found.group(1), found.group(2), json.loads(found.group(3))


@pytest.fixture(scope="module")
def lines() -> list[dict[str, Any]]:
    return public_lines([("g-search", search_game())])


@pytest.fixture(scope="module")
def files(lines: list[dict[str, Any]]) -> dict[str, bytes]:
    return build_site(lines, templates_dir() / "site", name="Test")


def find(files: dict[str, bytes], word: str, prefix: str = "") -> list[tuple[str, str, str]]:
    """Look ``word`` up as the page's script does: its shard, then each id's bucket."""
    shard = files.get(f"{prefix}search/terms/{shard_name(word)}.js")
    if shard is None:
        return []
    _, _, postings = read(shard)
    found = []
    for doc_id in postings.get(word, []):
        number = int(re.findall(r"\d+", doc_id)[0])
        kind = "r" if doc_id[0] == "o" else doc_id[0]
        _, _, bucket = read(files[f"{prefix}search/docs/{kind}-{number // 100}.js"])
        title, page = bucket[doc_id]
        found.append((doc_id, title, page))
    return found


def test_words_are_lower_case_unicode_letters_and_digits() -> None:
    assert terms("Rule 202: Points, ÉTÉ & naïve_word—x2") == [
        "rule", "202", "points", "été", "naïve", "word", "x2"]
    assert terms("Ωμέγα 東京") == ["ωμέγα", "東京"]
    # The decomposed é is the same word as the composed one.
    assert terms("e\u0301te\u0301") == terms("\u00e9t\u00e9")


def test_shards_are_named_by_two_characters_safe_for_a_file() -> None:
    assert shard_name("points") == "po"
    assert shard_name("a") == "a"
    assert shard_name("été") == "_e9t"
    assert shard_name("東京") == "_6771_4eac"


def test_every_file_is_a_call_the_page_script_defines(files: dict[str, bytes]) -> None:
    index = {path: content for path, content in files.items() if path.startswith("search/")}
    assert index
    for path, content in index.items():
        function, name, data = read(content)
        folder = path.split("/")[1]
        assert function == {"terms": "speakerbotTerms", "docs": "speakerbotDocs"}[folder]
        assert path.endswith(f"/{name}.js")
        if folder == "terms":
            assert all(shard_name(word) == name for word in data)


def test_a_word_of_an_amended_rules_new_text_finds_the_rule(files: dict[str, bytes]) -> None:
    assert find(files, "xylophones") == [("r202", "Rule 202", "rules/202.html")]


def test_past_rule_texts_are_found_as_earlier_texts(files: dict[str, bytes]) -> None:
    # "marmalade" was in the first amendment's text only; the second took it out.
    assert find(files, "marmalade") == [("o202", "Rule 202", "rules/202.html")]
    assert "marmalade" in files["rules/202.html"].decode()  # the page shows it, in a diff
    # A word of the initial text that no amendment kept.
    initial = {doc.id: doc for doc in documents(read_games(
        public_lines([("g", search_game())]))[0])}
    assert "explicitly" in terms(initial["o202"].text)
    assert "explicitly" not in terms(initial["r202"].text)


def test_a_proposals_title_finds_it(files: dict[str, bytes]) -> None:
    for word in terms(TITLE):
        assert ("p301", f"Proposal 301: {TITLE}", "proposals/301.html") in find(files, word)
    # An open proposal's text is public from its distribution.
    assert [hit[0] for hit in find(files, "tangerine")] == ["p303"]


def test_cfjs_and_judgements_are_found(files: dict[str, bytes]) -> None:
    assert [hit[0] for hit in find(files, "heliotropes")] == ["c1"]
    assert [hit[0] for hit in find(files, "sundials")] == ["c1"]
    found = find(files, "periwinkle")
    assert [(doc_id, page) for doc_id, _, page in found] == [("j1.1", "cfjs/1.html")]
    assert found[0][1].startswith("CFJ 1: TRUE, by ")
    assert STATEMENT and REASONS


def test_every_copy_of_the_game_has_its_index(files: dict[str, bytes]) -> None:
    folder = next(path.split("/")[1] for path in files if path.startswith("games/"))
    assert find(files, "xylophones", f"games/{folder}/") == find(files, "xylophones")
    assert "search.html" in files and f"games/{folder}/search.html" in files
    for path in ("search.html", "index.html", "rules/202.html"):
        assert 'action="' in files[path].decode()
    assert 'action="../search.html"' in files["rules/202.html"].decode()


def test_two_builds_are_byte_identical(lines: list[dict[str, Any]]) -> None:
    again = public_lines([("g-search", search_game())])
    assert again == lines
    first = game_index(read_games(lines)[-1])
    assert first == game_index(read_games(again)[-1]) and first


def test_every_word_found_is_on_the_page_it_leads_to(files: dict[str, bytes]) -> None:
    """Nothing is indexed that its page does not show (so nothing sealed either)."""
    shown: dict[str, set[str]] = {}
    checked = 0
    for path, content in files.items():
        if not path.startswith("search/terms/"):
            continue
        for word, ids in read(content)[2].items():
            for doc_id in ids:
                page = next(hit[2] for hit in find(files, word) if hit[0] == doc_id)
                if page not in shown:
                    body = re.sub(r"<[^>]*>", " ", files[page].decode().split("<main>")[1])
                    shown[page] = set(terms(html.unescape(body)))
                assert word in shown[page], (word, doc_id, page)
                checked += 1
    assert checked > 500


def test_a_new_proposal_changes_few_files(lines: list[dict[str, Any]]) -> None:
    before = game_index(read_games(lines)[-1])
    played = search_game()
    played.propose(CAROL, title="Quince", text="A quince for everyone.")
    after = game_index(read_games(public_lines([("g-search", played)]))[-1])
    changed = {path for path in after if before.get(path) != after[path]}
    # Its bucket of titles, and the shards of its words (in one copy of the game).
    assert "search/docs/p-3.js" in changed
    assert len(changed) <= 1 + len(set(map(shard_name, terms("304 Quince A quince for "
                                                               "everyone."))))



def test_the_page_carries_its_script_as_written(files: dict[str, bytes]) -> None:
    """search.js is included by the template engine, which must leave it untouched."""
    script = (templates_dir() / "site" / "search.js").read_text(encoding="utf-8")
    assert script in files["search.html"].decode()
    for path, content in files.items():
        if path.endswith(".html") and path.count("/") <= 1 and "search" not in path:
            assert "<script" not in content.decode(), path  # no page but the search's


def _kept_through(kept: KeptIndex, steps: list[list[Document]]) -> dict[str, bytes]:
    """Refresh ``kept`` with each step in turn, asserting after each that the files it holds
    are the whole index of every document given so far; return those files."""
    held: dict[str, bytes] = {}
    current: dict[str, Document] = {}
    for step in steps:
        for path, content in kept.refresh(step).items():
            if content is None:
                held.pop(path, None)
            else:
                held[path] = content
        current.update((document.id, document) for document in step)
        assert held == index_files(current.values())
    return held


def test_the_kept_index_makes_what_the_whole_index_makes() -> None:
    """Documents added, changed, their words gone, given again: the same bytes."""
    steps = [
        [Document("p301", "Proposal 301: Tea", "proposals/301.html", "301 Tea for all")],
        [Document("p302", "Proposal 302: Cake", "proposals/302.html", "302 cake for some"),
         Document("r5", "Rule 5", "rules/5.html", "5 Players may drink tea")],
        [Document("r5", "Rule 5: Tea", "rules/5.html", "5 Players may drink coffee"),
         Document("o5", "Rule 5: Tea", "rules/5.html", "Players may drink tea")],
        [Document("p302", "Proposal 302: Cake", "proposals/302.html", "302 cake for some")],
        [Document("c1", "CFJ 1: Is tea cake?", "cfjs/1.html", "1 Is tea cake? Ünïcode")],
    ]
    kept = KeptIndex()
    held = _kept_through(kept, steps)
    assert set(kept.refresh(steps[-1])) == set()  # nothing new: no file made
    assert read(held["search/terms/te.js"])[2] == {"tea": ["c1", "o5", "p301"]}


def test_a_common_words_long_list_is_kept_as_the_whole_index_makes_it() -> None:
    """Hundreds of documents for one word, come and gone in any order: the same bytes."""
    order = random.Random(3).sample(range(1, 800), 799)
    steps = [[Document(f"p{n}", f"P{n}", f"proposals/{n}.html", f"common {n}")
              for n in order[start:start + 200]] for start in range(0, 800, 200)]
    steps.append([Document(f"p{n}", f"P{n}", f"proposals/{n}.html", f"rare {n}")
                  for n in order[::3]])  # the word leaves a third of them
    held = _kept_through(KeptIndex(), steps)
    assert len(read(held["search/terms/co.js"])[2]["common"]) == 799 - len(order[::3])
