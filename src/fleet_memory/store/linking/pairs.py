"""Unordered pairs of units kept in columns: each pair (of a kind) once, with its largest weight.

Why columns. A conversation's put weighs tens of thousands of candidate links. Kept as a dict of
tuples (a key tuple and a value tuple per pair, then a row tuple to insert), they were most of the
objects the link stage allocated, and those allocations set off Python's full garbage collections:
two or three per put, about 0.2 s each on this machine (the collector walks every object of the
process, the models' included), while the put's other threads waited for the interpreter.
Measured on a 1,468-unit conversation: with no collection in the link stage the whole put took
6.33 against 6.75 s. Here each pair is a row of arrays: the ids get small integer codes once, ranked
by the ids' integers (the order ``UUID`` compares in), and the dedupe is one sort.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple
from uuid import UUID

import numpy as np

__all__ = ["PairColumns", "strongest_per_pair"]


class PairColumns(NamedTuple):
    """Pairs as parallel columns: ``low`` < ``high`` (by the ids' integers), ``weight`` in [0, 1]
    rounded as stored (``real``), ``kind`` the caller's kind code (0 when none was given)."""

    low: list[UUID]
    high: list[UUID]
    weight: list[float]
    kind: list[int]


def strongest_per_pair(first: Sequence[UUID], second: Sequence[UUID], weights: Sequence[float] | np.ndarray,
                       kinds: Sequence[int] | None = None) -> PairColumns:
    """Each unordered pair of ``first[i]``, ``second[i]`` (and ``kinds[i]``) once, the smaller id
    first, with its largest weight clamped to [0, 1] (NaN as 0) and rounded to float32; self-pairs
    dropped; pairs in the order they first appear. O(n log n) in arrays, O(distinct ids) objects."""
    n = len(first)
    if n == 0:
        return PairColumns([], [], [], [])
    codes: dict[int, int] = {}  # by the ids' integers: they hash in C, UUIDs in Python
    ids: list[UUID] = []

    def code(unit: UUID) -> int:
        key = unit.int
        found = codes.get(key)
        if found is None:
            found = codes[key] = len(ids)
            ids.append(unit)
        return found

    a = np.fromiter(map(code, first), dtype=np.int64, count=n)
    b = np.fromiter(map(code, second), dtype=np.int64, count=n)
    m = len(ids)
    order = sorted(range(m), key=lambda c: ids[c].int)
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    ranked = [ids[c] for c in order]
    a, b = rank[a], rank[b]
    low, high = np.minimum(a, b), np.maximum(a, b)
    weight = np.nan_to_num(np.clip(np.asarray(weights, dtype=np.float64), 0.0, 1.0), nan=0.0)
    kind = np.zeros(n, dtype=np.int64) if kinds is None else np.asarray(kinds, dtype=np.int64)
    if kind.min() < 0:
        raise ValueError("kind codes must be 0 or more")
    span = int(kind.max()) + 1
    real = low != high
    key = (low[real] * m + high[real]) * span + kind[real]
    unique, first_seen, inverse = np.unique(key, return_index=True, return_inverse=True)
    best = np.full(len(unique), -1.0)
    np.maximum.at(best, inverse, weight[real])
    in_order = np.argsort(first_seen, kind="stable")
    unique, best = unique[in_order], best[in_order]
    pair = unique // span
    return PairColumns([ranked[i] for i in (pair // m).tolist()], [ranked[i] for i in (pair % m).tolist()],
                       best.astype(np.float32).astype(np.float64).tolist(), (unique % span).tolist())
