"""Graph data from a real store: neighbourhoods stay bounded, entity links are derived from
mentions (never stored), the traced search carries recall's path."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from uuid import UUID

import psycopg

from fleet_memory.store.linking import links as link_sql
from fleet_memory.store.linking.links import EntityRule

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


def test_entity_links_in_a_picture_are_the_ones_recall_walks(memory, db_url):
    _fill(memory, 18)
    graph = memory.graph("a1", entity="Alice")
    assert len(graph.nodes) == 18
    ids = [UUID(n.id) for n in graph.nodes]
    with memory.db.transaction() as conn:
        walked = link_sql.neighbours(conn, "a1", ids, units=18, within=ids)
    expected = {tuple(sorted((str(n.src), str(n.dst)))) for n in walked if n.kind == "entity"}
    drawn = [e for e in graph.edges if e.kind == "entity"]
    assert {(e.source, e.target) for e in drawn} == expected and len(drawn) == len(expected)
    assert drawn and {e.label for e in drawn} <= {"Alice", "Paris"}
    # bounded: each unit derives at most fan-out links per entity, never a clique
    assert EntityRule().fanout < 17 and len(drawn) < 18 * 17 // 2
    with psycopg.connect(db_url) as conn:
        kinds = {k for (k,) in conn.execute("SELECT DISTINCT kind FROM links WHERE agent_id = 'a1'")}
    assert "entity" not in kinds


def test_a_hub_entity_draws_no_links_as_recall_walks_none(memory):
    _fill(memory, EntityRule().hub_min + 5)  # Alice and Paris: mentioned by every unit
    graph = memory.graph("a1", entity="Alice")
    assert len(graph.nodes) == EntityRule().hub_min + 5
    assert not [e for e in graph.edges if e.kind == "entity"]


def test_a_picture_finds_an_entity_by_any_form_of_its_name(memory):
    _fill(memory, 3)
    for key in ("Alice", "alice", "Alice's", "ALICE", "Alice’s"):
        assert len(memory.graph("a1", entity=key).nodes) == 3, key
        assert memory.get_entity("a1", key).entity.name == "Alice", key


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
