"""The time entry channel of a large agent: when it ranks the query's window through the agent's own
vector index (``candidates.time_by_index``), how far the window is counted, what a search decides
(``recall.search._time_index``), and that both ways find the same units on an agent small enough
for the index to be exact."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from fleet_memory.store.db import agent_indexes
from fleet_memory.store.reads import candidates as cand_sql
from fleet_memory.store.tables.filters import UnitFilter

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
TEXTS = ["Alice Moreau started working at Orbital Labs.", "Bob Kitano flew to Lisbon with Alice Moreau.",
         "Alice Moreau adopted a dog named Biscuit.", "Bob Kitano is worried about Orbital Labs.",
         "Carmen Ruiz gave a talk about climate policy in Kyoto.", "Deepak Rao bought a used car."]
MARCH = (T0, T0 + timedelta(days=31))


def test_the_index_only_for_a_large_window_of_an_agent_with_its_own_index():
    big = agent_indexes.OWN_INDEX_UNITS
    assert not cand_sql.time_by_index(big - 1, big - 1, 10)  # no own index at that size
    assert not cand_sql.time_by_index(10_000, 5_000, 0)  # channel off
    # a small share of the agent: the filtered scan may miss the window's best
    assert not cand_sql.time_by_index(10_000, 2_236, 10)
    assert cand_sql.time_by_index(10_000, 2_237, 10)
    assert not cand_sql.time_by_index(50_000, 3_160, 10)  # a year of bench/fleet.py's 50,000-unit agent
    # the count goes exactly as far as the rule needs
    assert cand_sql.time_index_count(5_000, 10) == 1_582  # 1,582² ≥ 50 × 10 × 5,000
    assert cand_sql.time_index_count(10_000, 10) == 2_237
    assert not cand_sql.time_by_index(1_000_000, cand_sql.time_index_count(1_000_000, 10) - 1, 10)
    assert cand_sql.time_by_index(1_000_000, cand_sql.time_index_count(1_000_000, 10), 10)


def _put(memory, agent: str, n: int) -> None:
    # distinct texts: equal vectors would tie, and the two ways may break a tie differently
    memory.put_many([{"text": f"{TEXTS[i % len(TEXTS)][:-1]} in week {i}.",
                      "timestamp": (T0 + timedelta(days=i)).isoformat()} for i in range(n)], agent_id=agent)


def _time_entries(memory, agent: str, query: str, by_index: bool) -> list[str]:
    with memory.db.transaction() as conn:
        feats = cand_sql.Features(np.asarray(memory.embedder.embed([query])[0], dtype=np.float32))
        found = cand_sql.entries(conn, agent, feats, UnitFilter(),
                                 cand_sql.EntryLimits(time=4, window=MARCH, time_index=by_index))
    assert all(channels == ["time"] for _, channels in found)
    assert all(MARCH[0] <= c.unit.event_date < MARCH[1] for c, _ in found)
    return sorted(str(c.unit.id) for c, _ in found)


def test_window_count_and_both_ways_find_the_same_units(real_memory):
    memory = real_memory  # real vectors: the test embedder ties texts that differ in one number
    _put(memory, "big", 40)
    memory.index_agents(min_units=5)
    with memory.db.transaction() as conn:
        assert cand_sql.window_units(conn, "big", MARCH, 1_000) == 31  # March: days 0-30
        assert cand_sql.window_units(conn, "big", MARCH, 7) == 7  # counted only as far as asked
        assert cand_sql.window_units(conn, "someone else", MARCH, 1_000) == 0

    query = "Where does Alice Moreau work?"
    exact = _time_entries(memory, "big", query, by_index=False)
    assert len(exact) == 4
    assert _time_entries(memory, "big", query, by_index=True) == exact  # 40 units: the index is exact


@pytest.fixture
def small_rule(monkeypatch):
    """The rule at the scale of a test agent: its own index from 5 units, windows from 3 units and
    window² ≥ 2 × k × units (a month of 31 units of 40, k = 10: 961 ≥ 800)."""
    monkeypatch.setattr(cand_sql, "OWN_INDEX_UNITS", 5)
    monkeypatch.setattr(cand_sql, "TIME_INDEX_FROM", 3)
    monkeypatch.setattr(cand_sql, "TIME_INDEX_FACTOR", 2)
    asked: list[bool] = []
    entries = cand_sql.entries

    def spy(conn, agent_id, feats, flt, limits):
        if limits.window is not None:
            asked.append(limits.time_index)
        return entries(conn, agent_id, feats, flt, limits)

    monkeypatch.setattr(cand_sql, "entries", spy)
    return asked


def test_a_search_uses_the_index_only_when_it_exists_and_the_filter_keeps_every_unit(memory, small_rule):
    _put(memory, "big", 40)
    now = T0 + timedelta(days=60)
    question = "What did Alice Moreau do in March 2024?"
    memory.search("big", question, now=now)
    assert small_rule == [False]  # no index yet: exactly
    memory.index_agents(min_units=5)
    exact_order = [r.id for r in memory.search("big", question, now=now, reinforce=False)]
    assert small_rule[-1] is True
    memory.search("big", question, now=now, session_id="s-1")
    assert small_rule[-1] is False  # a restrictive filter: the count says nothing about what passes it
    memory.search("big", "What did Alice Moreau do yesterday?", now=now)
    assert small_rule[-1] is False  # a window of no unit
    assert exact_order  # the search through the index answers
