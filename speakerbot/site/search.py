"""The archive's search: a static index of the game's texts, read by the browser alone.

``game_index(game)`` turns a folded game into its index's files, beside each copy of the
game (``search/`` next to its ``search.html``): pure, the same bytes from the same
record. What is indexed is what the pages show, and only the words people look up: each
rule's current text and title, the lines its amendments removed (its earlier texts, as its
page shows them in the diffs), each proposal's title and text (public from distribution;
no ballot is in the archive before the close), each CFJ's statement and arguments, each
judgement's reasons.

The index is split so that one new or changed document changes few and small files:

- ``search/terms/<shard>.js``: for each word, the documents holding it; a shard holds the
  words of the same first two characters (``_<hex>`` for a character other than a-z, 0-9);
- ``search/docs/<kind>-<k>.js``: each document's title and page, in buckets of 100 by kind
  and number (``p-3`` holds proposals 300 to 399).

The files are scripts (``speakerbotTerms(...)``, ``speakerbotDocs(...)``) rather than JSON,
so that the search works from a folder opened in a browser, where ``fetch`` is refused.
A document's id is a letter and its number: ``r202`` a rule (``r202-2`` a repealed rule
whose number was reused), ``o202`` a rule's earlier texts, ``p12`` a proposal, ``c4`` a
CFJ, ``j4.2`` its second judgement.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from speakerbot.site.archive import CfjRecord, GameArchive, ProposalRecord, RuleRecord

__all__ = ["Document", "KeptIndex", "documents", "game_index", "index_files", "shard_name", "terms",
           "touched_documents"]

FOLDER = "search"
"""The index's folder, beside the game's ``search.html``."""

BUCKET = 100
"""How many documents of one kind one file of titles holds."""

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script, as the script's \p{L}\p{N}
_PLAIN = re.compile(r"[a-z0-9]")


@dataclass(frozen=True)
class Document:
    """One thing the search finds: its id, its title and page, and the text it is found by."""

    id: str
    title: str
    page: str  # relative to the game's root
    text: str

    @property
    def bucket(self) -> str:
        """Return the file of titles that holds it: ``<kind>-<number // BUCKET>``."""
        kind = "r" if self.id[0] == "o" else self.id[0]
        return f"{kind}-{_number(self.id) // BUCKET}"


def terms(text: str) -> list[str]:
    """Return the words of ``text``: Unicode letters and digits, lower case, NFC, in order.

    The page's script splits a query the same way (``search.js``), so that what is typed
    meets what was indexed.
    """
    return _WORD.findall(unicodedata.normalize("NFC", text).lower())


def shard_name(term: str) -> str:
    """Return the shard of ``term``: its first two characters, each spelled safe for a file."""
    return "".join(char if _PLAIN.fullmatch(char) else f"_{ord(char):x}" for char in term[:2])


def game_index(game: GameArchive) -> dict[str, bytes]:
    """Return the index files of one game, by path from the game's root.

    The pages put them beside each copy of the game, as they do its other files.
    """
    return index_files(documents(game))


def documents(game: GameArchive) -> Iterator[Document]:
    """Yield every document of ``game`` the search finds, with the text it shows."""
    for rule in game.all_rules():
        yield from _rule_documents(rule)
    for proposal in game.proposals.values():
        yield _proposal_document(proposal)
    for cfj in game.cfjs.values():
        yield from _cfj_documents(cfj)


def index_files(found: Iterable[Document]) -> dict[str, bytes]:
    """Return the index of ``found``: the shards of words and the buckets of titles."""
    postings: dict[str, set[str]] = {}
    buckets: dict[str, dict[str, list[str]]] = {}
    for document in found:
        for term in set(terms(document.text)):
            postings.setdefault(term, set()).add(document.id)
        buckets.setdefault(document.bucket, {})[document.id] = [document.title, document.page]
    shards: dict[str, dict[str, list[str]]] = {}
    for term, ids in postings.items():
        shards.setdefault(shard_name(term), {})[term] = sorted(ids, key=_order)
    files = {f"{FOLDER}/terms/{name}.js": _script("speakerbotTerms", name, shard)
             for name, shard in shards.items()}
    files.update((f"{FOLDER}/docs/{name}.js", _script("speakerbotDocs", name, bucket))
                 for name, bucket in buckets.items())
    return dict(sorted(files.items()))


