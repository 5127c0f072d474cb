"""Graph data from a real store: neighbourhoods stay bounded, entity links are derived from
mentions (never stored), the traced search carries recall's path."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import psycopg

from fleet_memory.viz.graph import ENTITY_CLIQUE_MAX

DAY0 = datetime(2024, 6, 1, tzinfo=timezone.utc)


def _fill(memory, n: int) -> None:
    memory.put_many([{"content": f"Alice visited museum number {i} in Paris.", "event_date": DAY0 + timedelta(days=i)}
                     for i in range(n)], agent_id="a1")


def test_time_range_and_node_limit(memory):
    _fill(memory, 30)
    week = memory.graph("a1", since=DAY0 + timedelta(days=10), until=DAY0 + timedelta(days=16, hours=1))
    assert len(week.nodes) == 7 and not week.truncated
    assert all("2024-06-1" in n.date for n in week.nodes)
    small = memory.graph("a1", limit=5)
    assert len(small.nodes) == 5 and small.truncated
    ids = {n.id for n in small.nodes}
    assert all(e.source in ids and e.target in ids for e in small.edges)


def test_entity_links_are_derived_and_a_hub_is_a_chain(memory, db_url):
    _fill(memory, ENTITY_CLIQUE_MAX + 8)
    graph = memory.graph("a1", entity="Alice")
    n = ENTITY_CLIQUE_MAX + 8
    assert len(graph.nodes) == n
    alice = [e for e in graph.edges if e.kind == "entity" and e.label == "Alice"]
    assert len(alice) == n - 1  # a chain in time order, not n·(n−1)/2 edges
    with psycopg.connect(db_url) as conn:
        kinds = {k for (k,) in conn.execute("SELECT DISTINCT kind FROM links WHERE agent_id = 'a1'")}
    assert "entity" not in kinds


def test_a_search_neighbourhood_carries_the_trace(memory):
    memory.put("a1", "Alice works at Google as a software engineer.")
    memory.put("a1", "Alice loves hiking in Yosemite.")
    memory.put("a1", "Bob sells bicycles in Denver.")
    graph = memory.graph("a1", query="Where does Alice work?", top_k=1, limit=10)
    assert graph.query == "Where does Alice work?" and len(graph.trace) == 1
    assert graph.trace[0].id in {n.id for n in graph.nodes}
    texts = {n.text for n in graph.nodes}
    assert "Alice loves hiking in Yosemite." in texts  # reached through the shared entity Alice
    assert all(step.path and step.path[-1] == step.id for step in graph.trace)
