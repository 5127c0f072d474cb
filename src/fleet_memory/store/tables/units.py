"""SQL for ``memory_units``: insert (with the term statistics, taken out again by ``uncount_terms``), read, list,
reinforce, stats (deleting units is ``deletes``).
Rows are mapped by column name (``unit_from_row``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from ...model import AgentStats, MemoryType, MemoryUnit, Provenance
from ..db.database import cached_plans
from ..db.rows import as_real, fetch, insert_rows
from .filters import UnitFilter, where_clause

__all__ = [
    "NewUnit",
    "UNIT_COLUMNS",
    "insert_units",
    "get_units",
    "list_units",
    "stats",
    "unit_from_row",
    "reinforce",
    "count_terms",
    "uncount_terms",
]

UNIT_COLUMNS = (
    "id, agent_id, text, memory_type, event_date, created_at, importance, access_count, last_accessed,"
    " context, document_id, tags, user_id, session_id, source, speaker, archived_at, importance_set_at, metadata,"
    " valid_until"
)


def _prefixed(alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in UNIT_COLUMNS.split(","))


@dataclass(frozen=True, slots=True)
class NewUnit(Provenance):
    """A unit ready to be written: everything but the database defaults."""

    id: UUID
    agent_id: str
    text: str
    embedding: np.ndarray
    event_date: datetime
    created_at: datetime
    memory_type: str = "episodic"
    importance: float = 0.5
    metadata: dict[str, Any] = field(default_factory=dict)


def unit_from_row(c: Mapping[str, Any]) -> MemoryUnit:
    """A ``MemoryUnit`` from a row's named columns (``UNIT_COLUMNS``; other columns are ignored)."""
    return MemoryUnit(
        id=c["id"], agent_id=c["agent_id"], text=c["text"], memory_type=MemoryType(c["memory_type"]),
        event_date=c["event_date"], created_at=c["created_at"], importance=as_real(c["importance"]),
        access_count=c["access_count"], last_accessed=c["last_accessed"], context=c["context"],
        document_id=c["document_id"], tags=tuple(c["tags"] or ()), user_id=c["user_id"],
        session_id=c["session_id"], source=c["source"], speaker=c["speaker"], archived_at=c["archived_at"],
        importance_set_at=c["importance_set_at"], metadata=c["metadata"] or {}, valid_until=c["valid_until"],
    )


_COLUMNS = (("id", "uuid"), ("agent_id", "text"), ("text", "text"), ("embedding", "vector"),
            ("event_date", "timestamptz"), ("created_at", "timestamptz"), ("memory_type", "text"),
            ("importance", "float4"), ("importance_set_at", "timestamptz"), ("context", "text"),
            ("document_id", "uuid"), ("tags", "text[]"), ("user_id", "text"), ("session_id", "text"),
            ("source", "text"), ("speaker", "text"), ("metadata", "jsonb"))


def insert_units(conn: psycopg.Connection, units: Sequence[NewUnit]) -> dict[str, int]:
    """Write the units (``rows.insert_rows``: one ``COPY`` for a batch); returns each agent's unit
    count after the write (from ``term_df``)."""
    if not units:
        return {}
    with cached_plans(conn):  # a foreign-key check per unit (its document)
        insert_rows(conn, "memory_units", _COLUMNS, [
            (u.id, u.agent_id, u.text, np.asarray(u.embedding, dtype=np.float32), u.event_date, u.created_at,
             MemoryType(u.memory_type).value, u.importance, u.created_at, u.context, u.document_id, list(u.tags),
             u.user_id, u.session_id, u.source, u.speaker, Jsonb(u.metadata))
            for u in units])
    by_agent: dict[str, list[UUID]] = {}
    for u in units:
        by_agent.setdefault(u.agent_id, []).append(u.id)
    return {agent: count_terms(conn, agent, ids) for agent, ids in sorted(by_agent.items())}


_LEXEMES = (  # each lexeme of the units ``ids`` with the number of them that have it; '' for every unit
    "SELECT lex, count(*) AS n FROM ("
    "   SELECT unnest(tsvector_to_array(u.tsv)) AS lex FROM memory_units u"
    "   WHERE u.agent_id = %(a)s AND u.id = ANY(%(ids)s)"
    "   UNION ALL SELECT '' FROM memory_units u WHERE u.agent_id = %(a)s AND u.id = ANY(%(ids)s)) t"
    " GROUP BY lex"
)


