"""The record every markup reader produces, and the rules shared by the readers.

A ``Block`` is one piece of prose of a structured document (a paragraph, a list item's paragraph,
a quoted paragraph) as plain text — markup removed, link text kept —, the path of headings it sits
under ("Project", "Installation"), the links it held (text, URL) and its kind: ``"text"``, or
``"code"`` for a code block, which the readers return only when the caller asks for code.

``drop_lead_ins``: a prose block that ends with a colon right before a code block ("Here's an
example:", "To install, run:") introduces code that is not stored; its last sentence is dropped
(earlier sentences of the block are kept). Linear in the number of blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...language import split_sentences

__all__ = ["Block", "drop_lead_ins", "HEADING_SEPARATOR"]

HEADING_SEPARATOR = " > "


@dataclass(frozen=True, slots=True)
class Block:
    text: str
    headings: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()  # (link text, URL)
    kind: str = "text"  # "text" or "code"
    literals: tuple[str, ...] = ()  # inline code in the text: never names
    leads_code: bool = False  # the next block of the source (stored or not) is code

    @property
    def heading_path(self) -> str:
        return HEADING_SEPARATOR.join(self.headings)


def drop_lead_ins(blocks: Sequence[Block]) -> list[Block]:
    """``blocks`` without the lead-in sentences of code blocks, and without empty blocks."""
    out: list[Block] = []
    for block in blocks:
        if block.kind == "text" and block.leads_code and block.text.rstrip().endswith(":"):
            kept = split_sentences(block.text)[:-1]
            block = replace(block, text=" ".join(kept))
        if block.text.strip():
            out.append(block)
    return out
