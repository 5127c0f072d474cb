"""Candidate lookup for entity resolution, so that a batch of n names costs O(n), not O(n²).

Every entity of the pool (stored candidates plus those created earlier in the batch) is indexed
under keys of its normalised name and aliases:

- ``w:<word>``      each word (the "Bob" / "Bob Smith" subset rule needs a shared word);
- ``p:<3 letters>`` the first three letters of the first word (the PERSON short form "Mel" /
  "Melanie");
- ``g:<trigram>``   character trigrams of the padded name (typos and spelling variants: a
  rapidfuzz ratio of 0.5 or more means most trigrams are shared).

A lookup counts, for the name's keys, how many each entity shares (words weigh most, then the
prefix, then trigrams) and returns the ``limit`` entities sharing most, in pool order among
equals. Bounds: at most ``MAX_TRIGRAMS`` trigram keys per name, and only the ``MAX_POSTING``
most recent entities of any one key are read, so one lookup reads at most
``(words + 1 + MAX_TRIGRAMS) × MAX_POSTING`` postings whatever the pool's size, and the caller
scores at most ``limit`` candidates.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

__all__ = ["NameIndex", "MAX_POSTING", "MAX_TRIGRAMS"]

T = TypeVar("T")
MAX_POSTING = 64
MAX_TRIGRAMS = 16
_WEIGHT = {"w": 100, "p": 50, "g": 1}


def _keys(norm: str) -> list[str]:
    words = norm.split()
    keys = [f"w:{w}" for w in dict.fromkeys(words)]
    if words and len(words[0]) >= 3:
        keys.append(f"p:{words[0][:3]}")
    padded = f"  {norm} "
    grams = list(dict.fromkeys(padded[i:i + 3] for i in range(len(padded) - 2)))
    if len(grams) > MAX_TRIGRAMS:  # spread the sample over the whole name
        step = len(grams) / MAX_TRIGRAMS
        grams = [grams[int(i * step)] for i in range(MAX_TRIGRAMS)]
    keys.extend(f"g:{g}" for g in grams)
    return keys


class NameIndex(Generic[T]):
    """Entities (any value) under the keys of their normalised names."""

    def __init__(self) -> None:
        self._postings: dict[str, list[int]] = {}
        self._items: list[T] = []
        self._keys: dict[str, list[str]] = {}  # a name looked up is usually added next

    def _keys_of(self, norm: str) -> list[str]:
        keys = self._keys.get(norm)
        if keys is None:
            keys = self._keys[norm] = _keys(norm)
        return keys

    def add(self, item: T, norms: Iterable[str]) -> None:
        position = len(self._items)
        self._items.append(item)
        keys = {k for norm in norms if norm for k in self._keys_of(norm)}
        for key in keys:
            self._postings.setdefault(key, []).append(position)

    def candidates(self, norm: str, limit: int = 16) -> Sequence[T]:
        shared: Counter[int] = Counter()
        for key in self._keys_of(norm):
            weight = _WEIGHT[key[0]]
            for position in self._postings.get(key, ())[-MAX_POSTING:]:
                shared[position] += weight
        best = heapq.nsmallest(limit, shared.items(), key=lambda kv: (-kv[1], kv[0]))  # most shared, oldest
        return [self._items[p] for p, _ in best]
