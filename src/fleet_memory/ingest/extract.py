"""Offline fact extraction (the default; no LLM): every sentence of every episode (the shared
regex splitter, ``language.split_sentences``) that is not a greeting, filler or pure reaction
(``language.is_filler``) is one fact, attributed to the episode's speaker. Linear in the input;
no model.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..language import is_filler, split_sentences
from .records import Episode, ExtractedFact

__all__ = ["extract_sentences"]


def extract_sentences(episodes: Sequence[Episode]) -> list[ExtractedFact]:
    """Sentences with substance of every episode, in order, attributed to the episode's speaker."""
    facts: list[ExtractedFact] = []
    for index, episode in enumerate(episodes):
        for sentence in split_sentences(episode.content):
            if is_filler(sentence):
                continue
            facts.append(ExtractedFact(index, sentence, episode.memory_type, episode.importance, episode.speaker))
    return facts
