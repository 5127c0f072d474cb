"""One search issues a number of SQL statements that grows with the hops walked, never with the
number of units explored: the walk loads adjacency one batched query per hop."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta

from fleet_memory.recall import Recaller, build_request
from fleet_memory.recall.presets import BALANCED
from fleet_memory.store.linking import links as link_sql

AGENT = "graph"


class CountingConnection:
    """A real connection that counts the statements sent through it."""

    def __init__(self, conn, counter: list[str]) -> None:
        self._conn = conn
        self._counter = counter

    def execute(self, query, params=None, **kwargs):
        self._counter.append(str(query)[:60])
        return self._conn.execute(query, params, **kwargs)

    def cursor(self, *args, **kwargs):
        return CountingCursor(self._conn.cursor(*args, **kwargs), self._counter)

    def __getattr__(self, name):
        return getattr(self._conn, name)


class CountingCursor:
    """A real cursor that counts the statements it executes."""

    def __init__(self, cursor, counter: list[str]) -> None:
        self._cursor = cursor
        self._counter = counter

    def execute(self, query, params=None, **kwargs):
        self._counter.append(str(query)[:60])
        self._cursor.execute(query, params, **kwargs)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._cursor.close()

    def __getattr__(self, name):
        return getattr(self._cursor, name)


class CountingDatabase:
    def __init__(self, db) -> None:
        self._db = db
        self.prepared_statements = db.prepared_statements
        self.generic_plans = db.generic_plans
        self.statements: list[str] = []

    @contextmanager
    def transaction(self):
        with self._db.transaction() as conn:
            yield CountingConnection(conn, self.statements)

    @contextmanager
    def spare(self, wait_s=None):
        yield None  # no spare connection: every statement runs in the counted transaction


def build_graph(memory, clock) -> None:
    """One unit the query finds, 30 neighbours, and 3 more behind each neighbour (120 units)."""
    now = clock.now()
    items = [{"content": "The lighthouse keeper polished the great brass lamp.", "event_date": now}]
    items += [{"content": f"The logbook page {i} describes a ship that sailed past harbour {i}.",
               "event_date": now - timedelta(days=30 + i)} for i in range(120)]
    results = memory.put_many(items, agent_id=AGENT)
    entry = results[0].unit_ids[0]
    others = [r.unit_ids[0] for r in results[1:]]
    first, second = others[:30], others[30:]
    edges = [(entry, u, "semantic", 0.9) for u in first]
    edges += [(first[i % 30], v, "temporal", 0.8) for i, v in enumerate(second)]
    with memory.db.transaction() as conn:
        link_sql.insert_links(conn, AGENT, edges)


def run(memory, budget: int, hops: int, reinforce: bool = False) -> tuple[int, int]:
    db = CountingDatabase(memory.db)
    recaller = Recaller(db, memory.embedder, memory.config)
    settings = replace(BALANCED, name="count", vector_entry_k=1, fulltext_entry_k=0, entity_entry_k=0,
                       time_entry_k=0, max_hops=hops, min_activation=0.0, max_frontier=1000)
    request = build_request(memory.config.limits, memory.clock.now(), AGENT, "lighthouse keeper brass lamp",
                            top_k=1000, thinking_budget=budget, preset=settings, reinforce=reinforce)
    try:
        results = recaller.search(request)
    finally:
        recaller.close()
    return len(db.statements), len(results)


def test_statements_grow_with_hops_not_with_units_explored(memory, clock) -> None:
    build_graph(memory, clock)
    small_count, small_units = run(memory, budget=10, hops=2)
    big_count, big_units = run(memory, budget=1000, hops=2)
    assert small_units == 10
    assert big_units >= 121
    assert small_count == big_count
    one_hop, _ = run(memory, budget=1000, hops=1)
    three_hops, _ = run(memory, budget=1000, hops=3)
    assert one_hop < big_count < three_hops
    # per hop one statement: stored links and derived entity links, filtered in the same statement
    assert big_count - one_hop == 1
    assert three_hops - big_count == 1


def test_reinforcement_is_one_statement(memory, clock) -> None:
    build_graph(memory, clock)
    without, found = run(memory, budget=1000, hops=2)
    with_reinforcement, _ = run(memory, budget=1000, hops=2, reinforce=True)
    assert with_reinforcement == without + 1
    assert found > 100
