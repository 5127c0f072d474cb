"""Graph data for pictures: plain data first, rendered second (HTML, PNG).

A picture shows a bounded neighbourhood, so that large agents stay drawable:

- ``entity``: the units mentioning that entity (by id, name or alias), newest first;
- ``seed_ids`` (the results of one search): those units plus their strongest stored neighbours;
- otherwise the newest units in ``since``..``until``;

always at most ``limit`` nodes. Edges are what recall's walk would follow among the chosen units,
read by the same function (``store.linking.links.neighbours``): the stored temporal and semantic links, and
entity links derived by the one rule (for each unit and entity it mentions, the units nearest in
time that mention it too, at most ``EntityRule.fanout``; a hub entity links nothing), so a picture
never draws a clique and shows the graph recall really walks. An entity edge is labelled with the
name of an entity both ends mention.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from ..errors import NotFoundError
from ..model import MemoryUnit, SearchResult
from ..store import Database
from ..store.db import planner
from ..store.linking import links as link_sql
from ..store.reads import graph as sql
from ..store.tables import entities as entity_sql
from ..store.tables import units as unit_sql

__all__ = ["GraphNode", "GraphEdge", "GraphData", "TraceStep", "build_graph", "trace_from_results"]


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    text: str
    type: str
    importance: float
    date: str
    access_count: int = 0
    entities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    kind: str  # temporal | semantic | entity
    weight: float
    label: str | None = None  # the entity's name for entity edges


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One result of the traced search: its rank, score and the unit ids of the path that reached it."""

    id: str
    rank: int
    weight: float
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphData:
    agent_id: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    query: str | None = None
    trace: tuple[TraceStep, ...] = ()
    truncated: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id, "query": self.query, "truncated": self.truncated, "meta": dict(self.meta),
            "nodes": [{"id": n.id, "text": n.text, "type": n.type, "importance": n.importance, "date": n.date,
                       "access_count": n.access_count, "entities": list(n.entities)} for n in self.nodes],
            "edges": [{"source": e.source, "target": e.target, "kind": e.kind, "weight": e.weight, "label": e.label}
                      for e in self.edges],
            "trace": [{"id": t.id, "rank": t.rank, "weight": t.weight, "path": list(t.path)} for t in self.trace],
        }


def _node(unit: MemoryUnit, entities: Sequence[str]) -> GraphNode:
    return GraphNode(str(unit.id), unit.text, unit.memory_type.value, round(float(unit.importance), 4),
                     unit.event_date.isoformat(), unit.access_count, tuple(entities))


def _neighbours(conn: psycopg.Connection, agent_id: str, ids: Sequence[UUID],
                within: Sequence[UUID] | None = None) -> list[link_sql.Neighbour]:
    units = planner.unit_counts(conn, [agent_id]).get(agent_id, 0)
    return link_sql.neighbours(conn, agent_id, ids, units=units, within=within)


def _strongest(edges: Sequence[link_sql.Neighbour], exclude: Sequence[UUID], limit: int) -> list[UUID]:
    """The ``limit`` units the edges reach (outside ``exclude``), strongest link first."""
    best: dict[UUID, float] = {}
    for e in edges:
        best[e.dst] = max(best.get(e.dst, 0.0), e.weight)
    for unit_id in exclude:
        best.pop(unit_id, None)
    return sorted(best, key=lambda u: (-best[u], str(u)))[: max(0, limit)]


def _select(conn: psycopg.Connection, agent_id: str, *, limit: int, entity: str | None,
            seed_ids: Sequence[UUID], since: datetime | None, until: datetime | None) -> list[MemoryUnit]:
    """Up to ``limit + 1`` units of the neighbourhood (one more tells that it was cut)."""
    if entity is not None:
        found = entity_sql.lookup_entities(conn, agent_id, [entity])
        if not found:
            raise NotFoundError("entity", entity, agent_id)
        return sql.units_of_entity(conn, agent_id, [e.id for e in found], limit + 1)
    if seed_ids:
        seeds = list(dict.fromkeys(seed_ids))[:limit]
        extra = _strongest(_neighbours(conn, agent_id, seeds), seeds, limit + 1 - len(seeds))
        return unit_sql.get_units(conn, agent_id, seeds + extra)
    return sql.select_units(conn, agent_id, since=since, until=until, limit=limit + 1)


def _edges(edges: Sequence[link_sql.Neighbour], mentions: Sequence[tuple[UUID, UUID, str, str]]) -> list[GraphEdge]:
    """One edge per (pair, kind); an entity edge names an entity both ends mention."""
    names: dict[UUID, set[str]] = defaultdict(set)
    for unit_id, _, name, _ in mentions:
        names[unit_id].add(name)
    out: dict[tuple[str, str, str], GraphEdge] = {}
    for e in edges:
        a, b = sorted((str(e.src), str(e.dst)))
        if (a, b, e.kind) not in out:
            shared = sorted(names[e.src] & names[e.dst]) if e.kind == "entity" else []
            out[(a, b, e.kind)] = GraphEdge(a, b, e.kind, round(e.weight, 4), shared[0] if shared else None)
    return sorted(out.values(), key=lambda g: (g.source, g.target, g.kind))


def build_graph(db: Database, agent_id: str, *, limit: int, entity: str | None = None,
                seed_ids: Sequence[UUID] = (), since: datetime | None = None, until: datetime | None = None,
                query: str | None = None, trace: Sequence[TraceStep] = ()) -> GraphData:
    """Select the neighbourhood (see the module docstring) and read its edges; ``limit`` bounds nodes."""
    with db.transaction() as conn:
        units = _select(conn, agent_id, limit=limit, entity=entity, seed_ids=seed_ids, since=since, until=until)
        truncated = len(units) > limit
        units = units[:limit]
        ids = [u.id for u in units]
        edges = _neighbours(conn, agent_id, ids, within=ids)
        mentions = sql.mentions_among(conn, agent_id, ids)
    entity_names: dict[str, list[str]] = defaultdict(list)
    for unit_id, _, name, _ in mentions:
        entity_names[str(unit_id)].append(name)
    nodes = tuple(_node(u, entity_names.get(str(u.id), ())) for u in units)
    return GraphData(agent_id, nodes, tuple(_edges(edges, mentions)), query=query, trace=tuple(trace),
                     truncated=truncated, meta={"limit": limit, "entity": entity})


def trace_from_results(results: Sequence[SearchResult]) -> list[TraceStep]:
    """A trace from search results: each result's rank, weight and the path of unit ids that
    reached it (from its explanation; empty without one)."""
    return [TraceStep(str(r.id), rank, round(float(r.weight), 6),
                      tuple(str(step.unit_id) for step in r.explanation.path) if r.explanation else ())
            for rank, r in enumerate(results, 1)]
