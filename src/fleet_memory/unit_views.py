"""One unit seen from around it, for the memory browser's memory page (``FleetMemory.unit_entities``,
``unit_links``, ``unit_document``, ``archive``): the entities it mentions, its links by kind and
weight (stored temporal and semantic links, and entity links derived by the walk's own rule,
``store.linking.links.neighbours``), the document it was split from with the unit's sentence
located in it, and archiving it by hand. Each raises ``NotFoundError`` for a unit the agent lacks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from .errors import NotFoundError
from .model import Entity, MemoryUnit
from .store import Database, UnitFilter
from .store.db import planner
from .store.linking import links as link_sql
from .store.reads import unit_detail as detail_sql
from .store.reads.unit_detail import StoredDocument
from .store.tables import units as unit_sql

__all__ = ["UnitLink", "SourceDocument", "entities", "links", "source_document", "archive", "sentence_span"]

_KIND_ORDER = {"semantic": 0, "entity": 1, "temporal": 2}


@dataclass(frozen=True, slots=True)
class UnitLink:
    """An edge from the unit asked about to ``unit``."""

    kind: str
    weight: float
    unit: MemoryUnit

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "weight": self.weight, "unit": self.unit.to_dict()}


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """The stored document of a unit; ``start`` / ``end``: where the unit's sentence lies in its
    content (character offsets, end excluded; ``sentence_span``), ``None`` when no sentence there
    is close to the unit's text."""

    document: StoredDocument
    start: int | None
    end: int | None

    def to_dict(self) -> dict[str, Any]:
        d = self.document
        return {"id": str(d.id), "content": d.content, "context": d.context, "source": d.source,
                "speaker": d.speaker, "event_date": d.event_date.isoformat(), "created_at": d.created_at.isoformat(),
                "start": self.start, "end": self.end}


def _unit(conn: Any, agent_id: str, unit_id: UUID) -> MemoryUnit:
    found = unit_sql.get_units(conn, agent_id, [unit_id])
    if not found:
        raise NotFoundError("memory unit", unit_id, agent_id)
    return found[0]


def entities(db: Database, agent_id: str, unit_id: UUID) -> list[Entity]:
    with db.transaction() as conn:
        _unit(conn, agent_id, unit_id)
        return detail_sql.entities_of(conn, agent_id, unit_id)


def links(db: Database, agent_id: str, unit_id: UUID, *, limit: int) -> list[UnitLink]:
    """The unit's links, by kind (semantic, entity, temporal), strongest first within a kind;
    at most ``limit``. Archived and superseded neighbours count too: this shows the graph as stored."""
    with db.transaction() as conn:
        _unit(conn, agent_id, unit_id)
        units = planner.unit_counts(conn, [agent_id]).get(agent_id, 0)
        edges = link_sql.neighbours(conn, agent_id, [unit_id], UnitFilter(include_archived=True), units=units)
        best: dict[tuple[str, UUID], float] = {}
        for e in edges:
            if e.dst != unit_id:
                best[(e.kind, e.dst)] = max(best.get((e.kind, e.dst), 0.0), e.weight)
        ranked = sorted(best, key=lambda k: (_KIND_ORDER.get(k[0], 9), -best[k], str(k[1])))[:limit]
        by_id = {u.id: u for u in unit_sql.get_units(conn, agent_id, list({dst for _, dst in ranked}))}
    return [UnitLink(kind, best[(kind, dst)], by_id[dst]) for kind, dst in ranked if dst in by_id]


_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
_WORD = re.compile(r"\w+")


def _closest_sentence(content: str, text: str) -> tuple[int, int] | None:
    """The first sentence of ``content`` sharing the most words with ``text``, when they share
    more than half of the words of either: a unit rewritten at ingest ("She loves ..." stored as "Maria loves ...")."""
    wanted = {w.lower() for w in _WORD.findall(text)}
    best, share = None, 0.5
    for found in _SENTENCE.finditer(content):
        words = {w.lower() for w in _WORD.findall(found.group())}
        overlap = len(words & wanted) / max(len(wanted), len(words), 1)
        if overlap > share:
            start = found.start() + len(found.group()) - len(found.group().lstrip())
            best, share = (start, found.end()), overlap
    return best


def sentence_span(content: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` lies in ``content``: verbatim, else with any run of whitespace for each of its
    own, else the sentence closest to it (``_closest_sentence``); ``None`` when none is."""
    at = content.find(text)
    if at >= 0:
        return at, at + len(text)
    words = text.split()
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(w) for w in words), content)
    return (found.start(), found.end()) if found else _closest_sentence(content, text)


def source_document(db: Database, agent_id: str, unit_id: UUID) -> SourceDocument | None:
    """The unit's document, or ``None`` for a unit stored without one (a consolidated unit)."""
    with db.transaction() as conn:
        unit = _unit(conn, agent_id, unit_id)
        doc = None if unit.document_id is None else detail_sql.document_of(conn, agent_id, unit.document_id)
    if doc is None:
        return None
    span = sentence_span(doc.content, unit.text)
    return SourceDocument(doc, *(span if span else (None, None)))


def archive(db: Database, agent_id: str, unit_id: UUID, now: datetime) -> MemoryUnit:
    """Keep the unit out of recall until it is restored (``FleetMemory.restore``)."""
    with db.transaction() as conn:
        unit = detail_sql.archive_unit(conn, agent_id, unit_id, now)
    if unit is None:
        raise NotFoundError("memory unit", unit_id, agent_id)
    return unit
