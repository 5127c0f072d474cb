"""The entity entry channel of a large agent: when it goes through the agent's own vector index
(``candidates.entity_by_index``), the check that the index exists, and that both ways find the
same mentions on an agent small enough for the index to be exact."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import psycopg

from fleet_memory.store.db import agent_indexes
from fleet_memory.store.reads import candidates as cand_sql
from fleet_memory.store.tables import entities as entity_sql
from fleet_memory.store.tables.filters import UnitFilter

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
TEXTS = ["Alice Moreau started working at Orbital Labs.", "Bob Kitano flew to Lisbon with Alice Moreau.",
         "Alice Moreau adopted a dog named Biscuit.", "Bob Kitano is worried about Orbital Labs.",
         "Carmen Ruiz gave a talk about climate policy in Kyoto.", "Deepak Rao bought a used car."]


def test_the_index_only_for_a_common_entity_of_an_agent_with_its_own_index():
    big = agent_indexes.OWN_INDEX_UNITS
    assert not cand_sql.entity_by_index(big - 1, big - 1, 10)  # no own index at that size
    assert not cand_sql.entity_by_index(50_000, cand_sql.ENTITY_EXACT_MENTIONS, 10)  # cheap enough exactly
    assert cand_sql.entity_by_index(50_000, cand_sql.ENTITY_EXACT_MENTIONS + 1, 10)
    assert not cand_sql.entity_by_index(50_000, cand_sql.ENTITY_EXACT_MENTIONS + 1, 0)  # channel off
    # a small share of a huge agent: the filtered scan would read far past the entity's units
    assert not cand_sql.entity_by_index(10_000_000, cand_sql.ENTITY_EXACT_MENTIONS + 1, 10)


def _entity_entries(memory, agent: str, query: str, by_index: bool) -> list[str]:
    with memory.db.transaction() as conn:
        named = entity_sql.lookup_entities(conn, agent, ["Alice Moreau"])
        assert named, "the test agent names Alice Moreau"
        feats = cand_sql.Features(np.asarray(memory.embedder.embed([query])[0], dtype=np.float32),
                                  entity_ids=tuple(e.id for e in named),
                                  entity_mentions=sum(e.mention_count for e in named))
        found = cand_sql.entries(conn, agent, feats, UnitFilter(),
                                 cand_sql.EntryLimits(entity=4, entity_index=by_index))
    assert all(channels == ["entity"] for _, channels in found)
    return sorted(str(c.unit.id) for c, _ in found)


def test_index_check_and_both_ways_find_the_same_mentions(memory, db_url):
    # distinct texts: equal vectors would tie, and the two ways may break a tie differently
    memory.put_many([{"text": f"{TEXTS[i % len(TEXTS)][:-1]} in week {i}.",
                      "timestamp": (T0 + timedelta(hours=i)).isoformat()} for i in range(18)], agent_id="big")
    with memory.db.transaction() as conn:
        assert not agent_indexes.has_vector_index(conn, "big")
    memory.index_agents(min_units=5)
    with memory.db.transaction() as conn:
        assert agent_indexes.has_vector_index(conn, "big")
        assert not agent_indexes.has_vector_index(conn, "someone else")

    query = "Where does Alice Moreau work?"
    exact = _entity_entries(memory, "big", query, by_index=False)
    assert len(exact) == 4
    assert _entity_entries(memory, "big", query, by_index=True) == exact  # 18 units: the index is exact

    name = agent_indexes.index_names("big")["vec"]
    with psycopg.connect(db_url, autocommit=True) as conn:  # an interrupted build: never used
        conn.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", (name,))
    with memory.db.transaction() as conn:
        assert not agent_indexes.has_vector_index(conn, "big")
