"""Planner statistics keep up with a new agent: without them the planner takes a fresh agent for
one row and walks its graph with nested scans (seconds instead of milliseconds)."""

from __future__ import annotations

from fleet_memory.store import planner

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
    assert planner.crossed({"new": 150}, {"new": 150}) == ["new"]
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
