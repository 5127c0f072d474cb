"""SQL for graph pictures: pick a bounded set of units (a time range, or the mentions of
entities) and the entity mentions of the chosen units. Edges come from ``links.neighbours``, the
one definition of the graph's edges. Every query is bounded by the caller's node limit."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import psycopg

from ...model import MemoryUnit
from ..db.rows import fetch
from ..tables.units import UNIT_COLUMNS, unit_from_row

__all__ = ["select_units", "units_of_entity", "mentions_among"]


def select_units(conn: psycopg.Connection, agent_id: str, *, since: datetime | None, until: datetime | None,
                 limit: int, include_archived: bool = False) -> list[MemoryUnit]:
    """The most recent ``limit`` units in the time range (most important first on ties)."""
    return fetch(
        conn,
        f"SELECT {UNIT_COLUMNS} FROM memory_units WHERE agent_id = %(a)s"
        " AND (%(since)s::timestamptz IS NULL OR event_date >= %(since)s)"
        " AND (%(until)s::timestamptz IS NULL OR event_date <= %(until)s)"
        " AND (%(arch)s OR archived_at IS NULL)"
        " ORDER BY event_date DESC, importance DESC, id LIMIT %(limit)s",
        {"a": agent_id, "since": since, "until": until, "arch": include_archived, "limit": limit},
        unit_from_row,
    )


def units_of_entity(conn: psycopg.Connection, agent_id: str, entity_ids: Sequence[UUID], limit: int) -> list[MemoryUnit]:
    """The most recent ``limit`` live units mentioning any of the entities."""
    return fetch(
        conn,
        f"SELECT {UNIT_COLUMNS} FROM memory_units WHERE agent_id = %(a)s AND archived_at IS NULL AND id IN"
        " (SELECT unit_id FROM unit_entities WHERE agent_id = %(a)s AND entity_id = ANY(%(e)s))"
        " ORDER BY event_date DESC, id LIMIT %(limit)s",
        {"a": agent_id, "e": list(entity_ids), "limit": limit},
        unit_from_row,
    )


def mentions_among(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> list[tuple[UUID, UUID, str, str]]:
    """(unit_id, entity_id, entity name, label) for the units in ``ids``."""
    rows = conn.execute(
        "SELECT ue.unit_id, e.id, e.name, e.label FROM unit_entities ue JOIN entities e"
        " ON e.agent_id = ue.agent_id AND e.id = ue.entity_id"
        " WHERE ue.agent_id = %(a)s AND ue.unit_id = ANY(%(ids)s) ORDER BY e.name, ue.unit_id",
        {"a": agent_id, "ids": list(ids)},
    ).fetchall()
    return [(unit_id, entity_id, name, label) for unit_id, entity_id, name, label in rows]
