"""SQL for the lifecycle jobs on ``memory_units``: forgetting-curve batches, archive, restore,
consolidation candidates, importance halving, and the per-agent advisory lock.

Maintenance reads in keyset pages over the primary key ``(agent_id, id)`` (never OFFSET, never
the whole table) and locks each page with ``FOR UPDATE SKIP LOCKED``: two processes running
maintenance at once each take the rows the other is not holding, so every unit is examined and
archived by exactly one of them, and the end state is the one a single run leaves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
import psycopg

from ...model import MemoryUnit
from ..db.rows import as_real, as_vector, fetch, fetch_one
from ..db.routing import by_agent
from .units import UNIT_COLUMNS, unit_from_row

__all__ = [
    "CurveRow",
    "ClusterCandidate",
    "lock_batch",
    "archive",
    "restore",
    "consolidation_candidates",
    "consolidation_agents",
    "halve_importance",
    "lock_job",
    "lock_live",
]

_UUID_MIN = UUID(int=0)


@dataclass(frozen=True, slots=True)
class CurveRow:
    """What the forgetting curve needs of one unit."""

    agent_id: str
    id: UUID
    memory_type: str
    importance: float
    created_at: datetime
    last_accessed: datetime | None


@dataclass(frozen=True, slots=True)
class ClusterCandidate:
    """An episodic unit that consolidation may cluster."""

    id: UUID
    text: str
    tags: tuple[str, ...]
    event_date: datetime
    importance: float
    embedding: np.ndarray
    seq: int  # write order: among units of one time, the one written first comes first


_CURVE_COLUMNS = "agent_id, id, memory_type, importance, created_at, last_accessed"


def lock_batch(
    conn: psycopg.Connection, agent_id: str | None, after: tuple[str, UUID] | None, limit: int
) -> list[CurveRow]:
    """The next page of live (not archived) units after the keyset cursor ``after`` over
    ``(agent_id, id)``, locked for this transaction; rows another transaction holds are skipped
    (it is dealing with them). Every locking statement names one agent (``FOR UPDATE`` runs on
    one shard only, under Citus): across agents, the page is filled agent after agent, the next
    agent found by a multi-shard ``min`` that locks nothing."""
    if agent_id is not None:
        return _lock_page(conn, agent_id, None if after is None else after[1], limit)
    rows: list[CurveRow] = []
    current = None
    if after is not None:
        current = after[0]
        rows += _lock_page(conn, current, after[1], limit)
    while len(rows) < limit:
        current = conn.execute("SELECT min(agent_id) FROM memory_units WHERE archived_at IS NULL"
                               " AND (%(a)s::text IS NULL OR agent_id > %(a)s)", {"a": current}).fetchone()[0]
        if current is None:
            break
        rows += _lock_page(conn, current, None, limit - len(rows))
    return rows


def _lock_page(conn: psycopg.Connection, agent_id: str, after_id: UUID | None, limit: int) -> list[CurveRow]:
    rows = conn.execute(
        f"SELECT {_CURVE_COLUMNS} FROM memory_units WHERE agent_id = %s AND archived_at IS NULL"
        " AND (%s OR id > %s) ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED",
        (agent_id, after_id is None, after_id or _UUID_MIN, limit),
    ).fetchall()
    return [CurveRow(agent, uid, mtype, float(importance), created, accessed)
            for agent, uid, mtype, importance, created, accessed in rows]


def archive(conn: psycopg.Connection, keys: Sequence[tuple[str, UUID]], now: datetime) -> int:
    """Set ``archived_at`` on the given (agent_id, id) units that are not archived yet: one
    statement per agent (``store.db.routing``)."""
    done = 0
    for agent_id, at in by_agent(k[0] for k in keys).items():
        done += conn.execute(
            "UPDATE memory_units SET archived_at = %s WHERE agent_id = %s AND id = ANY(%s) AND archived_at IS NULL",
            (now, agent_id, [keys[p][1] for p in at]),
        ).rowcount
    return done


def restore(conn: psycopg.Connection, agent_id: str, unit_id: UUID, now: datetime) -> MemoryUnit | None:
    """Un-archive one unit and start a fresh forgetting curve (``last_accessed = now``)."""
    return fetch_one(
        conn,
        f"UPDATE memory_units SET archived_at = NULL, last_accessed = %s WHERE agent_id = %s AND id = %s"
        f" RETURNING {UNIT_COLUMNS}",
        (now, agent_id, unit_id),
        unit_from_row,
    )


_CANDIDATE_WHERE = (
    "u.agent_id = %(agent)s AND u.memory_type = 'episodic' AND u.archived_at IS NULL"
    " AND u.importance > %(min_importance)s"
    " AND NOT EXISTS (SELECT 1 FROM unit_sources s WHERE s.agent_id = u.agent_id AND s.source_id = u.id)"
)


def consolidation_candidates(
    conn: psycopg.Connection, agent_id: str, *, min_importance: float, limit: int
) -> list[ClusterCandidate]:
    """Live episodic units above ``min_importance`` that no semantic unit was made from yet,
    the most recent ``limit`` of them (of units at one time, the last written: not by random id,
    so the same store gives the same candidates)."""
    return fetch(
        conn,
        "SELECT u.id, u.text, u.tags, u.event_date, u.importance, u.embedding, u.seq FROM memory_units u"
        f" WHERE {_CANDIDATE_WHERE} ORDER BY u.event_date DESC, u.seq DESC LIMIT %(limit)s",
        {"agent": agent_id, "min_importance": min_importance, "limit": limit},
        _cluster_candidate,
    )


def _cluster_candidate(c: Mapping[str, Any]) -> ClusterCandidate:
    return ClusterCandidate(c["id"], c["text"], tuple(c["tags"] or ()), c["event_date"], as_real(c["importance"]),
                            as_vector(c["embedding"]), c["seq"])


def consolidation_agents(conn: psycopg.Connection, *, min_importance: float, min_count: int) -> list[str]:
    """Agents with at least ``min_count`` consolidation candidates."""
    rows = conn.execute(
        "SELECT u.agent_id FROM memory_units u WHERE u.memory_type = 'episodic' AND u.archived_at IS NULL"
        " AND u.importance > %(min_importance)s AND NOT EXISTS (SELECT 1 FROM unit_sources s"
        " WHERE s.agent_id = u.agent_id AND s.source_id = u.id)"
        " GROUP BY u.agent_id HAVING count(*) >= %(n)s ORDER BY u.agent_id",
        {"min_importance": min_importance, "n": min_count},
    ).fetchall()
    return [r[0] for r in rows]


def halve_importance(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], now: datetime) -> int:
    """importance × 0.5 for the given units, with ``importance_set_at = now``."""
    if not ids:
        return 0
    cur = conn.execute(
        "UPDATE memory_units SET importance = importance * 0.5, importance_set_at = %s"
        " WHERE agent_id = %s AND id = ANY(%s)",
        (now, agent_id, list(ids)),
    )
    return cur.rowcount


def lock_live(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> set[UUID]:
    """Lock the given units that still exist and are not archived; return their ids."""
    if not ids:
        return set()
    rows = conn.execute(
        "SELECT id FROM memory_units WHERE agent_id = %s AND id = ANY(%s) AND archived_at IS NULL"
        " ORDER BY id FOR UPDATE",
        (agent_id, list(ids)),
    ).fetchall()
    return {r[0] for r in rows}


def lock_job(conn: psycopg.Connection, job: str, agent_id: str) -> None:
    """A transaction-scoped advisory lock on (job, agent): a second process waits for the first."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"fleet_memory:{job}:{agent_id}",))
