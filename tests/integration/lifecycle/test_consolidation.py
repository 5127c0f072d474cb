"""Consolidation on the real PostgreSQL: hashing embedder for the mechanics, the real model once."""

import json
import uuid
from dataclasses import replace

import psycopg
import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.config import LifecycleConfig, LLMConfig
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.concurrency import run_together
from tests.support.openai_server import OpenAITestServer

DEPLOY = [
    "The nightly deploy to production failed with a database timeout error.",
    "The production deploy failed because the database connection timed out.",
    "Our deploy to production broke again with a database timeout error.",
]
CAKE = [
    "Alice baked a chocolate cake for the office birthday party.",
    "Alice brought a homemade lemon cake to the office birthday party.",
    "For the office birthday party Alice baked a carrot cake.",
]
# near-duplicates, so that the bag-of-words hashing embedder sees two clear topics
DEPLOY_H = [f"The nightly deploy to production failed with a database timeout error on {d}."
            for d in ("Monday", "Tuesday", "Friday")]
CAKE_H = [f"Alice baked a {k} cake for the office birthday party." for k in ("chocolate", "lemon", "carrot")]


def _hashing_memory(db_url, clock, **kw):
    lifecycle = replace(LifecycleConfig(), consolidation_similarity=0.5)
    return FleetMemory(Config(database_url=db_url, lifecycle=lifecycle, **kw), embedder=HashingEmbedder(),
                       clock=clock)


def _put_all(memory, texts, importance=0.8, **kw):
    ids = []
    for text in texts:
        result = memory.put("a1", text, importance=importance, **kw)
        assert len(result.unit_ids) == 1, result
        ids.append(result.unit_ids[0])
    return ids


def _check_two_topics(memory, clock, deploy_ids, cake_ids, extra_ids):
    report = memory.consolidate("a1")
    assert report.clusters == 2 and len(report.created) == 2 and report.method == "offline"
    by_sources = {frozenset(c.source_ids): c for c in report.created}
    assert set(by_sources) == {frozenset(deploy_ids), frozenset(cake_ids)}
    for created in report.created:
        unit = memory.get("a1", created.id)
        assert unit.memory_type.value == "semantic" and unit.source == "consolidation"
        assert "consolidated" in unit.tags
        sources = memory.sources("a1", created.id)
        assert len(sources) >= 3 and {s.id for s in sources} == set(created.source_ids)
        for source in sources:
            assert source.importance == pytest.approx(0.4)  # 0.8 halved
            assert source.importance_set_at == clock.now()
    for uid in extra_ids:
        assert memory.get("a1", uid).importance == pytest.approx(0.8)
    return report


def _assert_readable_summary(text, sources):
    assert text.startswith("Across 3 related episodes") and text.endswith(".")
    assert text.count(". ") == 0 and "\n" not in text  # one sentence, not a concatenation
    assert sum(1 for s in sources if s.rstrip(".") in text) == 1


def test_two_topics_become_two_semantic_units_once(db_url, clock):
    with _hashing_memory(db_url, clock) as memory:
        deploy = _put_all(memory, DEPLOY_H, tags=["ops"])
        cake = _put_all(memory, CAKE_H, tags=["social"])
        other = _put_all(memory, ["The cat sleeps on the warm windowsill all afternoon."])
        low = _put_all(memory, [t.replace("Monday", "Sunday") for t in DEPLOY_H[:1]], importance=0.5)
        clock.advance(hours=1)
        report = _check_two_topics(memory, clock, deploy, cake, other)
        assert report.candidates == 7  # importance 0.5 is not above 0.5
        assert memory.get("a1", low[0]).importance == pytest.approx(0.5)
        texts = {frozenset(c.source_ids): memory.get("a1", c.id) for c in report.created}
        assert set(texts[frozenset(deploy)].tags) == {"consolidated", "ops"}
        assert set(texts[frozenset(cake)].tags) == {"consolidated", "social"}
        _assert_readable_summary(texts[frozenset(deploy)].text, DEPLOY_H)
        _assert_readable_summary(texts[frozenset(cake)].text, CAKE_H)
        # each summary is linked like an ingested unit: semantically to its own episodes
        from fleet_memory.store.linking import links as link_sql

        with memory.db.transaction() as conn:
            for sources, unit in texts.items():
                found = link_sql.neighbours(conn, "a1", [unit.id], entity=None)
                assert {n.dst for n in found if n.kind == "semantic"} & set(sources)
                assert any(n.kind == "temporal" for n in found)

        again = memory.consolidate("a1")
        assert again.created == () and again.candidates == 1
        assert memory.stats("a1").units_by_type.get("semantic") == 2
        hits = memory.search("a1", "Alice cake office birthday party", top_k=10, types=["semantic"])
        assert hits and hits[0].id == texts[frozenset(cake)].id
        assert memory.sources("a1", other[0]) == []


