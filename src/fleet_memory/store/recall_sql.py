"""SQL for recall: term statistics, the four entry-point channels, name resolution, filtered
admission of units reached by activation, and the features every candidate is scored on.

Every query that returns candidates applies the request's ``UnitFilter`` inside its WHERE clause,
so filters act before ranking. Each returns rows with the same features, computed in SQL:

- ``similarity``  cosine similarity of the unit's embedding to the query embedding
- ``text_score``  BM25-like full-text score: the sum of the IDF of the query terms the unit's
  ``tsv`` matches (terms and IDFs come from ``term_stats``; no term frequency, units are sentences)
- ``named``       the unit mentions an entity the query names (its speaker included)

Adjacency for the walk: stored temporal and semantic links come from ``store.links.neighbours``
(given the request's filter, so only units passing it come back); entity links come from ``entity_neighbours``,
which derives them from ``unit_entities`` like ``neighbours`` does but skips hub entities (an
entity mentioned by more than ``max_mentions`` units says little about any one of them, and its
fan-out would flood the thinking budget with arbitrary units), prefers the mentions nearest in
time to the source unit, and applies the filter itself. Each is one statement per hop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

import numpy as np
import psycopg
from psycopg import sql

from ..model import MemoryUnit
from .filters import UnitFilter, where_clause
from .units import UNIT_COLUMNS, row_to_unit

__all__ = [
    "Candidate",
    "Features",
    "TermStats",
    "term_stats",
    "resolve_names",
    "vector_entries",
    "fulltext_entries",
    "named_entries",
    "window_entries",
    "entity_neighbours",
    "candidates",
]

_COLS = ", ".join(f"u.{c.strip()}" for c in UNIT_COLUMNS.split(","))


@dataclass(frozen=True, slots=True)
class Candidate:
    unit: MemoryUnit
    similarity: float
    text_score: float
    named: bool


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
_FEATURES = (
    "(1 - (u.embedding <=> %(rq_q)s))::float8 AS similarity, " + _TEXT_SCORE + " AS text_score,"
    " EXISTS (SELECT 1 FROM unit_entities ue"
    "  WHERE ue.agent_id = u.agent_id AND ue.unit_id = u.id AND ue.entity_id = ANY(%(rq_eids)s::uuid[])) AS named"
)


def _rows(conn: psycopg.Connection, query: sql.Composable, params: dict) -> list[Candidate]:
    rows = conn.execute(query, params).fetchall()
    return [Candidate(row_to_unit(r), float(r[19]), float(r[20]), bool(r[21])) for r in rows]


def term_stats(conn: psycopg.Connection, agent_id: str, terms: Sequence[str], *, common_units: int) -> TermStats:
    """Units of the agent N, and for each term PostgreSQL does not drop as a stop word: its stemmed
    tsquery and IDF = ln(1 + (N − df + 0.5) / (df + 0.5)). N and df come from ``term_df`` (kept
    by every unit insert), one primary-key lookup per lexeme, so the cost does not grow with the
    agent; a term with df >= ``common_units`` is ``common``. One statement."""
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
    return TermStats(
        units=total,
        queries=tuple(q for q, _ in found),
        idf=tuple(math.log(1.0 + (total - df + 0.5) / (df + 0.5)) for _, df in found),
        common=tuple(df >= common_units for _, df in found),
    )


def resolve_names(
    conn: psycopg.Connection, agent_id: str, normalized: Sequence[str], surfaces: Sequence[str]
) -> list[tuple[UUID, str, int]]:
    """Entities ``(id, name, mention_count)`` whose normalised name is in ``normalized`` or that
    have an alias in ``surfaces`` (speakers are entities too: ingestion records each unit's speaker
    as a PERSON mention). One statement, on the unique name index and the GIN alias index."""
    if not normalized:
        return []
    rows = conn.execute(
        "SELECT e.id, e.name, e.mention_count FROM entities e WHERE e.agent_id = %(a)s"
        " AND (e.normalized_name = ANY(%(n)s) OR e.aliases && %(s)s)",
        {"a": agent_id, "n": list(normalized), "s": list(surfaces)},
    ).fetchall()
    return [(eid, name, int(count)) for eid, name, count in rows]


def _select(cond: sql.Composable, extra: str, order: str) -> sql.Composable:
    """Pick the top rows in an inner query (index-friendly, no features computed), then compute the
    features for those rows only."""
    return sql.SQL(
        "SELECT " + _COLS + ", " + _FEATURES + " FROM (SELECT u.* FROM memory_units u WHERE {cond}" + extra
        + " ORDER BY " + order + " LIMIT %(rq_lim)s) u"
    ).format(cond=cond)


def vector_entries(conn: psycopg.Connection, agent_id: str, feats: Features, flt: UnitFilter, *,
                   limit: int) -> list[Candidate]:
    """Top ``limit`` by cosine similarity (HNSW with iterative scan, filtered)."""
    cond, params = where_clause(agent_id, flt)
    return _rows(conn, _select(cond, "", "u.embedding <=> %(rq_q)s"), {**params, **feats.params(), "rq_lim": limit})


def fulltext_entries(conn: psycopg.Connection, agent_id: str, feats: Features, flt: UnitFilter, *,
                     limit: int) -> list[Candidate]:
    """Top ``limit`` by ``text_score`` among units matching any uncommon query term, through the GIN
    index on ``tsv``. When every term is common, nothing: such terms single out no unit (they still
    count in every candidate's ``text_score``), and matching them would read thousands of rows."""
    terms = feats.terms
    match = [q for q, common in zip(terms.queries, terms.common) if not common]
    if not match:
        return []
    cond, params = where_clause(agent_id, flt)
    query = _select(cond, " AND u.tsv @@ %(rq_match)s::tsquery", _TEXT_SCORE + " DESC, u.embedding <=> %(rq_q)s")
    tsq = " | ".join(f"({q})" for q in match)
    return _rows(conn, query, {**params, **feats.params(), "rq_lim": limit, "rq_match": tsq})


def named_entries(conn: psycopg.Connection, agent_id: str, feats: Features, flt: UnitFilter, *,
                  limit: int) -> list[Candidate]:
    """Top ``limit`` by similarity among units mentioning an entity the query names."""
    if not feats.entity_ids:
        return []
    cond, params = where_clause(agent_id, flt)
    extra = (" AND u.id IN (SELECT ue.unit_id FROM unit_entities ue"
             " WHERE ue.agent_id = %(agent_id)s AND ue.entity_id = ANY(%(rq_eids)s::uuid[]))")
    return _rows(conn, _select(cond, extra, "u.embedding <=> %(rq_q)s"), {**params, **feats.params(), "rq_lim": limit})


def window_entries(conn: psycopg.Connection, agent_id: str, feats: Features, flt: UnitFilter, *,
                   start: datetime, end: datetime, limit: int) -> list[Candidate]:
    """Top ``limit`` by similarity among units whose event falls in ``[start, end)``."""
    cond, params = where_clause(agent_id, flt)
    extra = " AND u.event_date >= %(rq_ws)s AND u.event_date < %(rq_we)s"
    return _rows(conn, _select(cond, extra, "u.embedding <=> %(rq_q)s"),
                 {**params, **feats.params(), "rq_lim": limit, "rq_ws": start, "rq_we": end})


def entity_neighbours(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], flt: UnitFilter, *,
                      fanout: int, max_mentions: int) -> list[tuple[UUID, UUID, float]]:
    """Derived entity links ``(from, to, 1.0)`` of ``ids``: for each entity a unit mentions that at
    most ``max_mentions`` units mention, the ``fanout`` other mentioning units nearest in time that
    pass the filter. Bounded by ``len(ids) × entities per unit × max_mentions`` index reads. One
    statement."""
    if not ids or fanout <= 0:
        return []
    cond, params = where_clause(agent_id, flt)
    query = sql.SQL(
        "SELECT DISTINCT s.unit_id, m.id, 1.0::float8 FROM unit_entities s"
        " JOIN entities e ON e.agent_id = s.agent_id AND e.id = s.entity_id AND e.mention_count <= %(rq_maxm)s"
        " JOIN memory_units su ON su.agent_id = s.agent_id AND su.id = s.unit_id"
        " CROSS JOIN LATERAL (SELECT u.id FROM unit_entities ue"
        "   JOIN memory_units u ON u.agent_id = ue.agent_id AND u.id = ue.unit_id"
        "   WHERE ue.agent_id = s.agent_id AND ue.entity_id = s.entity_id AND ue.unit_id <> s.unit_id AND {cond}"
        "   ORDER BY abs(extract(epoch FROM u.event_date - su.event_date)), u.id LIMIT %(rq_fan)s) m"
        " WHERE s.agent_id = %(agent_id)s AND s.unit_id = ANY(%(rq_ids)s)"
    ).format(cond=cond)
    rows = conn.execute(query, {**params, "rq_ids": list(ids), "rq_fan": fanout, "rq_maxm": max_mentions}).fetchall()
    return [(a, b, float(w)) for a, b, w in rows]


def candidates(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], feats: Features,
               flt: UnitFilter) -> list[Candidate]:
    """The features of the given units (those passing the filter). One statement."""
    if not ids:
        return []
    cond, params = where_clause(agent_id, flt)
    query = _select(cond, " AND u.id = ANY(%(rq_ids)s)", "u.id")
    return _rows(conn, query, {**params, **feats.params(), "rq_ids": list(ids), "rq_lim": len(ids)})
