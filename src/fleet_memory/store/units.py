"""SQL for ``memory_units``: insert, read, list, delete, vector top-k, stats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from ..model import AgentStats, MemoryType, MemoryUnit
from .filters import UnitFilter, where_clause

__all__ = [
    "NewUnit",
    "UNIT_COLUMNS",
    "insert_units",
    "get_units",
    "delete_unit",
    "list_units",
    "vector_search",
    "stats",
    "row_to_unit",
    "reinforce",
    "count_terms",
]

UNIT_COLUMNS = (
    "id, agent_id, text, memory_type, event_date, created_at, importance, access_count, last_accessed,"
    " context, document_id, tags, user_id, session_id, source, speaker, archived_at, importance_set_at, metadata"
)


def _prefixed(alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in UNIT_COLUMNS.split(","))


@dataclass(frozen=True, slots=True)
class NewUnit:
    """A unit ready to be written: everything but the database defaults."""

    id: UUID
    agent_id: str
    text: str
    embedding: np.ndarray
    event_date: datetime
    created_at: datetime
    memory_type: str = "episodic"
    importance: float = 0.5
    context: str | None = None
    document_id: UUID | None = None
    tags: tuple[str, ...] = ()
    user_id: str | None = None
    session_id: str | None = None
    source: str | None = None
    speaker: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def row_to_unit(row: Sequence[Any]) -> MemoryUnit:
    (uid, agent_id, text, mtype, event_date, created_at, importance, access_count, last_accessed, context,
     document_id, tags, user_id, session_id, source, speaker, archived_at, importance_set_at, metadata) = row[:19]
    return MemoryUnit(
        id=uid, agent_id=agent_id, text=text, memory_type=MemoryType(mtype), event_date=event_date,
        created_at=created_at, importance=float(importance), access_count=access_count,
        last_accessed=last_accessed, context=context, document_id=document_id, tags=tuple(tags or ()),
        user_id=user_id, session_id=session_id, source=source, speaker=speaker, archived_at=archived_at,
        importance_set_at=importance_set_at, metadata=metadata or {},
    )


def insert_units(conn: psycopg.Connection, units: Sequence[NewUnit]) -> dict[str, int]:
    """Write the units; returns each agent's unit count after the write (from ``term_df``)."""
    if not units:
        return {}
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO memory_units (id, agent_id, text, embedding, event_date, created_at, memory_type,"
            " importance, importance_set_at, context, document_id, tags, user_id, session_id, source, speaker, metadata)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (u.id, u.agent_id, u.text, np.asarray(u.embedding, dtype=np.float32), u.event_date, u.created_at,
                 u.memory_type, u.importance, u.created_at, u.context, u.document_id, list(u.tags), u.user_id,
                 u.session_id, u.source, u.speaker, Jsonb(u.metadata))
                for u in units
            ],
        )
    by_agent: dict[str, list[UUID]] = {}
    for u in units:
        by_agent.setdefault(u.agent_id, []).append(u.id)
    return {agent: count_terms(conn, agent, ids) for agent, ids in sorted(by_agent.items())}


def count_terms(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> int:
    """Add the new units to the agent's lexeme document frequencies (``term_df``), in lexeme order
    so that concurrent puts lock rows in the same order; returns the agent's unit count after."""
    return conn.execute(
        "WITH counted AS ("
        " INSERT INTO term_df (agent_id, lexeme, df)"
        " SELECT %(a)s, lex, count(*) FROM ("
        "   SELECT unnest(tsvector_to_array(u.tsv)) AS lex FROM memory_units u"
        "   WHERE u.agent_id = %(a)s AND u.id = ANY(%(ids)s)"
        "   UNION ALL SELECT '' FROM memory_units u WHERE u.agent_id = %(a)s AND u.id = ANY(%(ids)s)) t"
        " GROUP BY lex ORDER BY lex"
        " ON CONFLICT (agent_id, lexeme) DO UPDATE SET df = term_df.df + excluded.df"
        " RETURNING lexeme, df)"
        " SELECT df FROM counted WHERE lexeme = ''",
        {"a": agent_id, "ids": list(ids)},
    ).fetchone()[0]


def get_units(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> list[MemoryUnit]:
    """Units by id, in the order asked; missing ids are left out."""
    if not ids:
        return []
    rows = conn.execute(
        f"SELECT {UNIT_COLUMNS} FROM memory_units WHERE agent_id = %s AND id = ANY(%s)", (agent_id, list(ids))
    ).fetchall()
    by_id = {row[0]: row_to_unit(row) for row in rows}
    return [by_id[i] for i in ids if i in by_id]


def get_embeddings(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> dict[UUID, np.ndarray]:
    rows = conn.execute(
        "SELECT id, embedding FROM memory_units WHERE agent_id = %s AND id = ANY(%s)", (agent_id, list(ids))
    ).fetchall()
    return {uid: np.asarray(emb, dtype=np.float32) for uid, emb in rows}


def delete_unit(conn: psycopg.Connection, agent_id: str, unit_id: UUID) -> bool:
    cur = conn.execute("DELETE FROM memory_units WHERE agent_id = %s AND id = %s", (agent_id, unit_id))
    return cur.rowcount > 0


def list_units(
    conn: psycopg.Connection, agent_id: str, *, limit: int, offset: int, flt: UnitFilter | None = None
) -> list[MemoryUnit]:
    cond, params = where_clause(agent_id, flt)
    query = sql.SQL(
        "SELECT " + _prefixed("u") + " FROM memory_units u WHERE {cond}"
        " ORDER BY u.event_date, u.created_at, u.id LIMIT %(limit)s OFFSET %(offset)s"
    ).format(cond=cond)
    rows = conn.execute(query, {**params, "limit": limit, "offset": offset}).fetchall()
    return [row_to_unit(r) for r in rows]


def vector_search(
    conn: psycopg.Connection, agent_id: str, embedding: np.ndarray, *, limit: int, flt: UnitFilter | None = None
) -> list[tuple[MemoryUnit, float]]:
    """Top ``limit`` units by cosine similarity, through the HNSW index (iterative scan)."""
    cond, params = where_clause(agent_id, flt)
    query = sql.SQL(
        "SELECT " + _prefixed("u") + ", 1 - (u.embedding <=> %(q)s) AS similarity FROM memory_units u"
        " WHERE {cond} ORDER BY u.embedding <=> %(q)s LIMIT %(limit)s"
    ).format(cond=cond)
    rows = conn.execute(query, {**params, "q": np.asarray(embedding, dtype=np.float32), "limit": limit}).fetchall()
    return [(row_to_unit(r), float(r[19])) for r in rows]


def reinforce(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], now: datetime) -> None:
    """One statement: access_count + 1 and last_accessed = now for every returned unit."""
    if ids:
        conn.execute(
            "UPDATE memory_units SET access_count = access_count + 1, last_accessed = %s"
            " WHERE agent_id = %s AND id = ANY(%s)",
            (now, agent_id, list(ids)),
        )


def stats(conn: psycopg.Connection, agent_id: str) -> AgentStats:
    row = conn.execute(
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
    return AgentStats(agent_id, row[0], row[1], row[2], row[3], row[4], by_type)
