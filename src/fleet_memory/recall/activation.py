"""Spreading activation over the memory graph (docs/concepts.md, the memory model), as a pure
function.

    activation(entry)    = given (1.0 for the best entry point, less for weaker ones)
    activation(v)        = max over edges u → v of activation(u) × link weight × kind weight × decay

The walk goes hop by hop. Each hop asks ``load(frontier)`` once for every edge leaving the frontier
(the caller answers with ONE batched query, so a search issues one statement per hop and never one
per unit); edges are then taken best candidate first. A unit not yet seen is admitted only while
fewer than ``budget`` units have been explored (entry points count); a unit already seen keeps the
best activation that reaches it and the path it came by. The next frontier is every unit whose
activation was set or raised in this hop and is at least ``min_activation`` (the strongest
``max_frontier`` of them, when given).

Bounds: at most ``max_hops`` calls of ``load``; at most ``budget`` units in the result; at most
``max_frontier`` units expanded per hop, so work per hop is bounded by ``max_frontier`` × the
degree of a unit (stored links are capped per unit at ingestion, entity fan-out by the loader). The
walk stops early when the frontier empties, never because the budget is full, so the number of
statements depends on the hops walked and not on the units explored. Keys must be orderable (ties
are broken by key, so the walk is deterministic).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

__all__ = ["Edge", "Step", "Reached", "spread", "path_to"]

K = TypeVar("K")


class Edge(NamedTuple, Generic[K]):
    """A directed edge as the loader returns it (a tuple: hundreds are built per hop)."""

    src: K
    dst: K
    kind: str
    weight: float


@dataclass(frozen=True, slots=True)
class Step(Generic[K]):
    """One link of a path: from ``src`` to the unit, by ``kind`` with the link's ``weight``."""

    src: K
    kind: str
    weight: float


@dataclass(frozen=True, slots=True)
class Reached(Generic[K]):
    activation: float
    hops: int
    via: Step[K] | None  # None for an entry point


def spread(
    entries: Mapping[K, float],
    load: Callable[[Sequence[K]], Sequence[Edge[K]]],
    *,
    budget: int,
    max_hops: int,
    decay: float = 0.8,
    kind_weight: Callable[[str], float] = lambda kind: 1.0,
    min_activation: float = 0.0,
    max_frontier: int | None = None,
    before_hop: Callable[[int, Mapping[K, Reached[K]]], None] | None = None,
) -> dict[K, Reached[K]]:
    """Walk from ``entries`` (unit → activation); return every explored unit with its best activation.
    ``before_hop(hop, reached)``, if given, sees what was reached before each hop is loaded (it must
    not change it)."""
    ranked = sorted(entries.items(), key=lambda item: (-item[1], item[0]))[: max(budget, 0)]
    reached: dict[K, Reached[K]] = {key: Reached(act, 0, None) for key, act in ranked}
    frontier = [key for key, act in ranked if act >= min_activation]
    for hop in range(1, max_hops + 1):
        if max_frontier is not None:
            frontier = sorted(frontier, key=lambda k: (-reached[k].activation, k))[:max_frontier]
        if not frontier:
            break
        if before_hop is not None:
            before_hop(hop, reached)
        edges = load(frontier)
        best: dict[K, tuple[float, Edge[K]]] = {}  # per unit reached this hop, its strongest edge
        factors: dict[str, float] = {}  # kind → kind weight × decay
        for edge in edges:
            source = reached.get(edge.src)
            if source is None or edge.dst == edge.src:
                continue
            factor = factors.get(edge.kind)
            if factor is None:
                factor = factors[edge.kind] = kind_weight(edge.kind) * decay
            value = source.activation * edge.weight * factor
            if value > 0.0:
                held = best.get(edge.dst)
                if held is None or value > held[0]:
                    best[edge.dst] = (value, edge)
        raised: dict[K, None] = {}
        for value, edge in sorted(best.values(), key=lambda item: (-item[0], item[1].dst)):
            current = reached.get(edge.dst)
            if current is None:
                if len(reached) >= budget:
                    continue
            elif value <= current.activation:
                continue
            reached[edge.dst] = Reached(value, hop, Step(edge.src, edge.kind, edge.weight))
            if value >= min_activation:
                raised[edge.dst] = None
        frontier = list(raised)
    return reached


def path_to(reached: Mapping[K, Reached[K]], key: K, limit: int = 64) -> list[tuple[K, str, float, K]]:
    """The links that brought activation to ``key``: ``[(from, kind, weight, to), …]`` from the entry point."""
    path: list[tuple[K, str, float, K]] = []
    seen = {key}
    node = reached.get(key)
    while node is not None and node.via is not None and len(path) < limit:
        path.append((node.via.src, node.via.kind, node.via.weight, key))
        key = node.via.src
        if key in seen:
            break
        seen.add(key)
        node = reached.get(key)
    path.reverse()
    return path

