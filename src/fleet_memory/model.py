"""Shared records. Frozen, slotted dataclasses; the types at each boundary tell the data flow.

``SearchResult`` also reads like a mapping (``result['text']``, ``result['weight']``), as the
README's first example reads it: code written for the class's first name, ``TemporalSemanticMemory``,
reads results that way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from enum import Enum
from typing import Any, NamedTuple
from uuid import UUID

__all__ = [
    "Entity",
    "EntityDetail",
    "Link",
    "LinkKind",
    "MemoryType",
    "MemoryUnit",
    "Provenance",
    "PutResult",
    "SearchResult",
    "Explanation",
    "PathStep",
    "TimeWindow",
    "StoredUnit",
    "AgentStats",
    "AgentSummary",
    "UnitPage",
    "MaintenanceReport",
    "ConsolidatedUnit",
    "ConsolidationReport",
    "ExtractedMemory",
    "ConversationReport",
    "plain",
]


class MemoryType(str, Enum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class LinkKind(str, Enum):
    TEMPORAL = "temporal"
    SEMANTIC = "semantic"
    ENTITY = "entity"  # derived from unit_entities when read, never stored


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """Where a unit came from, the same for one about to be written and one read: the heading path
    of structured text (``context``), its document (the put it came from), tags, user, session,
    source and speaker. Keyword-only in every unit's constructor."""

    context: str | None = None
    document_id: UUID | None = None
    tags: tuple[str, ...] = ()
    user_id: str | None = None
    session_id: str | None = None
    source: str | None = None
    speaker: str | None = None


_PROVENANCE = tuple(f.name for f in fields(Provenance))


@dataclass(frozen=True, slots=True)
class MemoryUnit(Provenance):
    """One stored, self-contained fact."""

    id: UUID
    agent_id: str
    text: str
    memory_type: MemoryType
    event_date: datetime
    created_at: datetime
    importance: float
    access_count: int = 0
    last_accessed: datetime | None = None
    archived_at: datetime | None = None
    importance_set_at: datetime | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    valid_until: datetime | None = None  # set when a newer unit superseded this one (its event time)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, the unit's own fields first and its ``Provenance`` after them."""
        data = asdict(self)
        data = {**{k: v for k, v in data.items() if k not in _PROVENANCE}, **{k: data[k] for k in _PROVENANCE}}
        data["id"] = str(self.id)
        data["document_id"] = str(self.document_id) if self.document_id else None
        data["memory_type"] = self.memory_type.value
        data["tags"] = list(self.tags)
        data["metadata"] = dict(self.metadata)
        for key in ("event_date", "created_at", "last_accessed", "archived_at", "importance_set_at", "valid_until"):
            value = data[key]
            data[key] = value.isoformat() if value is not None else None
        return data


@dataclass(frozen=True, slots=True)
class StoredUnit:
    """What a put stored: the unit's id and text."""

    id: UUID
    text: str
    memory_type: MemoryType = MemoryType.EPISODIC


@dataclass(frozen=True, slots=True)
class PutResult:
    """The outcome of one put: the document, the units, and notes such as 'nothing with substance'."""

    document_id: UUID | None
    units: tuple[StoredUnit, ...]
    skipped_reason: str | None = None
    stage_seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def unit_ids(self) -> list[UUID]:
        return [u.id for u in self.units]

    @property
    def texts(self) -> list[str]:
        return [u.text for u in self.units]


@dataclass(frozen=True, slots=True)
class Entity:
    id: UUID
    agent_id: str
    name: str
    label: str
    aliases: tuple[str, ...] = ()
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    mention_count: int = 0


@dataclass(frozen=True, slots=True)
class EntityDetail:
    """One entity and the units that mention it (most recent first)."""

    entity: Entity
    units: tuple[MemoryUnit, ...] = ()


@dataclass(frozen=True, slots=True)
class Link:
    from_id: UUID
    to_id: UUID
    kind: LinkKind
    weight: float


class TimeWindow(NamedTuple):
    """A window ``[start, end)`` a query names, and the words that named it."""

    start: datetime
    end: datetime
    phrase: str


@dataclass(frozen=True, slots=True)
class PathStep:
    """One step of the walk that reached a result: the entry point (no ``from_id``), then each unit
    with the link that reached it."""

    unit_id: UUID
    from_id: UUID | None = None
    kind: str | None = None
    weight: float | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """How one result was found and scored: the entry channels that found it (``activation`` when
    only the walk did), the walk's hops and path, every factor of its score, the preset, and the
    time window the query named."""

    channels: tuple[str, ...]
    hops: int
    path: tuple[PathStep, ...]
    factors: Mapping[str, float]
    preset: str
    time_window: TimeWindow | None = None
    superseded_by: UUID | None = None  # the newer unit that superseded this one
    valid_until: datetime | None = None  # when it stopped being current (the successor's event time)

    def to_dict(self) -> dict[str, Any]:
        window = self.time_window
        return {
            "channels": list(self.channels),
            "hops": self.hops,
            "path": [{"unit_id": str(p.unit_id), "from": str(p.from_id) if p.from_id else None, "kind": p.kind,
                      "weight": p.weight} for p in self.path],
            "factors": dict(self.factors),
            "preset": self.preset,
            "time_window": None if window is None else
            {"phrase": window.phrase, "start": window.start.isoformat(), "end": window.end.isoformat()},
            "superseded_by": str(self.superseded_by) if self.superseded_by else None,
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
        }


