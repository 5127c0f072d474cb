"""A fast regex sentence splitter (no model). Splits after . ! ? (and runs of them, with closing
quotes or brackets) when followed by whitespace and an upper-case letter, digit or opening quote;
keeps common abbreviations (Mr., Dr., e.g., U.S.) and decimals together; newlines that separate
paragraphs or list items also end a sentence. Used for ingestion, LLM chunking and conversation
extraction alike. A "sentence" longer than ``MAX_SENTENCE_CHARS`` (no real one is) is cut at the
last space before the limit, or at the limit, so no stage ever sees more than that in one piece
(spaCy refuses texts over 1,000,000 characters)."""

from __future__ import annotations

import re

from .months import MONTH_NAMES, MONTHS

__all__ = ["MAX_SENTENCE_CHARS", "split_sentences"]

MAX_SENTENCE_CHARS = 10_000

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "mx", "dr", "prof", "sgt", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "inc", "ltd", "co",
    "corp", "no", "fig", "u.s", "u.k", "a.m", "p.m", "approx", "dept", "est", "gen", "gov", "lt", "col", "capt",
} | {name for name in MONTHS if len(name) <= 4 and name not in MONTH_NAMES}  # "jan" … "dec", "sept"
_BOUNDARY = re.compile(r"""([.!?]+["'”’)\]]*)\s+(?=["'“‘(\[]?[A-Z0-9])""")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_PARAGRAPH = re.compile(r"\n\s*\n|\n\s*(?:[-*•]|\d+[.)])\s+")


def _ends_with_abbreviation(chunk: str) -> bool:
    match = re.search(r"([A-Za-z][A-Za-z.]*)\.$", chunk[-40:])  # the tail only: linear, not quadratic
    if not match:
        return False
    word = match.group(1).lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    for block in _PARAGRAPH.split(text):
        block = _BULLET.sub("", " ".join(block.split()))
        if not block:
            continue
        start = 0
        for match in _BOUNDARY.finditer(block):
            end = match.end(1)
            candidate = block[start:end]
            if candidate.endswith(".") and _ends_with_abbreviation(candidate):
                continue
            sentences.append(candidate.strip())
            start = match.end()
        tail = block[start:].strip()
        if tail:
            sentences.append(tail)
    return [piece for s in sentences if s for piece in _cut(s)]


def _cut(sentence: str) -> list[str]:
    pieces = []
    while len(sentence) > MAX_SENTENCE_CHARS:
        cut = sentence.rfind(" ", MAX_SENTENCE_CHARS // 2, MAX_SENTENCE_CHARS + 1)
        cut = cut if cut > 0 else MAX_SENTENCE_CHARS
        pieces.append(sentence[:cut].strip())
        sentence = sentence[cut:].strip()
    pieces.append(sentence)
    return [p for p in pieces if p]
