"""Importance at storage time (``calculateImportance`` of the lifecycle design, docs/concepts.md).

    score = 0.5                                             base
          + min(0.1 × emotional keywords present, 0.3)      each keyword counts once
          + min(len(text) / 1000, 0.2)                      longer text carries more
          + 0.3 if the unit is tagged ``explicit_remember``
    capped at 1.0

The keyword list is ``LifecycleConfig.emotional_keywords`` (critical, urgent, error, success,
failure, warning by default). A keyword matches at the start of a word, case-insensitively, so
"errors" and "successful" count but "terror" does not (the design's plain substring test counts
"terror" as an error). An importance given by the caller or by an LLM is used as is; this
function only fills in a missing one. Pure, O(len(text)).

The length part serves the forgetting curve (longer notes are kept longer), not ranking: recall
ranks by ``ranking_importance``, which takes a stored importance that is exactly this heuristic's
score for the unit's text and tags without its length part, and any other (set by the caller or
an LLM, or halved by consolidation) as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from ..config import LifecycleConfig

__all__ = ["EXPLICIT_REMEMBER_TAG", "importance_function", "ranking_importance", "score_importance"]

EXPLICIT_REMEMBER_TAG = "explicit_remember"

BASE = 0.5
KEYWORD_BONUS = 0.1
KEYWORD_CAP = 0.3
LENGTH_CAP = 0.2
LENGTH_SCALE = 1000.0
EXPLICIT_BONUS = 0.3


@lru_cache(maxsize=32)
def _keyword_patterns(keywords: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    unique = dict.fromkeys(k.strip().lower() for k in keywords if k and k.strip())
    return tuple(re.compile(r"\b" + re.escape(k), re.IGNORECASE) for k in unique)


def score_importance(text: str, tags: Iterable[str] = (), keywords: Iterable[str] | None = None, *,
                     length: bool = True) -> float:
    """Importance in [0.5, 1.0] for ``text`` by the lifecycle design's rules (see the module docstring);
    ``length=False`` leaves the length part out."""
    words = tuple(keywords) if keywords is not None else LifecycleConfig().emotional_keywords
    found = sum(1 for pattern in _keyword_patterns(words) if pattern.search(text))
    score = BASE
    score += min(KEYWORD_BONUS * found, KEYWORD_CAP)
    score += min(len(text) / LENGTH_SCALE, LENGTH_CAP) if length else 0.0
    if EXPLICIT_REMEMBER_TAG in tuple(tags):
        score += EXPLICIT_BONUS
    return round(min(score, 1.0), 6)


def importance_function(config: LifecycleConfig) -> Callable[[str, tuple[str, ...]], float]:
    """``(text, tags) -> importance`` with the configured keywords: what the ingestor is given."""
    keywords = tuple(config.emotional_keywords)

    def importance(text: str, tags: tuple[str, ...]) -> float:
        return score_importance(text, tags, keywords)

    return importance


def ranking_importance(config: LifecycleConfig) -> Callable[[str, tuple[str, ...], float], float]:
    """``(text, tags, stored importance) -> the importance recall ranks by`` (see the module
    docstring). Stored importances are REAL, so "exactly" allows float4 rounding."""
    keywords = tuple(config.emotional_keywords)

    def rank(text: str, tags: tuple[str, ...], stored: float) -> float:
        return _ranked(text, tuple(tags), stored, keywords)

    return rank


@lru_cache(maxsize=8192)
def _ranked(text: str, tags: tuple[str, ...], stored: float, keywords: tuple[str, ...]) -> float:
    """``ranking_importance`` for one unit: pure, so cached (recall asks it for every candidate of
    every search, and the same units come back search after search)."""
    if abs(stored - score_importance(text, tags, keywords)) <= 1e-5:
        return score_importance(text, tags, keywords, length=False)
    return stored
