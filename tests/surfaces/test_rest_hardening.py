"""REST answers with a clear 4xx where it used to answer 500 or hang."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from fleet_memory.rest import create_app


@pytest.fixture
def client(memory):
    with TestClient(create_app(memory, auth=False)) as c:
        yield c


def _raw(client, path, text):
    return client.post(path, content=text, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_importance_is_422_naming_the_field(client, memory, value) -> None:
    response = _raw(client, "/v1/agents/a1/memories", '{"content": "Alice moved to Paris.", "importance": %s}' % value)
    assert response.status_code == 422, response.text
    assert any("importance" in map(str, err["loc"]) for err in response.json()["detail"])
    assert memory.stats("a1").units == 0


def test_non_finite_numbers_anywhere_are_422(client) -> None:
    response = _raw(client, "/v1/agents/a1/search", '{"query": "Paris", "max_age_days": NaN}')
    assert response.status_code == 422, response.text
    response = _raw(client, "/v1/agents/a1/memories", '{"content": "Paris.", "metadata": {"x": Infinity}}')
    assert response.status_code == 422, response.text


def test_a_date_that_overflows_utc_is_422(client, memory) -> None:
    body = {"content": "Alice moved to Paris.", "event_date": "9999-12-31T23:00-05:00"}
    response = client.post("/v1/agents/a1/memories", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "event_date"]
    assert memory.stats("a1").units == 0


def test_a_lone_surrogate_in_metadata_is_422(client, memory) -> None:
    response = _raw(client, "/v1/agents/a1/memories", '{"content": "Alice moved to Paris.", "metadata": {"k": "\\ud800"}}')
    assert response.status_code == 422, response.text
    assert memory.stats("a1").units == 0


def test_a_seq_beyond_64_bits_in_an_import_is_422_naming_the_line(client, memory) -> None:
    memory.put("old", "Alice moved to Paris.")
    lines = client.get("/v1/agents/old/export").text.split("\n")
    for i, line in enumerate(lines):
        if line and json.loads(line).get("table") == "memory_units":
            record = json.loads(line)
            record["row"]["seq"] = 2**63
            lines[i] = json.dumps(record)
            bad_line = i + 1
    response = client.post("/v1/agents/copy/import", content="\n".join(lines),
                           headers={"Content-Type": "application/x-ndjson"})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][-1] == f"line {bad_line}"
    assert client.post("/v1/agents/other/memories", json={"content": "Bob still writes."}).status_code == 201


def test_limit_is_named_limit_in_errors(client, memory) -> None:
    from fleet_memory import InvalidInputError

    with pytest.raises(InvalidInputError) as caught:
        memory.build_context("a1", "What does Alice do?", limit=0)
    assert caught.value.field == "limit"
    response = client.post("/v1/agents/a1/context", json={"message": "What does Alice do?", "limit": 0})
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "limit"]


@pytest.mark.parametrize("path, params, loc", [
    ("/v1/agents/a1/memories", {"limit": 0}, ["query", "limit"]),
    ("/v1/agents/a1/memories", {"offset": -1}, ["query", "offset"]),
    ("/v1/agents/a1/entities", {"limit": 5000}, ["query", "limit"]),
    ("/v1/agents/a1/graph", {"limit": 0}, ["query", "limit"]),
    ("/v1/agents/a1/graph", {"since": "not a date"}, ["query", "since"]),
    ("/v1/agents/a1/memories/not-a-uuid", {}, ["path", "unit_id"]),
])
def test_errors_in_query_and_path_parameters_say_where(client, path, params, loc) -> None:
    response = client.get(path, params=params)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc


def test_mcp_tools_refuse_unknown_arguments(client, memory) -> None:
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "remember", "arguments": {"agent_id": "a1", "content": "Alice moved to Paris.",
                                                         "importanc": 0.9}}}
    result = client.post("/mcp", json=call, headers=accept).json()["result"]
    assert result["isError"] is True and "importanc" in result["content"][0]["text"]
    assert memory.stats("a1").units == 0
    tools = client.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                        headers=accept).json()["result"]["tools"]
    assert all(t["inputSchema"].get("additionalProperties") is False for t in tools)


def test_get_mcp_is_refused_rather_than_held_open(memory) -> None:
    import threading

    answers = []
    with TestClient(create_app(memory)) as keyed:
        key, _ = memory.create_api_key("k", agent_ids=["a1"])
        headers = {"Authorization": f"Bearer {key}", "Accept": "text/event-stream"}
        asking = threading.Thread(target=lambda: answers.append(keyed.get("/mcp", headers=headers)), daemon=True)
        asking.start()
        asking.join(60)  # a stream held open never answers (the old behaviour)
    assert answers, "GET /mcp did not answer"
    assert answers[0].status_code == 405 and "POST" in answers[0].headers["allow"]


def test_the_openapi_schema_states_the_real_limits(client) -> None:
    from fleet_memory.config import Limits

    limits = Limits()
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    put, search = schemas["PutIn"]["properties"], schemas["SearchIn"]["properties"]
    assert put["content"]["maxLength"] == limits.max_content_chars and put["content"]["minLength"] == 1
    assert put["tags"]["maxItems"] == limits.max_tags
    assert put["tags"]["items"]["maxLength"] == limits.max_tag_chars
    assert put["importance"]["anyOf"][0]["maximum"] == 1
    assert search["top_k"]["maximum"] == limits.max_top_k and search["top_k"]["minimum"] == 1
    assert search["query"]["maxLength"] == limits.max_query_chars
    assert schemas["PutManyIn"]["properties"]["items"]["maxItems"] == limits.max_batch_items
    assert schemas["ContextIn"]["properties"]["limit"]["maximum"] == limits.max_top_k


def test_an_agent_id_outside_latin1_can_be_exported(client, memory) -> None:
    memory.put("Āgent 東京", "Alice moved to Paris.")
    response = client.get("/v1/agents/Āgent 東京/export")
    assert response.status_code == 200
    assert "filename*=UTF-8''%C4%80gent%20%E6%9D%B1%E4%BA%AC.jsonl" in response.headers["content-disposition"]
