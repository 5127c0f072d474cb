"""Candidate units for ranking, with the features every candidate is scored on: the four
entry-point channels (one statement), the features of units reached another way (one statement),
and the term statistics the full-text feature needs.

Every query that returns candidates applies the request's ``UnitFilter`` inside its WHERE clause,
so filters act before ranking. Each returns rows with the same features, computed in SQL:

- ``similarity``  cosine similarity of the unit's embedding to the query embedding
- ``text_score``  BM25-like full-text score: the sum of the IDF of the query terms the unit's
  ``tsv`` matches (terms and IDFs come from ``term_stats``; no term frequency, units are sentences)
- ``named``       the unit mentions an entity the query names (its speaker included)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
import psycopg
from psycopg import sql

from ...model import MemoryUnit
from ..db.agent_indexes import OWN_INDEX_UNITS
from ..db.rows import fetch
from ..tables.filters import UnitFilter, where_clause
from ..tables.units import UNIT_COLUMNS, unit_from_row

__all__ = [
    "pair_similarity",
    "Candidate",
    "Features",
    "TermStats",
    "term_stats",
    "EXACT_ENTRIES_BELOW",
    "ENTITY_EXACT_MENTIONS",
    "ENTITY_INDEX_FACTOR",
    "entity_by_index",
    "ENTITY_SHORTLIST_FROM",
    "entity_shortlist",
    "TIME_INDEX_FROM",
    "TIME_INDEX_FACTOR",
    "TIME_INDEX_POOL",
    "time_by_index",
    "time_index_count",
    "window_units",
    "query_bits",
    "EntryLimits",
    "entries",
    "unit_features",
]

_COLS = ", ".join(f"u.{c.strip()}" for c in UNIT_COLUMNS.split(","))


@dataclass(frozen=True, slots=True)
class Candidate:
    unit: MemoryUnit
    similarity: float
    text_score: float
    named: bool
    seq: int  # write order: the walk's key, so ties break the same way for the same input
    text_terms: int = 0  # how many query terms ``text_score`` sums


@dataclass(frozen=True, slots=True)
class TermStats:
    """Per query term: its tsquery (stemmed) and IDF; ``common`` terms match too many units to
    be used for matching (they still count in ``text_score``)."""

    units: int
    queries: tuple[str, ...] = ()
    idf: tuple[float, ...] = ()
    common: tuple[bool, ...] = ()


@dataclass(frozen=True, slots=True)
class Features:
    """What every candidate query needs to compute the features."""

    query_vector: np.ndarray
    terms: TermStats = field(default_factory=lambda: TermStats(0))
    entity_ids: tuple[UUID, ...] = ()
    entity_mentions: int = 0  # units mentioning the named entities (sum of their mention counts)

    def params(self) -> dict:
        return {
            "rq_q": np.asarray(self.query_vector, dtype=np.float32),
            "rq_tq": list(self.terms.queries),
            "rq_tw": list(self.terms.idf),
            "rq_eids": list(self.entity_ids),
        }


_TEXT_SCORE = (
    "coalesce((SELECT sum(t.w) FROM unnest(%(rq_tq)s::tsquery[], %(rq_tw)s::float8[]) AS t(q, w)"
    "  WHERE u.tsv @@ t.q), 0)::float8"
)
_TEXT_TERMS = (  # how many query terms the unit matches (``Candidate.text_terms``)
    "(SELECT count(*) FROM unnest(%(rq_tq)s::tsquery[]) AS t(q) WHERE u.tsv @@ t.q)::int"
)
# ``named`` names the agent as a parameter, not ``u.agent_id``: a Citus coordinator routes the
# statement to one shard only when every table in it, a correlated subquery's too, is filtered so
_FEATURES = (
    "(1 - (u.embedding <=> %(rq_q)s))::float8 AS similarity, " + _TEXT_SCORE + " AS text_score, "
    + _TEXT_TERMS + " AS text_terms,"
    " EXISTS (SELECT 1 FROM unnest(%(rq_eids)s::uuid[]) AS qe(id) JOIN unit_entities ue"
    "  ON ue.agent_id = %(agent_id)s AND ue.unit_id = u.id AND ue.entity_id = qe.id) AS named,"
    " u.seq"
)


def _candidate(c: Mapping[str, Any]) -> Candidate:
    return Candidate(unit_from_row(c), float(c["similarity"]), float(c["text_score"]), bool(c["named"]),
                     int(c["seq"]), int(c["text_terms"]))


def _entry(c: Mapping[str, Any]) -> tuple[Candidate, list[int]]:
    return _candidate(c), list(c["channels"])


def term_stats(conn: psycopg.Connection, agent_id: str, terms: Sequence[str], *, common_units: int,
               common_share: float = 0.0, common_min: int = 0) -> TermStats:
    """Units of the agent N, and for each term PostgreSQL does not drop as a stop word: its stemmed
    tsquery and IDF = ln(1 + (N − df + 0.5) / (df + 0.5)). N and df come from ``term_df`` (kept
    by every unit insert), one primary-key lookup per lexeme, so the cost does not grow with the
    agent. A term is ``common`` when df >= min(common_units, max(common_min, common_share × N)).
    With no terms, N alone. One statement."""
    rows = conn.execute(
        "WITH t AS (SELECT DISTINCT ON (q) q, x FROM (SELECT to_tsquery('english', x)::text AS q, x"
        "           FROM unnest(%(t)s::text[]) AS x WHERE numnode(to_tsquery('english', x)) > 0) s ORDER BY q, x)"
        " SELECT (SELECT df FROM term_df WHERE agent_id = %(a)s AND lexeme = ''), t.q,"
        "  (SELECT min(coalesce(d.df, 0)) FROM unnest(tsvector_to_array(to_tsvector('english', t.x))) AS lx"
        "    LEFT JOIN term_df d ON d.agent_id = %(a)s AND d.lexeme = lx)"
        " FROM t RIGHT JOIN (SELECT 1) one ON true ORDER BY t.q",
        {"a": agent_id, "t": list(terms)},
    ).fetchall()
    total = int(rows[0][0] or 0) if rows else 0
    found = [(q, int(df)) for _, q, df in rows if q is not None and df and df > 0]
    threshold = min(common_units, max(common_min, common_share * total))
    return TermStats(
        units=total,
        queries=tuple(q for q, _ in found),
        idf=tuple(math.log(1.0 + (total - df + 0.5) / (df + 0.5)) for _, df in found),
        common=tuple(df >= threshold for _, df in found),
    )


def _select(cond: sql.Composable, extra: str, order: str) -> sql.Composable:
    """Pick the top rows in an inner query (index-friendly, no features computed), then compute the
    features for those rows only."""
    return sql.SQL(
        "SELECT " + _COLS + ", " + _FEATURES + " FROM (SELECT u.* FROM memory_units u WHERE {cond}" + extra
        + " ORDER BY " + order + " LIMIT %(rq_lim)s) u"
    ).format(cond=cond)


EXACT_ENTRIES_BELOW = OWN_INDEX_UNITS
"""Entry points of an agent with fewer units are ranked exactly (every candidate's distance, then
a top-k sort); from this size on the agent has its own HNSW index (``store.db.agent_indexes``). Exact
is as fast as the index at that size (measured: 0.8 ms at 1,000 units, where the index is no
faster), and deterministic — the approximate index may miss a few of the true top k,
which on small agents showed as run-to-run noise in the LoCoMo scores."""


@dataclass(frozen=True, slots=True)
class EntryLimits:
    """How many units each entry channel contributes (0: the channel is off); ``window`` is the
    ``[start, end)`` the query names, if any; ``exact``: rank by similarity without the HNSW index
    (see ``EXACT_ENTRIES_BELOW``)."""

    vector: int = 0
    fulltext: int = 0
    entity: int = 0
    time: int = 0
    window: tuple[datetime, datetime] | None = None
    exact: bool = False
    entity_index: bool = False  # rank the entity channel through the agent's own vector index
    time_index: bool = False  # rank the time channel through the agent's own vector index (``time_by_index``)
    entity_shortlist: int = 0  # rank only this many mentions nearest by their bits (``entity_shortlist``)
    mention_ids: tuple[UUID | None, UUID | None] = (None, None)  # exact entity channel: mentions in [lo, hi)


ENTITY_EXACT_MENTIONS = 10_000
ENTITY_INDEX_FACTOR = 5
"""See ``entity_by_index``."""

ENTITY_SHORTLIST_FROM = 1_000
ENTITY_SHORTLIST_MIN = 200
ENTITY_SHORTLIST_FACTOR = 20
"""See ``entity_shortlist``."""


def entity_shortlist(mentions: int, k: int, plain_filter: bool) -> int:
    """How many of the named entities' mentions the entity channel ranks exactly (0: all of them):
    from ``ENTITY_SHORTLIST_FROM`` mentions, the ``max(ENTITY_SHORTLIST_MIN, ENTITY_SHORTLIST_FACTOR
    × k)`` nearest the query by Hamming distance between binary-quantized embeddings, read from the
    mentions' index alone (migration 011: each mention row carries its unit's bits), so that only
    the shortlist's unit rows are probed. Exact ranking probes every mention's unit row, about
    3 µs each. Measured on ``bench/fleet.py``'s large agents, the channel's statement with its
    features (``entries``): for the six most mentioned people of the 50,000-unit agent (4,569–5,375
    mentions) 20–24 ms exactly, 6 ms with the shortlist; of the 20,000-unit one (1,859–2,173) 10–13
    against 4–6 ms; the same top 10 every time. A shortlist of 4 × k missed one of the exact top
    10 in a test of 300 similar sentences about one person, 10 × k did not (tests/integration/fleet).

    Only under a filter that keeps (nearly) every unit (``filters.is_plain``): a shortlist drawn
    before a restrictive filter could keep too few units that pass it."""
    if k <= 0 or mentions < ENTITY_SHORTLIST_FROM or not plain_filter:
        return 0
    return max(ENTITY_SHORTLIST_MIN, ENTITY_SHORTLIST_FACTOR * k)


def query_bits(vector: np.ndarray) -> str:
    """The query's embedding as pgvector's ``binary_quantize`` makes it: 1 where positive."""
    return "".join("1" if x > 0 else "0" for x in np.asarray(vector, dtype=np.float32).tolist())


def entity_by_index(units: int, mentions: int, k: int) -> bool:
    """Whether the entity channel's top ``k`` among the ``mentions`` units that mention the named
    entities is found through the agent's own vector index (filtered to those units, iterative
    scan) rather than by ranking every mention exactly: only for an entity too common to rank
    exactly cheaply (more than ``ENTITY_EXACT_MENTIONS`` mentions), of an agent large enough to
    have its own index (``agent_indexes.OWN_INDEX_UNITS``), when the mentions are a share of the
    agent large enough that the filtered scan stops early: mentions² ≥ ``ENTITY_INDEX_FACTOR`` ×
    k × units. The caller checks that the index exists (``agent_indexes.has_vector_index``):
    through the fleet-wide index the filter keeps almost nothing (measured before: 4.3 s median).

    Measured on a 20,000- and a 50,000-unit agent of a 1,000-agent fleet (``bench/fleet.py``),
    questions naming the entity: the exact ranking reads every mention, about 2 µs each (primary
    key probes in key order, ``_MENTIONS``): 9 ms for 3,708 mentions, 39 ms for 18,791; through
    the index 0.7–1.8 ms whenever mentions² ≥ 4 × k × units, but it is approximate, and on that
    bench's near-duplicate units the HNSW graph search can miss the best cluster altogether. Over
    60 questions: with the index from 1,000 mentions, 3 lost their answer; from 5,000, 1 (recall
    p95 2.3× plain vector p95); from 10,000 (the default), none, one reordered below a right top
    answer (p95 2.6–2.8×); all exact, 3.2–3.5×; before (a join from the mentions), 4.5–5.1×."""
    return (units >= OWN_INDEX_UNITS and k > 0 and mentions > ENTITY_EXACT_MENTIONS
            and mentions * mentions >= ENTITY_INDEX_FACTOR * k * units)


TIME_INDEX_FROM = 1_000
TIME_INDEX_FACTOR = 50
TIME_INDEX_POOL = 5
"""See ``time_by_index``."""


def time_by_index(units: int, window_units: int, k: int) -> bool:
    """Whether the time channel's top ``k`` among the ``window_units`` units whose event falls in
    the query's window is found through the agent's own vector index, filtered to the window
    (iterative scan; the first ``TIME_INDEX_POOL`` × k units it yields, then the best k of them
    exactly), rather than by ranking every unit of the window exactly: for an agent with its own
    index (``agent_indexes.OWN_INDEX_UNITS``), a window of at least ``TIME_INDEX_FROM`` units and
    a share of the agent large enough for the filtered scan to find the window's best:
    window_units² ≥ ``TIME_INDEX_FACTOR`` × k × units (a fifth of a 10,000-unit agent, a tenth of
    a 50,000-unit one). The caller checks that the index exists and that the filter keeps (nearly)
    every unit (``filters.is_plain``): the count is of the window alone.

    Why: the exact ranking reads every unit of the window, about 3 µs each. Measured on the
    10,083-unit agent of ``bench/latency.py``: "What hobbies did … pick up two years ago?" (a
    window of 3,464 units), search median 49 → 40 ms, interleaved with the exact ranking.
    Quality, 28 questions naming windows, the channel's top 10 through the index against exactly:
    on that agent the same 10 for 26 (8 and 9 of 10 for the others; without the pool, 19 of 28),
    the search's final top 10 the same for 27. On ``bench/fleet.py``'s 20,000- and 50,000-unit
    agents, whose units are 12 and 29 copies of one pool of sentences, a window of a year (3,160
    units, 6 % of the larger) lost half its top 10 through the index, pool or not: with this
    factor their windows stay exact (a factor of 5 let them through)."""
    return (units >= OWN_INDEX_UNITS and k > 0 and window_units >= TIME_INDEX_FROM
            and window_units * window_units >= TIME_INDEX_FACTOR * k * units)


def time_index_count(units: int, k: int) -> int:
    """How far ``window_units`` has to count for ``time_by_index`` to decide."""
    return max(TIME_INDEX_FROM, math.isqrt(TIME_INDEX_FACTOR * max(k, 0) * units) + 1)


def window_units(conn: psycopg.Connection, agent_id: str, window: tuple[datetime, datetime], upto: int) -> int:
    """The agent's units whose event falls in ``[start, end)``, counted up to ``upto`` (no filter):
    one range scan of the (agent, event date) index, bounded whatever the window."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM memory_units WHERE agent_id = %s AND event_date >= %s"
        " AND event_date < %s LIMIT %s) w", (agent_id, window[0], window[1], upto)).fetchone()
    return int(row[0]) if row else 0


