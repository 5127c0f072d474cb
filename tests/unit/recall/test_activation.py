"""The walk as a pure function: decay per hop, best activation, budget, one load per hop."""

import pytest

from fleet_memory.recall.activation import Edge, path_to, spread


def graph(edges: list[tuple[str, str, str, float]]):
    calls: list[list[str]] = []
    adjacency: dict[str, list[Edge[str]]] = {}
    for a, b, kind, w in edges:
        adjacency.setdefault(a, []).append(Edge(a, b, kind, w))
        adjacency.setdefault(b, []).append(Edge(b, a, kind, w))

    def load(frontier):
        calls.append(list(frontier))
        return [e for u in frontier for e in adjacency.get(u, [])]

    return load, calls


def test_activation_decays_by_weight_and_hop() -> None:
    load, calls = graph([("a", "b", "entity", 1.0), ("b", "c", "temporal", 0.5)])
    reached = spread({"a": 1.0}, load, budget=10, max_hops=3, decay=0.8)
    assert reached["b"].activation == pytest.approx(0.8)
    assert reached["c"].activation == pytest.approx(0.8 * 0.5 * 0.8)
    assert reached["c"].hops == 2
    assert len(calls) == 3  # the third hop finds nothing new, then the frontier is empty
    assert [step[1] for step in path_to(reached, "c")] == ["entity", "temporal"]


def test_keeps_the_best_activation_per_unit() -> None:
    load, _ = graph([("a", "c", "semantic", 0.3), ("a", "b", "entity", 1.0), ("b", "c", "entity", 1.0)])
    reached = spread({"a": 1.0}, load, budget=10, max_hops=2, decay=0.8)
    assert reached["c"].activation == pytest.approx(0.8 * 0.8)
    assert reached["c"].via is not None and reached["c"].via.src == "b"


def test_budget_bounds_units_explored_not_hops() -> None:
    edges = [("a", f"n{i}", "entity", 1.0) for i in range(20)] + [(f"n{i}", f"m{i}", "temporal", 0.9) for i in range(20)]
    small_load, small_calls = graph(edges)
    big_load, big_calls = graph(edges)
    small = spread({"a": 1.0}, small_load, budget=5, max_hops=2)
    big = spread({"a": 1.0}, big_load, budget=1000, max_hops=2)
    assert len(small) == 5
    assert len(big) == 41
    assert len(small_calls) == len(big_calls) == 2


def test_kind_weights_and_minimum_activation() -> None:
    load, calls = graph([("a", "b", "semantic", 1.0), ("b", "c", "semantic", 1.0)])
    reached = spread({"a": 1.0}, load, budget=10, max_hops=5, decay=0.5,
                     kind_weight=lambda k: 0.0 if k == "semantic" else 1.0)
    assert set(reached) == {"a"}
    reached = spread({"a": 1.0}, load, budget=10, max_hops=5, decay=0.5, min_activation=0.4)
    assert set(reached) == {"a", "b", "c"}  # c is reached from b (0.5) but too weak to spread further
    assert reached["c"].activation == pytest.approx(0.25)


def test_entry_points_beyond_the_budget_are_dropped_weakest_first() -> None:
    load, _ = graph([])
    reached = spread({"a": 1.0, "b": 0.5, "c": 0.9}, load, budget=2, max_hops=1)
    assert set(reached) == {"a", "c"}


def test_max_frontier_expands_only_the_strongest_units() -> None:
    edges = [("a", f"n{i}", "entity", 1.0 - i / 100) for i in range(10)] + [(f"n{i}", f"m{i}", "temporal", 1.0)
                                                                             for i in range(10)]
    load, calls = graph(edges)
    reached = spread({"a": 1.0}, load, budget=100, max_hops=2, max_frontier=3)
    assert calls[1] == ["n0", "n1", "n2"]
    assert {f"m{i}" for i in range(3)} <= set(reached) and "m3" not in reached
