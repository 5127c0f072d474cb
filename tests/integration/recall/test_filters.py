"""Recall's filters (docs/concepts.md, Recall), one by one, applied before ranking; reinforcement; bad values."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from fleet_memory import InvalidInputError
from fleet_memory.recall.presets import BALANCED
from fleet_memory.store.linking import links as link_sql
from fleet_memory.store.tables import maintenance

AGENT = "filters"
ONE_ENTRY = replace(BALANCED, name="one-entry", vector_entry_k=1, entity_entry_k=0, time_entry_k=0)


@pytest.fixture
def stored(memory, clock):
    """Six memories about garden tomatoes that differ in exactly one filterable attribute each."""
    now = clock.now()
    put = memory.put
    ids = {}
    ids["plain"] = put(AGENT, "The garden tomatoes need water every morning.", event_date=now - timedelta(days=1)).unit_ids[0]
    ids["semantic"] = put(AGENT, "Garden tomatoes are botanically fruits.", memory_type="semantic",
                          event_date=now - timedelta(days=2)).unit_ids[0]
    ids["important"] = put(AGENT, "Garden tomatoes wilt quickly in frost.", importance=0.9,
                           event_date=now - timedelta(days=3)).unit_ids[0]
    ids["old"] = put(AGENT, "We planted the garden tomatoes in the old plot.",
                     event_date=now - timedelta(days=400)).unit_ids[0]
    ids["tagged"] = put(AGENT, "The garden tomatoes will go in the raised bed.", tags=["work", "garden"],
                        event_date=now - timedelta(days=4)).unit_ids[0]
    ids["user"] = put(AGENT, "Garden tomatoes grow best in sunny spots.", user_id="u1", session_id="s1",
                      event_date=now - timedelta(days=5)).unit_ids[0]
    return ids


def found(memory, **options) -> set:
    return {r.id for r in memory.search(AGENT, "garden tomatoes", top_k=20, reinforce=False, **options)}


def test_no_filter_finds_all(memory, stored) -> None:
    assert found(memory) == set(stored.values())


def test_types(memory, stored) -> None:
    assert found(memory, types=["semantic"]) == {stored["semantic"]}
    assert stored["semantic"] not in found(memory, types=["episodic", "procedural"])


def test_top_k_and_limit(memory, stored) -> None:
    assert len(memory.search(AGENT, "garden tomatoes", top_k=2, reinforce=False)) == 2
    assert len(memory.search(AGENT, "garden tomatoes", limit=3, reinforce=False)) == 3


def test_min_importance_is_on_effective_importance(memory, stored, clock) -> None:
    assert found(memory, min_importance=0.8) == {stored["important"]}
    # 0.9 decays along the forgetting curve (2 %/day by default): after 60 days it is about 0.27
    clock.advance(days=60)
    assert found(memory, min_importance=0.8) == set()


def test_max_age_days(memory, stored) -> None:
    assert found(memory, max_age_days=30) == set(stored.values()) - {stored["old"]}


def test_since_and_until(memory, stored, clock) -> None:
    now = clock.now()
    assert found(memory, since=now - timedelta(days=3, hours=12), until=now - timedelta(days=1, hours=12)) == {
        stored["semantic"], stored["important"]}


def test_tags_need_every_tag(memory, stored) -> None:
    assert found(memory, tags=["work"]) == {stored["tagged"]}
    assert found(memory, tags=["work", "garden"]) == {stored["tagged"]}
    assert found(memory, tags=["work", "home"]) == set()


def test_user_and_session(memory, stored) -> None:
    assert found(memory, user_id="u1") == {stored["user"]}
    assert found(memory, session_id="s1") == {stored["user"]}
    assert found(memory, user_id="u2") == set()


def test_include_archived(memory, stored, clock) -> None:
    with memory.db.transaction() as conn:
        maintenance.archive(conn, [(AGENT, stored["old"])], clock.now())
    assert stored["old"] not in found(memory)
    assert stored["old"] in found(memory, include_archived=True)


def test_filter_excluding_everything_gives_an_empty_result(memory, stored) -> None:
    assert memory.search(AGENT, "garden tomatoes", tags=["nothing-has-this"]) == []
    assert memory.search(AGENT, "garden tomatoes", types=["procedural"]) == []
    assert memory.search("nobody", "garden tomatoes") == []


def test_filters_apply_to_units_reached_by_activation(memory, clock) -> None:
    now = clock.now()
    entry = memory.put(AGENT, "We held the quarterly budget review with the finance team.", tags=["work"],
                       event_date=now - timedelta(days=400)).unit_ids[0]
    other = memory.put(AGENT, "Zebras graze peacefully on the savanna.",
                       event_date=now - timedelta(days=10)).unit_ids[0]
    with memory.db.transaction() as conn:
        link_sql.insert_links(conn, AGENT, [(entry, other, "semantic", 0.95)])
    unfiltered = memory.search(AGENT, "quarterly budget review", top_k=10, reinforce=False, explain=True,
                               preset=ONE_ENTRY)
    reached = {r.id: r for r in unfiltered}
    assert other in reached and "activation" in reached[other].explanation.channels
    assert other not in found_with(memory, "quarterly budget review", tags=["work"])
    assert entry not in found_with(memory, "quarterly budget review", max_age_days=100)


def found_with(memory, query: str, **options) -> set:
    return {r.id for r in memory.search(AGENT, query, top_k=10, reinforce=False, preset=ONE_ENTRY, **options)}


def test_reinforcement_counts_returned_units_only(memory, stored, clock) -> None:
    results = memory.search(AGENT, "garden tomatoes", top_k=2)
    returned = {r.id for r in results}
    for key, uid in stored.items():
        unit = memory.get(AGENT, uid)
        if uid in returned:
            assert unit.access_count == 1 and unit.last_accessed == clock.now()
        else:
            assert unit.access_count == 0 and unit.last_accessed is None


def test_reinforce_false_changes_nothing(memory, stored) -> None:
    memory.search(AGENT, "garden tomatoes", top_k=20, reinforce=False)
    assert all(memory.get(AGENT, uid).access_count == 0 for uid in stored.values())


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"thinking_budget": -1}, "thinking_budget"),
        ({"thinking_budget": 0}, "thinking_budget"),
        ({"types": ["dream"]}, "types"),
        ({"top_k": 0}, "top_k"),
        ({"min_importance": 1.5}, "min_importance"),
        ({"max_age_days": -3}, "max_age_days"),
        ({"preset": "turbo"}, "preset"),
        ({"now": "not a date"}, "now"),
    ],
)
def test_bad_values_are_refused_clearly(memory, options, field) -> None:
    with pytest.raises(InvalidInputError) as info:
        memory.search(AGENT, "gardening", **options)
    assert info.value.field == field


def test_since_after_until_is_refused(memory, clock) -> None:
    now = clock.now()
    with pytest.raises(InvalidInputError, match="since.*after until"):
        memory.search(AGENT, "gardening", since=now, until=now - timedelta(days=1))
