"""LLM fact extraction through a local OpenAI-compatible test server (no remote service), on the
real embedded PostgreSQL."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import psycopg
import pytest

from fleet_memory import Config, ExtractionError, FleetMemory
from fleet_memory.config import IngestConfig, LLMConfig
from fleet_memory.ingest.llm_extract import estimate_tokens
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.openai_server import OpenAITestServer


def _memory(db_url, clock, server, **ingest):
    config = Config(database_url=db_url, llm=LLMConfig(base_url=server.base_url, model="test-model", max_retries=2),
                    ingest=IngestConfig(llm_extraction=True, **ingest))
    return FleetMemory(config, embedder=HashingEmbedder(), clock=clock)


def _user_text(body) -> str:
    content = body["messages"][1]["content"]
    return content.split("Text:\n", 1)[1] if "Text:\n" in content else content.split("Transcript:\n", 1)[1]


def test_normal_response_is_stored_with_category_type_importance_and_entities(db_url, clock):
    answer = {"facts": [
        {"text": "Alice works at Google as a software engineer.", "category": "biographical",
         "memory_type": "semantic", "importance": 0.8, "entities": [{"name": "Alice", "label": "PERSON"},
                                                                     {"name": "Google", "label": "ORG"}]},
        {"text": "Alice joined Google last year.", "category": "event", "importance": 0.6,
         "entities": [{"name": "Alice", "label": "PERSON"}, {"name": "Google", "label": "ORG"}]},
    ]}
    with OpenAITestServer() as server, _memory(db_url, clock, server) as memory:
        server.script(json.dumps(answer))
        result = memory.put("a1", "Alice works at Google as a software engineer. She joined last year. Cool!")
        assert result.texts == ["Alice works at Google as a software engineer.", "Alice joined Google last year."]
        units = [memory.get("a1", uid) for uid in result.unit_ids]
        assert [u.memory_type.value for u in units] == ["semantic", "episodic"]
        assert [u.importance for u in units] == pytest.approx([0.8, 0.6])
        assert [u.metadata["category"] for u in units] == ["biographical", "event"]
        entities = {e.name: e for e in memory.list_entities("a1")}
        assert entities["Alice"].mention_count == 2 and entities["Google"].label == "ORG"
        (request,) = server.requests
        assert request["response_format"]["type"] == "json_schema"
        assert "She joined last year" in _user_text(request)


def test_malformed_json_is_retried_then_fails_clearly_and_stores_nothing(db_url, clock):
    with OpenAITestServer() as server, _memory(db_url, clock, server) as memory:
        server.script("{not json", "still [not json", '{"facts": "nope"}')
        with pytest.raises(ExtractionError) as info:
            memory.put("a1", "Alice works at Google as a software engineer.")
        assert len(server.requests) == 3  # one call and two retries
        assert "3 attempts" in str(info.value) and "nope" in str(info.value)
        stats = memory.stats("a1")
        assert (stats.documents, stats.units, stats.entities, stats.links) == (0, 0, 0, 0)


def test_empty_fact_list_is_reported_not_failed(db_url, clock):
    with OpenAITestServer() as server, _memory(db_url, clock, server) as memory:
        server.script(json.dumps({"facts": []}))
        result = memory.put("a1", "Hi! Thanks so much!")
        assert result.units == () and result.skipped_reason == "the extractor found no fact with substance"


def test_conversation_turns_share_one_call_and_keep_their_turns(db_url, clock):
    answer = {"facts": [
        {"text": "Caroline went to an LGBTQ support group.", "category": "event", "speaker": "Caroline", "line": 1},
        {"text": "Melanie is painting a sunrise.", "category": "event", "speaker": "Melanie", "line": 2},
    ]}
    start = clock.now() - timedelta(days=1)
    turns = [
        {"speaker": "Caroline", "text": "Hey Mel!", "timestamp": start, "turn_id": "D1:1"},
        {"speaker": "Caroline", "text": "I went to an LGBTQ support group.", "timestamp": start, "turn_id": "D1:2"},
        {"speaker": "Melanie", "text": "I'm painting a sunrise.", "timestamp": start, "turn_id": "D1:3"},
    ]
    with OpenAITestServer() as server, _memory(db_url, clock, server) as memory:
        server.script(json.dumps(answer))
        results = memory.put_many(turns, agent_id="a1")
        assert len(server.requests) == 1
        assert "#1 Caroline: I went to an LGBTQ support group." in _user_text(server.requests[0])
        assert [r.texts for r in results] == [[], ["Caroline went to an LGBTQ support group."],
                                              ["Melanie is painting a sunrise."]]
        unit = memory.get("a1", results[2].unit_ids[0])
        assert unit.metadata["turn_id"] == "D1:3" and unit.speaker == "Melanie"


def test_a_300k_character_document_is_chunked_at_sentence_boundaries(db_url, clock):
    sentences = [f"Sensor {i} in hall {i % 97} reported a reading of {i * 7} units on the {i}th check." for i in range(4000)]
    document = " ".join(sentences)
    while len(document) < 300_000:
        sentences.append(f"Sensor {len(sentences)} in hall 3 reported a calm reading on the late check.")
        document = " ".join(sentences)
    assert len(document) >= 300_000
    known = set(sentences)

    def responder(body):
        text = _user_text(body)
        parts = [p for p in re.split(r"(?<=\.) ", text)]
        return json.dumps({"facts": [{"text": parts[0], "category": "description"},
                                     {"text": parts[-1], "category": "description"}]})

    progress = []
    with OpenAITestServer(responder) as server, _memory(db_url, clock, server) as memory:
        result = memory.put("a1", document, progress=lambda done, total: progress.append((done, total)))
        chunks = [_user_text(r) for r in server.requests]
    assert len(chunks) >= 3
    assert progress[0] == (0, len(chunks)) and progress[-1] == (len(chunks), len(chunks))
    for chunk in chunks:
        assert estimate_tokens(chunk) < 30_000 and len(chunk) <= 120_000
        pieces = re.split(r"(?<=\.) ", chunk)
        assert all(p in known for p in pieces)  # cut at sentence boundaries only
    assert sorted(sum((re.split(r"(?<=\.) ", c) for c in chunks), [])) == sorted(sentences)
    stored = set(result.texts)
    for chunk in chunks:  # facts from every chunk stored
        pieces = re.split(r"(?<=\.) ", chunk)
        assert pieces[0] in stored and pieces[-1] in stored
    assert len(result.texts) == 2 * len(chunks)
    with psycopg.connect(db_url) as conn:
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 1


def test_chunks_run_with_bounded_concurrency_and_report_progress(db_url, clock):
    import threading
    import time

    active, peak, lock = [0], [0], threading.Lock()

    def responder(body):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        first = re.split(r"(?<=\.) ", _user_text(body))[0]
        return json.dumps({"facts": [{"text": first, "category": "description"}]})

    document = " ".join(f"Shelf {i} in aisle {i % 7} holds {i} jars of honey." for i in range(600))
    config = Config(database_url=db_url,
                    llm=LLMConfig(base_url="", model="test-model", max_concurrency=2),
                    ingest=IngestConfig(llm_extraction=True, chunk_chars=2_000, chunk_max_tokens=1_000))
    progress = []
    with OpenAITestServer(responder) as server:
        from dataclasses import replace

        config = replace(config, llm=replace(config.llm, base_url=server.base_url))
        with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as memory:
            result = memory.put("a1", document, progress=lambda done, total: progress.append((done, total)))
        calls = len(server.requests)
    assert calls >= 10 and len(result.units) == calls
    assert 1 <= peak[0] <= 2
    assert [d for d, _ in progress] == list(range(calls + 1)) and {t for _, t in progress} == {calls}
