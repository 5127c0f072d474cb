"""Every bad input gets a clear error naming the field and the limit, and writes nothing."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from fleet_memory import Config, FleetMemory, InvalidInputError
from fleet_memory.providers.embedder import HashingEmbedder


def _nothing_written(memory, agent="agent_1"):
    stats = memory.stats(agent)
    assert (stats.documents, stats.units) == (0, 0)


@pytest.mark.parametrize(
    ("content", "field", "needle"),
    [
        ("", "content", "empty"),
        ("   \n\t ", "content", "empty"),
        ("Alice\x00Bob went home.", "content", "NUL"),
        ("Alice went home \ud800 late.", "content", "surrogate"),
        (42, "content", "string"),
    ],
)
def test_bad_content(memory, content, field, needle):
    with pytest.raises(InvalidInputError, match=needle) as info:
        memory.put("agent_1", content)
    assert info.value.field == field
    _nothing_written(memory)


def test_content_over_the_limit(memory):
    limit = memory.config.limits.max_content_chars
    with pytest.raises(InvalidInputError) as info:
        memory.put("agent_1", "a" * (limit + 1))
    assert info.value.field == "content"
    assert f"{limit:,}" in str(info.value)
    _nothing_written(memory)


@pytest.mark.parametrize(
    ("agent_id", "needle"),
    [("", "empty"), ("   ", "empty"), ("a" * 129, "limit: 128"), ("agent\n1", "control"), ("ag\x00nt", "NUL"), (None, "string")],
)
def test_bad_agent_id(memory, agent_id, needle):
    with pytest.raises(InvalidInputError, match=needle) as info:
        memory.put(agent_id, "Alice went home.")
    assert info.value.field == "agent_id"
    with pytest.raises(InvalidInputError):
        memory.search(agent_id, "Alice")


def test_bad_event_date(memory):
    with pytest.raises(InvalidInputError, match="ISO-8601") as info:
        memory.put("agent_1", "Alice went home.", event_date="last tuesday-ish")
    assert info.value.field == "event_date"
    with pytest.raises(InvalidInputError, match="datetime"):
        memory.put("agent_1", "Alice went home.", event_date=12345)
    _nothing_written(memory)


def test_aware_event_date_is_converted_to_utc(memory):
    from datetime import timedelta

    tz = timezone(timedelta(hours=2))
    result = memory.put("agent_1", "Alice went home.", event_date=datetime(2024, 1, 1, 12, 0, tzinfo=tz))
    assert memory.get("agent_1", result.units[0].id).event_date == datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("top_k", [0, -3, 1001, 2.5, True])
def test_bad_top_k(memory, top_k):
    with pytest.raises(InvalidInputError, match="1 to 1,000|integer") as info:
        memory.search("agent_1", "Alice", top_k=top_k)
    assert info.value.field == "top_k"


def test_bad_query_and_options(memory):
    with pytest.raises(InvalidInputError) as info:
        memory.search("agent_1", "  ")
    assert info.value.field == "query"
    with pytest.raises(InvalidInputError) as info:
        memory.put("agent_1", "Alice went home.", importance=1.5)
    assert info.value.field == "importance"
    with pytest.raises(InvalidInputError) as info:
        memory.put("agent_1", "Alice went home.", memory_type="dream")
    assert info.value.field == "memory_type"
    with pytest.raises(InvalidInputError) as info:
        memory.put("agent_1", "Alice went home.", tags="not-a-list")
    assert info.value.field == "tags"
    with pytest.raises(InvalidInputError) as info:
        memory.put("agent_1", "Alice went home.", metadata={"x": object()} | {"y": float("nan")})
    assert info.value.field == "metadata"
    _nothing_written(memory)


def test_put_many_names_the_bad_item_and_writes_nothing(memory):
    items = [{"content": "Alice went home."}, {"content": "Bob stayed."}, {"content": ""}]
    with pytest.raises(InvalidInputError) as info:
        memory.put_many(items, agent_id="agent_1")
    assert info.value.field == "items[2].content"
    with pytest.raises(InvalidInputError) as info:
        memory.put_many([{"content": "Alice went home.", "colour": "red"}], agent_id="agent_1")
    assert info.value.field == "items[0].colour"
    _nothing_written(memory)


class _BreaksOnLast(HashingEmbedder):
    """Gives the last text of a batch a vector of the wrong size, so the database rejects it
    after the documents and the first units were already sent."""

    def embed(self, texts):
        good = super().embed(texts)
        return [*good[:-1], np.zeros(self.dimension - 1, dtype=np.float32)]


def test_a_put_that_fails_halfway_leaves_no_rows(db_url, clock):
    with FleetMemory(Config(database_url=db_url), embedder=_BreaksOnLast(), clock=clock) as memory:
        with pytest.raises(Exception):
            memory.put_many(
                [{"content": f"Alice visited museum number {i} in Paris."} for i in range(5)], agent_id="agent_1"
            )
        _nothing_written(memory)


@pytest.mark.parametrize("call", [
    lambda m: m.list_agents(offset=2**63),
    lambda m: m.list_units("a", offset=2**63),
    lambda m: m.list_entities("a", offset=10**12),
])
def test_an_offset_past_any_page_is_refused_by_name(memory, call):
    with pytest.raises(InvalidInputError) as caught:  # bigint out of range in SQL before: a 500 over REST
        call(memory)
    assert caught.value.field == "offset" and "1,000,000,000" in caught.value.limit
