"""The REST server, with the real app over the test database (FastAPI's TestClient)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate

from fleet_memory.rest import create_app

SEED = "Alice works at Google as a software engineer. She joined Google last year."
MISSING = "00000000-0000-0000-0000-000000000000"


@pytest.fixture
def keys(memory):
    mine, _ = memory.create_api_key("mine", agent_ids=["a1"])
    other, _ = memory.create_api_key("other", agent_ids=["b1"])
    admin, _ = memory.create_api_key("admin", admin=True)
    return {"mine": {"Authorization": f"Bearer {mine}"}, "other": {"X-API-Key": other},
            "admin": {"Authorization": f"Bearer {admin}"}}


@pytest.fixture
def client(memory):
    with TestClient(create_app(memory, max_body_bytes=64_000)) as c:
        yield c


@pytest.fixture
def unit_id(memory):
    """Alice's first unit; the put also creates the entities Alice and Google."""
    return str(memory.put("a1", SEED).units[0].id)


ROUTES = [  # every agent route with a valid request: (method, path template, JSON body)
    ("POST", "/v1/agents/{agent_id}/memories", {"content": "Bob visited Yosemite last spring."}),
    ("POST", "/v1/agents/{agent_id}/memories/batch", {"items": [{"content": "Carol lives in Denver."}]}),
    ("GET", "/v1/agents/{agent_id}/memories", None),
    ("GET", "/v1/agents/{agent_id}/memories/{unit_id}", None),
    ("POST", "/v1/agents/{agent_id}/memories/{unit_id}/restore", None),
    ("GET", "/v1/agents/{agent_id}/memories/{unit_id}/sources", None),
    ("POST", "/v1/agents/{agent_id}/memories/{unit_id}/versions", {"content": "Alice works at Meta now."}),
    ("GET", "/v1/agents/{agent_id}/memories/{unit_id}/history", None),
    ("GET", "/v1/agents/{agent_id}/memories/{unit_id}/entities", None),
    ("GET", "/v1/agents/{agent_id}/memories/{unit_id}/links", None),
    ("GET", "/v1/agents/{agent_id}/memories/{unit_id}/document", None),
    ("POST", "/v1/agents/{agent_id}/memories/{unit_id}/archive", None),
    ("GET", "/v1/agents/{agent_id}/facts?entity=Alice", None),
    ("GET", "/v1/agents/{agent_id}/size", None),
    ("GET", "/v1/agents/{agent_id}/stats", None),
    ("DELETE", "/v1/agents/{agent_id}/memories/{unit_id}", None),
    ("POST", "/v1/agents/{agent_id}/search", {"query": "What does Alice do?"}),
    ("POST", "/v1/agents/{agent_id}/context", {"message": "What does Alice do?"}),
    ("POST", "/v1/agents/{agent_id}/conversations", {"turns": [{"role": "user", "content": "I prefer tea."}]}),
    ("GET", "/v1/agents/{agent_id}/entities", None),
    ("GET", "/v1/agents/{agent_id}/entities/{entity}", None),
    ("POST", "/v1/agents/{agent_id}/entities/{entity}/rename", {"name": "Alphabet"}),
    ("POST", "/v1/agents/{agent_id}/entities/merge", {"keep": "Alice", "drop": "Google"}),
    ("DELETE", "/v1/agents/{agent_id}/entities/{entity}", None),
    ("POST", "/v1/agents/{agent_id}/maintenance", None),
    ("POST", "/v1/agents/{agent_id}/consolidation", None),
    ("GET", "/v1/agents/{agent_id}/graph", None),
    ("GET", "/v1/agents/{agent_id}/graph.html", None),
    ("GET", "/v1/agents/{agent_id}/export", None),
    ("POST", "/v1/agents/{agent_id}/import", '{"format": "fleet-memory-export"}\n'),
    ("DELETE", "/v1/agents/{agent_id}/users/{user_id}", None),
    ("DELETE", "/v1/agents/{agent_id}", None),
]
ADMIN_ROUTES = [("GET", "/v1/agents")]
KEY_ROUTES = [("GET", "/v1/me")]  # the key's own scope, for the memory browser: tests/surfaces/test_ui_routes.py
REFUSED_WITH_THE_RIGHT_KEY = {"/v1/agents/{agent_id}/import": 422}  # a1 has memories: nothing to import into


