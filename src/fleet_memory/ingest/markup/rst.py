"""reStructuredText → ``Block`` records, with docutils (its parser, no writer).

The text is parsed into a docutils tree (no file inclusion, no raw directive, no configuration
files read, messages kept out of the host's stderr) and walked once, depth first (linear in the
nodes): a section's title opens a level of the heading path (so title underlines and overlines
are never text); each paragraph — also inside list items, admonitions and block quotes — is one
block of its text: a reference keeps its text and gives its URL to ``links``, an image (and so a
badge, also through a substitution) is dropped, inline literals keep their text, an interpreted
text role docutils does not know (Sphinx's ``:class:`Foo```) keeps the text between its
backquotes. Literal, doctest and directive-code blocks are code (kept only with ``keep_code``);
comments, targets, substitution definitions, raw content, tables and docutils' own messages are
dropped.
"""

from __future__ import annotations

import io
from dataclasses import replace

from .blocks import Block

__all__ = ["rst_blocks"]

_SETTINGS = {
    "report_level": 5, "halt_level": 5, "_disable_config": True, "file_insertion_enabled": False,
    "raw_enabled": False, "doctitle_xform": False, "sectsubtitle_xform": False, "input_encoding": "unicode",
}
_SKIP = {"comment", "target", "substitution_definition", "raw", "system_message", "table", "image", "figure",
         "footnote", "citation", "field_list", "docinfo", "pending"}
_CODE = {"literal_block", "doctest_block"}


def _text(node, links: list[tuple[str, str]], literals: list[str]) -> str:
    """The plain text of an inline node tree; references add (text, URL) to ``links``, inline
    literals their text to ``literals``."""
    from docutils import nodes

    if isinstance(node, nodes.Text):
        return str(node)
    name = node.tagname
    if name in ("image", "target", "substitution_definition", "raw"):
        return ""
    if name == "problematic":
        raw = node.astext()
        inner = raw.split("`")[1] if raw.count("`") >= 2 else ""
        literals.append(inner)
        return inner
    text = "".join(_text(child, links, literals) for child in node.children)
    if name == "literal" and text.strip():
        literals.append(text.strip())
    if name == "reference" and node.get("refuri") and text.strip():
        links.append((" ".join(text.split()), node["refuri"]))
    return text


def rst_blocks(text: str, *, keep_code: bool = False) -> list[Block]:
    """The prose blocks (and, with ``keep_code``, code blocks) of a reStructuredText text, in order."""
    from docutils.core import publish_doctree

    settings = dict(_SETTINGS, warning_stream=io.StringIO())
    tree = publish_doctree(text, settings_overrides=settings)
    blocks: list[Block] = []
    headings: list[str] = []

    def walk(node) -> None:
        name = node.tagname
        if name in _SKIP:
            return
        if name in _CODE:
            if blocks and blocks[-1].kind == "text" and _previous_is_paragraph(node):
                blocks[-1] = replace(blocks[-1], leads_code=True)
            if keep_code and node.astext().strip():
                blocks.append(Block(node.astext().rstrip("\n"), tuple(headings), kind="code"))
            return
        if name == "section":
            title = node.next_node(lambda n: n.tagname == "title")
            headings.append(" ".join(_text(title, [], []).split()) if title is not None else "")
            for child in node.children:
                if child is not title:
                    walk(child)
            headings.pop()
            return
        if name == "paragraph":
            links: list[tuple[str, str]] = []
            literals: list[str] = []
            body = " ".join(_text(node, links, literals).split())
            blocks.append(Block(body, tuple(h for h in headings if h), tuple(links), literals=tuple(literals)))
            return
        for child in getattr(node, "children", ()):
            walk(child)

    walk(tree)
    return blocks


def _previous_is_paragraph(node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    index = parent.index(node)
    return index > 0 and parent[index - 1].tagname == "paragraph"
