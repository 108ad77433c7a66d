"""HTML mail bodies turned into plain text lines, in time linear in the input."""

from __future__ import annotations

import re
from html import unescape

__all__ = ["html_to_text"]


_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd",
        "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li",
        "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
        "tfoot", "thead", "title", "tr", "ul",
    }
)  # fmt: skip
_DROPPED_TAGS = frozenset({"script", "style", "title", "template", "head"})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_-]*)")
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")
_QUOTE_PREFIX = "> "
_MAX_QUOTE_MARKS = 10  # deeper blockquotes get no more marks (hostile nesting stays linear)


class _HtmlText:
    """Collects text lines from HTML, with a quote depth per line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0
        self.pre = 0

    def text(self, data: str) -> None:
        data = unescape(data)
        if self.pre:
            parts = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for index, part in enumerate(parts):
                if index:
                    self.newline()
                self.current.append(part)
        else:
            self.current.append(_HTML_SPACE.sub(" ", data))

    def newline(self) -> None:
        line = "".join(self.current).replace("\xa0", " ").strip()
        prefix = _QUOTE_PREFIX * min(self.depth, _MAX_QUOTE_MARKS)
        self.lines.append((prefix + line).rstrip() if line else "")
        self.current = []

    def soft_break(self) -> None:
        # A block holding only &nbsp; is a blank line (Outlook writes blank lines so);
        # a block holding only collapsible white space is nothing.
        if "".join(self.current).strip(" "):
            self.newline()
        else:
            self.current = []

    def tag(self, name: str, closing: bool) -> None:
        if name == "br" and not closing:
            self.newline()
        elif name == "blockquote":
            self.soft_break()
            self.depth = max(0, self.depth + (-1 if closing else 1))
        elif name == "pre":
            self.soft_break()
            self.pre = max(0, self.pre + (-1 if closing else 1))
        elif name in _BLOCK_TAGS:
            self.soft_break()
        elif name in ("td", "th") and not closing:
            self.current.append(" ")

    def result(self) -> str:
        self.soft_break()
        lines: list[str] = []
        for line in self.lines:
            if line or (lines and lines[-1]):
                lines.append(line)
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)


def html_to_text(html: str) -> str:
    """Turn an HTML mail body into plain text lines.

    Scripts, styles and the document head are dropped; ``<br>`` and block
    elements (``<p>``, ``<div>``, ``<li>``, table rows, headings...) end lines;
    entities are unescaped; runs of white space collapse as a browser would
    (``&nbsp;`` becomes a plain space, and a block holding only ``&nbsp;`` is a
    blank line); lines inside ``<blockquote>`` are prefixed with ``"> "`` once
    per level (at most ten times), so that they count as quoted. Several blank
    lines in a row become one.

    The tokenizer is written here rather than taken from :mod:`html.parser`,
    whose handling of unfinished constructs takes quadratic time on hostile input
    in the Python versions speakerbot supports; this one reads each character a
    bounded number of times, and drops an unfinished tag or comment at the end.
    """
    out = _HtmlText()
    lower = html.lower()
    position = 0
    while position < len(html):
        start = html.find("<", position)
        if start < 0:
            out.text(html[position:])
            break
        if start > position:
            out.text(html[position:start])
        after = _markup(html, lower, start, out)
        if after is None:  # an unfinished tag or comment: the rest is dropped
            break
        position = after
    return out.result()


def _markup(html: str, lower: str, start: int, out: _HtmlText) -> int | None:
    """Read the markup that starts at ``start`` (a ``<``); return where text goes on.

    None when the markup is never finished. ``lower`` is ``html`` in lower case.
    """
    if html.startswith("<!--", start):
        end = html.find("-->", start + 4)
        return None if end < 0 else end + 3
    match = _TAG.match(html, start)
    if match is None:
        if html.startswith("<!", start) or html.startswith("<?", start):
            end = html.find(">", start)
            return None if end < 0 else end + 1
        out.text("<")  # a lone < is text
        return start + 1
    end = html.find(">", match.end())
    if end < 0:
        return None
    name = match.group(2).lower()
    closing = bool(match.group(1))
    if name in _DROPPED_TAGS and not closing and html[end - 1] != "/":
        return _skip_element(html, lower, name, end + 1, out)
    out.tag(name, closing)
    return end + 1


def _skip_element(html: str, lower: str, name: str, position: int, out: _HtmlText) -> int | None:
    """Pass over a dropped element's content up to its end tag (None: it has none)."""
    close = lower.find("</" + name, position)
    if close < 0:
        return None
    close_end = html.find(">", close)
    if close_end < 0:
        return None
    if name == "title":
        out.soft_break()
    return close_end + 1
