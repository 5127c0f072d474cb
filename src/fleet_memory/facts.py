"""Facts that change, behind the facade: ``update`` (a new version of a unit, stored by the same
ingestion pipeline, superseding the old one in the same transaction) and ``history`` (every version
of a fact, oldest first). Supersession found at put time is ``ingest.supersede``; how recall treats
superseded units is ``recall.current``.

``update`` rules: the unit must exist and be current (a superseded unit already has a newer
version: update that one — ``history`` lists it); the new content inherits the old unit's context,
tags, user, session, source, speaker and memory type unless given; its event time is the clock's
now unless given, and never before the old unit's (refused: ``event_date``). The put's first unit
supersedes the old unit (reason ``update``), and the old unit's ``valid_until`` becomes the new
event time; a pair that would close a cycle or end a unit before it began is never recorded
(migration 016). A new content with nothing to store (only filler)
supersedes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from uuid import UUID

from .errors import InvalidInputError, NotFoundError
from .ingest import Ingestor
from .ingest.request import build_episode
from .model import MemoryUnit, PutResult
from .store import Database
from .store.tables import supersession as sup_sql
from .store.tables import units as unit_sql

__all__ = ["update", "history"]

_INHERITED = ("context", "tags", "user_id", "session_id", "source", "speaker")
_OPTIONS = frozenset(_INHERITED + ("event_date", "memory_type", "importance", "metadata", "format", "keep_code"))


def _current(db: Database, agent_id: str, unit_id: UUID) -> MemoryUnit:
    with db.transaction() as conn:
        found = unit_sql.get_units(conn, agent_id, [unit_id])
        if not found:
            raise NotFoundError("memory unit", unit_id, agent_id)
        newer = sup_sql.successors(conn, agent_id, [unit_id])
    if unit_id in newer:
        raise InvalidInputError("unit_id", f"{unit_id} was already superseded by {newer[unit_id]}",
                                "update the newest version (see history)")
    return found[0]


def update(db: Database, ingestor: Ingestor, limits: Any, now: Any, agent_id: str, unit_id: UUID, content: object,
           options: Mapping[str, Any]) -> PutResult:
    """Store ``content`` as the new version of ``unit_id``; see the module docstring."""
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise InvalidInputError(unknown[0], "is not an option of update", ", ".join(sorted(_OPTIONS)))
    old = _current(db, agent_id, unit_id)
    fields: dict[str, Any] = {k: getattr(old, k) for k in _INHERITED}
    fields["memory_type"] = old.memory_type.value
    fields.update(options)
    episode = build_episode(limits, now, agent_id, content, **fields)
    if episode.event_date < old.event_date:  # the old version would end before it began
        raise InvalidInputError("event_date", f"{episode.event_date.isoformat()} is before the version it replaces"
                                f" ({old.event_date.isoformat()})", "the old version's event time or later")
    return ingestor.put_many([replace(episode, corrects=unit_id)])[0]


def history(db: Database, agent_id: str, unit_id: UUID) -> list[MemoryUnit]:
    """Every version of the fact ``unit_id`` belongs to, oldest first."""
    with db.transaction() as conn:
        versions = sup_sql.history(conn, agent_id, unit_id)
    if not versions:
        raise NotFoundError("memory unit", unit_id, agent_id)
    return versions
