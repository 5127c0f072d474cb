"""Ids that travel in URL paths address exactly what they name.

HTTP libraries resolve dot segments: ``/v1/agents/A/users/..`` is sent as ``/v1/agents/A``, so a
user id ``..`` once turned ``forget_user`` into the agent's delete. The clients refuse such ids
before sending, the server refuses them at every door, unit ids must be UUIDs, and the server
never redirects a write (a client following a 307 would replay the DELETE elsewhere)."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import anyio
import pytest

from fleet_memory.client import AsyncClient, Client
from fleet_memory.errors import InvalidInputError
from tests.support.servers import real_server

AGENT = "victim"


@pytest.fixture
def served(memory):
    memory.put(AGENT, "Alice works at Google as a software engineer.", user_id="alice")
    memory.put(AGENT, "Bob moved to Lisbon in May.", user_id="bob")
    key, _ = memory.create_api_key("admin", admin=True)
    with real_server(memory) as url:
        yield memory, url, key


def _units(memory) -> int:
    return memory.stats(AGENT).units


def _raw(url: str, key: str, method: str, path: str) -> tuple[int, bytes]:
    """One request with the path sent byte for byte (http.client resolves nothing)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(method, path, headers={"Authorization": f"Bearer {key}"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("call", [
    lambda c: c.forget_user(AGENT, ".."),
    lambda c: c.forget_user(AGENT, "."),
    lambda c: c.delete(AGENT, ".."),
    lambda c: c.delete_entity(AGENT, ".."),
    lambda c: c.get_entity(AGENT, "."),
    lambda c: c.rename_entity(AGENT, "..", "x"),
    lambda c: c.delete_agent(".."),
])
def test_client_refuses_dot_segments_before_sending(served, call):
    memory, url, key = served
    before = _units(memory)
    with Client(url, api_key=key) as client, pytest.raises(InvalidInputError):
        call(client)
    assert _units(memory) == before


@pytest.mark.parametrize("user", ["..", "."])
def test_async_client_forget_user_dot_segment_deletes_nothing(served, user):
    memory, url, key = served
    before = _units(memory)

    async def forget() -> None:
        async with AsyncClient(url, api_key=key) as client:
            await client.forget_user(AGENT, user)

    with pytest.raises(InvalidInputError):
        anyio.run(forget)
    assert _units(memory) == before


def test_client_sends_odd_ids_as_one_segment(served):
    memory, url, key = served
    memory.put(AGENT, "Carol likes tea.", user_id="a/b?c")
    before = _units(memory)
    with Client(url, api_key=key) as client:
        assert client.forget_user(AGENT, "a/b?c") == 1
        assert client.forget_user(AGENT, "...") == 0
    assert _units(memory) == before - 1


def test_raw_dot_segment_is_refused_by_the_server(served):
    memory, url, key = served
    before = _units(memory)
    for path in (f"/v1/agents/{AGENT}/users/..", f"/v1/agents/{AGENT}/users/%2E%2E",
                 f"/v1/agents/{AGENT}/users/.", "/v1/agents/../users/alice"):
        status, body = _raw(url, key, "DELETE", path)
        assert status in (404, 422), (path, status, body)
    assert _units(memory) == before


def test_server_never_redirects_a_write(served):
    memory, url, key = served
    before = _units(memory)
    for method, path in (("DELETE", f"/v1/agents/{AGENT}/users/"), ("DELETE", f"/v1/agents/{AGENT}/"),
                         ("POST", f"/v1/agents/{AGENT}/memories/"), ("DELETE", f"/v1/agents/{AGENT}/entities/")):
        status, _ = _raw(url, key, method, path)
        assert not 300 <= status < 400, (method, path, status)
    assert _units(memory) == before


def test_library_refuses_dot_user_ids(memory):
    for call in (lambda: memory.put(AGENT, "Dan plays chess.", user_id=".."),
                 lambda: memory.forget_user(AGENT, ".."),
                 lambda: memory.put("..", "Dan plays chess."),
                 lambda: memory.process_conversation(AGENT, [{"role": "user", "content": "I play chess."}],
                                                     user_id=".")):
        with pytest.raises(InvalidInputError) as caught:
            call()
        assert caught.value.field in ("user_id", "agent_id")
