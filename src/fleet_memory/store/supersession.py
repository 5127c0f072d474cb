"""SQL for facts that change: which older units a new unit may supersede, recording a supersession,
reading successors and a unit's history, and reopening units whose successor is deleted.

Storage (migration 008): ``supersessions`` holds one row per superseded unit, ``old_id → new_id``
(a unit has at most one successor; one successor may end several units), with the reason
(``rule:<slot>``, ``llm`` or ``update``). The superseded unit's ``memory_units.valid_until`` is the
successor's event time, so filters (``as_of``, ``include_superseded``) read one column of the row
they already read. Deleting either unit removes the pair (foreign keys cascade); the delete paths
call ``reopen`` first so that a unit whose successor is deleted is current again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import numpy as np
import psycopg

from ..model import MemoryUnit
from .links import EXACT_BELOW, agent_size
from .rows import fetch
from .units import UNIT_COLUMNS, unit_from_row

__all__ = ["Candidate", "candidates", "supersede", "successors", "history", "reopen", "reopen_document"]

_COLS = ", ".join(f"o.{c.strip()}" for c in UNIT_COLUMNS.split(","))


@dataclass(frozen=True, slots=True)
class Candidate:
    """An existing, still current unit close to a new one (``new_id``), with their cosine."""

    new_id: UUID
    unit: MemoryUnit
    similarity: float


def candidates(conn: psycopg.Connection, agent_id: str, new: Sequence[tuple[UUID, np.ndarray]], *,
               min_similarity: float, k: int, exact_below: int = EXACT_BELOW) -> list[Candidate]:
    """For each new unit, the ``k`` most similar other units of the agent that are current
    (``valid_until`` null), not archived and at least ``min_similarity`` close. ONE statement for
    the batch (a LATERAL top-k per new unit). An agent of fewer than ``exact_below`` units is
    scanned exactly (deterministic, and cheaper than a filtered walk of the shared HNSW index);
    a larger one through the HNSW index, as semantic links are (``store.links``): an exact scan
    read every row of a 50,000-unit agent for each new unit stating a slot."""
    if not new:
        return []
    exact = agent_size(conn, agent_id, exact_below) < exact_below
    order = "similarity DESC, o.seq" if exact else "o.embedding <=> n.emb"
    if not exact:
        conn.execute("SET LOCAL enable_sort = off")  # the planner takes the index order
    try:
        rows = fetch(
            conn,
            "SELECT n.id AS new_id, " + _COLS + ", o.similarity"
            " FROM unnest(%(ids)s::uuid[], %(embs)s::vector[]) AS n(id, emb)"
            " CROSS JOIN LATERAL (SELECT o.*, (1 - (o.embedding <=> n.emb))::float8 AS similarity"
            "   FROM memory_units o WHERE o.agent_id = %(a)s AND o.id <> n.id"
            "   AND o.valid_until IS NULL AND o.archived_at IS NULL"
            f"   ORDER BY {order} LIMIT %(k)s) o"
            " WHERE o.similarity >= %(min)s",
            {"a": agent_id, "ids": [i for i, _ in new], "k": k, "min": min_similarity,
             "embs": [np.asarray(e, dtype=np.float32) for _, e in new]},
            lambda r: Candidate(r["new_id"], unit_from_row(r), float(r["similarity"])),
        )
    finally:
        if not exact:
            conn.execute("SET LOCAL enable_sort = on")
    return rows


def supersede(conn: psycopg.Connection, agent_id: str, pairs: Sequence[tuple[UUID, UUID, str]],
              now: datetime) -> int:
    """Record ``(old_id, new_id, reason)`` pairs: a row each (a unit already superseded keeps its
    first successor) and the old unit's ``valid_until`` = the new unit's event time. Returns the
    pairs recorded. Two statements."""
    if not pairs:
        return 0
    recorded = conn.execute(
        "INSERT INTO supersessions (agent_id, old_id, new_id, reason, created_at)"
        " SELECT %(a)s, p.o, p.n, p.r, %(now)s FROM unnest(%(o)s::uuid[], %(n)s::uuid[], %(r)s::text[]) AS p(o, n, r)"
        " ON CONFLICT (agent_id, old_id) DO NOTHING RETURNING old_id, new_id",
        {"a": agent_id, "now": now, "o": [p[0] for p in pairs], "n": [p[1] for p in pairs],
         "r": [p[2] for p in pairs]},
    ).fetchall()
    if recorded:
        conn.execute(
            "UPDATE memory_units o SET valid_until = n.event_date"
            " FROM unnest(%(o)s::uuid[], %(n)s::uuid[]) AS p(o, n)"
            " JOIN memory_units n ON n.agent_id = %(a)s AND n.id = p.n"
            " WHERE o.agent_id = %(a)s AND o.id = p.o",
            {"a": agent_id, "o": [r[0] for r in recorded], "n": [r[1] for r in recorded]},
        )
    return len(recorded)


def successors(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> dict[UUID, UUID]:
    """``{old_id: new_id}`` for those of ``ids`` that were superseded. One statement."""
    if not ids:
        return {}
    rows = conn.execute("SELECT old_id, new_id FROM supersessions WHERE agent_id = %s AND old_id = ANY(%s)",
                        (agent_id, list(ids))).fetchall()
    return {o: n for o, n in rows}


def history(conn: psycopg.Connection, agent_id: str, unit_id: UUID) -> list[MemoryUnit]:
    """Every version of the fact ``unit_id`` belongs to — its predecessors (transitively), itself and
    its successors — oldest first (event time, then write order). One statement; empty when the
    unit does not exist."""
    return fetch(
        conn,
        "WITH RECURSIVE back(id) AS (SELECT %(u)s::uuid UNION"
        "   SELECT s.old_id FROM supersessions s JOIN back b ON s.agent_id = %(a)s AND s.new_id = b.id),"
        " fwd(id) AS (SELECT %(u)s::uuid UNION"
        "   SELECT s.new_id FROM supersessions s JOIN fwd f ON s.agent_id = %(a)s AND s.old_id = f.id)"
        " SELECT " + _COLS + " FROM memory_units o"
        " WHERE o.agent_id = %(a)s AND o.id IN (SELECT id FROM back UNION SELECT id FROM fwd)"
        " ORDER BY o.event_date, o.seq",
        {"a": agent_id, "u": unit_id},
        unit_from_row,
    )


def reopen(conn: psycopg.Connection, agent_id: str, deleted: Sequence[UUID]) -> int:
    """Before ``deleted`` units go: the units they superseded are current again. One statement."""
    if not deleted:
        return 0
    return conn.execute(
        "UPDATE memory_units SET valid_until = NULL WHERE agent_id = %(a)s AND NOT id = ANY(%(d)s)"
        " AND id IN (SELECT old_id FROM supersessions WHERE agent_id = %(a)s AND new_id = ANY(%(d)s))",
        {"a": agent_id, "d": list(deleted)},
    ).rowcount


def reopen_document(conn: psycopg.Connection, agent_id: str, document_id: UUID) -> int:
    """``reopen`` for every unit of a document about to be deleted. One statement."""
    return conn.execute(
        "UPDATE memory_units SET valid_until = NULL WHERE agent_id = %(a)s"
        " AND document_id IS DISTINCT FROM %(d)s"
        " AND id IN (SELECT s.old_id FROM supersessions s JOIN memory_units n"
        "   ON n.agent_id = s.agent_id AND n.id = s.new_id WHERE s.agent_id = %(a)s AND n.document_id = %(d)s)",
        {"a": agent_id, "d": document_id},
    ).rowcount
