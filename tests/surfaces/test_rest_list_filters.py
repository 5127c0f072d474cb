"""``GET /v1/agents/{agent_id}/memories`` with its filters over REST (and through the client):
the same units as the facade, bad filters answered 422 naming the query parameter and its limit,
another agent's key refused."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from fleet_memory.client import calls
from fleet_memory.rest import create_app

PATH = "/v1/agents/a/memories"


@pytest.fixture
def client(memory):
    memory.put("a", "Maria prefers green tea.", user_id="u1", tags=["tea"], event_date="2024-02-01T00:00:00Z",
               memory_type="semantic", metadata={"project": "tea"})
    memory.put("a", "The flights to Porto leave on Friday.", user_id="u2", event_date="2024-04-01T00:00:00Z")
    memory.put("a", "Maria lives in Lisbon.", user_id="u1", event_date="2024-05-01T00:00:00Z", session_id="s9")
    with TestClient(create_app(memory, auth=False)) as c:
        yield c


def _texts(client, **params) -> list[str]:
    answer = client.get(PATH, params=params)
    assert answer.status_code == 200, answer.text
    return [u["text"] for u in answer.json()["units"]]


def test_query_parameters_filter_the_list(client):
    assert _texts(client, q="maria") == ["Maria prefers green tea.", "Maria lives in Lisbon."]
    assert _texts(client, types=["semantic"]) == ["Maria prefers green tea."]
    assert _texts(client, user_id="u2") == ["The flights to Porto leave on Friday."]
    assert _texts(client, session_id="s9") == ["Maria lives in Lisbon."]
    assert _texts(client, since="2024-03-01T00:00:00Z", until="2024-04-30T00:00:00Z") == [
        "The flights to Porto leave on Friday."]
    assert _texts(client, tags=["tea"]) == ["Maria prefers green tea."]
    assert _texts(client, metadata='{"project": "tea"}') == ["Maria prefers green tea."]
    assert _texts(client, include_superseded="false", include_archived="true", q="flights") == [
        "The flights to Porto leave on Friday."]


@pytest.mark.parametrize("params, loc, limit", [
    ({"metadata": "{project"}, ["query", "metadata"], 'a JSON object such as {"project": "billing"}'),
    ({"metadata": "[1]"}, ["query", "metadata"], 'a JSON object such as {"project": "billing"}'),
    ({"since": "2024-05-01T00:00:00Z", "until": "2024-01-01T00:00:00Z"}, ["query", "until"], "until on or after since"),
    ({"session_id": ".."}, ["query", "session_id"], "an id other than '.' or '..'"),
])
def test_bad_filters_answer_422_naming_the_parameter(client, params, loc, limit):
    answer = client.get(PATH, params=params)
    assert answer.status_code == 422
    [problem] = answer.json()["detail"]
    assert problem["loc"] == loc and problem["ctx"]["limit"] == limit


@pytest.mark.parametrize("params, loc", [
    ({"types": "diary"}, ["query", "types", 0]),
    ({"q": "w" * 10_001}, ["query", "q"]),
    ({"include_archived": "maybe"}, ["query", "include_archived"]),
    ({"since": "last week"}, ["query", "since"]),
])
def test_out_of_schema_filters_answer_422(client, params, loc):
    answer = client.get(PATH, params=params)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == loc


def test_filters_need_a_key_for_the_agent(memory):
    memory.put("a", "Maria lives in Lisbon.")
    other, _ = memory.create_api_key("other", agent_ids=["b"])
    with TestClient(create_app(memory)) as c:
        refused = c.get(PATH, params={"q": "maria"}, headers={"X-API-Key": other})
    assert refused.status_code == 403 and "Lisbon" not in refused.text


def test_the_client_sends_the_filters(client):
    call = calls.list_units("a", q="maria", metadata={"project": "tea"}, types=["semantic"], user_id=None)
    page = calls.read_response(call, client.request(call.method, call.path, params=call.params))
    assert [u.text for u in page.units] == ["Maria prefers green tea."]
