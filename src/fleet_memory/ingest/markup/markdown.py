"""Markdown → ``Block`` records, with markdown-it-py (CommonMark, plus tables).

Walks the token stream once (linear in the tokens): ATX and setext headings (their underlines are
part of the heading token) open a level of the heading path; each paragraph — also inside list
items and block quotes — is one block of its inline text: emphasis and inline code keep their text,
a link keeps its text and gives its URL to ``links``, a link whose content is an image (a badge)
and every image are dropped, as is inline HTML; soft and hard line breaks become spaces. Fenced and
indented code blocks are code (kept, as one block of kind ``"code"``, only with ``keep_code``);
HTML blocks, tables and thematic breaks are not prose and are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .blocks import Block

__all__ = ["markdown_blocks"]

_PARSER = MarkdownIt("commonmark").enable("table")
_CODE = ("fence", "code_block")


def _inline(children: Sequence[Token]) -> Block:
    """Plain text, links and inline code of one inline token's children."""
    parts: list[str] = []
    literals: list[str] = []
    links: list[tuple[str, str]] = []
    link_start: int | None = None
    href = ""
    badge = False
    for child in children:
        kind = child.type
        if kind == "link_open":
            link_start, href, badge = len(parts), str(child.attrs.get("href", "")), False
        elif kind == "link_close":
            if badge:
                del parts[link_start or 0:]
            elif link_start is not None and href:
                links.append(("".join(parts[link_start:]).strip(), href))
            link_start = None
        elif kind == "image":
            badge = badge or link_start is not None
        elif kind in ("text", "code_inline"):
            parts.append(child.content)
            if kind == "code_inline" and child.content.strip():
                literals.append(child.content.strip())
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
    return Block(" ".join("".join(parts).split()), links=tuple(links), literals=tuple(literals))


def markdown_blocks(text: str, *, keep_code: bool = False) -> list[Block]:
    """The prose blocks (and, with ``keep_code``, code blocks) of a Markdown text, in order."""
    tokens = _PARSER.parse(text)
    headings: list[tuple[int, str]] = []  # (level, title)
    blocks: list[Block] = []
    in_table = 0
    for i, tok in enumerate(tokens):
        if tok.type == "table_open":
            in_table += 1
        elif tok.type == "table_close":
            in_table -= 1
        elif tok.type == "heading_open":
            level = int(tok.tag[1:])
            title = _inline(tokens[i + 1].children or []).text
            while headings and headings[-1][0] >= level:
                headings.pop()
            if title:
                headings.append((level, title))
        elif tok.type in _CODE:
            if blocks and blocks[-1].kind == "text" and tokens[i - 1].type == "paragraph_close":
                blocks[-1] = replace(blocks[-1], leads_code=True)
            if keep_code and tok.content.strip():
                blocks.append(Block(tok.content.rstrip("\n"), tuple(t for _, t in headings), kind="code"))
        elif tok.type == "inline" and not in_table and i > 0 and tokens[i - 1].type == "paragraph_open":
            blocks.append(replace(_inline(tok.children or []), headings=tuple(t for _, t in headings)))
    return blocks