def _call(client, method, path, body, headers):
    if isinstance(body, str):
        return client.request(method, path, content=body, headers={**headers, "Content-Type": "application/x-ndjson"})
    return client.request(method, path, json=body, headers=headers)


def test_the_route_table_covers_every_agent_route(client):
    paths = client.get("/openapi.json").json()["paths"]
    declared = {(m.upper(), p) for p, ops in paths.items() if p.startswith("/v1/") for m in ops}
    assert declared == {(m, p.split("?")[0]) for m, p, _ in ROUTES} | set(ADMIN_ROUTES) | set(KEY_ROUTES)


@pytest.mark.parametrize("method, template, body", ROUTES, ids=[f"{m} {p[20:]}" for m, p, _ in ROUTES])
def test_every_route_needs_a_key_for_its_agent(client, keys, unit_id, method, template, body):
    path = template.format(agent_id="a1", unit_id=unit_id, entity="Google", user_id="u1")
    assert _call(client, method, path, body, {}).status_code == 401
    assert _call(client, method, path, body, {"Authorization": "Bearer fm_wrong"}).status_code == 401
    assert _call(client, method, path, body, keys["other"]).status_code == 403
    allowed = _call(client, method, path, body, keys["mine"]).status_code
    assert allowed == REFUSED_WITH_THE_RIGHT_KEY[template] if template in REFUSED_WITH_THE_RIGHT_KEY else allowed < 300
    assert _call(client, method, path.replace("/a1", "/b1", 1), body, keys["mine"]).status_code == 403


def test_revoked_keys_get_401(client, memory, keys):
    record = next(k for k in memory.list_api_keys() if k.name == "mine")
    memory.revoke_api_key(str(record.id))
    assert client.get("/v1/agents/a1/memories", headers=keys["mine"]).status_code == 401
    assert client.get("/v1/agents/a1/memories", headers=keys["admin"]).status_code == 200


def test_put_get_list_search_delete(client, keys):
    h = keys["mine"]
    put = client.post("/v1/agents/a1/memories", json={"content": SEED, "tags": ["work"], "context": "Career"},
                      headers=h)
    assert put.status_code == 201
    ids = [u["id"] for u in put.json()["units"]]
    assert len(ids) >= 2
    unit = client.get(f"/v1/agents/a1/memories/{ids[0]}", headers=h).json()
    assert unit["tags"] == ["work"] and unit["context"] == "Career" and unit["agent_id"] == "a1"
    listed = client.get("/v1/agents/a1/memories", params={"limit": 1}, headers=h).json()
    assert len(listed["units"]) == 1 and listed["next_offset"] == 1
    hits = client.post("/v1/agents/a1/search", json={"query": "What does Alice do?", "explain": True,
                                                     "reinforce": False}, headers=h).json()["results"]
    assert {r["id"] for r in hits} == set(ids) and all(r["explanation"] for r in hits)
    assert client.delete(f"/v1/agents/a1/memories/{ids[0]}", headers=h).status_code == 204
    assert client.get(f"/v1/agents/a1/memories/{ids[0]}", headers=h).status_code == 404


def test_put_many_and_context_and_conversations(client, keys):
    h = keys["admin"]
    batch = client.post("/v1/agents/x/memories/batch", json={"items": [
        {"content": SEED, "importance": 0.9}, {"content": "Alice loves hiking in Yosemite.", "importance": 0.9}]},
        headers=h)
    assert batch.status_code == 201 and len(batch.json()["results"]) == 2
    context = client.post("/v1/agents/x/context", json={"message": "What does Alice do?"}, headers=h).json()
    assert "## Relevant Past Events" in context["context"] and "Google" in context["context"]
    conv = client.post("/v1/agents/x/conversations", json={"user_id": "u1", "turns": [
        {"role": "user", "content": "I always deploy on Fridays after the tests pass."}]}, headers=h)
    assert conv.status_code == 201 and conv.json()["method"] == "offline" and conv.json()["unit_ids"]


