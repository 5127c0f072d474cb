"""Semantic link candidates: each new unit's nearest units of its agent by cosine similarity, as
``(unit_id, other_id, cosine)`` — its ``top_k`` with cosine ≥ ``min_similarity`` (``links.link_units``
writes them).

Two ways to find them:

- **In the put's transaction** (``semantic_candidates``): the new units are visible there, so one
  search finds their nearest among the agent's stored units and the batch alike.
- **Split** (``nearest_of_both``): the stored units' part read beside the transaction, on a spare
  connection, while the put writes its rows (``semantic_candidates`` again, on a connection that
  does not see the batch), the batch's part in memory (``within_batch``), and each new unit's
  best of both kept. The same pairs (up to the HNSW index's approximation, as in one search);
  the search no longer waits behind the write: on a large agent it is about 1 ms a unit through
  the agent's own HNSW index, a second for a conversation, and the transaction's last stages ran
  on one core while the other was idle.

How the agent's units are searched, by size: below ``EXACT_BELOW`` exactly (SQL, or one read of
the agent's embeddings and a matrix product for a batch of ``IN_MEMORY_FROM`` units or more, or
for fewer beside a put once the agent's embeddings are held, ``EmbeddingCache.wanted``), from it
on through the agent's own HNSW index unless one read of its embeddings is cheaper
(``INDEX_UNIT_S``). Whichever way, a pair's cosine is the one the product in memory gives
(``ranked_again``).
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import numpy as np
import psycopg

from ...providers.compute import product
from ..db.agent_indexes import OWN_INDEX_UNITS
from ..db.database import index_order
from ..db.rows import vectors_from_send
from .embedding_cache import EmbeddingCache, read_embeddings

__all__ = [
    "EXACT_BELOW", "IN_MEMORY_FROM", "READ_AGAIN", "SEMANTIC_SQL", "SEMANTIC_EXACT_SQL", "SLACK", "unit_count_up_to",
    "best_columns", "nearest_of_both", "nearest_to_new", "ranked_again", "searched_by_index", "semantic_candidates",
    "unit_rows", "within_batch",
]

Pairs = list[tuple[UUID, UUID, float]]

_SEMANTIC = (
    "SELECT n.id, c.id, c.seq, vector_send(c.embedding) FROM unnest(%(ids)s::uuid[], %(es)b::vector[]) AS n(id, e)"
    " CROSS JOIN LATERAL ("
    "  SELECT u.id, u.seq, u.embedding, (1 - (u.embedding <=> n.e))::float8 AS sim FROM memory_units u"
    "  WHERE u.agent_id = %(a)s AND u.id <> n.id{stored} ORDER BY {order} LIMIT %(k)s"
    " ) c WHERE c.sim >= %(min)s"
)
_STORED_ONLY = " AND NOT (u.id = ANY(%(ids)s::uuid[]))"  # a custom plan: hashed, not a scan of the array
SEMANTIC_SQL = _SEMANTIC.format(order="u.embedding <=> n.e", stored="")  # the HNSW index can serve this order
SEMANTIC_EXACT_SQL = _SEMANTIC.format(order="sim DESC, u.seq", stored="")  # not the bare operator: an exact sort

READ_AGAIN = 2
SLACK = 1e-5
"""An exact search in SQL reads ``READ_AGAIN`` times ``top_k`` candidates a unit (a search through
the agent's index, approximate anyway, its ``top_k``: 0.5 ms less for a put of two units into an
agent of 50,000), down to ``SLACK`` below ``min_similarity``, with their embeddings, and ranks them
again as the search in memory ranks (``ranked_again``). pgvector computes a cosine in float32, the
search in memory in float64 rounded to float32: the two differ in the last digits, and where two
candidates nearly tie (templated texts) each way kept a different one, with a different weight.
So a link's weight, and which of near-equal candidates is kept, no longer depends on which way a
put searched (the read beside a put goes in memory for a unit or two once the agent's embeddings
are held, ``EmbeddingCache.wanted``, while the link stage's own search goes in SQL)."""

EXACT_BELOW = OWN_INDEX_UNITS
"""Agents with fewer units are searched exactly (one index range on agent_id, then a top-k sort);
larger ones through their own HNSW index (``store.db.agent_indexes``)."""


IN_MEMORY_FROM = 32
"""A batch of at least this many units into an exactly-searched agent is compared in memory: one
read of the agent's embeddings (binary) and one matrix product, instead of batch × agent distance
computations in SQL (45 new units against 2,900: 40–55 ms, against 120–180 ms in SQL, measured
with float32 products)."""

READ_ROW_S = 12e-6
PRODUCT_S = 4e-8
INDEX_UNIT_S = 1.1e-3
"""A larger agent's neighbours come from its own HNSW index, unless one read of its embeddings is
cheaper: ``size × (READ_ROW_S + batch × PRODUCT_S) < batch × INDEX_UNIT_S``. Measured here: reading
one embedding 10–15 µs (2,900 units), one 384-dimensional cosine of the matrix product about 20 ns
in float32 and 40 ns in float64 (``unit_rows``; 970 × 5,000 units: 32 ms in float32, 61 ms in
float64),
one new unit's HNSW top-k about 1.1 ms (2,900 and 50,000 units, ``ef_search`` 100; 0.8–1.1 ms with
the 40 these statements use, ``database.index_order``). A conversation of 970 units into a
50,000-unit agent: 2.1–2.3 s in memory in float32 (the product is 37 GFLOP), 1.04 s through the
index."""

PRODUCT_CELLS = 1 << 22
"""Similarities computed per block of new units (32 MB of float64): a batch's product with a
matrix of n units is taken in blocks of ``PRODUCT_CELLS // n`` rows, so its memory stays bounded
(a 20,000-unit put against itself is 400 million cells in one product, 3.2 GB)."""


def _in_memory_is_cheaper(size: int, batch: int) -> bool:
    return size * (READ_ROW_S + batch * PRODUCT_S) < batch * INDEX_UNIT_S


def searched_by_index(size: int, batch: int) -> bool:
    """Whether ``semantic_candidates`` searches ``batch`` new units' neighbours among an agent's
    ``size`` stored units through the agent's own index: then the cost is the same per unit
    however a batch is cut (a put reads its windows one by one, ``ingest.nearby``)."""
    return size >= EXACT_BELOW and not _in_memory_is_cheaper(size, batch)


def unit_count_up_to(conn: psycopg.Connection, agent_id: str, bound: int) -> int:
    """The agent's unit count, counted up to ``bound`` (reads at most ``bound`` index entries)."""
    return conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memory_units WHERE agent_id = %s LIMIT %s) x", (agent_id, bound)
    ).fetchone()[0]


