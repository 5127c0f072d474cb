"""The LLM supersession judge (ingest/supersede.py) through the local OpenAI-compatible test
server, on the real embedded PostgreSQL (hashing embedder, so every pair is a candidate at a 0.0
similarity floor): its verdict supersedes, a pair it leaves out keeps the rule's decision, and a
malformed answer or a server that is down leaves the rule to decide without failing the put."""

from __future__ import annotations

import json
import logging
import re
import socket
from datetime import datetime, timezone

from fleet_memory import Config, FleetMemory
from fleet_memory.config import IngestConfig, LLMConfig
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.openai_server import OpenAITestServer

AGENT = "judge"
JUNE_2024 = datetime(2024, 6, 10, tzinfo=timezone.utc)
FEB_2025 = datetime(2025, 2, 14, tzinfo=timezone.utc)


def _memory(db_url, clock, base_url: str, retries: int = 1) -> FleetMemory:
    config = Config(database_url=db_url,
                    llm=LLMConfig(base_url=base_url, model="judge", max_retries=retries, timeout_s=5.0),
                    ingest=IngestConfig(llm_extraction=False, llm_supersession=True, supersede_min_similarity=0.0))
    return FleetMemory(config, embedder=HashingEmbedder(), clock=clock)


def _unit(mem, part: str):
    [unit] = [u for u in mem.list_units(AGENT, limit=100).units if part in u.text]
    return unit


def _pairs_asked(body) -> list[str]:
    return re.findall(r"#(\d+) OLDER", body["messages"][1]["content"])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_judges_update_supersedes_a_pair_the_rule_leaves(db_url, clock) -> None:
    # both state a plan, but the rule finds no shared plan object (dinner / get-together): worth asking
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "The team dinner is booked for Friday.", event_date=JUNE_2024)
        server.script(json.dumps({"verdicts": [{"pair": 0, "verdict": "update"}]}))
        mem.put(AGENT, "Carol called off Friday's get-together.", event_date=FEB_2025)
        (request,) = server.requests
        assert _pairs_asked(request) == ["0"]
        assert "OLDER (2024-06-10): The team dinner is booked for Friday." in request["messages"][1]["content"]
        assert request["response_format"]["type"] == "json_schema"
        old, new = _unit(mem, "booked"), _unit(mem, "called off")
        assert old.valid_until == FEB_2025 and new.valid_until is None
        assert [u.id for u in mem.history(AGENT, new.id)] == [old.id, new.id]


def test_without_the_judge_the_rule_leaves_that_pair(db_url, clock) -> None:
    with OpenAITestServer() as server:
        config = Config(database_url=db_url, llm=LLMConfig(base_url=server.base_url, model="judge"),
                        ingest=IngestConfig(llm_extraction=False, llm_supersession=False,
                                            supersede_min_similarity=0.0))
        with FleetMemory(config, embedder=HashingEmbedder(), clock=clock) as mem:
            mem.put(AGENT, "The team dinner is booked for Friday.", event_date=JUNE_2024)
            mem.put(AGENT, "Carol called off Friday's get-together.", event_date=FEB_2025)
            assert server.requests == []
            assert _unit(mem, "booked").valid_until is None


def test_the_judges_duplicate_ends_the_older_statement(db_url, clock) -> None:
    # "still" says the value again, so the rule links nothing; the same holder makes the pair worth
    # asking, and "duplicate" supersedes: the repeat is the current statement, the older one its history
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)
        server.script(json.dumps({"verdicts": [{"pair": 0, "verdict": "duplicate"}]}))
        mem.put(AGENT, "Ines still lives in Lisbon, by the river.", event_date=FEB_2025)
        (request,) = server.requests
        assert _pairs_asked(request) == ["0"]
        old, new = _unit(mem, "Ines lives in Lisbon."), _unit(mem, "still")
        assert old.valid_until == FEB_2025 and new.valid_until is None
        assert [u.id for u in mem.history(AGENT, new.id)] == [old.id, new.id]


def test_the_rule_alone_leaves_a_restatement_current(db_url, clock) -> None:
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)
        server.script("{not json", "{not json")  # the judge fails: the rule decides the pair
        mem.put(AGENT, "Ines still lives in Lisbon, by the river.", event_date=FEB_2025)
        assert len(server.requests) == 2
        assert _unit(mem, "Ines lives in Lisbon.").valid_until is None


