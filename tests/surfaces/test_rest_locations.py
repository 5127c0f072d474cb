"""Where a refused value came from, as the REST server reports it: the entity
path parameter says ``path``, the ``Idempotency-Key`` header says ``header``, and a search's
``limit`` is named ``limit`` by every door."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fleet_memory import InvalidInputError
from fleet_memory.client import Client
from fleet_memory.rest import create_app
from fleet_memory.validation import MAX_OFFSET
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


def test_the_openapi_document_bounds_every_body_path_header_and_page(client) -> None:
    from fleet_memory.config import Limits
    from fleet_memory.idempotency import MAX_KEY_CHARS

    limits, document = Limits(), client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]

    def bounds(schema: dict) -> dict:
        schema = next((s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"), schema)
        return {k: v for k, v in schema.items() if k in ("minLength", "maxLength", "minimum", "maximum", "maxItems")}

    update, turn = schemas["UpdateIn"]["properties"], schemas["TurnIn"]["properties"]
    assert bounds(update["content"]) == {"minLength": 1, "maxLength": limits.max_content_chars}
    assert bounds(update["context"]) == {"maxLength": limits.max_context_chars}
    assert bounds(update["importance"]) == {"minimum": 0, "maximum": 1}
    assert bounds(update["tags"])["maxItems"] == limits.max_tags
    assert bounds(update["speaker"]) == {"minLength": 1, "maxLength": limits.max_tag_chars}
    assert bounds(schemas["ConversationIn"]["properties"]["turns"]) == {"maxItems": limits.max_batch_items}
    assert bounds(schemas["ConversationIn"]["properties"]["user_id"]) == {"maxLength": limits.max_agent_id_chars}
    assert bounds(turn["content"]) == {"minLength": 1, "maxLength": limits.max_content_chars}
    assert bounds(turn["role"]) == {"minLength": 1, "maxLength": limits.max_tag_chars}
    for model, field in (("RenameIn", "name"), ("MergeIn", "keep"), ("MergeIn", "drop")):
        assert bounds(schemas[model]["properties"][field]) == {"minLength": 1, "maxLength": limits.max_tag_chars}

    def parameter(path: str, method: str, name: str) -> dict:
        found = [p for p in document["paths"][path][method]["parameters"] if p["name"] == name]
        assert found, (path, method, name)
        return bounds(found[0]["schema"])

    entity = {"minLength": 1, "maxLength": limits.max_tag_chars}
    for method in ("get", "delete"):
        assert parameter("/v1/agents/{agent_id}/entities/{entity}", method, "entity") == entity
    assert parameter("/v1/agents/{agent_id}/entities/{entity}/rename", "post", "entity") == entity
    assert parameter("/v1/agents/{agent_id}/users/{user_id}", "delete", "user_id") == \
        {"minLength": 1, "maxLength": limits.max_agent_id_chars}
    assert parameter("/v1/agents", "get", "limit") == {"minimum": 1, "maximum": limits.max_top_k}
    assert parameter("/v1/agents", "get", "offset") == {"minimum": 0, "maximum": MAX_OFFSET}
    for path in ("/v1/agents/{agent_id}/memories", "/v1/agents/{agent_id}/memories/batch",
                 "/v1/agents/{agent_id}/memories/{unit_id}/versions"):
        assert parameter(path, "post", "Idempotency-Key") == {"minLength": 1, "maxLength": MAX_KEY_CHARS}


@pytest.mark.parametrize("method, path, body, loc", [
    ("POST", "/v1/agents/a1/entities/merge", {"keep": "A" * 129, "drop": "B"}, ["body", "keep"]),
    ("POST", "/v1/agents/a1/conversations", {"turns": [{"role": "user", "content": ""}]},
     ["body", "turns", 0, "content"]),
    ("GET", "/v1/agents?limit=0", None, ["query", "limit"]),
    ("GET", "/v1/agents/a1/entities/" + "x" * 129, None, ["path", "entity"]),
])
def test_the_stated_bounds_are_enforced_with_the_same_locations(client, method, path, body, loc) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc
