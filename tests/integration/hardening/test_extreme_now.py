"""One search with an extreme ``now`` never breaks the agent: reinforcement
never moves ``last_accessed`` backwards, and the effective-importance arithmetic holds for any
stored access time. Before, ``search(now="1900-01-01")`` stored 1900 as the hits' last access,
and every later context build or ``min_importance`` search underflowed in ``exp`` (500)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fastapi.testclient import TestClient

from fleet_memory.rest import create_app

FACTS = ["Alice moved to Paris in May.", "Bob adopted a cat named Miso."]


def _accesses(memory, agent: str) -> list[tuple]:
    with memory.db.transaction() as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT access_count, last_accessed FROM memory_units WHERE agent_id = %s ORDER BY seq", (agent,))]


def _stored(memory, agent: str, column: str, value) -> None:
    with memory.db.transaction() as conn:
        conn.execute(f"UPDATE memory_units SET {column} = %s WHERE agent_id = %s", (value, agent))


def test_a_search_in_the_past_moves_no_access_time_backwards(memory) -> None:
    for fact in FACTS:
        memory.put("a1", fact)
    memory.search("a1", "Where did Alice move?")  # accessed now
    before = _accesses(memory, "a1")
    hits = memory.search("a1", "Where did Alice move?", now="1900-01-01")
    assert hits
    after = _accesses(memory, "a1")
    assert [when for _, when in after] == [when for _, when in before]
    assert sum(count for count, _ in after) > sum(count for count, _ in before)


def test_a_first_search_in_the_past_leaves_the_curve_at_creation(memory) -> None:
    memory.put("a1", FACTS[0])
    assert memory.search("a1", "Where did Alice move?", now="1900-01-01")
    assert [when for _, when in _accesses(memory, "a1")] == [None]
    assert memory.search("a1", "Alice", min_importance=0.1)
    assert "Paris" in memory.build_context("a1", "Where did Alice move?")


def test_rest_context_and_filtered_search_answer_after_a_search_in_1900(memory) -> None:
    memory.put("a1", FACTS[0])
    with TestClient(create_app(memory, auth=False)) as client:
        assert client.post("/v1/agents/a1/search", json={"query": "Alice", "now": "1900-01-01T00:00:00Z"}
                           ).status_code == 200
        assert client.post("/v1/agents/a1/context", json={"message": "Where did Alice move?"}).status_code == 200
        found = client.post("/v1/agents/a1/search", json={"query": "Alice", "min_importance": 0.1})
        assert found.status_code == 200, found.text


@pytest.mark.parametrize("when", [datetime(1, 1, 1, tzinfo=timezone.utc), "-infinity", "infinity",
                                  datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc)])
def test_effective_importance_holds_for_any_stored_access_time(memory, when) -> None:
    memory.put("a1", FACTS[0])
    _stored(memory, "a1", "last_accessed", when)
    _stored(memory, "a1", "importance", 1e-38)  # the smallest products: no underflow in the multiply
    for now in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"):
        assert not memory.search("a1", "Alice", min_importance=1e-30, now=now)
        if not isinstance(when, str):  # a unit stored with infinity could not be read into Python
            assert memory.search("a1", "Alice", min_importance=0.0, now=now)


def test_reinforcement_saturates_the_access_count(memory) -> None:
    memory.put("a1", FACTS[0])
    _stored(memory, "a1", "access_count", 2**31 - 1)
    assert memory.search("a1", "Where did Alice move?")
    assert _accesses(memory, "a1")[0][0] == 2**31 - 1