class KeptIndex:
    """The index of one game kept as its documents change: only changed files are made.

    A close or a proposal changes a few documents; the index of the whole game is not
    computed again for them. Each document's words and each word's documents are kept,
    each word's in the order the files give them, so that a file made here has the bytes
    ``index_files`` gives for the same documents.
    """

    def __init__(self) -> None:
        self.documents: dict[str, Document] = {}
        self.words: dict[str, frozenset[str]] = {}  # a document's id: its words
        # A word: its documents' ids, in order, in blocks of a few hundred, and each block's
        # JSON as its shard writes it (None: to make again). A common word's list grows
        # with the game; a document changed or added makes again only its block's.
        self.postings: dict[str, list[list[str]]] = {}
        self.pieces: dict[str, list[str | None]] = {}
        self.shards: dict[str, set[str]] = {}  # a shard's name: its words
        self.titles: dict[str, dict[str, list[str]]] = {}  # a bucket: {id: [title, page]}

    @classmethod
    def of(cls, game: GameArchive) -> tuple[KeptIndex, dict[str, bytes | None]]:
        """Index every document of ``game``; return the index kept and all its files."""
        kept = cls()
        return kept, kept.refresh(documents(game))

    def refresh(self, found: Iterable[Document]) -> dict[str, bytes | None]:
        """Take ``found`` (new or changed documents); return the files they change.

        None for a file that no longer has anything in it.
        """
        shards: set[str] = set()
        buckets: set[str] = set()
        for document in found:
            old = self.documents.get(document.id)
            if old == document:
                continue
            was = self.words.get(document.id, frozenset())
            now = was if old is not None and old.text == document.text else frozenset(
                terms(document.text))
            for term in was - now:
                self._unpost(term, document.id)
                shards.add(shard_name(term))
            for term in now - was:
                self._post(term, document.id)
                shards.add(shard_name(term))
            if old is not None and old.bucket != document.bucket:
                del self.titles[old.bucket][old.id]
                buckets.add(old.bucket)
            self.titles.setdefault(document.bucket, {})[document.id] = [document.title,
                                                                        document.page]
            buckets.add(document.bucket)
            self.documents[document.id], self.words[document.id] = document, now
        files: dict[str, bytes | None] = {}
        for name in sorted(shards):
            words = self.shards.get(name)
            files[f"{FOLDER}/terms/{name}.js"] = self._shard(name, words) if words else None
        for name in sorted(buckets):
            bucket = self.titles.get(name)
            files[f"{FOLDER}/docs/{name}.js"] = _script(
                "speakerbotDocs", name, bucket) if bucket else None
        return files

    def _shard(self, name: str, words: set[str]) -> bytes:
        """Return a shard's file, as ``_script`` writes it, of the words' JSON kept."""
        body = ",".join(f"{json.dumps(term)}:{self._encoded(term)}" for term in sorted(words))
        return f"speakerbotTerms({json.dumps(name)},{{{body}}});\n".encode("ascii")

    def _encoded(self, term: str) -> str:
        """Return the JSON of a word's documents, of its blocks' as kept or made again."""
        blocks, pieces = self.postings[term], self.pieces[term]
        for index, piece in enumerate(pieces):
            if piece is None:
                pieces[index] = json.dumps(blocks[index], separators=(",", ":"))[1:-1]
        return f"[{','.join(piece or '' for piece in pieces)}]"

    def _post(self, term: str, doc_id: str) -> None:
        blocks = self.postings.get(term)
        if blocks is None:
            self.postings[term], self.pieces[term] = [[doc_id]], [None]
            self.shards.setdefault(shard_name(term), set()).add(term)
            return
        index = min(_block(blocks, doc_id), len(blocks) - 1)
        block, pieces = blocks[index], self.pieces[term]
        bisect.insort(block, doc_id, key=_order)
        pieces[index] = None
        if len(block) > 2 * _BLOCK:
            blocks[index:index + 1] = [block[:_BLOCK], block[_BLOCK:]]
            pieces[index:index + 1] = [None, None]

    def _unpost(self, term: str, doc_id: str) -> None:
        blocks, pieces = self.postings[term], self.pieces[term]
        index = _block(blocks, doc_id)
        block = blocks[index]
        del block[bisect.bisect_left(block, _order(doc_id), key=_order)]
        pieces[index] = None
        if not block:
            del blocks[index], pieces[index]
        if not blocks:
            del self.postings[term], self.pieces[term]
            shard = self.shards[shard_name(term)]
            shard.discard(term)
            if not shard:
                del self.shards[shard_name(term)]


