"""``store.linking.pairs.strongest_per_pair``: the columns give what a dict of pairs gave, in the same order."""

import math
import random
import uuid

import numpy as np

from fleet_memory.store.linking.pairs import strongest_per_pair


def _by_dict(first, second, weights, kinds):
    """The rule written the plain way (the link stage's before ``store.linking.pairs``)."""
    best = {}
    for a, b, w, k in zip(first, second, weights, kinds):
        if a.int == b.int:
            continue
        w = 0.0 if math.isnan(w) else min(1.0, max(0.0, w))
        key, low, high = ((a.int, b.int, k), a, b) if a.int < b.int else ((b.int, a.int, k), b, a)
        if key not in best or w > best[key][0]:
            best[key] = (w, low, high)
    return [(low, high, float(np.float32(w)), key[2]) for key, (w, low, high) in best.items()]


def test_each_pair_once_smaller_id_first_largest_weight_in_first_seen_order():
    rng = random.Random(3)
    units = [uuid.UUID(int=rng.getrandbits(128)) for _ in range(60)]
    first, second, weights, kinds = [], [], [], []
    for _ in range(2_000):
        a, b = rng.choice(units), rng.choice(units)  # self-pairs and both directions among them
        first.append(a)
        second.append(b)
        weights.append(rng.choice([0.5, 0.75, 0.8000001, 1.0, 1.7, -0.2, float("nan"), rng.random()]))
        kinds.append(rng.randrange(2))
    got = strongest_per_pair(first, second, weights, kinds)
    want = _by_dict(first, second, weights, kinds)
    assert list(zip(got.low, got.high, got.weight, got.kind)) == want
    assert all(a < b for a, b in zip(got.low, got.high))
    assert all(w == float(np.float32(w)) and 0.0 <= w <= 1.0 for w in got.weight)
    assert got.low[0] is first[0] or got.low[0] is second[0]  # the callers' own UUID objects come back


def test_without_kinds_and_empty():
    a, b, c = (uuid.UUID(int=i) for i in (5, 2, 9))
    got = strongest_per_pair([a, b, a, c], [b, a, a, a], [0.4, 0.6, 1.0, 0.3])
    assert list(zip(got.low, got.high, got.weight, got.kind)) == [(b, a, float(np.float32(0.6)), 0),
                                                                   (a, c, float(np.float32(0.3)), 0)]
    assert strongest_per_pair([], [], []) == ([], [], [], [])
    assert strongest_per_pair([a], [a], [0.9]) == ([], [], [], [])