def test_maintenance_and_consolidation_return_reports(client, keys, memory, clock):
    from datetime import timedelta

    memory.put("a1", "Carol bought a red umbrella.", importance=0.2)
    clock.current += timedelta(days=200)
    report = client.post("/v1/agents/a1/maintenance", headers=keys["mine"]).json()
    assert report["archived"] == 1 and report["agent_id"] == "a1"
    now = client.post("/v1/agents/a1/maintenance", json={"now": "2030-01-01T00:00:00Z"}, headers=keys["mine"])
    assert now.json()["now"].startswith("2030-01-01")
    assert client.post("/v1/agents/a1/consolidation", headers=keys["mine"]).json()["agent_id"] == "a1"


def test_consolidated_units_show_their_sources_and_stats_count_them(client, keys, memory):
    h = keys["mine"]
    for text in ("The deploy failed because the disk was full.", "Another deploy failed because the disk was full.",
                 "The nightly deploy failed because the disk was full again."):
        memory.put("a1", text, importance=0.9)
    created = client.post("/v1/agents/a1/consolidation", headers=h).json()["created"]
    assert len(created) == 1
    sources = client.get(f"/v1/agents/a1/memories/{created[0]['id']}/sources", headers=h).json()
    assert {u["id"] for u in sources} == set(created[0]["source_ids"])
    stats = client.get("/v1/agents/a1/stats", headers=h).json()
    assert stats["units"] == 4 and stats["units_by_type"] == {"episodic": 3, "semantic": 1}


def test_entities_list_get_rename_merge_delete(client, keys, unit_id):
    h, base = keys["mine"], "/v1/agents/a1/entities"
    names = {e["name"]: e for e in client.get(base, headers=h).json()}
    assert {"Alice", "Google"} <= set(names) and names["Alice"]["mention_count"] >= 2
    detail = client.get(f"{base}/alice", headers=h).json()
    assert detail["entity"]["id"] == names["Alice"]["id"] and unit_id in {u["id"] for u in detail["units"]}
    renamed = client.post(f"{base}/Google/rename", json={"name": "Alphabet"}, headers=h).json()
    assert renamed["name"] == "Alphabet" and "Google" in renamed["aliases"]
    client.post("/v1/agents/a1/memories", json={"content": "Alicia Smith met Bob in Paris."}, headers=h)
    merged = client.post(f"{base}/merge", json={"keep": "Alice", "drop": "Alicia Smith"}, headers=h).json()
    assert merged["id"] == names["Alice"]["id"] and "Alicia Smith" in merged["aliases"]
    assert client.get(f"{base}/Alicia Smith", headers=h).json()["entity"]["id"] == names["Alice"]["id"]
    assert client.delete(f"{base}/Alphabet", headers=h).status_code == 204
    assert client.get(f"{base}/Alphabet", headers=h).status_code == 404
    assert client.post(f"{base}/Nobody/rename", json={"name": "X"}, headers=h).status_code == 404


def test_graph_json_html_and_export(client, keys, memory):
    memory.put("a1", SEED)
    memory.put("a1", "Alice loves hiking in Yosemite.")
    h = keys["mine"]
    graph = client.get("/v1/agents/a1/graph", params={"query": "What does Alice do?"}, headers=h).json()
    assert graph["nodes"] and graph["trace"] and graph["query"] == "What does Alice do?"
    page = client.get("/v1/agents/a1/graph.html", params={"entity": "Alice", "limit": 5}, headers=h)
    assert page.headers["content-type"].startswith("text/html") and "graph-data" in page.text
    export = client.get("/v1/agents/a1/export", headers=h)
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert lines[0]["format"] == "fleet-memory-export" and lines[0]["agent_id"] == "a1"
    assert sum(1 for r in lines[1:] if r["table"] == "memory_units") == memory.stats("a1").units


