"""Offline fact extraction (the default; no LLM): every sentence of every episode (the shared
regex splitter, ``language.split_sentences``) that is not a greeting, filler or pure reaction
(``language.is_filler``) is one fact, attributed to the episode's speaker.

A chat logged as content — an episode without a speaker whose lines start with "Name: " — is read
as that person's turns: each such line's sentences are facts of that speaker (so coreference makes
"I" the speaker), without the prefix. "Name" is one or two capitalised words that name a person:
a speaker of the batch, a known first name, or a PERSON the agent knows (the gazetteer); "Note:"
or "Update:" are not people. Linear in the input; no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..language import is_filler, split_sentences
from ..naming import normalize_name
from .names import is_first_name
from .records import AgentContext, Episode, ExtractedFact

__all__ = ["extract_sentences", "speaker_lines"]

_PREFIX = re.compile(r"^\s*([A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?):[ \t]+(\S.*)$")


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
