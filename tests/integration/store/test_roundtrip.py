"""put / search / get / delete round trips and agent isolation on the real database."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from uuid import uuid4

import pytest

from fleet_memory import MemoryType, NotFoundError


def test_put_then_get_and_search(memory, clock):
    when = datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)
    result = memory.put(
        "agent_1", "Alice works at Google as a software engineer. Bob likes climbing.",
        context="Career discussion", event_date=when, tags=["work"], user_id="u1", session_id="s1",
        source="chat", metadata={"k": 1},
    )
    assert result.document_id is not None
    assert len(result.units) >= 1
    unit = memory.get("agent_1", result.units[0].id)
    assert unit.agent_id == "agent_1"
    assert unit.event_date == when
    assert unit.context == "Career discussion"
    assert unit.tags == ("work",)
    assert (unit.user_id, unit.session_id, unit.source) == ("u1", "s1", "chat")
    assert unit.memory_type is MemoryType.EPISODIC
    assert unit.document_id == result.document_id
    assert unit.metadata["k"] == 1

    hits = memory.search("agent_1", "Where does Alice work at Google?", top_k=5)
    assert hits, "search found nothing"
    assert "Google" in hits[0].text
    first = hits[0]
    assert first["text"] == first.text and first["weight"] == first.weight
    assert first.document_id == result.document_id
    assert first.event_date == when


def test_naive_event_date_means_utc(memory):
    result = memory.put("agent_1", "Alice moved to Paris in spring.", event_date=datetime(2024, 3, 1, 12, 0))
    unit = memory.get("agent_1", result.units[0].id)
    assert unit.event_date == datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)


def test_event_date_defaults_to_now(memory, clock):
    result = memory.put("agent_1", "Alice adopted a cat named Miso.")
    assert memory.get("agent_1", result.units[0].id).event_date == clock.now()


def test_put_many_batches(memory):
    items = [{"content": f"Alice visited city number {i} on her trip.", "tags": ["trip"]} for i in range(30)]
    results = memory.put_many(items, agent_id="agent_1")
    assert len(results) == 30
    assert all(len(r.units) >= 1 for r in results)
    assert memory.stats("agent_1").documents == 30


def test_delete_unit_document_and_agent(memory):
    first = memory.put("agent_1", "Alice loves hiking in the mountains.")
    second = memory.put("agent_1", "Bob plays the cello every evening. He practises scales.")
    memory.delete("agent_1", first.units[0].id)
    with pytest.raises(NotFoundError):
        memory.get("agent_1", first.units[0].id)
    with pytest.raises(NotFoundError):
        memory.delete("agent_1", first.units[0].id)

    memory.delete_document("agent_1", second.document_id)
    for unit in second.units:
        with pytest.raises(NotFoundError):
            memory.get("agent_1", unit.id)
    with pytest.raises(NotFoundError):
        memory.delete_document("agent_1", second.document_id)

    memory.put("agent_1", "Carol repairs old bicycles.")
    assert memory.delete_agent("agent_1") >= 1
    assert memory.stats("agent_1").units == 0
    assert memory.stats("agent_1").documents == 0


def test_list_units_pages(memory, clock):
    for i in range(7):
        memory.put("agent_1", f"Alice wrote chapter {i} of her novel.", event_date=clock.now() + timedelta(days=i))
    first = memory.list_units("agent_1", limit=3)
    second = memory.list_units("agent_1", limit=3, offset=first.next_offset)
    third = memory.list_units("agent_1", limit=3, offset=second.next_offset)
    texts = [u.text for page in (first, second, third) for u in page.units]
    assert len(texts) == 7 and len(set(texts)) == 7
    assert third.next_offset is None


def test_unknown_ids_are_not_found(memory):
    with pytest.raises(NotFoundError, match="not found for agent 'agent_1'"):
        memory.get("agent_1", uuid4())


def test_agent_b_never_sees_agent_a(memory):
    a = memory.put("agent_a", "Alice keeps her savings in a Swiss bank account.")
    memory.put("agent_b", "Bob keeps a diary.")
    unit_id, doc_id = a.units[0].id, a.document_id

    assert all(h.text != a.units[0].text for h in memory.search("agent_b", "Swiss bank account savings", top_k=50))
    with pytest.raises(NotFoundError):
        memory.get("agent_b", unit_id)
    with pytest.raises(NotFoundError):
        memory.delete("agent_b", unit_id)
    with pytest.raises(NotFoundError):
        memory.delete_document("agent_b", doc_id)
    assert [u.text for u in memory.list_units("agent_b").units] == ["Bob keeps a diary."]
    assert memory.stats("agent_b").units == 1
    memory.delete_agent("agent_b")
    assert memory.get("agent_a", unit_id).text == a.units[0].text
