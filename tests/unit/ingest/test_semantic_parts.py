"""The in-memory pieces of semantic link candidates (``store.linking.semantic``): the batch against itself,
the two sides merged, and the product taken in blocks. Pure; no database."""

from __future__ import annotations

import uuid

import numpy as np

from fleet_memory.store.linking import semantic


def _units(n: int, seed: int = 3) -> list[tuple[uuid.UUID, np.ndarray]]:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(4, 16))
    vecs = base[np.arange(n) % 4] + rng.normal(scale=0.3, size=(n, 16))  # four clusters
    return [(uuid.UUID(int=i + 1), v.astype(np.float32)) for i, v in enumerate(vecs)]


def _brute(units, others, top_k, min_sim):
    """Each unit's top k of ``others`` (never itself) by cosine, computed one pair at a time."""
    out = []
    for uid, v in units:
        scored = []
        for oid, w in others:
            if oid != uid:
                a, b = np.asarray(v, dtype=np.float64), np.asarray(w, dtype=np.float64)
                cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
                scored.append((cos, oid))
        scored.sort(key=lambda p: -p[0])
        out += [(uid, oid, cos) for cos, oid in scored[:top_k] if cos >= min_sim]
    return out


def _as_sets(pairs):
    return {(a, b, round(s, 6)) for a, b, s in pairs}


def test_within_batch_is_each_units_top_k_among_the_others():
    units = _units(30)
    got = semantic.within_batch(units, top_k=5, min_similarity=0.2)
    assert _as_sets(got) == _as_sets(_brute(units, units, 5, 0.2))
    assert all(a != b for a, b, _ in got)
    assert semantic.within_batch(units[:1], top_k=5, min_similarity=0.0) == []


def test_the_product_in_blocks_gives_the_same_pairs(monkeypatch):
    units = _units(50)

    def pairs():  # weights as stored (float32)
        return [(a, b, np.float32(s)) for a, b, s in semantic.within_batch(units, top_k=4, min_similarity=-1.0)]
    whole = pairs()
    monkeypatch.setattr(semantic, "PRODUCT_CELLS", 7 * 50)  # blocks of 7 rows, the last one shorter
    assert pairs() == whole
    assert len(whole) == 50 * 4


def test_nearest_of_both_keeps_each_units_best_of_the_stored_and_the_batch_sides():
    everything = _units(60)
    stored, batch = everything[:40], everything[40:]
    stored_side = _brute(batch, stored, 5, 0.1)  # what the read beside the transaction finds
    merged = semantic.nearest_of_both(stored_side, semantic.within_batch(batch, top_k=5, min_similarity=0.1), 5)
    assert _as_sets(merged) == _as_sets(_brute(batch, everything, 5, 0.1))  # one search over all of them


def test_a_similarity_is_the_same_from_either_side_to_float32_precision():
    """The batch against itself and against the agent's rows (with the batch among them) give each
    pair the same float32 weight, so the graph does not depend on which way a put found it."""
    units = _units(40, seed=11)
    alone = {(a, b): np.float32(s) for a, b, s in semantic.within_batch(units, top_k=39, min_similarity=-1.0)}
    matrix = semantic.unit_rows([v for _, v in units])
    extra = semantic.unit_rows(np.random.default_rng(5).normal(size=(25, 16)).astype(np.float32))
    rows = semantic._nearest_rows(matrix, np.vstack([extra, matrix]), 64, -1.0, np.arange(40) + 25)
    among = {(units[i][0], units[j - 25][0]): np.float32(s) for i, near in enumerate(rows) for j, s in near if j >= 25}
    assert alone.keys() == among.keys() and all(alone[k] == among[k] for k in alone)


def test_a_batch_is_searched_through_the_index_only_where_one_read_of_the_agent_costs_more():
    from fleet_memory.store.linking.semantic import EXACT_BELOW, searched_by_index

    assert not searched_by_index(EXACT_BELOW - 1, 100)  # exactly, below the agent's own index
    assert searched_by_index(50_000, 100)
    assert not searched_by_index(6_000, 100)  # one read of 6,000 embeddings costs less than 100 searches
    assert searched_by_index(6_000, 10)


def _sent(vector: np.ndarray) -> bytes:
    """A vector as ``vector_send`` writes it."""
    return len(vector).to_bytes(2, "big") + b"\0\0" + np.asarray(vector, dtype=">f4").tobytes()


def test_candidates_from_sql_are_ranked_as_the_product_in_memory_ranks_them():
    """SQL's candidates (read twice as many, in an order of its own, with near-ties from exact
    duplicates) ranked again give each unit the pairs and cosines the product in memory gives."""
    stored = _units(40, seed=5)
    stored += [(uuid.UUID(int=100 + i), stored[i][1].copy()) for i in range(6)]  # exact duplicates tie
    new = [(uuid.UUID(int=1000 + i), v) for i, (_, v) in enumerate(_units(8, seed=9))]
    seq = {uid: i for i, (uid, _) in enumerate(stored)}
    matrix = semantic.unit_rows([v for _, v in stored])
    found = semantic._nearest_rows(semantic.unit_rows([v for _, v in new]), matrix, 5, 0.2,
                                   np.full(len(new), -1))
    in_memory = [(new[i][0], stored[j][0], sim) for i, near in enumerate(found) for j, sim in near]
    rng = np.random.default_rng(1)
    rows = []
    for uid, v in new:  # SQL's pick: the top 10 by a float32 cosine, listed in a shuffled order
        cos = (matrix @ (v / np.linalg.norm(v))).astype(np.float32)
        picked = sorted(range(len(stored)), key=lambda j: (-cos[j], seq[stored[j][0]]))[:10]
        rows += [(uid, stored[j][0], seq[stored[j][0]], _sent(stored[j][1])) for j in rng.permutation(picked)]
    assert semantic.ranked_again(new, rows, 5, 0.2) == in_memory
