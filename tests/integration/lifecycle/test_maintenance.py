"""Forgetting curve, archive and restore on the real PostgreSQL, with a fixed clock."""

import math
from dataclasses import replace
from datetime import timedelta

import pytest

from fleet_memory import Config, FleetMemory, NotFoundError
from fleet_memory.config import LifecycleConfig
from fleet_memory.lifecycle.decay import effective_importance
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.concurrency import run_together


def _one(memory, text, **kw):
    result = memory.put("a1", text, **kw)
    assert len(result.unit_ids) == 1, result
    return result.unit_ids[0]


def _snapshot(memory, agent="a1"):
    page = memory.list_units(agent, limit=1000, include_archived=True)
    return {u.id: (u.importance, u.importance_set_at, u.archived_at, u.last_accessed) for u in page.units}


def test_forgetting_curve_archive_idempotence_and_restore(memory, clock):
    episodic = _one(memory, "The deploy of the billing service was rolled back.", importance=0.5)
    procedural = _one(memory, "We run the billing migrations before each deploy.", importance=0.5,
                      memory_type="procedural")
    clock.advance(days=1)
    hits = memory.search("a1", "billing deploy", top_k=10)  # both accessed now
    assert {h.id for h in hits} == {episodic, procedural}
    accessed = clock.now()
    clock.advance(days=100)

    report = memory.maintain()
    assert (report.examined, report.archived) == (2, 1)
    assert report.archived_by_type == {"episodic": 1}
    assert report.examined_by_type == {"episodic": 1, "procedural": 1}
    assert memory.get("a1", episodic).archived_at == clock.now()
    kept = memory.get("a1", procedural)
    assert kept.archived_at is None
    assert kept.memory_type == "procedural"
    assert effective_importance(kept, clock.now(), LifecycleConfig()) == pytest.approx(0.5 * math.exp(-0.5), rel=1e-5)
    assert memory.get("a1", episodic).last_accessed == accessed

    before = _snapshot(memory)
    again = memory.maintain()
    assert again.archived == 0 and again.examined == 1
    assert _snapshot(memory) == before  # nothing changed, importance never rewritten

    assert episodic not in {h.id for h in memory.search("a1", "billing deploy rolled back", top_k=10,
                                                        reinforce=False)}
    assert episodic in {h.id for h in memory.search("a1", "billing deploy rolled back", top_k=10,
                                                    include_archived=True, reinforce=False)}

    restored = memory.restore("a1", episodic)
    assert restored.archived_at is None and restored.last_accessed == clock.now()
    assert episodic in {h.id for h in memory.search("a1", "billing deploy rolled back", top_k=10,
                                                    reinforce=False)}
    assert memory.maintain().archived == 0  # a fresh curve from the restore


def test_decay_never_compounds(memory, clock):
    uid = _one(memory, "The quarterly report was sent to the board.", importance=0.9)
    for _ in range(6):  # 6 × 20 days: 0.9·e^(−2.4) ≈ 0.082 only at the end
        clock.advance(days=20)
        report = memory.maintain("a1")
        unit = memory.get("a1", uid)
        assert unit.importance == pytest.approx(0.9)
    assert report.archived == 1 and unit.archived_at == clock.now()


def test_never_accessed_units_decay_from_creation_and_now_can_be_given(memory, clock):
    uid = _one(memory, "The office moved to the third floor.", importance=0.5)
    start = clock.now()
    assert memory.maintain(now=start + timedelta(days=80)).archived == 0  # 0.5·e^−1.6 ≈ 0.10
    assert memory.get("a1", uid).archived_at is None
    assert memory.maintain(now=(start + timedelta(days=81)).isoformat()).archived == 1
    assert memory.get("a1", uid).archived_at == start + timedelta(days=81)


def test_maintain_one_agent_leaves_others_alone(memory, clock):
    mine = _one(memory, "The old printer was replaced.", importance=0.2)
    theirs = memory.put("a2", "The old scanner was replaced.", importance=0.2).unit_ids[0]
    clock.advance(days=60)
    assert memory.maintain("a1").archived == 1
    assert memory.get("a1", mine).archived_at is not None
    assert memory.get("a2", theirs).archived_at is None
    assert memory.maintain().archived == 1


def test_maintain_pages_in_bounded_batches(db_url, clock):
    config = Config(database_url=db_url, lifecycle=replace(LifecycleConfig(), batch_size=3))
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as memory:
        memory.put_many([{"content": f"Sensor {i} reported a reading.", "importance": round(0.1 + 0.09 * i, 2)}
                         for i in range(10)], agent_id="a1")
        memory.put_many([{"content": f"Gauge {i} reported a reading.", "importance": 0.5} for i in range(2)],
                        agent_id="a2")
        clock.advance(days=30)  # factor e^−0.6 ≈ 0.549: importance below ≈ 0.182 fades
        report = memory.maintain()
        assert report.examined == 12 and report.batches == 4
        assert report.archived == 1
        one = memory.maintain("a1")
        assert one.examined == 9 and one.batches == 3 and one.archived == 0


def test_restore_unknown_unit_is_not_found(memory):
    with pytest.raises(NotFoundError):
        memory.restore("a1", "00000000-0000-4000-8000-000000000000")


def test_two_concurrent_maintains_leave_the_result_of_one(db_url, clock):
    config = Config(database_url=db_url, lifecycle=replace(LifecycleConfig(), batch_size=7))
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as setup:
        setup.put_many([{"content": f"Machine {i} finished job {i * 7}.", "importance": (i % 10) / 10 + 0.05}
                        for i in range(240)], agent_id="a1")
        clock.advance(days=60)  # factor e^−1.2 ≈ 0.301: importance 0.05, 0.15, 0.25 fade
        units = setup.list_units("a1", limit=1000).units
        expected = {u.id for u in units
                    if effective_importance(u, clock.now(), config.lifecycle) < 0.1}
    assert len(units) > 200 and 50 < len(expected) < len(units) - 100  # ingestion may drop a few fragments

    def job(wait):
        with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as mem:
            wait()
            return mem.maintain("a1")

    reports = run_together(job)
    assert sum(r.archived for r in reports) == len(expected)  # each unit archived exactly once
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as check:
        archived = {u.id for u in check.list_units("a1", limit=1000, include_archived=True).units
                    if u.archived_at is not None}
        assert archived == expected
        assert check.maintain("a1").archived == 0


def test_scheduler_runs_the_jobs_on_the_injected_clock(memory, clock):
    import threading

    uid = _one(memory, "The old printer was replaced.", importance=0.3)
    clock.advance(days=90)  # 0.3·e^−1.8 ≈ 0.05
    done = threading.Event()
    scheduler = memory.schedule(interval_s=3600, start=False)
    scheduler.on_round = lambda results: done.set()
    scheduler.start()
    assert done.wait(60)
    scheduler.stop()
    assert not scheduler.last_errors
    assert scheduler.last_results["maintain"].archived == 1
    assert memory.get("a1", uid).archived_at == clock.now()
    assert scheduler.run_once()["maintain"].archived == 0


@pytest.mark.parametrize("call, field", [
    (lambda m: m.maintain(""), "agent_id"),
    (lambda m: m.maintain(now="last tuesday"), "now"),
    (lambda m: m.restore("a1", "not-a-uuid"), "unit_id"),
    (lambda m: m.consolidate(None), "agent_id"),
    (lambda m: m.sources("a1", 42), "unit_id"),
])
def test_bad_input_is_refused(memory, call, field):
    from fleet_memory import InvalidInputError

    with pytest.raises(InvalidInputError) as err:
        call(memory)
    assert err.value.field == field
