"""Graph data for pictures: plain data first, rendered second (HTML, PNG).

A picture shows a bounded neighbourhood, so that large agents stay drawable:

- ``entity``: the units mentioning that entity (by id, name or alias), newest first;
- ``seed_ids`` (the results of one search): those units plus their strongest stored neighbours;
- otherwise the newest units in ``since``..``until``;

always at most ``limit`` nodes. Edges are the stored temporal and semantic links among the chosen
units plus entity links *derived* from the mentions (units sharing an entity). Entity links are
never stored; to keep a hub entity from drawing a clique, an entity with at most
``ENTITY_CLIQUE_MAX`` units in the picture connects every pair (weight 1.0, as the seed says) and a
larger one connects its units in time order (a chain), which keeps them visibly one group with
O(n) edges.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any
from uuid import UUID

from ..errors import NotFoundError
from ..model import MemoryUnit
from ..store import Database
from ..store import graph as sql

__all__ = ["GraphNode", "GraphEdge", "GraphData", "TraceStep", "build_graph", "derive_entity_edges",
           "ENTITY_CLIQUE_MAX", "trace_from_results"]

ENTITY_CLIQUE_MAX = 12


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


def derive_entity_edges(mentions: Iterable[tuple[str, str, str]], dates: Mapping[str, str],
                        clique_max: int = ENTITY_CLIQUE_MAX) -> list[GraphEdge]:
    """Entity edges from (unit id, entity id, entity name) mentions; one edge per unit pair."""
    by_entity: dict[str, list[str]] = defaultdict(list)
    names: dict[str, str] = {}
    for unit, entity, name in mentions:
        by_entity[entity].append(unit)
        names[entity] = name
    seen: dict[tuple[str, str], GraphEdge] = {}
    for entity, units in sorted(by_entity.items(), key=lambda kv: names[kv[0]]):
        units = sorted(set(units), key=lambda u: (dates.get(u, ""), u))
        pairs = combinations(units, 2) if len(units) <= clique_max else zip(units, units[1:])
        for a, b in pairs:
            key = (a, b) if a < b else (b, a)
            if key not in seen:
                seen[key] = GraphEdge(key[0], key[1], "entity", 1.0, names[entity])
    return list(seen.values())


def _node(unit: MemoryUnit, entities: Sequence[str]) -> GraphNode:
    return GraphNode(str(unit.id), unit.text, unit.memory_type.value, round(float(unit.importance), 4),
                     unit.event_date.isoformat(), unit.access_count, tuple(entities))


def build_graph(db: Database, agent_id: str, *, limit: int, entity: str | None = None,
                seed_ids: Sequence[UUID] = (), since: datetime | None = None, until: datetime | None = None,
                query: str | None = None, trace: Sequence[TraceStep] = ()) -> GraphData:
    """Select the neighbourhood (see the module docstring) and read its edges; ``limit`` bounds nodes."""
    with db.transaction() as conn:
        if entity is not None:
            entity_ids = sql.find_entity_ids(conn, agent_id, entity)
            if not entity_ids:
                raise NotFoundError("entity", entity, agent_id)
            units = sql.units_of_entity(conn, agent_id, entity_ids, limit + 1)
        elif seed_ids:
            seeds = list(dict.fromkeys(seed_ids))[:limit]
            extra = sql.neighbour_ids(conn, agent_id, seeds, limit + 1 - len(seeds))
            units = sql.units_by_ids(conn, agent_id, seeds + extra)
        else:
            units = sql.select_units(conn, agent_id, since=since, until=until, limit=limit + 1)
        truncated = len(units) > limit
        units = units[:limit]
        ids = [u.id for u in units]
        links = sql.links_among(conn, agent_id, ids)
        mentions = sql.mentions_among(conn, agent_id, ids)
    entity_names: dict[str, list[str]] = defaultdict(list)
    for unit_id, _, name, _ in mentions:
        entity_names[str(unit_id)].append(name)
    nodes = tuple(_node(u, entity_names.get(str(u.id), ())) for u in units)
    edges = [GraphEdge(str(a), str(b), kind, round(w, 4)) for a, b, kind, w in links]
    dates = {n.id: n.date for n in nodes}
    edges += derive_entity_edges(((str(u), str(e), name) for u, e, name, _ in mentions), dates)
    return GraphData(agent_id, nodes, tuple(edges), query=query, trace=tuple(trace), truncated=truncated,
                     meta={"limit": limit, "entity": entity})


def trace_from_results(results: Sequence[Any]) -> list[TraceStep]:
    """A trace from search results; uses the explanation's path of unit ids when recall gives one."""
    steps = []
    for rank, result in enumerate(results, 1):
        explanation = getattr(result, "explanation", None) or {}
        path = explanation.get("path") if isinstance(explanation, Mapping) else None
        ids: list[str] = []
        for hop in path or ():
            hop_id = hop.get("unit_id", hop.get("id")) if isinstance(hop, Mapping) else hop
            if hop_id is not None:
                ids.append(str(hop_id))
        steps.append(TraceStep(str(result.id), rank, round(float(result.weight), 6), tuple(ids)))
    return steps