def test_the_judges_unrelated_overrules_the_rule(db_url, clock) -> None:
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)
        server.script(json.dumps({"verdicts": [{"pair": 0, "verdict": "unrelated"}]}))
        mem.put(AGENT, "Ines moved to Porto.", event_date=FEB_2025)
        assert len(server.requests) == 1
        assert _unit(mem, "Lisbon").valid_until is None  # the rule alone would have superseded it


def test_a_pair_the_judge_leaves_out_keeps_the_rules_decision(db_url, clock) -> None:
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)
        server.script(json.dumps({"verdicts": [{"pair": 7, "verdict": "unrelated"}]}))  # no such pair
        mem.put(AGENT, "Ines moved to Porto.", event_date=FEB_2025)
        assert _unit(mem, "Lisbon").valid_until == FEB_2025


def test_a_malformed_answer_falls_back_to_the_rule_and_the_put_succeeds(db_url, clock, caplog) -> None:
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url, retries=1) as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)
        server.script("{not json", '{"verdicts": "nope"}')
        with caplog.at_level(logging.WARNING, logger="fleet_memory"):
            result = mem.put(AGENT, "Ines moved to Porto.", event_date=FEB_2025)
        assert len(server.requests) == 2  # one call and one retry
        assert result.texts == ["Ines moved to Porto."]
        assert _unit(mem, "Lisbon").valid_until == FEB_2025  # the rule decided
        assert "the offline rule decides" in caplog.text
        stats = mem.stats(AGENT)
        assert (stats.documents, stats.units) == (2, 2)


def test_a_server_that_is_down_falls_back_to_the_rule(db_url, clock, caplog) -> None:
    with _memory(db_url, clock, f"http://127.0.0.1:{_closed_port()}/v1") as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)  # nothing to judge: no call
        mem.put(AGENT, "Bella, my other dog, lives with me in Porto.", event_date=JUNE_2024)
        with caplog.at_level(logging.WARNING, logger="fleet_memory"):
            result = mem.put(AGENT, "Ines moved to Porto.", event_date=FEB_2025)
        assert result.texts == ["Ines moved to Porto."]
        assert "unreachable" in caplog.text
        assert _unit(mem, "Lisbon").valid_until == FEB_2025
        assert _unit(mem, "Bella").valid_until is None  # another subject: the rule does not supersede
        bella = _unit(mem, "Bella")
        assert [u.id for u in mem.history(AGENT, bella.id)] == [bella.id]


def test_a_put_with_no_candidate_pair_makes_no_call(db_url, clock) -> None:
    with OpenAITestServer() as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "Ines lives in Lisbon.", event_date=JUNE_2024)
        mem.put(AGENT, "The weather was rainy all week.", event_date=FEB_2025)
        assert server.requests == []




def test_the_judge_is_asked_with_no_transaction_of_the_put_open(db_url, clock) -> None:
    # while the model answers, the put's units are committed (another connection sees them) and no
    # session of ours sits in a transaction: other puts to the agent never wait on the model
    import psycopg

    seen: dict[str, object] = {}

    def responder(body) -> str:
        with psycopg.connect(db_url) as conn:
            seen["visible"] = conn.execute("SELECT count(*) FROM memory_units WHERE agent_id = %s"
                                           " AND text LIKE %s", (AGENT, "%called off%")).fetchone()[0]
            seen["open"] = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND state LIKE 'idle in transaction%%' AND pid <> pg_backend_pid()").fetchone()[0]
        return json.dumps({"verdicts": [{"pair": 0, "verdict": "update"}]})

    with OpenAITestServer(responder) as server, _memory(db_url, clock, server.base_url) as mem:
        mem.put(AGENT, "The team dinner is booked for Friday.", event_date=JUNE_2024)
        mem.put(AGENT, "Carol called off Friday's get-together.", event_date=FEB_2025)
        assert len(server.requests) == 1 and seen == {"visible": 1, "open": 0}
        assert _unit(mem, "booked").valid_until == FEB_2025  # the verdict was recorded afterwards