_MENTIONS = (" AND u.id = ANY(ARRAY(SELECT ue.unit_id FROM unit_entities ue"
             " WHERE ue.agent_id = %(agent_id)s AND ue.entity_id = ANY(%(rq_eids)s::uuid[]){part}))")
_SHORTLIST = (" AND u.id = ANY(ARRAY(SELECT ue.unit_id FROM unit_entities ue"
              " WHERE ue.agent_id = %(agent_id)s AND ue.entity_id = ANY(%(rq_eids)s::uuid[])"
              " ORDER BY ue.bits <~> %(rq_bits)s::bit({dim}) LIMIT %(rq_short)s))")
_MENTIONS_FILTER = (" AND EXISTS (SELECT 1 FROM unit_entities ue WHERE ue.agent_id = u.agent_id AND ue.unit_id = u.id"
                    " AND ue.entity_id = ANY(%(rq_eids)s::uuid[]) OFFSET 0)")
"""The entity channel's subset: the mentions' unit ids as one array, probed in the primary key
in key order (PostgreSQL sorts the array; half the time of a join from the mentions, which
descends the key once per unit: 39 against 80 ms for 18,791 mentions), for the exact ranking (of
the mentions whose unit id is in ``EntryLimits.mention_ids``, so that halves of a large channel can
be ranked at once on two connections, ``recall.beside``); or
only the ``EntryLimits.entity_shortlist`` nearest by Hamming distance (``entity_shortlist``); or
tested per unit the vector index yields (``OFFSET 0`` keeps the planner from turning the test
into a join, which would read every mention and sort them, the exact ranking again)."""


