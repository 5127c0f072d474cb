"""REST answers with a clear 4xx where it used to answer 500 or hang (issue 14, items 1, 3, 4, 9)."""

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
