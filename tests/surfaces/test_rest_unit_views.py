"""The memory page's routes over REST: a memory's entities, links, source document (with its
sentence located) and archiving it; unknown or other agents' memories 404, bad ids 422."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fleet_memory.rest import create_app

TEXT = "Alice works at Google as a software engineer. She joined Google last year."


@pytest.fixture
def client(memory):
    with TestClient(create_app(memory, auth=False)) as c:
        yield c


@pytest.fixture
def units(memory):
    ids = [str(u.id) for u in memory.put("a1", TEXT).units]
    memory.put("b1", "Bob keeps bees.")
    return ids


def test_entities_links_and_document_of_a_memory(client, units):
    base = f"/v1/agents/a1/memories/{units[0]}"
    assert {"Alice", "Google"} <= {e["name"] for e in client.get(base + "/entities").json()}
    links = client.get(base + "/links").json()
    assert units[1] in {link["unit"]["id"] for link in links}
    assert {link["kind"] for link in links} <= {"semantic", "entity", "temporal"}
    document = client.get(base + "/document").json()
    assert document["content"] == TEXT
    assert document["content"][document["start"]:document["end"]] == "Alice works at Google as a software engineer."


def test_archive_over_rest_then_restore(client, units):
    base = f"/v1/agents/a1/memories/{units[0]}"
    archived = client.post(base + "/archive")
    assert archived.status_code == 200 and archived.json()["archived_at"] is not None
    assert units[0] not in [u["id"] for u in client.get("/v1/agents/a1/memories").json()["units"]]
    assert client.post(base + "/restore").json()["archived_at"] is None


@pytest.mark.parametrize("method, tail", [("GET", "entities"), ("GET", "links"), ("GET", "document"),
                                         ("POST", "archive")])
def test_unknown_and_bad_ids(client, units, method, tail):
    assert client.request(method, f"/v1/agents/b1/memories/{units[0]}/{tail}").status_code == 404
    bad = client.request(method, f"/v1/agents/a1/memories/nope/{tail}")
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["path", "unit_id"]


def test_a_link_limit_out_of_bounds_is_422(client, units):
    answer = client.get(f"/v1/agents/a1/memories/{units[0]}/links", params={"limit": 0})
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["query", "limit"]


def test_facts_of_a_holder_over_rest(client, memory, units):
    memory.update("a1", units[0], "Alice works at Meta as a software engineer.")
    answer = client.get("/v1/agents/a1/facts", params={"entity": "Alice"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["entity"]["name"] == "Alice" and body["user_id"] is None
    [line] = [line for line in body["lines"] if line["versions"][0]["unit"]["id"] == units[0]]
    assert [v["unit"]["text"] for v in line["versions"]][-1] == "Alice works at Meta as a software engineer."
    assert line["versions"][0]["replaced_by"] == line["versions"][1]["unit"]["id"]
    assert client.get("/v1/agents/a1/facts", params={"entity": "Nobody"}).status_code == 404
    both = client.get("/v1/agents/a1/facts", params={"entity": "Alice", "user_id": "u1"})
    assert both.status_code == 422 and both.json()["detail"][0]["loc"] == ["query", "entity"]


def test_size_class_and_effective_importance_over_rest(client, units):
    size = client.get("/v1/agents/a1/size").json()
    assert size["size_class"] == "small" and size["units"] == 2 and size["last_write"] is not None
    listed = client.get("/v1/agents/a1/memories").json()["units"]
    assert all(0 < u["effective_importance"] <= u["importance"] + 1e-6 for u in listed)
    one = client.get(f"/v1/agents/a1/memories/{units[0]}").json()
    assert one["effective_importance"] == pytest.approx(one["importance"])  # the clock has not moved
