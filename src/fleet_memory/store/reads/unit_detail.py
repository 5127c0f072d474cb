"""What the memory browser shows around one unit: the entities it mentions, its stored source
document, and archiving it by hand (the maintenance job archives by the forgetting curve;
``tables.maintenance.restore`` undoes either)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from ...model import Entity, MemoryUnit
from ..db.rows import fetch, fetch_one
from ..tables.units import UNIT_COLUMNS, unit_from_row

__all__ = ["StoredDocument", "entities_of", "document_of", "archive_unit"]


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """A put's text as it was stored, before it was split into units."""

    id: UUID
    content: str
    context: str | None
    source: str | None
    speaker: str | None
    event_date: datetime
    created_at: datetime


def _entity(c: Mapping[str, Any]) -> Entity:
    return Entity(c["id"], c["agent_id"], c["name"], c["label"], tuple(c["aliases"] or ()), c["first_seen"],
                  c["last_seen"], int(c["mention_count"]))


def entities_of(conn: psycopg.Connection, agent_id: str, unit_id: UUID) -> list[Entity]:
    """The entities the unit mentions, by name."""
    return fetch(
        conn,
        "SELECT e.id, e.agent_id, e.name, e.label, e.aliases, e.first_seen, e.last_seen, e.mention_count"
        " FROM unit_entities ue JOIN entities e ON e.agent_id = ue.agent_id AND e.id = ue.entity_id"
        " WHERE ue.agent_id = %(a)s AND ue.unit_id = %(u)s ORDER BY e.name, e.id",
        {"a": agent_id, "u": unit_id}, _entity)


def document_of(conn: psycopg.Connection, agent_id: str, document_id: UUID) -> StoredDocument | None:
    return fetch_one(
        conn,
        "SELECT id, content, context, source, speaker, event_date, created_at FROM documents"
        " WHERE agent_id = %(a)s AND id = %(d)s",
        {"a": agent_id, "d": document_id},
        lambda c: StoredDocument(c["id"], c["content"], c["context"], c["source"], c["speaker"], c["event_date"],
                                 c["created_at"]))


def archive_unit(conn: psycopg.Connection, agent_id: str, unit_id: UUID, now: datetime) -> MemoryUnit | None:
    """Archive one unit (kept out of recall until restored); one archived already keeps its date.
    ``None`` when the unit does not exist."""
    return fetch_one(
        conn,
        f"UPDATE memory_units SET archived_at = coalesce(archived_at, %(now)s) WHERE agent_id = %(a)s AND id = %(u)s"
        f" RETURNING {UNIT_COLUMNS}",
        {"now": now, "a": agent_id, "u": unit_id}, unit_from_row)
