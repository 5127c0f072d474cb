"""SQL for graph pictures: pick a bounded neighbourhood of units, read the stored links among
them, and the entity mentions from which entity links are derived (never stored).

Every query is bounded by the caller's node limit; nothing here reads a whole agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import psycopg

from ..model import MemoryUnit
from .units import UNIT_COLUMNS, get_units, row_to_unit

__all__ = ["select_units", "units_of_entity", "neighbour_ids", "links_among", "mentions_among", "find_entity_ids", "units_by_ids"]


def select_units(conn: psycopg.Connection, agent_id: str, *, since: datetime | None, until: datetime | None,
                 limit: int, include_archived: bool = False) -> list[MemoryUnit]:
    """The most recent ``limit`` units in the time range (most important first on ties)."""
    rows = conn.execute(
        f"SELECT {UNIT_COLUMNS} FROM memory_units WHERE agent_id = %(a)s"
        " AND (%(since)s::timestamptz IS NULL OR event_date >= %(since)s)"
        " AND (%(until)s::timestamptz IS NULL OR event_date <= %(until)s)"
        " AND (%(arch)s OR archived_at IS NULL)"
        " ORDER BY event_date DESC, importance DESC, id LIMIT %(limit)s",
        {"a": agent_id, "since": since, "until": until, "arch": include_archived, "limit": limit},
    ).fetchall()
    return [row_to_unit(r) for r in rows]


def find_entity_ids(conn: psycopg.Connection, agent_id: str, name_or_id: str) -> list[UUID]:
    """Entities whose id, name (case-insensitive) or one alias is ``name_or_id``."""
    rows = conn.execute(
        "SELECT id FROM entities WHERE agent_id = %(a)s AND (id::text = %(k)s OR lower(name) = lower(%(k)s)"
        " OR %(k)s = ANY(aliases)) ORDER BY mention_count DESC",
        {"a": agent_id, "k": name_or_id},
    ).fetchall()
    return [r[0] for r in rows]


def units_of_entity(conn: psycopg.Connection, agent_id: str, entity_ids: Sequence[UUID], limit: int) -> list[MemoryUnit]:
    rows = conn.execute(
        f"SELECT {UNIT_COLUMNS} FROM memory_units WHERE agent_id = %(a)s AND archived_at IS NULL AND id IN"
        " (SELECT unit_id FROM unit_entities WHERE agent_id = %(a)s AND entity_id = ANY(%(e)s))"
        " ORDER BY event_date DESC, id LIMIT %(limit)s",
        {"a": agent_id, "e": list(entity_ids), "limit": limit},
    ).fetchall()
    return [row_to_unit(r) for r in rows]


def neighbour_ids(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID], limit: int) -> list[UUID]:
    """Units one link away from ``ids`` (stored links, or a shared entity: weight 1.0), strongest first."""
    if not ids or limit <= 0:
        return []
    rows = conn.execute(
        "SELECT other, max(weight) AS w FROM ("
        " SELECT to_id AS other, weight FROM links WHERE agent_id = %(a)s AND from_id = ANY(%(ids)s)"
        " UNION ALL SELECT from_id, weight FROM links WHERE agent_id = %(a)s AND to_id = ANY(%(ids)s)"
        " UNION ALL SELECT o.unit_id, 1.0 FROM unit_entities s JOIN unit_entities o"
        " ON o.agent_id = s.agent_id AND o.entity_id = s.entity_id"
        " WHERE s.agent_id = %(a)s AND s.unit_id = ANY(%(ids)s)) n"
        " WHERE NOT other = ANY(%(ids)s) GROUP BY other ORDER BY w DESC, other LIMIT %(limit)s",
        {"a": agent_id, "ids": list(ids), "limit": limit},
    ).fetchall()
    return [r[0] for r in rows]


def units_by_ids(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> list[MemoryUnit]:
    return get_units(conn, agent_id, list(ids))


def links_among(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> list[tuple[UUID, UUID, str, float]]:
    """Stored (temporal, semantic) links with both ends in ``ids``."""
    rows = conn.execute(
        "SELECT from_id, to_id, kind, weight FROM links WHERE agent_id = %(a)s"
        " AND from_id = ANY(%(ids)s) AND to_id = ANY(%(ids)s) ORDER BY from_id, to_id, kind",
        {"a": agent_id, "ids": list(ids)},
    ).fetchall()
    return [(r[0], r[1], r[2], float(r[3])) for r in rows]


def mentions_among(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID]) -> list[tuple[UUID, UUID, str, str]]:
    """(unit_id, entity_id, entity name, label) for the units in ``ids``."""
    rows = conn.execute(
        "SELECT ue.unit_id, e.id, e.name, e.label FROM unit_entities ue JOIN entities e"
        " ON e.agent_id = ue.agent_id AND e.id = ue.entity_id"
        " WHERE ue.agent_id = %(a)s AND ue.unit_id = ANY(%(ids)s) ORDER BY e.name, ue.unit_id",
        {"a": agent_id, "ids": list(ids)},
    ).fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows]
