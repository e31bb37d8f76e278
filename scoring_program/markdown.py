"""Markdown to HTML for the subset our pages use: the legacy Codalab bundle's HTML pages are rendered from the
competition's Markdown pages (Codabench renders the Markdown itself).

No library: the runtime needs only numpy, PyYAML, Pillow and OpenCV, and the subset is small.

    # Heading ... ###### Heading       <h1> .. <h6>
    a paragraph, over lines            <p>, its lines joined by a space
    - item / * item / 1. item          <ul> / <ol>; an item's indented lines continue it; an item indented by two
                                       spaces or more nests one level under the previous item
    ```                                <pre><code>, from a fence to the next (an unclosed fence runs to the end)
    four spaces of indent              <pre><code> (not inside a paragraph or a list)
    | a | b |  then  |---|---|         <table>: the first row is the header, the rule row is skipped
    `code`  **strong**  *em*  [text](url)   inline, in any text above but code
    \\*  \\<  \\_ ...                   a backslash before ASCII punctuation makes it literal (not in code)

Everything else is text: HTML in the Markdown is escaped, never passed through.
"""
from __future__ import annotations

import html
import re
from typing import List, Optional

_HEADING = re.compile(r"#{1,6} ")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")
_ITEM = re.compile(r"([-*]|\d+\.) ")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")   # CommonMark's backslash escapes: ASCII punctuation
_KEPT = re.compile("\x00(\\d+)\x00")            # where an escaped character waits while the patterns run
_CODE = re.compile(r"`([^`]+)`")
_INLINE = ((re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
           (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?!\w)"), r"<em>\1</em>"),
           (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), r'<a href="\2">\1</a>'))


def inline(text: str) -> str:
    """One line's text: escaped, then code, strong, emphasis and links. A backslash escape takes its character out
    of the patterns' reach (inside code the backslash stays, as in CommonMark)."""
    kept: List[str] = []

    def keep(m: "re.Match") -> str:
        kept.append(m.group(1))
        return "\x00%d\x00" % (len(kept) - 1)

    def code(m: "re.Match") -> str:
        return "<code>%s</code>" % _KEPT.sub(lambda k: "\\" + html.escape(kept[int(k.group(1))], quote=False),
                                              m.group(1))

    out = _CODE.sub(code, html.escape(_ESCAPED.sub(keep, text), quote=False))
    for pattern, replacement in _INLINE:
        out = pattern.sub(replacement, out)
    return _KEPT.sub(lambda k: html.escape(kept[int(k.group(1))], quote=False), out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class _List(object):
    """A list being read: its tag (ul or ol), its items' texts, each item's nested list (or None), and the indent
    of its items (a nested list's, to tell its continuation lines from its parent item's)."""

    def __init__(self, tag: str, indent: int = 0) -> None:
        self.tag = tag
        self.indent = indent
        self.texts: List[str] = []
        self.nested: List[Optional[_List]] = []

    def add(self, text: str) -> None:
        self.texts.append(text)
        self.nested.append(None)

    def html(self) -> str:
        return "<%s>%s</%s>" % (self.tag, "".join(
            "<li>%s%s</li>" % (inline(text), sub.html() if sub is not None else "")
            for text, sub in zip(self.texts, self.nested)), self.tag)


class _Page(object):
    """The HTML blocks rendered so far, and the paragraph or list still open."""

    def __init__(self) -> None:
        self.blocks: List[str] = []
        self.paragraph: List[str] = []
        self.list: Optional[_List] = None

    def close(self) -> None:
        """End the open paragraph and list."""
        if self.paragraph:
            self.blocks.append("<p>%s</p>" % inline(" ".join(self.paragraph)))
            self.paragraph = []
        if self.list:
            self.blocks.append(self.list.html())
            self.list = None

    def item(self, line: str, text: str) -> None:
        """A list item's line (text: without its marker): a nested item, the list's next item, or a new list."""
        tag = "ol" if text[0].isdigit() else "ul"
        item = _ITEM.sub("", text, count=1)
        indent = _indent(line)
        if self.paragraph:
            self.close()
        if self.list and indent >= 2:                  # one level of nesting, under the last item
            nested = self.list.nested[-1]
            if nested is None or nested.tag != tag:
                nested = self.list.nested[-1] = _List(tag, indent)
            nested.add(item)
        elif self.list and self.list.tag == tag:
            self.list.add(item)
        else:
            self.close()
            self.list = _List(tag)
            self.list.add(item)

    def continue_item(self, line: str, text: str) -> None:
        """An indented line under a list item: it continues the nested item it is indented under, else the item."""
        nested = self.list.nested[-1]
        if nested is not None and _indent(line) > nested.indent:
            nested.texts[-1] += " " + text
        else:
            self.list.texts[-1] += " " + text


def _code(lines: List[str]) -> str:
    return "<pre><code>%s</code></pre>" % html.escape("\n".join(lines))


def _table(rows: List[str]) -> str:
    """rows: the table's lines; the second is the rule under the header."""
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    return "<table><tr>%s</tr>%s</table>" % (
        "".join("<th>%s</th>" % inline(c) for c in cells[0]),
        "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % inline(c) for c in row) for row in cells[2:]))


def markdown_to_html(md: str) -> str:
    """The page's HTML blocks, one a line (see the module's docstring for the subset)."""
    lines = md.splitlines()
    page = _Page()
    i = 0
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        if text.startswith("```"):
            page.close()
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```")), len(lines))
            page.blocks.append(_code(lines[i + 1:end]))
            i = end + 1
        elif not text:
            page.close()
            i += 1
        elif line.startswith("    ") and not page.paragraph and not page.list:
            end = i
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            page.blocks.append("<pre><code>%s</code></pre>" % html.escape(
                "\n".join(l[4:] for l in lines[i:end]).rstrip()))
            i = end
        elif _HEADING.match(text):
            page.close()
            level = len(text) - len(text.lstrip("#"))
            page.blocks.append("<h%d>%s</h%d>" % (level, inline(text[level:].strip()), level))
            i += 1
        elif text.startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1].strip()):
            page.close()
            end = i
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            page.blocks.append(_table(lines[i:end]))
            i = end
        elif _ITEM.match(text):
            page.item(line, text)
            i += 1
        elif page.list and line.startswith(" "):
            page.continue_item(line, text)
            i += 1
        else:
            if page.list:
                page.close()
            page.paragraph.append(text)
            i += 1
    page.close()
    return "\n".join(page.blocks) + "\n"