def count_terms(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> int:
    """Add the new units to the agent's lexeme document frequencies (``term_df``), in lexeme order
    so that concurrent puts lock rows in the same order; returns the agent's unit count after."""
    return conn.execute(
        "WITH counted AS ("
        " INSERT INTO term_df (agent_id, lexeme, df)"
        " SELECT %(a)s, lex, n FROM (" + _LEXEMES + ") c ORDER BY lex"
        " ON CONFLICT (agent_id, lexeme) DO UPDATE SET df = term_df.df + excluded.df"
        " RETURNING lexeme, df)"
        " SELECT df FROM counted WHERE lexeme = ''",
        {"a": agent_id, "ids": list(ids)},
    ).fetchone()[0]


def uncount_terms(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> None:
    """Take units about to be deleted out of ``term_df`` (their lexemes and the unit count),
    locking its rows in lexeme order as ``count_terms`` does, so a delete and a put never wait for
    each other crosswise. Before, deletions never lowered it: the BM25 statistics and the unit
    count that size rules read (own indexes, reads beside) kept every unit ever stored. A lexeme
    (or the unit count) that reaches 0 loses its row, so the statistics are those of a store that
    never had the deleted units (a forgotten user's words do not stay behind). Two statements."""
    if not ids:
        return
    emptied = [r[0] for r in conn.execute(
        "WITH gone AS (" + _LEXEMES + "),"
        " held AS (SELECT d.lexeme, g.n FROM term_df d JOIN gone g ON g.lex = d.lexeme"
        "   WHERE d.agent_id = %(a)s ORDER BY d.lexeme FOR UPDATE OF d)"
        " UPDATE term_df d SET df = d.df - h.n FROM held h WHERE d.agent_id = %(a)s AND d.lexeme = h.lexeme"
        " RETURNING d.lexeme, d.df",
        {"a": agent_id, "ids": list(ids)},
    ).fetchall() if r[1] <= 0]
    if emptied:
        conn.execute("DELETE FROM term_df WHERE agent_id = %s AND lexeme = ANY(%s) AND df <= 0", (agent_id, emptied))


def get_units(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> list[MemoryUnit]:
    """Units by id, in the order asked; missing ids are left out."""
    if not ids:
        return []
    units = fetch(conn, f"SELECT {UNIT_COLUMNS} FROM memory_units WHERE agent_id = %s AND id = ANY(%s)",
                  (agent_id, list(ids)), unit_from_row)
    by_id = {u.id: u for u in units}
    return [by_id[i] for i in ids if i in by_id]


def list_units(
    conn: psycopg.Connection, agent_id: str, *, limit: int, offset: int, flt: UnitFilter | None = None
) -> list[MemoryUnit]:
    cond, params = where_clause(agent_id, flt)
    query = sql.SQL(
        "SELECT " + _prefixed("u") + " FROM memory_units u WHERE {cond}"
        " ORDER BY u.event_date, u.created_at, u.seq LIMIT %(limit)s OFFSET %(offset)s"
    ).format(cond=cond)
    return fetch(conn, query, {**params, "limit": limit, "offset": offset}, unit_from_row)


def reinforce(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], now: datetime) -> None:
    """One statement: access_count + 1 (stopping at the column's limit) and last_accessed = now
    for every returned unit, unless ``now`` is before the start of its forgetting curve (the last
    access, or creation): a search dated in the past never moves the curve back, which would decay
    the unit for the years in between."""
    if ids:
        conn.execute(
            "UPDATE memory_units SET access_count = least(access_count, 2147483646) + 1,"
            " last_accessed = CASE WHEN %(now)s >= coalesce(last_accessed, created_at) THEN %(now)s"
            " ELSE last_accessed END"
            " WHERE agent_id = %(a)s AND id = ANY(%(ids)s)",
            {"now": now, "a": agent_id, "ids": list(ids)},
        )


def stats(conn: psycopg.Connection, agent_id: str) -> AgentStats:
    documents, units, archived, entities, links = conn.execute(
        "SELECT (SELECT count(*) FROM documents WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM memory_units WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM memory_units WHERE agent_id = %(a)s AND archived_at IS NOT NULL),"
        " (SELECT count(*) FROM entities WHERE agent_id = %(a)s),"
        " (SELECT count(*) FROM links WHERE agent_id = %(a)s)",
        {"a": agent_id},
    ).fetchone()
    by_type = dict(
        conn.execute(
            "SELECT memory_type, count(*) FROM memory_units WHERE agent_id = %s GROUP BY memory_type", (agent_id,)
        ).fetchall()
    )
    return AgentStats(agent_id, documents, units, archived, entities, links, by_type)