def _branches(feats: Features, limits: EntryLimits, params: dict) -> list[tuple[str, str, str, int, int]]:
    """Per channel that is on: its name, extra condition, order, limit and pool (``entries``: 0, or
    how many units the agent's index yields before the best ``limit`` of them are ranked exactly);
    adds the parameters they use to ``params``."""
    branches: list[tuple[str, str, str, int, int]] = []
    # the same order either way; only the bare distance operator can be served by the HNSW index
    exact_order = "1 - (u.embedding <=> %(rq_q)s) DESC"
    nearest = exact_order if limits.exact else "u.embedding <=> %(rq_q)s"
    if limits.vector:
        branches.append(("vector", "", nearest, limits.vector, 0))
    match = [q for q, common in zip(feats.terms.queries, feats.terms.common) if not common]
    if limits.fulltext and match:
        matches = "ts_match_vq(u.tsv, %(rq_match)s::tsquery)" if limits.exact else "u.tsv @@ %(rq_match)s::tsquery"
        branches.append(("fulltext", " AND " + matches, _TEXT_SCORE + " DESC, " + nearest, limits.fulltext, 0))
        params["rq_match"] = " | ".join(f"({q})" for q in match)
    if limits.entity and feats.entity_ids:
        if limits.entity_shortlist:
            bits = query_bits(feats.query_vector)
            branches.append(("entity", _SHORTLIST.format(dim=len(bits)), exact_order + ", u.seq", limits.entity, 0))
            params["rq_bits"], params["rq_short"] = bits, limits.entity_shortlist
        elif limits.entity_index and not limits.exact:
            branches.append(("entity", _MENTIONS_FILTER, nearest, limits.entity, 0))
        else:
            lo, hi = limits.mention_ids
            part = ((" AND ue.unit_id >= %(rq_mlo)s" if lo is not None else "")
                    + (" AND ue.unit_id < %(rq_mhi)s" if hi is not None else ""))
            # ties by write order: the same top k whether ranked in one statement or in parts
            branches.append(("entity", _MENTIONS.format(part=part), exact_order + ", u.seq", limits.entity, 0))
            params["rq_mlo"], params["rq_mhi"] = lo, hi
    if limits.time and limits.window is not None:
        # exactly: ties by write order, as the entity channel's (the same input, the same top k
        # whatever the plan); through the agent's index: only the bare distance can be served by it
        by_index = limits.time_index and not limits.exact
        branches.append(("time", " AND u.event_date >= %(rq_ws)s AND u.event_date < %(rq_we)s",
                         nearest if by_index else exact_order + ", u.seq", limits.time,
                         TIME_INDEX_POOL * limits.time if by_index else 0))
        params["rq_ws"], params["rq_we"] = limits.window
    return branches


