"""Offline fact extraction (the default; no LLM): every sentence of every episode (the shared
regex splitter, ``language.split_sentences``) that is not a greeting, filler or pure reaction
(``language.is_filler``) is one fact, attributed to the episode's speaker.

A chat logged as content — an episode without a speaker whose lines start with "Name: " — is read
as that person's turns: each such line's sentences are facts of that speaker (so coreference makes
"I" the speaker), without the prefix. "Name" is one or two capitalised words that name a person:
a speaker of the batch, a known first name, or a PERSON the agent knows (the gazetteer); "Note:"
or "Update:" are not people. Linear in the input; no model.

Structured content (``Episode.format`` markdown or rst, or auto-detected: ``markup``) is parsed
first: only its prose blocks are split into sentences, each fact carrying its block's heading path
(``context``), links and inline code; badges, images, raw HTML, tables and code are not facts. With
``Episode.keep_code`` each code block is one fact of kind ``"code"`` (self-contained: it is
neither parsed nor validated and names no entity).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..language import is_filler, split_sentences
from ..naming import normalize_name
from .markup import Block, blocks_of
from .names import is_first_name
from .records import AgentContext, Episode, ExtractedFact

__all__ = ["extract_sentences", "speaker_lines"]

_PREFIX = re.compile(r"^\s*([A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?):[ \t]+(\S.*)$")


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


def speaker_lines(content: str, is_person: Callable[[str], bool]) -> Iterator[tuple[str | None, str]]:
    """``(speaker, text)`` per stretch of ``content``: lines opening with "Name: " (a person) are
    that person's; other lines belong to the speaker of the line before (none at first)."""
    lines = content.splitlines()
    if not any((m := _PREFIX.match(line)) and is_person(m[1]) for line in lines):
        yield None, content
        return
    current: str | None = None
    buffer: list[str] = []
    for line in lines:
        m = _PREFIX.match(line)
        if m and is_person(m[1]):
            if buffer:
                yield current, "\n".join(buffer)
            current, buffer = m[1], [m[2]]
        else:
            buffer.append(line)
    if buffer:
        yield current, "\n".join(buffer)


def extract_sentences(episodes: Sequence[Episode], context: AgentContext | None = None) -> list[ExtractedFact]:
    """Sentences with substance of every episode, in order, attributed to their speaker."""
    context = context or AgentContext()
    speakers = {normalize_name(e.speaker) for e in episodes if e.speaker}
    facts: list[ExtractedFact] = []
    for index, episode in enumerate(episodes):
        blocks = blocks_of(episode.content, episode.format, keep_code=episode.keep_code)
        if blocks is not None:  # Markdown / reST: prose blocks only, with their heading paths
            for block in blocks:
                facts.extend(_block_facts(index, episode, block))
            continue
        gazetteer = context.gazetteer(episode.agent_id)

        def is_person(name: str) -> bool:
            norm = normalize_name(name)
            return norm in speakers or is_first_name(name.split()[0]) or gazetteer.get(norm) == "PERSON"

        parts = [(episode.speaker, episode.content)] if episode.speaker else speaker_lines(episode.content, is_person)
        for speaker, text in parts:
            for sentence in split_sentences(text):
                if is_filler(sentence):
                    continue
                facts.append(ExtractedFact(index, sentence, episode.memory_type, episode.importance,
                                           speaker or episode.speaker))
    return facts
