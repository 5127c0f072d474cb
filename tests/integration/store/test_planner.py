"""Planner statistics keep up with a new agent: without them the planner takes a fresh agent for
one row and walks its graph with nested scans (seconds instead of milliseconds)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from uuid import uuid4

import numpy as np

from fleet_memory.store.db import planner
from fleet_memory.store.tables import documents as doc_sql
from fleet_memory.store.tables import supersession as sup_sql
from fleet_memory.store.tables import units as unit_sql

ITEMS = [{"content": f"The team shipped release {i} of the billing service."} for i in range(150)]


def _estimate(memory, agent: str) -> float:
    with memory.db.transaction() as conn:
        return planner.estimated_units(conn, agent)


def test_a_new_agent_gets_fresh_statistics(memory, monkeypatch) -> None:
    memory.put_many(ITEMS, agent_id="old")
    with memory.db.transaction() as conn:
        conn.execute("ANALYZE")
    assert memory.stats("old").units == 150
    assert _estimate(memory, "old") >= 140

    with monkeypatch.context() as patch:  # the write alone: statistics stay as they were
        patch.setattr(planner, "refresh_if_stale", lambda conn, agents, counts: [])
        memory.put_many(ITEMS, agent_id="new")
    assert _estimate(memory, "new") < 10
    assert planner.crossed_checkpoints({"new": 150}, {"new": 150}) == ["new"]
    with memory.db.transaction() as conn:
        assert planner.refresh_if_stale(conn, ["new"], {"new": 150}) == ["new"]
        assert planner.refresh_if_stale(conn, ["new"], {"new": 150}) == []  # now estimated right
    assert _estimate(memory, "new") >= 75

    memory.put_many(ITEMS, agent_id="third")  # put_many checks by itself
    assert _estimate(memory, "third") >= 75


def test_an_import_gets_fresh_statistics_and_later_units_number_after_it(memory) -> None:
    import io
    import json

    memory.put_many(ITEMS, agent_id="old")
    with memory.db.transaction() as conn:
        conn.execute("ANALYZE")
    out = io.StringIO()
    memory.export_agent("old", out)
    lines = []
    for line in out.getvalue().splitlines():  # as if exported from a database further along
        record = json.loads(line)
        if record.get("table") == "memory_units":
            record["row"]["seq"] += 1_000_000
        lines.append(json.dumps(record))
    memory.import_agent("copy", lines)
    assert _estimate(memory, "copy") >= 75
    later = memory.put("copy", "The team shipped one more release of the billing service.").units[0].id
    with memory.db.transaction() as conn:
        highest, new = conn.execute(
            "SELECT max(seq) FILTER (WHERE id <> %(n)s), max(seq) FILTER (WHERE id = %(n)s) FROM memory_units"
            " WHERE agent_id = 'copy'", {"n": later}).fetchone()
    assert new > highest


def test_checkpoints_are_powers_of_two_from_128() -> None:
    crossed = planner.crossed_checkpoint
    assert not crossed(0, 100) and not crossed(0, 127)
    assert crossed(0, 128) and crossed(127, 128) and crossed(100, 300)
    assert not crossed(128, 200) and not crossed(300, 511)
    assert crossed(511, 512) and crossed(200, 256)


def _units(conn, agent: str, count: int) -> list:
    """``count`` units of ``agent`` with random vectors, a minute apart, written straight to the store."""
    rng = np.random.default_rng(len(agent))
    start = datetime(2024, 3, 1, tzinfo=timezone.utc)
    doc = uuid4()
    doc_sql.insert_documents(conn, [doc_sql.NewDocument(doc, agent, "notes", start, start)])
    rows = [unit_sql.NewUnit(uuid4(), agent, f"Note {i} about the billing service.", rng.standard_normal(384),
                             start + timedelta(minutes=i), start, document_id=doc) for i in range(count)]
    unit_sql.insert_units(conn, rows)
    return rows


def _fetched(conn) -> int:
    """Rows of ``memory_units`` this transaction has read so far, by scans of any kind."""
    return conn.execute("SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables"
                        " WHERE relname = 'memory_units'").fetchone()[0]


def test_supersession_in_a_new_agents_first_put_reads_its_units_once(memory) -> None:
    """Statistics from before the agent existed make the planner take it for one row: a join of its
    units with themselves then ran as a cross product (1.2 s for a 749-unit conversation in a
    store of 31,000 units; here 0.8 s). Recording supersessions reads the new units a few times
    over (once per statement, and about half of them for each key check planned for the agent
    before the plan is cached), never squared: 7,219 rows here, against 376,135 before."""
    with memory.db.transaction() as conn:
        for i in range(30):  # many agents: the new one's estimate is one row
            _units(conn, f"old-{i}", 200)
    with memory.db.autocommit() as conn:
        conn.execute("ANALYZE memory_units")
    with memory.db.transaction() as conn:
        new = _units(conn, "new", 600)
        assert planner.estimated_units(conn, "new") < 10  # the statistics predate the agent
        pairs = [(new[i].id, new[-1 - i].id, "test") for i in range(13)]
        before = _fetched(conn)
        assert sup_sql.supersede(conn, "new", pairs, new[0].created_at) == 13
        read = _fetched(conn) - before
        ended = dict(conn.execute("SELECT id, valid_until FROM memory_units WHERE agent_id = 'new'"
                                  " AND valid_until IS NOT NULL").fetchall())
    assert ended == {old: next(u.event_date for u in new if u.id == successor) for old, successor, _ in pairs}
    assert read < 20 * len(new), read  # squared: 360,000
