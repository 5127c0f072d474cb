"""A worked example, four puts about Alice a week and three days old (pronouns resolved, entities
shared, temporal and semantic links), through the full offline pipeline, on the real embedded
PostgreSQL with the real spaCy model and the real embedding model."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import psycopg
import pytest

from fleet_memory.model import LinkKind
from fleet_memory.store.linking import links as link_sql

pytestmark = pytest.mark.models


@pytest.fixture
def alice_units(real_memory, clock):
    now = clock.now()
    week, three = now - timedelta(days=7), now - timedelta(days=3)
    results = real_memory.put_many([
        {"content": "Alice loves hiking in the mountains", "event_date": week},
        {"content": "She goes hiking every weekend in Yosemite", "event_date": week},
        {"content": "Alice works at Google as a software engineer", "event_date": three},
        {"content": "She joined Google last year", "event_date": three},
    ], agent_id="agent_1")
    return real_memory, results


def test_pronouns_are_replaced_by_their_referents(alice_units):
    _, results = alice_units
    assert [r.texts for r in results] == [
        ["Alice loves hiking in the mountains"],
        ["Alice goes hiking every weekend in Yosemite"],
        ["Alice works at Google as a software engineer"],
        ["Alice joined Google last year"],
    ]
    assert all(r.skipped_reason is None for r in results)
    assert set(results[0].stage_seconds) >= {"extract", "parse", "coref", "validate", "entities", "embed", "write",
                                            "resolve", "link"}


def test_one_entity_each_for_alice_google_and_yosemite(alice_units):
    memory, results = alice_units
    entities = {e.name: e for e in memory.list_entities("agent_1")}
    assert set(entities) == {"Alice", "Google", "Yosemite"}
    assert entities["Alice"].label == "PERSON"
    assert entities["Google"].label == "ORG"
    assert entities["Yosemite"].label in ("GPE", "LOC")
    assert entities["Alice"].mention_count == 4
    assert entities["Google"].mention_count == 2
    detail = memory.get_entity("agent_1", "alice")
    assert {u.id for u in detail.units} == {uid for r in results for uid in r.unit_ids}


def test_links_temporal_entity_and_semantic(alice_units, db_url):
    memory, results = alice_units
    ids = [r.unit_ids[0] for r in results]
    with psycopg.connect(db_url) as conn:
        got = link_sql.neighbours(conn, "agent_1", ids, units=len(ids))
        stored = conn.execute("SELECT from_id, to_id, kind, weight FROM links WHERE agent_id = 'agent_1'").fetchall()
        emb = {r[0]: np.asarray(r[1].to_list() if hasattr(r[1], "to_list") else r[1], dtype=float)
               for r in conn.execute("SELECT id, embedding::real[] FROM memory_units").fetchall()}
    temporal = {frozenset((n.src, n.dst)): n.weight for n in got if n.kind == LinkKind.TEMPORAL}
    # Same-day pairs only (the two days are four days apart, outside the 24 h window); Δt = 0 → weight 1.0.
    assert temporal == {frozenset(ids[:2]): pytest.approx(1.0), frozenset(ids[2:]): pytest.approx(1.0)}
    entity = {(n.src, n.dst) for n in got if n.kind == LinkKind.ENTITY}
    assert {(a, b) for a in ids for b in ids if a != b} <= entity  # all four Alice units connected
    assert all(n.weight == 1.0 for n in got if n.kind == LinkKind.ENTITY)
    assert not any(k == "entity" for *_, k, _ in stored)  # entity links are never stored
    for a, b, kind, weight in stored:
        if kind == "semantic":
            cosine = float(emb[a] @ emb[b] / (np.linalg.norm(emb[a]) * np.linalg.norm(emb[b])))
            assert weight >= 0.7 and cosine == pytest.approx(weight, abs=1e-3)
    # every pair of units at cosine >= 0.7 is linked (4 units, top 5)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            cosine = float(emb[a] @ emb[b] / (np.linalg.norm(emb[a]) * np.linalg.norm(emb[b])))
            linked = frozenset((a, b)) in {frozenset((x, y)) for x, y, k, _ in stored if k == "semantic"}
            assert linked == (cosine >= 0.7)
