"""Offline fact extraction (the default; no LLM): every sentence of every episode (the shared
regex splitter, ``language.split_sentences``) that is not a greeting, filler or pure reaction
(``language.is_filler``) is one fact, attributed to the episode's speaker. Linear in the input;
no model.

Structured content (``Episode.format`` markdown or rst, or auto-detected: ``markup``) is parsed
first: only its prose blocks are split into sentences, each fact carrying its block's heading path
(``context``), links and inline code; badges, images, raw HTML, tables and code are not facts. With
``Episode.keep_code`` each code block is one fact of kind ``"code"`` (self-contained: it is
neither parsed nor validated and names no entity).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..language import is_filler, split_sentences
from .markup import Block, blocks_of
from .records import Episode, ExtractedFact

__all__ = ["extract_sentences"]


def _block_facts(index: int, episode: Episode, block: Block) -> list[ExtractedFact]:
    context = block.heading_path or None
    if block.kind == "code":
        return [ExtractedFact(index, block.text, episode.memory_type, episode.importance, episode.speaker,
                              self_contained=True, context=context, kind="code")]
    return [
        ExtractedFact(index, sentence, episode.memory_type, episode.importance, episode.speaker, context=context,
                      links=tuple(link for link in block.links if link[0] in sentence),
                      literals=tuple(lit for lit in block.literals if lit in sentence))
        for sentence in split_sentences(block.text) if not is_filler(sentence)
    ]


def extract_sentences(episodes: Sequence[Episode]) -> list[ExtractedFact]:
    """Sentences with substance of every episode, in order, attributed to the episode's speaker."""
    facts: list[ExtractedFact] = []
    for index, episode in enumerate(episodes):
        blocks = blocks_of(episode.content, episode.format, keep_code=episode.keep_code)
        if blocks is not None:
            for block in blocks:
                facts.extend(_block_facts(index, episode, block))
            continue
        for sentence in split_sentences(episode.content):
            if is_filler(sentence):
                continue
            facts.append(ExtractedFact(index, sentence, episode.memory_type, episode.importance, episode.speaker))
    return facts