_BLOCK = 256


def _block(blocks: list[list[str]], doc_id: str) -> int:
    """Return the first of ``blocks`` whose last id sorts at or after ``doc_id``."""
    return bisect.bisect_left(blocks, _order(doc_id), key=lambda block: _order(block[-1]))


def touched_documents(game: GameArchive, rules: Iterable[RuleRecord], proposals: Iterable[int],
                      cfjs: Iterable[int]) -> Iterator[Document]:
    """Yield the documents of the given rules, proposals and CFJs of ``game`` as they stand."""
    for rule in rules:
        yield from _rule_documents(rule)
    for number in proposals:
        proposal = game.proposals.get(number)
        if proposal is not None:
            yield _proposal_document(proposal)
    for number in cfjs:
        cfj = game.cfjs.get(number)
        if cfj is not None:
            yield from _cfj_documents(cfj)


def _proposal_document(proposal: ProposalRecord) -> Document:
    sub = proposal.submitted
    return Document(f"p{sub.number}", f"Proposal {sub.number}: {sub.title}",
                    f"proposals/{sub.number}.html", f"{sub.number}\n{sub.title}\n{sub.text}")


def _cfj_documents(cfj: CfjRecord) -> Iterator[Document]:
    called, page = cfj.called, f"cfjs/{cfj.number}.html"
    yield Document(f"c{cfj.number}", f"CFJ {cfj.number}: {_short(called.statement)}", page,
                   f"{cfj.number}\n{called.statement}\n{called.arguments}")
    for count, verdict in enumerate(cfj.verdicts, start=1):
        yield Document(f"j{cfj.number}.{count}",
                       f"CFJ {cfj.number}: {verdict.judgement}, by {verdict.name}", page,
                       verdict.reasons)


def _rule_documents(rule: RuleRecord) -> Iterator[Document]:
    """Yield a rule as it stands and, if amended, the lines its amendments took out."""
    key = rule.page.removeprefix("rules/").removesuffix(".html")
    title = f"Rule {rule.number}" + (f": {rule.title}" if rule.title else "")
    title += " (repealed)" if rule.repealed else ""
    yield Document(f"r{key}", title, rule.page, f"{rule.number}\n{rule.title}\n{rule.text}")
    # Every word of an earlier text is either still in the rule or on a line an amendment
    # removed, and the rule's page shows each amendment's removed lines in its diff.
    removed = "\n".join(line.text for step in rule.history for line in step.diff
                        if line.mark == "-")
    if removed:
        yield Document(f"o{key}", title, rule.page, removed)


def _short(text: str, limit: int = 80) -> str:
    """Return the first line of ``text``, cut to ``limit`` characters."""
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


def _order(doc_id: str) -> tuple[str, int, str]:
    """Sort ids by kind, then number (``p9`` before ``p10``)."""
    return doc_id[0], _number(doc_id), doc_id


def _number(doc_id: str) -> int:
    """Return the number of a document's id: ``202`` of ``r202-2``, ``4`` of ``j4.2``."""
    digits = "".join(itertools.takewhile(lambda char: char in "0123456789", doc_id[1:]))
    return int(digits or 0)


def _script(function: str, name: str, data: object) -> bytes:
    """Return one file of the index: a call of ``function`` with its name and data.

    Keys sorted and non-ASCII escaped, so that the same index gives the same bytes and no
    reader splits a line inside a text.
    """
    body = json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return f"{function}({json.dumps(name)},{body});\n".encode("ascii")
