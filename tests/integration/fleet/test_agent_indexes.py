"""An agent above the size boundary gets its own partial indexes, which the planner takes for that
agent's recall statements; a deleted agent's indexes go; recall returns the same either way."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from fleet_memory.errors import InvalidInputError
from fleet_memory.store.db import agent_indexes

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
BIG = "O'Brien's agent"  # a quote in the id: the index predicate is a quoted literal
TEXTS = ["Alice Moreau started working at Orbital Labs.", "Bob Kitano flew to Lisbon with Alice Moreau.",
         "Alice Moreau adopted a dog named Biscuit.", "Bob Kitano is worried about Orbital Labs.",
         "Carmen Ruiz gave a talk about climate policy in Kyoto.", "Deepak Rao bought a used car."]


def _fill(memory, agent: str, n: int, start: int = 0) -> None:
    memory.put_many([{"text": TEXTS[i % len(TEXTS)], "timestamp": (T0 + timedelta(hours=i)).isoformat()}
                     for i in range(start, start + n)], agent_id=agent)


def _definitions(db_url: str) -> dict[str, str]:
    with psycopg.connect(db_url) as conn:
        return dict(conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_units'"
            " AND indexname LIKE 'memory_units_own_%'").fetchall())


def _plan(db_url: str, agent: str) -> str:
    """The vector entry statement's plan with the fleet-wide indexes out of the way."""
    with psycopg.connect(db_url) as conn:
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_bitmapscan = off")
        rows = conn.execute(
            "EXPLAIN SELECT id FROM memory_units WHERE agent_id = %s AND archived_at IS NULL"
            " ORDER BY embedding <=> (SELECT embedding FROM memory_units LIMIT 1) LIMIT 5", (agent,)).fetchall()
        return "\n".join(r[0] for r in rows)


def test_large_agents_get_their_own_indexes_and_lose_them_when_deleted(memory, db_url):
    _fill(memory, BIG, 12)
    _fill(memory, "small", 3)
    before = memory.search(BIG, "Who works at Orbital Labs?", reinforce=False)

    done = memory.index_agents(min_units=5)
    assert done.built == (BIG,) and done.dropped == ()
    names = agent_indexes.index_names(BIG)
    definitions = _definitions(db_url)
    assert set(definitions) == set(names.values())
    assert "USING hnsw (embedding vector_cosine_ops) WHERE (agent_id = 'O''Brien''s agent'::text)" \
        in definitions[names["vec"]]
    assert "USING gin (tsv) WHERE (agent_id = 'O''Brien''s agent'::text)" in definitions[names["tsv"]]
    assert names["vec"] in _plan(db_url, BIG)
    assert names["vec"] not in _plan(db_url, "small")
    assert memory.index_agents(min_units=5) == agent_indexes.IndexRefresh()  # nothing left to do

    after = memory.search(BIG, "Who works at Orbital Labs?", reinforce=False)
    assert [r.id for r in after] == [r.id for r in before]

    memory.delete_agent(BIG)
    assert memory.index_agents(min_units=5).dropped == (BIG,)
    assert _definitions(db_url) == {}


def test_an_interrupted_build_is_built_again(memory, db_url):
    _fill(memory, "big", 6)
    name = agent_indexes.index_names("big")["vec"]
    with psycopg.connect(db_url, autocommit=True) as conn:  # what a killed CONCURRENTLY build leaves
        conn.execute(f"CREATE INDEX {name} ON memory_units (agent_id) WHERE agent_id = 'big'")
        conn.execute(f"COMMENT ON INDEX {name} IS 'big'")
        conn.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", (name,))
    assert memory.index_agents(min_units=5).built == ("big",)
    assert "hnsw" in _definitions(db_url)[name]


def test_bad_min_units_is_refused(memory):
    with pytest.raises(InvalidInputError, match="min_units"):
        memory.index_agents(min_units=0)


def test_the_put_that_crosses_the_boundary_builds_the_agents_own_indexes(memory, db_url, monkeypatch):
    """Once, after the commit; a failed build is logged, the put stands, maintenance builds it."""
    monkeypatch.setattr(agent_indexes, "OWN_INDEX_UNITS", 8)
    _fill(memory, "growing", 5)
    assert _definitions(db_url) == {}
    _fill(memory, "growing", 4, start=5)  # 5 → 9 units: across 8
    names = agent_indexes.index_names("growing")
    assert set(_definitions(db_url)) == set(names.values())
    assert names["vec"] in _plan(db_url, "growing")

    def broken(conn, agent, **options):
        raise psycopg.errors.LockNotAvailable("busy")

    monkeypatch.setattr(agent_indexes, "ensure", broken)
    _fill(memory, "other", 9)  # crosses too, and its build fails
    assert memory.stats("other").units == 9
    assert set(_definitions(db_url)) == set(names.values())
    assert memory.index_agents(min_units=8).built == ("other",)  # maintenance catches up


