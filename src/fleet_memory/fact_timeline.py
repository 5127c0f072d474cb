"""Facts that change, by holder (``FleetMemory.fact_timeline``): for an entity, or for one user, each
line of versions of a fact (``facts``: a newer unit supersedes an older one) that holds a unit of
the holder, with its versions oldest first, when each was stated (its event date) and when and why
it was replaced. A line's ``slot`` is the attribute the supersession rule matched (``rule:<slot>``,
e.g. ``lives_in``), when one did; an edit (``update``) or the LLM judge (``llm``) names none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from .errors import NotFoundError
from .model import Entity, MemoryUnit
from .store import Database
from .store.tables import entities as entity_sql
from .store.tables import fact_lines as line_sql
from .store.tables import units as unit_sql

__all__ = ["FactVersion", "FactLine", "FactTimeline", "timeline"]

SEED_CAP = 2_000  # the holder's superseded or superseding units read at most (latest first)


@dataclass(frozen=True, slots=True)
class FactVersion:
    unit: MemoryUnit
    replaced_by: UUID | None  # the next version, None for the current one
    reason: str | None  # why it was replaced: ``rule:<slot>``, ``llm`` or ``update``

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit.to_dict(), "replaced_by": None if self.replaced_by is None else str(self.replaced_by),
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class FactLine:
    slot: str | None
    versions: tuple[FactVersion, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"slot": self.slot, "versions": [v.to_dict() for v in self.versions]}


@dataclass(frozen=True, slots=True)
class FactTimeline:
    """The lines of one holder, oldest first (by their first version); ``entity`` or ``user_id``
    names the holder."""

    entity: Entity | None
    user_id: str | None
    lines: tuple[FactLine, ...]

    def to_dict(self) -> dict[str, Any]:
        e = self.entity
        return {"entity": None if e is None else {"id": str(e.id), "name": e.name, "label": e.label},
                "user_id": self.user_id, "lines": [line.to_dict() for line in self.lines]}


def _lines(pairs: list[tuple[UUID, UUID, str]]) -> list[list[UUID]]:
    """The connected groups of units joined by the pairs (union-find), each in no given order."""
    parent: dict[UUID, UUID] = {}

    def root(x: UUID) -> UUID:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for old, new, _ in pairs:
        parent[root(old)] = root(new)
    groups: dict[UUID, list[UUID]] = {}
    for unit_id in parent:
        groups.setdefault(root(unit_id), []).append(unit_id)
    return list(groups.values())


def _steps_to_newest(ids: list[UUID], pairs: dict[UUID, tuple[UUID, str]]) -> dict[UUID, int]:
    """How many replacements separate each unit from the newest version of its line (0 for that
    one): it orders versions stated at the same time."""
    steps: dict[UUID, int] = {}
    for start in ids:
        walk, at = [], start
        while at not in steps and at in pairs and len(walk) <= len(ids):  # the database allows no cycle
            walk.append(at)
            at = pairs[at][0]
        n = steps.setdefault(at, 0)
        for unit_id in reversed(walk):
            n += 1
            steps[unit_id] = n
    return steps


def _line(ids: list[UUID], units: dict[UUID, MemoryUnit], pairs: dict[UUID, tuple[UUID, str]]) -> FactLine:
    steps = _steps_to_newest(ids, pairs)
    found = sorted((units[i] for i in ids if i in units), key=lambda u: (u.event_date, -steps.get(u.id, 0), str(u.id)))
    versions = tuple(FactVersion(u, *(pairs.get(u.id) or (None, None))) for u in found)
    slots = [r.split(":", 1)[1] for _, r in (pairs[i] for i in ids if i in pairs) if r.startswith("rule:")]
    return FactLine(slots[0] if slots else None, versions)


def timeline(db: Database, agent_id: str, *, entity: str | None, user_id: str | None, limit: int) -> FactTimeline:
    """The holder's lines (``entity``: an id, name or alias; or ``user_id``), at most ``limit``,
    those whose latest version is most recent kept."""
    with db.transaction() as conn:
        holder = None
        if entity is not None:
            found = entity_sql.lookup_entities(conn, agent_id, [entity])
            if not found:
                raise NotFoundError("entity", entity, agent_id)
            holder = found[0]
        pairs = line_sql.holder_pairs(conn, agent_id, entity_ids=[holder.id] if holder else [], user_id=user_id,
                                      cap=SEED_CAP)
        groups = _lines(pairs)
        units = {u.id: u for u in unit_sql.get_units(conn, agent_id, [i for g in groups for i in g])}
    by_old = {old: (new, reason) for old, new, reason in pairs}
    lines = [line for line in (_line(g, units, by_old) for g in groups) if line.versions]
    lines.sort(key=lambda line: line.versions[-1].unit.event_date, reverse=True)
    kept = sorted(lines[:limit], key=lambda line: (line.versions[0].unit.event_date, str(line.versions[0].unit.id)))
    return FactTimeline(holder, user_id, tuple(kept))