def test_fewer_than_three_similar_episodes_make_nothing(memory):
    _put_all(memory, DEPLOY_H[:2] + CAKE_H[:2])
    report = memory.consolidate("a1")
    assert report.created == () and report.candidates == 4


def test_summary_names_the_entities_the_cluster_shares(db_url, clock):
    with _hashing_memory(db_url, clock) as memory:
        ids = _put_all(memory, DEPLOY_H)
        entity = uuid.uuid4()
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("INSERT INTO entities (agent_id, id, name, normalized_name, label, first_seen, last_seen)"
                         " VALUES ('a1', %s, 'Project Zorblax', 'project zorblax zz', 'ORG', now(), now())",
                         (entity,))
            for uid in ids[:2]:
                conn.execute("INSERT INTO unit_entities (agent_id, unit_id, entity_id) VALUES ('a1', %s, %s)"
                             " ON CONFLICT DO NOTHING", (uid, entity))
        (created,) = memory.consolidate("a1").created
        assert "involving Project Zorblax" in created.text
        assert created.text.startswith("Across 3 related episodes involving ")
        with psycopg.connect(db_url) as conn:
            linked = conn.execute("SELECT count(*) FROM unit_entities WHERE agent_id = 'a1' AND unit_id = %s"
                                  " AND entity_id = %s", (created.id, entity)).fetchone()[0]
        assert linked == 1


def test_llm_summary_when_an_llm_is_configured(db_url, clock):
    with OpenAITestServer() as server:
        llm = LLMConfig(base_url=server.base_url, model="test-model")
        with _hashing_memory(db_url, clock, llm=llm) as memory:
            ids = _put_all(memory, DEPLOY_H)
            asked = len(server.requests)
            server.script("not json at all",
                          json.dumps({"summary": "Production deploys keep failing on database timeouts."}))
            report = memory.consolidate("a1")
        assert report.method == "llm"
        (created,) = report.created
        assert created.text == "Production deploys keep failing on database timeouts."
        assert set(created.source_ids) == set(ids)
        mine = server.requests[asked:]
        assert len(mine) == 2  # one retry after the invalid answer
        assert all(DEPLOY_H[0] in m["messages"][-1 if i == 0 else 1]["content"] for i, m in enumerate(mine))


def test_the_llm_reads_episodes_of_one_time_in_the_order_they_were_written(db_url, clock):
    """Six near-duplicate episodes at one time (the clock stands still): the prompt lists them in
    the order they were put, whatever order their random ids sort in."""
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
    texts = [f"The nightly deploy to production failed with a database timeout error on {d}." for d in days]
    with OpenAITestServer() as server:
        with _hashing_memory(db_url, clock, llm=LLMConfig(base_url=server.base_url, model="test-model")) as memory:
            _put_all(memory, texts)
            asked = len(server.requests)
            server.script(json.dumps({"summary": "Production deploys keep failing on database timeouts."}))
            assert len(memory.consolidate("a1").created) == 1
        prompt = server.requests[asked]["messages"][-1]["content"]
    assert [prompt.index(t) for t in texts] == sorted(prompt.index(t) for t in texts), prompt


@pytest.mark.models
def test_real_model_clusters_paraphrases_with_the_default_threshold(real_memory, clock):
    deploy = _put_all(real_memory, DEPLOY)
    cake = _put_all(real_memory, CAKE)
    other = _put_all(real_memory, ["The cat sleeps on the warm windowsill all afternoon."])
    report = _check_two_topics(real_memory, clock, deploy, cake, other)
    for created in report.created:
        _assert_readable_summary(created.text, DEPLOY + CAKE)
    assert real_memory.consolidate("a1").created == ()


def test_two_concurrent_consolidations_create_each_unit_once(db_url, clock):
    
    with _hashing_memory(db_url, clock) as setup:
        deploy = _put_all(setup, DEPLOY_H)
        cake = _put_all(setup, CAKE_H)
    def job(wait):
        with _hashing_memory(db_url, clock) as mem:
            wait()
            return mem.consolidate("a1")

    reports = run_together(job)
    created = [c for r in reports for c in r.created]
    assert sorted(len(c.source_ids) for c in created) == [3, 3]
    assert {frozenset(c.source_ids) for c in created} == {frozenset(deploy), frozenset(cake)}
    with _hashing_memory(db_url, clock) as check:
        assert check.stats("a1").units_by_type.get("semantic") == 2
        assert all(check.get("a1", uid).importance == pytest.approx(0.4) for uid in deploy + cake)  # halved once
