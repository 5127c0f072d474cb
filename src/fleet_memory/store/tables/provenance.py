"""SQL for consolidation provenance (``unit_sources``: which episodic units a semantic unit was
made from) and for the entities a group of units shares."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import psycopg

from ...model import MemoryUnit
from ..db.rows import fetch
from .units import UNIT_COLUMNS, unit_from_row

__all__ = ["add_sources", "already_sources", "sources_of", "shared_entities", "add_mentions"]


def add_sources(conn: psycopg.Connection, agent_id: str, unit_id: UUID, source_ids: Sequence[UUID],
                now: datetime) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO unit_sources (agent_id, unit_id, source_id, created_at) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            [(agent_id, unit_id, sid, now) for sid in source_ids],
        )


def already_sources(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> set[UUID]:
    """Which of ``ids`` some unit was already consolidated from."""
    if not ids:
        return set()
    rows = conn.execute(
        "SELECT DISTINCT source_id FROM unit_sources WHERE agent_id = %s AND source_id = ANY(%s)",
        (agent_id, list(ids)),
    ).fetchall()
    return {r[0] for r in rows}


def sources_of(conn: psycopg.Connection, agent_id: str, unit_id: UUID) -> list[MemoryUnit]:
    """The units ``unit_id`` was consolidated from, oldest event first (archived ones included)."""
    cols = ", ".join(f"u.{c.strip()}" for c in UNIT_COLUMNS.split(","))
    return fetch(
        conn,
        f"SELECT {cols} FROM unit_sources s JOIN memory_units u ON u.agent_id = s.agent_id AND u.id = s.source_id"
        " WHERE s.agent_id = %s AND s.unit_id = %s ORDER BY u.event_date, u.id",
        (agent_id, unit_id),
        unit_from_row,
    )


def shared_entities(
    conn: psycopg.Connection, agent_id: str, unit_ids: Sequence[UUID], *, min_units: int, limit: int
) -> list[tuple[UUID, str, int]]:
    """Entities mentioned by at least ``min_units`` of ``unit_ids``: (id, name, units), most shared first."""
    if not unit_ids:
        return []
    rows = conn.execute(
        "SELECT e.id, e.name, count(DISTINCT ue.unit_id) AS n FROM unit_entities ue"
        " JOIN entities e ON e.agent_id = ue.agent_id AND e.id = ue.entity_id"
        " WHERE ue.agent_id = %s AND ue.unit_id = ANY(%s)"
        " GROUP BY e.id, e.name HAVING count(DISTINCT ue.unit_id) >= %s"
        " ORDER BY n DESC, e.name LIMIT %s",
        (agent_id, list(unit_ids), min_units, limit),
    ).fetchall()
    return [(entity_id, name, int(n)) for entity_id, name, n in rows]


def add_mentions(conn: psycopg.Connection, agent_id: str, unit_id: UUID, entity_ids: Sequence[UUID]) -> None:
    """Record that ``unit_id`` mentions the given entities (so entity recall reaches it), keeping
    the entities' mention counts in step."""
    if not entity_ids:
        return
    conn.execute(
        "WITH added AS (INSERT INTO unit_entities (agent_id, unit_id, entity_id)"
        " SELECT %(a)s, %(u)s, e FROM unnest(%(e)s::uuid[]) AS e ON CONFLICT DO NOTHING RETURNING entity_id)"
        " UPDATE entities SET mention_count = mention_count + 1"
        " WHERE agent_id = %(a)s AND id IN (SELECT entity_id FROM added)",
        {"a": agent_id, "u": unit_id, "e": list(entity_ids)},
    )