def entries(conn: psycopg.Connection, agent_id: str, feats: Features, flt: UnitFilter,
            limits: EntryLimits) -> list[tuple[Candidate, list[str]]]:
    """The entry points of every channel, each with the channels that found it (in the order
    vector, fulltext, entity, time), in ONE statement: a ``UNION ALL`` of one index-friendly top-k
    per channel, the features computed once per distinct unit.

    - ``vector``: top by cosine similarity (HNSW with iterative scan, filtered);
    - ``fulltext``: top by ``text_score`` among units matching any uncommon query term (GIN on
      ``tsv``), ties by similarity. When every term is common, none: such terms single out no unit
      (they still count in every candidate's ``text_score``), and matching them would read
      thousands of rows;
    - ``entity``: top by similarity among units mentioning an entity the query names;
    - ``time``: top by similarity among units whose event falls in the window.

    ``time`` ranks its units exactly unless ``limits.time_index`` (see ``time_by_index``), and so
    does ``entity`` unless ``limits.entity_index`` (see ``entity_by_index``): a selective subset,
    reached through B-tree indexes. Left to the
    planner, a large agent's entity branch was served by the fleet-wide HNSW index filtered to
    the entity's mentions, an iterative scan through the whole fleet's graph: 4.3 s median, 10 s
    p95 for the 20,000- and 50,000-unit agents of a 700,000-unit fleet (``bench/fleet.py``); with
    ``entity_index`` the caller has checked that the agent's own index exists, and the branch's
    order (the bare distance) lets only that index serve it.
    """
    cond, params = where_clause(agent_id, flt)
    params.update(feats.params())
    branches = _branches(feats, limits, params)
    if not branches:
        return []
    parts = []
    for i, (channel, extra, order, limit, pool) in enumerate(branches):
        if pool:  # the first ``pool`` units the index yields, then the best ``limit`` of them exactly
            part = ("(SELECT p.id, " + str(i) + " AS channel FROM (SELECT u.id, u.seq, u.embedding <=> %(rq_q)s AS d"
                    " FROM memory_units u WHERE {cond}" + extra + " ORDER BY " + order + " LIMIT %(rq_pool" + str(i)
                    + ")s) p ORDER BY p.d, p.seq LIMIT %(rq_lim" + str(i) + ")s)")
            params[f"rq_pool{i}"] = pool
        else:
            part = ("(SELECT u.id, " + str(i) + " AS channel FROM memory_units u WHERE {cond}" + extra
                    + " ORDER BY " + order + " LIMIT %(rq_lim" + str(i) + ")s)")
        parts.append(sql.SQL(part).format(cond=cond))
        params[f"rq_lim{i}"] = limit
    query = sql.SQL(
        "SELECT " + _COLS + ", " + _FEATURES + ", e.channels FROM"
        " (SELECT b.id, array_agg(b.channel ORDER BY b.channel) AS channels FROM ({branches}) b GROUP BY b.id) e"
        " JOIN memory_units u ON u.agent_id = %(agent_id)s AND u.id = e.id"
    ).format(branches=sql.SQL(" UNION ALL ").join(parts))
    names = [b[0] for b in branches]
    found = fetch(conn, query, params, _entry)
    return [(cand, [names[i] for i in channels]) for cand, channels in found]


def unit_features(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], feats: Features,
                  flt: UnitFilter) -> list[Candidate]:
    """The features of the given units (those passing the filter). One statement."""
    if not ids:
        return []
    cond, params = where_clause(agent_id, flt)
    query = _select(cond, " AND u.id = ANY(%(rq_ids)b)", "u.id")  # binary: no quoting per element
    return fetch(conn, query, {**params, **feats.params(), "rq_ids": list(ids), "rq_lim": len(ids)}, _candidate)


def pair_similarity(conn: psycopg.Connection, agent_id: str, a: UUID, b: UUID) -> float:
    """The cosine similarity of two units of one agent (0 when either is missing). One statement."""
    row = conn.execute(
        "SELECT (1 - (x.embedding <=> y.embedding))::float8 FROM memory_units x JOIN memory_units y"
        " ON y.agent_id = x.agent_id AND y.id = %(b)s WHERE x.agent_id = %(a)s AND x.id = %(x)s",
        {"a": agent_id, "x": a, "b": b}).fetchone()
    return float(row[0]) if row else 0.0