def unit_rows(vectors: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """The vectors (float32, as stored) as rows of unit length in float64: a similarity then comes
    out the same to float32 precision whichever product computed it (the batch against itself, the
    batch against the agent's rows, in blocks of any size), so the graph does not depend on which
    way a put found it. In float32 two products differed in the last digit, and an equal pair of
    weights could break the other way."""
    matrix = np.asarray(vectors, dtype=np.float32).astype(np.float64)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def _nearest_rows(queries: np.ndarray, matrix: np.ndarray, k: int, min_similarity: float,
                  own: np.ndarray) -> list[list[tuple[int, float]]]:
    """Per row of ``queries`` (unit vectors): its ``k`` most similar rows of ``matrix`` as
    ``(row, cosine)``, best first (ties: the lower row), cosine ≥ ``min_similarity``, never the
    row ``own`` names for it (-1: none; its similarity is set to -inf, so it is never kept). The
    cosines are ranked and returned as stored, rounded to float32, so a last-bit difference
    between two products never decides a tie. In blocks of ``PRODUCT_CELLS``."""
    n = matrix.shape[0]
    k = min(k, n)
    if k <= 0:
        return [[] for _ in range(len(queries))]
    out: list[list[tuple[int, float]]] = []
    step = max(1, PRODUCT_CELLS // n)
    for lo in range(0, len(queries), step):
        sims = product(queries[lo:lo + step], matrix)  # not numpy's @ (``providers.compute``)
        block = np.arange(sims.shape[0])
        mine = own[lo:lo + step]
        sims[block[mine >= 0], mine[mine >= 0]] = -np.inf
        out.extend(best_columns(sims.astype(np.float32).astype(np.float64), k, min_similarity))  # as stored
    return out


def best_columns(sims: np.ndarray, k: int, min_similarity: float) -> list[list[tuple[int, float]]]:
    """Per row of ``sims`` (cosines, -inf where never to keep): its ``k`` best columns as
    ``(column, cosine)``, best first, ties by the lower column, cosine ≥ ``min_similarity``."""
    n = sims.shape[1]
    k = min(k, n)
    if k <= 0:
        return [[] for _ in range(len(sims))]
    kth = np.partition(sims, n - k, axis=1)[:, n - k]  # each row's k-th best similarity
    out: list[list[tuple[int, float]]] = []
    for row, bar in zip(sims, kth.tolist()):
        cols = np.flatnonzero(row >= max(bar, min_similarity))  # every tie at the bar: chosen by column below
        cols = cols[np.lexsort((cols, -row[cols]))][:k]
        out.append(list(zip(cols.tolist(), row[cols].tolist())))
    return out


def within_batch(units: Sequence[tuple[UUID, np.ndarray]], *, top_k: int, min_similarity: float) -> Pairs:
    """For each new ``(unit_id, embedding)``: its ``top_k`` nearest among the others of the batch,
    in memory, as ``(unit_id, other_id, cosine)``."""
    if len(units) < 2:
        return []
    matrix = unit_rows([u[1] for u in units])
    found = _nearest_rows(matrix, matrix, top_k, min_similarity, np.arange(len(units)))
    return [(units[i][0], units[j][0], sim) for i, near in enumerate(found) for j, sim in near]


def nearest_of_both(stored: Pairs, batch: Pairs, top_k: int) -> Pairs:
    """Each new unit's ``top_k`` best of its nearest stored units and its nearest in the batch (each
    list already its top k of its side, cosine-filtered), best first; on equal cosine a stored unit
    first, then each side's own order."""
    by_unit: dict[UUID, list[tuple[UUID, UUID, float]]] = {}
    for pair in [*stored, *batch]:
        by_unit.setdefault(pair[0], []).append(pair)
    return [pair for pairs in by_unit.values() for pair in sorted(pairs, key=lambda p: -p[2])[:top_k]]


def nearest_to_new(conn: psycopg.Connection, agent_id: str, units: Sequence[tuple[UUID, np.ndarray]], *,
                   top_k: int, min_similarity: float, stored: Pairs | None = None) -> Pairs:
    """The semantic candidates of units written in ``conn``'s transaction: each one's ``top_k``
    best of its nearest stored units and its nearest in the batch (``nearest_of_both``). The stored
    part is ``stored`` when the caller read it beside the transaction, else it is searched here
    without the batch (``stored_only``), the same way: either way gives the same pairs."""
    if stored is None:
        stored = semantic_candidates(conn, agent_id, units, top_k=top_k, min_similarity=min_similarity,
                                     stored_only=True)
    return nearest_of_both(stored, within_batch(units, top_k=top_k, min_similarity=min_similarity), top_k)


def _exact_in_memory(conn: psycopg.Connection, agent_id: str, units: Sequence[tuple[UUID, np.ndarray]], *,
                     top_k: int, min_similarity: float, stored_only: bool = False,
                     cache: EmbeddingCache | None = None) -> Pairs:
    if cache is not None and not stored_only:  # a read beside: what the cache does not hold yet
        held = cache.rows(conn, agent_id, unit_rows)
        ids, matrix = held.ids, held.rows
    else:
        _, ids, vectors = read_embeddings(conn, agent_id)  # in write order
        if stored_only:
            batch = {uid.int for uid, _ in units}
            kept = [i for i, uid in enumerate(ids) if uid.int not in batch]
            ids, vectors = [ids[i] for i in kept], vectors[kept]
        matrix = unit_rows(vectors) if ids else None
    if not ids:
        return []
    position = {uid: i for i, uid in enumerate(ids)}
    own = np.asarray([position.get(uid, -1) for uid, _ in units], dtype=np.int64)  # -1: not visible here
    found = _nearest_rows(unit_rows([u[1] for u in units]), matrix, top_k, min_similarity, own)
    return [(units[i][0], ids[j], sim) for i, near in enumerate(found) for j, sim in near]


def semantic_candidates(
    conn: psycopg.Connection,
    agent_id: str,
    units: Sequence[tuple[UUID, np.ndarray]],
    *,
    top_k: int,
    min_similarity: float,
    exact_below: int = EXACT_BELOW,
    stored_only: bool = False,
    cache: EmbeddingCache | None = None,
    size: int | None = None,
) -> Pairs:
    """For each ``(unit_id, embedding)``: its ``top_k`` nearest units of the agent that ``conn``
    sees (cosine), kept when cosine ≥ ``min_similarity``, as ``(unit_id, other_id, cosine)``. ONE
    query for the batch (LATERAL over ``unnest`` of the embeddings). In the put's transaction the
    units it wrote are visible, so new units of one batch link among themselves too; beside it,
    only the stored ones; ``stored_only``: never the given units themselves, as beside it (the
    put's link stage then searches the way its read beside would have, ``nearest_of_both``).

    Below ``exact_below`` units the agent is scanned exactly — cheaper and exact for a small agent
    (a batch of ``IN_MEMORY_FROM`` or more in memory, as into a larger agent when one read of its
    embeddings costs less than the index, ``INDEX_UNIT_S``; a smaller batch too when ``cache``
    wants the agent: it holds its embeddings, or was asked for it before). From ``exact_below``
    on, the agent's own HNSW index is used (``database.index_order``: the index order, pgvector's default candidate
    list); before that index exists the planner sorts, exactly. ``cache``: the agent's embeddings
    kept between calls for the in-memory comparison (``store.linking.embedding_cache``), only for a
    connection that sees committed rows alone (a read beside a put). ``size``: the agent's unit
    count as the caller read it (``term_df``, one primary-key lookup); else it is counted here, up
    to where it can change the choice (a scan of up to 5,000 index entries and their rows: 1–6 ms a
    read into a large agent, which a put made once per window)."""
    if not units:
        return []
    bound = max(exact_below, int(len(units) * INDEX_UNIT_S / READ_ROW_S) + 1) + len(units)
    if size is None:
        size = unit_count_up_to(conn, agent_id, bound)
    size -= len(units) if stored_only else 0  # as a read beside counts
    small = size < exact_below
    if (len(units) >= IN_MEMORY_FROM and (small or _in_memory_is_cheaper(size, len(units)))
            or (small and cache is not None and not stored_only and cache.wanted(agent_id, size, len(units[0][1])))):
        return _exact_in_memory(conn, agent_id, units, top_k=top_k, min_similarity=min_similarity,
                                stored_only=stored_only, cache=cache)
    stored = _STORED_ONLY if stored_only else ""
    params = {
        "ids": [u[0] for u in units],
        "es": [np.asarray(u[1], dtype=np.float32) for u in units],
        "a": agent_id,
        "k": top_k * (READ_AGAIN if small else 1),  # through an index: its top k, approximate anyway
        "min": min_similarity - SLACK,
    }
    with conn.cursor(binary=True) as cur:
        if small:
            rows = cur.execute(_SEMANTIC.format(order="sim DESC, u.seq", stored=stored), params).fetchall()
        else:
            with index_order(conn):
                rows = cur.execute(_SEMANTIC.format(order="u.embedding <=> n.e", stored=stored), params).fetchall()
    return ranked_again(units, rows, top_k, min_similarity)


def ranked_again(units: Sequence[tuple[UUID, np.ndarray]], rows: list[tuple], top_k: int,
              min_similarity: float) -> Pairs:
    """SQL's candidates ``(unit id, candidate id, seq, vector_send)`` ranked as ``_nearest_rows``
    ranks: cosines of unit rows in float64 rounded to float32, best first, ties by ``seq``; each
    unit's ``top_k`` with cosine ≥ ``min_similarity`` (``READ_AGAIN``). One product of each
    candidate with its unit for all of them (a product per unit cost 44 µs a unit)."""
    if not rows:
        return []
    position = {uid: i for i, (uid, _) in enumerate(units)}
    owner = np.fromiter((position[row[0]] for row in rows), dtype=np.int64, count=len(rows))
    found = unit_rows(vectors_from_send(b"".join(row[3] for row in rows), len(rows)))
    sims = np.einsum("ij,ij->i", unit_rows([u[1] for u in units])[owner], found)
    sims = sims.astype(np.float32).astype(np.float64).tolist()  # as stored (``real``)
    by_unit: dict[int, list[int]] = {}
    for i in np.argsort(owner, kind="stable").tolist():
        by_unit.setdefault(int(owner[i]), []).append(i)
    out: Pairs = []
    for unit, at in sorted(by_unit.items()):
        ranked = sorted(at, key=lambda i: (-sims[i], rows[i][2]))[:top_k]
        out.extend((units[unit][0], rows[i][1], sims[i]) for i in ranked if sims[i] >= min_similarity)
    return out
