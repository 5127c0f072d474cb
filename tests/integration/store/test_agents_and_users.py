"""Listing agents, forgetting one user in one call, and equality filters on metadata in search,
on the real database."""

from __future__ import annotations

import pytest

from fleet_memory.errors import InvalidInputError


def _units(memory, agent):
    return [u.text for u in memory.list_units(agent, include_archived=True).units]


def test_forget_user_removes_their_units_documents_and_what_was_derived(memory):
    for day in range(3):
        memory.put("a1", f"The billing deploy failed with a critical error on day {day}.", user_id="u1",
                   importance=0.9)
    memory.put("a1", "Carol likes green tea.", user_id="u2")
    memory.put("a1", "The office is in Denver.")
    memory.put("a2", "Dave works for u1 too.", user_id="u1")
    created = memory.consolidate("a1").created
    assert created, "the three similar episodes of u1 should consolidate"

    assert memory.forget_user("a1", "u1") == 3 + len(created)
    assert sorted(_units(memory, "a1")) == ["Carol likes green tea.", "The office is in Denver."]
    assert _units(memory, "a2") == ["Dave works for u1 too."]  # other agents untouched
    assert memory.search("a1", "billing deploy failed", reinforce=False, user_id="u1") == []
    with memory.db.transaction() as conn:
        documents = conn.execute("SELECT content FROM documents WHERE agent_id = 'a1' ORDER BY content").fetchall()
    assert [d[0] for d in documents] == ["Carol likes green tea.", "The office is in Denver."]
    assert memory.forget_user("a1", "u1") == 0
    with pytest.raises(InvalidInputError, match="user_id"):
        memory.forget_user("a1", "  ")


def test_list_agents(memory):
    memory.put("b", "Bob visited Yosemite last spring.")
    memory.put("a", "Alice works at Google. She joined last year.")
    memory.put("a", "Hey!")  # a document with no unit
    agents = memory.list_agents()
    assert [(s.agent_id, s.units, s.documents) for s in agents] == [("a", 2, 2), ("b", 1, 1)]
    assert agents[0].last_write is not None
    assert [s.agent_id for s in memory.list_agents(limit=1, offset=1)] == ["b"]
    memory.delete_agent("b")
    assert [s.agent_id for s in memory.list_agents()] == ["a"]


def test_search_filters_on_metadata_keys(memory):
    memory.put("a1", "The billing service runs on Kubernetes.", metadata={"project": "billing", "prio": 1})
    memory.put("a1", "The search service runs on Kubernetes.", metadata={"project": "search", "prio": 1})
    memory.put("a1", "The mail service runs on Kubernetes.")
    texts = lambda **kw: sorted(h.text for h in memory.search("a1", "Kubernetes service", reinforce=False, **kw))  # noqa: E731
    assert texts(metadata={"project": "billing"}) == ["The billing service runs on Kubernetes."]
    assert texts(metadata={"prio": 1}) == ["The billing service runs on Kubernetes.",
                                           "The search service runs on Kubernetes."]
    assert texts(metadata={"project": "billing", "prio": 2}) == []
    assert len(texts()) == 3
    with pytest.raises(InvalidInputError, match="metadata.project"):
        memory.search("a1", "x", metadata={"project": ["billing"]})
    with pytest.raises(InvalidInputError, match="metadata"):
        memory.search("a1", "x", metadata={f"k{i}": i for i in range(17)})
