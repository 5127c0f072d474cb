"""Entity administration behind the facade (beside ``keys``; not an ingestion stage): list (with
mention counts), get by name or id (with its units), rename, merge two (every mention moves; names
become aliases; nothing is lost), delete. Each is one transaction over ``store``; lookups by name
use the normalised name, then aliases."""

from __future__ import annotations

from uuid import UUID

import psycopg

from .errors import InvalidInputError, NotFoundError
from .model import Entity, EntityDetail
from .naming import normalize_name
from .store import Database
from .store.tables import entities as entity_sql
from .store.tables import units as unit_sql

__all__ = ["list_entities", "get_entity", "rename_entity", "merge_entities", "delete_entity"]


def _find(conn: psycopg.Connection, agent_id: str, key: UUID | str) -> Entity:
    found = entity_sql.lookup_entities(conn, agent_id, [str(key)])
    if not found:
        raise NotFoundError("entity", key, agent_id)
    return found[0]


def list_entities(db: Database, agent_id: str, *, limit: int, offset: int = 0, label: str | None = None) -> list[Entity]:
    with db.transaction() as conn:
        return entity_sql.list_entities(conn, agent_id, limit=limit, offset=offset, label=label)


def get_entity(db: Database, agent_id: str, key: UUID | str, *, unit_limit: int) -> EntityDetail:
    with db.transaction() as conn:
        entity = _find(conn, agent_id, key)
        ids = entity_sql.entity_unit_ids(conn, agent_id, entity.id, limit=unit_limit)
        units = unit_sql.get_units(conn, agent_id, ids)
    return EntityDetail(entity, tuple(units))


def rename_entity(db: Database, agent_id: str, key: UUID | str, new_name: str) -> Entity:
    norm = normalize_name(new_name)
    if not norm:
        raise InvalidInputError("new_name", "must contain letters or digits")
    with db.transaction() as conn:
        entity = _find(conn, agent_id, key)
        entity_sql.lock_entities(conn, agent_id)
        others = [e for e in entity_sql.lookup_entities(conn, agent_id, [new_name]) if normalize_name(e.name) == norm]
        other = others[0] if others else None
        if other is not None and other.id != entity.id:
            raise InvalidInputError("new_name", f"entity {other.name!r} already has this name; merge the two instead")
        renamed = entity_sql.rename_entity(conn, agent_id, entity.id, new_name.strip())
    assert renamed is not None
    return renamed


def merge_entities(db: Database, agent_id: str, keep: UUID | str, drop: UUID | str) -> Entity:
    with db.transaction() as conn:
        kept, dropped = _find(conn, agent_id, keep), _find(conn, agent_id, drop)
        if kept.id == dropped.id:
            raise InvalidInputError("drop", "is the same entity as keep")
        entity_sql.lock_entities(conn, agent_id)
        merged = entity_sql.merge_entities(conn, agent_id, kept.id, dropped.id)
    if merged is None:
        raise NotFoundError("entity", drop, agent_id)
    return merged


def delete_entity(db: Database, agent_id: str, key: UUID | str) -> None:
    with db.transaction() as conn:
        entity = _find(conn, agent_id, key)
        entity_sql.delete_entity(conn, agent_id, entity.id)
