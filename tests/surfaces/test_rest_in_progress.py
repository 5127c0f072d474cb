"""A retry whose first request this server is still running is answered 409 before its body is
read (``rest.limits.InProgress``), held a second: a client re-sending a large put back to back
costs no parse of its body and is slowed down. Only a request whose key may act for the agent
learns it."""

from __future__ import annotations

import threading
import time

from fastapi.testclient import TestClient

from fleet_memory import idempotency
from fleet_memory.rest import create_app
from fleet_memory.rest.limits import HOLD_S

URL = "/v1/agents/a1/memories"
KEY = {"Idempotency-Key": "big-put-1"}


def _first_put_held(memory, monkeypatch) -> threading.Event:
    """The first put waits in its embedding until the returned event is set."""
    release, embed = threading.Event(), memory.embedder.embed

    def held(texts, **kwargs):
        release.wait(30)
        return embed(texts, **kwargs)

    monkeypatch.setattr(memory.embedder, "embed", held)
    return release


def _running(agent: str, key: str) -> None:
    deadline = time.monotonic() + 30
    while not idempotency.running_here(agent, key):
        assert time.monotonic() < deadline, "the first put never started"
        time.sleep(0.01)


def _in_background(call) -> tuple[threading.Thread, list]:
    out: list = []
    thread = threading.Thread(target=lambda: out.append(call()))
    thread.start()
    return thread, out


def test_a_retry_of_a_running_put_is_answered_before_its_body_is_read(memory, monkeypatch):
    release = _first_put_held(memory, monkeypatch)
    with TestClient(create_app(memory, auth=False)) as client:
        first, answers = _in_background(lambda: client.post(URL, json={"content": "Ines moved to Porto."},
                                                           headers=KEY))
        _running("a1", KEY["Idempotency-Key"])
        # not even JSON: read and parsed, this body would be a 422
        started = time.monotonic()
        retry = client.post(URL, content=b"{not json", headers={**KEY, "Content-Type": "application/json"})
        assert retry.status_code == 409 and retry.headers["retry-after"] == "2", retry.text
        assert time.monotonic() - started >= HOLD_S  # held: a client re-sending back to back is slowed down
        assert "still running" in retry.json()["detail"]
        other_key = client.post(URL, content=b"{not json", headers={"Idempotency-Key": "another",
                                                                    "Content-Type": "application/json"})
        other_agent = client.post("/v1/agents/b1/memories", content=b"{not json",
                                  headers={**KEY, "Content-Type": "application/json"})
        assert other_key.status_code == other_agent.status_code == 422  # not running: read as usual
        release.set()
        first.join(30)
        assert answers[0].status_code == 201
        done = client.post(URL, json={"content": "Ines moved to Porto."}, headers=KEY)
        assert done.status_code == 201 and done.json() == answers[0].json()
    assert not idempotency.running_here("a1", KEY["Idempotency-Key"])


def test_only_a_key_that_may_act_for_the_agent_learns_that_a_put_is_running(memory, monkeypatch):
    mine, _ = memory.create_api_key("mine", agent_ids=["a1"])
    other, _ = memory.create_api_key("other", agent_ids=["b1"])
    release = _first_put_held(memory, monkeypatch)
    with TestClient(create_app(memory)) as client:
        bearer = {"Authorization": f"Bearer {mine}"}
        first, answers = _in_background(lambda: client.post(URL, json={"content": "Ines moved to Porto."},
                                                           headers={**KEY, **bearer}))
        _running("a1", KEY["Idempotency-Key"])
        body = {"content": "Ines moved to Porto."}
        assert client.post(URL, json=body, headers=KEY).status_code == 401
        assert client.post(URL, json=body, headers={**KEY, "X-API-Key": other}).status_code == 403
        assert client.post(URL, json=body, headers={**KEY, **bearer}).status_code == 409
        release.set()
        first.join(30)
        assert answers[0].status_code == 201
