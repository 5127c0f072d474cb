"""Idempotency keys expire (fleet_memory.idempotency): within the time to live a retry returns the
first response and stores nothing; after it the key is gone — deleted by the next write of the
agent, or by ``maintain`` for an agent that stopped writing — and the same key is a new request."""

from __future__ import annotations

import psycopg

AGENT = "keys"


def _keys(db_url: str, agent_id: str | None = None) -> list[str]:
    with psycopg.connect(db_url) as conn:
        if agent_id is None:
            return [r[0] for r in conn.execute("SELECT key FROM idempotency_keys ORDER BY key")]
        return [r[0] for r in conn.execute("SELECT key FROM idempotency_keys WHERE agent_id = %s ORDER BY key",
                                           (agent_id,))]


def _put(memory, key: str, content: str, agent_id: str = AGENT) -> dict:
    request = {"content": content}
    return memory.idempotent(agent_id, key, request,
                             lambda: {"ids": [str(u) for u in memory.put(agent_id, content).unit_ids]})


def test_a_retry_within_the_ttl_returns_the_first_response(memory, clock, db_url) -> None:
    first = _put(memory, "k1", "Ines lives in Lisbon.")
    clock.advance(hours=23)
    assert _put(memory, "k1", "Ines lives in Lisbon.") == first
    assert memory.stats(AGENT).units == 1
    assert _keys(db_url) == ["k1"]


def test_the_next_write_deletes_its_agents_expired_keys(memory, clock, db_url) -> None:
    _put(memory, "old", "Ines lives in Lisbon.")
    _put(memory, "old-other", "Bob plays the bass.", agent_id="other")
    clock.advance(hours=24, seconds=1)
    _put(memory, "new", "Ines moved to Porto.")
    assert _keys(db_url, AGENT) == ["new"]
    assert _keys(db_url, "other") == ["old-other"]  # another agent's keys wait for its own write


def test_an_expired_key_is_a_new_request(memory, clock) -> None:
    first = _put(memory, "k1", "Ines lives in Lisbon.")
    clock.advance(hours=25)
    again = _put(memory, "k1", "Ines lives in Lisbon.")
    assert again != first


def test_maintain_deletes_expired_keys_of_every_agent(memory, clock, db_url) -> None:
    _put(memory, "a-old", "Ines lives in Lisbon.")
    _put(memory, "b-old", "Bob plays the bass.", agent_id="other")
    clock.advance(hours=20)
    _put(memory, "a-young", "Carol paints the coast.")
    clock.advance(hours=5)
    report = memory.maintain()
    assert report.expired_keys == 2
    assert _keys(db_url) == ["a-young"]
    assert memory.maintain().expired_keys == 0  # idempotent


def test_maintain_for_one_agent_leaves_the_others(memory, clock, db_url) -> None:
    _put(memory, "a-old", "Ines lives in Lisbon.")
    _put(memory, "b-old", "Bob plays the bass.", agent_id="other")
    clock.advance(hours=30)
    assert memory.maintain(AGENT).expired_keys == 1
    assert _keys(db_url) == ["b-old"]


def test_a_time_to_live_of_zero_is_refused_before_anything_runs(db_url, clock) -> None:
    import pytest

    from fleet_memory import Config, FleetMemory
    from fleet_memory.config import LifecycleConfig
    from fleet_memory.errors import InvalidInputError
    from fleet_memory.providers.embedder import HashingEmbedder

    config = Config(database_url=db_url, lifecycle=LifecycleConfig(idempotency_key_ttl_hours=0))
    with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as memory:
        with pytest.raises(InvalidInputError, match="idempotency_key_ttl_hours"):
            _put(memory, "k1", "Ines lives in Lisbon.")
        assert memory.stats(AGENT).units == 0
    assert _keys(db_url) == []