def test_export_then_import_into_a_new_agent(client, keys, memory):
    memory.put("a1", SEED)
    memory.put("a1", "Alice loves hiking in Yosemite.")
    h = keys["admin"]
    export = client.get("/v1/agents/a1/export", headers=h).text
    ndjson = {**h, "Content-Type": "application/x-ndjson"}
    done = client.post("/v1/agents/copy/import", content=export, headers=ndjson)
    assert done.status_code == 201, done.text
    assert done.json()["agent_id"] == "copy" and done.json()["rows"]["memory_units"] == memory.stats("a1").units
    assert memory.stats("copy").units == memory.stats("a1").units
    hits = client.post("/v1/agents/copy/search", json={"query": "What does Alice do?"}, headers=h).json()["results"]
    assert any("Google" in hit["text"] for hit in hits)
    # the same again: the agent has memories now, nothing is written twice
    again = client.post("/v1/agents/copy/import", content=export, headers=ndjson)
    assert again.status_code == 422 and again.json()["detail"][0]["loc"][-1] == "agent_id"
    assert memory.stats("copy").units == memory.stats("a1").units
    for bad, field in (("not json\n", "line 1"), ('{"format": "something else"}\n', "file")):
        refused = client.post("/v1/agents/empty/import", content=bad, headers=ndjson)
        assert refused.status_code == 422 and refused.json()["detail"][0]["loc"][-1] == field
    latin = client.post("/v1/agents/empty/import", content="caf\xe9".encode("latin-1"), headers=ndjson)
    assert latin.status_code == 422 and latin.json()["detail"][0]["loc"][-1] == "body"
    assert client.post("/v1/agents/empty/import", content="x" * 70_000, headers=ndjson).status_code == 413
    assert memory.stats("empty").units == 0


@pytest.mark.parametrize("path, body, field", [
    ("/v1/agents/a1/memories", {"content": "  "}, "content"),
    ("/v1/agents/a1/memories", {"content": "x", "importance": 3}, "importance"),
    ("/v1/agents/a1/memories", {"content": "x", "colour": "red"}, "colour"),
    ("/v1/agents/a1/memories", {}, "content"),
    ("/v1/agents/a1/search", {"query": "x", "top_k": 0}, "top_k"),
    ("/v1/agents/a1/search", {"query": "x", "types": ["dreams"]}, "types"),
    ("/v1/agents/a1/search", {"query": "x", "since": "2025-02-01T00:00:00Z", "until": "2025-01-01T00:00:00Z"},
     "since"),
    ("/v1/agents/a1/memories/batch", {"items": []}, "items"),
])
def test_bad_input_is_422_naming_the_field(client, keys, path, body, field):
    response = client.post(path, json=body, headers=keys["mine"])
    assert response.status_code == 422
    assert any(field in [str(p) for p in err["loc"]] for err in response.json()["detail"]), response.json()


def test_bad_query_parameters_and_ids(client, keys):
    h = keys["mine"]
    assert client.get("/v1/agents/a1/memories", params={"limit": 0}, headers=h).status_code == 422
    assert client.get("/v1/agents/a1/memories/not-a-uuid", headers=h).status_code == 422
    assert client.get(f"/v1/agents/a1/memories/{MISSING}", headers=h).status_code == 404
    assert client.delete(f"/v1/agents/a1/memories/{MISSING}", headers=h).status_code == 404
    assert client.get("/v1/agents/a1/graph", params={"entity": "Nobody"}, headers=h).status_code == 404


def test_bodies_over_the_limit_get_413(client, keys):
    big = {"content": "word " * 20_000}
    assert client.post("/v1/agents/a1/memories", json=big, headers=keys["mine"]).status_code == 413

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(100):
            yield b" " * 1000

    streamed = client.post("/v1/agents/a1/memories", content=chunks(),
                           headers={**keys["mine"], "Content-Type": "application/json"})
    assert streamed.status_code == 413


def test_health_and_a_valid_openapi_document(client):
    assert client.get("/health").json()["status"] == "ok"
    document = client.get("/openapi.json").json()
    validate(document)
    assert "/v1/agents/{agent_id}/search" in document["paths"]
    schemes = document["components"]["securitySchemes"]
    assert {"HTTPBearer", "APIKeyHeader"} <= set(schemes)


def test_no_auth_mode_needs_no_key(memory):
    with TestClient(create_app(memory, auth=False)) as c:
        assert c.post("/v1/agents/a1/memories", json={"content": SEED}).status_code == 201


def test_mcp_over_http_is_behind_the_same_keys(client, keys):
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "remember", "arguments": {"agent_id": "a1", "content": SEED}}}
    assert client.post("/mcp", json=call, headers=accept).status_code == 401
    ok = client.post("/mcp", json=call, headers={**accept, **keys["mine"]})
    assert ok.status_code == 200 and ok.json()["result"]["isError"] is False
    denied = client.post("/mcp", json=call, headers={**accept, **keys["other"]}).json()["result"]
    assert denied["isError"] is True and "may not act for agent 'a1'" in denied["content"][0]["text"]
    listed = client.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                         headers={**accept, **keys["mine"]}).json()["result"]["tools"]
    assert {t["name"] for t in listed} == {"remember", "recall", "build_context", "forget", "forget_user", "list_entities"}