@dataclass(frozen=True, slots=True)
class SearchResult(Mapping[str, Any]):
    """One recalled unit with its score. Reads as a mapping too: ``result['text']``."""

    id: UUID
    text: str
    weight: float
    memory_type: MemoryType
    event_date: datetime
    context: str | None = None
    document_id: UUID | None = None
    importance: float = 0.5
    speaker: str | None = None
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    explanation: Explanation | None = None
    valid_until: datetime | None = None  # set when a newer unit superseded this one

    @property
    def score(self) -> float:
        return self.weight

    def __getitem__(self, key: str) -> Any:
        if key == "score":
            return self.weight
        if key in _RESULT_FIELDS:
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(_RESULT_FIELDS)

    def __len__(self) -> int:
        return len(_RESULT_FIELDS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "text": self.text,
            "weight": self.weight,
            "memory_type": self.memory_type.value,
            "event_date": self.event_date.isoformat(),
            "context": self.context,
            "document_id": str(self.document_id) if self.document_id else None,
            "importance": self.importance,
            "speaker": self.speaker,
            "tags": list(self.tags),
            "metadata": dict(self.metadata),
            "explanation": self.explanation.to_dict() if self.explanation else None,
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
        }


_RESULT_FIELDS = tuple(f.name for f in fields(SearchResult))


@dataclass(frozen=True, slots=True)
class UnitPage:
    units: tuple[MemoryUnit, ...]
    next_offset: int | None


@dataclass(frozen=True, slots=True)
class AgentStats:
    agent_id: str
    documents: int
    units: int
    archived_units: int
    entities: int
    links: int
    units_by_type: Mapping[str, int]


# lifecycle reports -------------------------------------------------------------------------
def plain(value: Any) -> Any:
    """Records → JSON-ready values, for every front door's machine output and the reports'
    ``to_dict``: records with a ``to_dict`` use it, other dataclasses become dicts, UUIDs and
    datetimes strings, enums their values, tuples and sets lists."""
    if hasattr(value, "to_dict"):
        return plain(value.to_dict())
    if isinstance(value, (UUID, datetime)):
        return str(value) if isinstance(value, UUID) else value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return _fields(value)
    return value


def _fields(value: Any) -> dict[str, Any]:
    return {f.name: plain(getattr(value, f.name)) for f in fields(value)}


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """What one ``maintain`` run did: units examined and archived, in total and per memory type, and
    the expired idempotency keys it deleted."""

    now: datetime
    agent_id: str | None
    examined: int
    archived: int
    examined_by_type: Mapping[str, int] = field(default_factory=dict)
    archived_by_type: Mapping[str, int] = field(default_factory=dict)
    batches: int = 0
    expired_keys: int = 0  # idempotency keys past their time to live, deleted

    def to_dict(self) -> dict[str, Any]:
        return _fields(self)


@dataclass(frozen=True, slots=True)
class ConsolidatedUnit:
    """A semantic unit made by consolidation, with the episodic units it was made from."""

    id: UUID
    agent_id: str
    text: str
    source_ids: tuple[UUID, ...]
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConsolidationReport:
    """What one ``consolidate`` run did. ``method`` is "llm" or "offline"."""

    now: datetime
    agent_id: str | None
    candidates: int
    clusters: int
    created: tuple[ConsolidatedUnit, ...] = ()
    skipped_clusters: int = 0
    method: str = "offline"

    @property
    def sources(self) -> int:
        return sum(len(c.source_ids) for c in self.created)

    def to_dict(self) -> dict[str, Any]:
        data = _fields(self)
        data["sources"] = self.sources
        return data


@dataclass(frozen=True, slots=True)
class ExtractedMemory:
    """One memory that conversation extraction found, before it is stored."""

    content: str
    memory_type: MemoryType
    importance: float | None = None
    speaker: str | None = None
    event_date: datetime | None = None


@dataclass(frozen=True, slots=True)
class ConversationReport:
    """What ``process_conversation`` extracted ("llm" or "offline") and what was stored."""

    method: str
    memories: tuple[ExtractedMemory, ...]
    results: tuple[PutResult, ...] = ()

    @property
    def unit_ids(self) -> list[UUID]:
        return [uid for r in self.results for uid in r.unit_ids]

    def to_dict(self) -> dict[str, Any]:
        data = _fields(self)
        data["unit_ids"] = [str(u) for u in self.unit_ids]
        return data


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One agent in the store: how many units it has (archived included) and when it last wrote."""

    agent_id: str
    units: int
    documents: int
    last_write: datetime | None = None
