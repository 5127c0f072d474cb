"""Structured text (Markdown, reStructuredText) → prose blocks with their heading paths.

``blocks_of(text, fmt, keep_code=False)`` parses ``text`` with a maintained parser (markdown-it-py,
docutils) and returns its prose ``Block`` records with lead-ins of code dropped
(``blocks.drop_lead_ins``); ``fmt`` is ``"markdown"``, ``"rst"`` or ``"auto"``; ``"text"`` (and
``"auto"`` when nothing looks like markup) returns ``None``: the caller splits plain text itself.

``detect_format`` (for ``"auto"``, O(length), no parse) calls a text Markdown when a line is an ATX
heading ("# Title"), a code fence, or a setext underline under a text line, or when it holds a
link or image in Markdown syntax ("](http", "](./", "](#", "![" …); reStructuredText when a line is
an explicit markup start (".. name::", ".. |sub|", ".. _target:"), it holds a reST hyperlink
(`` `text <url>`_ ``) or a title is underlined, to its length, with a character other than "=" and
"-" (which both languages use; those count as Markdown); otherwise plain text. A chat
message with none of these stays plain text.
"""

from __future__ import annotations

import re

from .blocks import HEADING_SEPARATOR, Block, drop_lead_ins
from .markdown import markdown_blocks
from .rst import rst_blocks

__all__ = ["Block", "FORMATS", "HEADING_SEPARATOR", "blocks_of", "detect_format"]

FORMATS = ("auto", "text", "markdown", "rst")

_MD = re.compile(r"^(?:\s{0,3}#{1,6}\s+\S|\s{0,3}(?:```|~~~))|\]\((?:https?:|\./|/|#|mailto:)|!\[[^\]]*\]\(",
                 re.MULTILINE)
_RST = re.compile(r"^\.\.\s+(?:[\w:-]+::|\|[^|]+\||_[^:]+:)|`[^`<]+<[^>]+>`__?", re.MULTILINE)
_UNDERLINE = re.compile(r"^([^\n]*\S[^\n]*)\n([=\-~^\"'`#*+])\2{2,}[ \t]*$", re.MULTILINE)


def detect_format(text: str) -> str:
    """``"markdown"``, ``"rst"`` or ``"text"`` by the cheap signs described above."""
    if _RST.search(text):
        return "rst"
    underlined = None
    for match in _UNDERLINE.finditer(text):
        title, underline = match.group(1).rstrip(), match.group(0).split("\n")[1].rstrip()
        if title.strip("=-~^\"'`#*+ ") and not title.lstrip().startswith(("```", "~~~")):
            if len(underline) == len(title) and underline[0] not in "=-":
                return "rst"  # Markdown has no such underline: a reST section title
            underlined = underlined or "markdown"
    if _MD.search(text):
        return "markdown"
    return underlined or "text"


def blocks_of(text: str, fmt: str = "auto", *, keep_code: bool = False) -> list[Block] | None:
    """The prose blocks of ``text`` read as ``fmt``; ``None`` for plain text."""
    if fmt == "auto":
        fmt = detect_format(text)
    if fmt == "markdown":
        return drop_lead_ins(markdown_blocks(text, keep_code=keep_code))
    if fmt == "rst":
        return drop_lead_ins(rst_blocks(text, keep_code=keep_code))
    return None