def test_agents_list_needs_an_admin_key_and_delete_and_forget_user(client, keys, memory):
    memory.put("a1", SEED, user_id="u1")
    memory.put("a1", "Carol lives in Denver.", user_id="u2")
    memory.put("b1", "Bob visited Yosemite last spring.")
    assert client.get("/v1/agents").status_code == 401
    assert client.get("/v1/agents", headers=keys["mine"]).status_code == 403
    listed = client.get("/v1/agents", headers=keys["admin"]).json()
    assert [(a["agent_id"], a["units"], a["documents"]) for a in listed] == [("a1", 3, 2), ("b1", 1, 1)]
    forgot = client.delete("/v1/agents/a1/users/u1", headers=keys["mine"])
    assert forgot.status_code == 200 and forgot.json() == {"removed": 2}
    assert [u.text for u in memory.list_units("a1").units] == ["Carol lives in Denver."]
    gone = client.delete("/v1/agents/b1", headers=keys["admin"])
    assert gone.json() == {"removed": 1} and memory.list_units("b1").units == ()


def test_search_takes_metadata_filters_a_preset_and_now(client, keys, memory):
    memory.put("a1", "The billing service runs on Kubernetes.", metadata={"project": "billing"})
    memory.put("a1", "The search service runs on Kubernetes.", metadata={"project": "search"})
    body = {"query": "Kubernetes service", "metadata": {"project": "billing"}, "preset": "fast",
            "now": "2030-01-01T00:00:00Z", "reinforce": False}
    hits = client.post("/v1/agents/a1/search", json=body, headers=keys["mine"]).json()["results"]
    assert [h["text"] for h in hits] == ["The billing service runs on Kubernetes."]
    bad = client.post("/v1/agents/a1/search", json={**body, "metadata": {"project": ["x"]}}, headers=keys["mine"])
    assert bad.status_code == 422 and "metadata" in str(bad.json()["detail"][0]["loc"])
    assert client.post("/v1/agents/a1/search", json={**body, "preset": "slow"}, headers=keys["mine"]).status_code == 422


def test_docs_pages_load_their_assets_from_this_server(client):
    import re as _re

    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        urls = _re.findall(r"""(?:src|href)=["']?([^"' >]+)""", html) + _re.findall(r"url: '([^']+)'", html)
        assert urls and all(u.startswith("/") for u in urls), (page, urls)
        for url in urls:
            assert client.get(url).status_code == 200, url
    assert client.get("/docs-assets/swagger-ui-bundle.js").headers["content-type"].startswith(
        ("application/javascript", "text/javascript"))


def test_update_history_and_as_of_over_rest(client, keys):
    base = "/v1/agents/a1"
    old = client.post(f"{base}/memories", json={"content": "Alice's manager is Bob.",
                                                 "event_date": "2024-06-01T00:00:00Z"}, headers=keys["mine"]).json()
    old_id = old["units"][0]["id"]
    new = client.post(f"{base}/memories/{old_id}/versions", json={"content": "Alice's manager is Carol.",
                                                                  "event_date": "2025-01-01T00:00:00Z"},
                      headers=keys["mine"])
    assert new.status_code == 201, new.text
    chain = client.get(f"{base}/memories/{old_id}/history", headers=keys["mine"]).json()
    assert [u["text"] for u in chain] == ["Alice's manager is Bob.", "Alice's manager is Carol."]
    assert chain[0]["valid_until"].startswith("2025-01-01")
    then = client.post(f"{base}/search", json={"query": "Who is Alice's manager?", "as_of": "2024-07-01T00:00:00Z"},
                       headers=keys["mine"]).json()["results"]
    assert [h["text"] for h in then] == ["Alice's manager is Bob."]
    bad = client.post(f"{base}/search", json={"query": "x", "include_superseded": "maybe"}, headers=keys["mine"])
    assert bad.status_code == 422