def test_crossed_names_only_the_agents_a_write_took_across():
    counts = {"a": 5_000, "b": 5_100, "c": 4_999, "d": 12_000}
    added = {"a": 1, "b": 50, "c": 10, "d": 9_000}
    assert agent_indexes.crossed_own_index(counts, added, 5_000) == ["a", "d"]


def test_an_imported_agent_above_the_boundary_gets_its_own_indexes(memory, db_url, monkeypatch):
    import io

    monkeypatch.setattr(agent_indexes, "OWN_INDEX_UNITS", 8)
    _fill(memory, "source", 7)
    memory.index_agents(min_units=100)  # nothing to build below it
    out = io.StringIO()
    memory.export_agent("source", out)
    memory.import_agent("small copy", io.StringIO(out.getvalue()))
    assert _definitions(db_url) == {}
    _fill(memory, "source", 2, start=7)  # 9 units: across 8, built by the put
    out = io.StringIO()
    memory.export_agent("source", out)
    memory.import_agent("copy", io.StringIO(out.getvalue()))
    assert set(agent_indexes.index_names("copy").values()) <= set(_definitions(db_url))

    def broken(conn, agent, **options):  # the import stands when its build fails, as a put does
        raise psycopg.errors.LockNotAvailable("busy")

    monkeypatch.setattr(agent_indexes, "ensure", broken)
    assert memory.import_agent("second copy", io.StringIO(out.getvalue())).rows["memory_units"] == 9
    assert memory.stats("second copy").units == 9


def test_the_build_after_a_put_waits_only_so_long_for_an_open_transaction(memory, db_url, monkeypatch):
    """A concurrent build waits for the transactions writing to the table: one left open elsewhere
    must not hold the put. The put returns, its units stored; maintenance builds the index once that
    transaction ends (dropping the invalid one the failed build left)."""
    import time

    monkeypatch.setattr(agent_indexes, "OWN_INDEX_UNITS", 8)
    monkeypatch.setattr(agent_indexes, "PUT_BUILD_WAIT_S", 0.3)
    _fill(memory, "waiting", 5)
    _fill(memory, "other", 1)
    with psycopg.connect(db_url) as idle:  # another writer's transaction, held open (a long bulk put)
        idle.execute("UPDATE memory_units SET importance = importance WHERE agent_id = 'other'")
        started = time.perf_counter()
        _fill(memory, "waiting", 4, start=5)  # across 8
        assert time.perf_counter() - started < 5
        assert memory.stats("waiting").units == 9
        with psycopg.connect(db_url) as conn:
            assert not agent_indexes.has_vector_index(conn, "waiting")
    assert memory.index_agents(min_units=8).built == ("waiting",)
    with psycopg.connect(db_url) as conn:
        assert agent_indexes.has_vector_index(conn, "waiting")


def test_the_wait_is_reset_on_the_connection_after_the_build(memory, db_url, monkeypatch):
    """The wait is a session setting (a concurrent build runs outside a transaction): reset after the
    build, whether it succeeded or failed, so a pooler's connection carries nothing to its next client."""
    monkeypatch.setattr(agent_indexes, "OWN_INDEX_UNITS", 8)
    _fill(memory, "resets", 9)
    with psycopg.connect(db_url, autocommit=True) as conn:
        default = conn.execute("SHOW lock_timeout").fetchone()[0]
        agent_indexes.drop(conn, "resets")  # built by the put that crossed 8: build them here
        assert agent_indexes.ensure(conn, "resets", wait_s=0.3)
        assert conn.execute("SHOW lock_timeout").fetchone()[0] == default
        agent_indexes.drop(conn, "resets")
        monkeypatch.setattr(agent_indexes, "_build", lambda *a, **k: conn.execute("SELECT 1/0"))
        with pytest.raises(psycopg.errors.DivisionByZero):
            agent_indexes.ensure(conn, "resets", wait_s=0.3)
        assert conn.execute("SHOW lock_timeout").fetchone()[0] == default
