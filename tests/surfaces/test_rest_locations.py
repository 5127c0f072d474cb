"""Where a refused value came from, as the REST server reports it (issue 34, item 11): the entity
path parameter says ``path``, the ``Idempotency-Key`` header says ``header``, and a search's
``limit`` is named ``limit`` by every door."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fleet_memory import InvalidInputError
from fleet_memory.client import Client
from fleet_memory.rest import create_app
from tests.support.servers import real_server


@pytest.fixture
def client(memory):
    with TestClient(create_app(memory, auth=False)) as c:
        yield c


@pytest.mark.parametrize("method, path", [("GET", "/v1/agents/a1/entities/%20%20"),
                                          ("DELETE", "/v1/agents/a1/entities/%20%20"),
                                          ("POST", "/v1/agents/a1/entities/%20%20/rename")])
def test_a_refused_entity_in_the_path_is_located_in_the_path(client, method, path) -> None:
    response = client.request(method, path, json={"name": "Alice"} if method == "POST" else None)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["path", "entity"]


def test_a_refused_idempotency_key_is_located_in_the_header(client) -> None:
    headers = {"Idempotency-Key": "k-1"}
    assert client.post("/v1/agents/a1/memories", json={"content": "Alice moved to Paris."},
                       headers=headers).status_code == 201
    response = client.post("/v1/agents/a1/memories", json={"content": "Bob moved to Rome."}, headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["header", "Idempotency-Key"]


def test_a_search_limit_of_zero_is_named_limit(client, memory) -> None:
    response = client.post("/v1/agents/a1/search", json={"query": "Paris", "limit": 0})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "limit"]
    key, _ = memory.create_api_key("a1", agent_ids=["a1"])
    with real_server(memory) as url, Client(url, api_key=key) as remote:
        for call in (lambda: remote.search("a1", "Paris", limit=0), lambda: memory.search("a1", "Paris", limit=0)):
            with pytest.raises(InvalidInputError) as caught:
                call()
            assert caught.value.field == "limit"
        assert remote.search("a1", "Paris", limit=3) == []
