"""``serve`` start-up (``rest.startup``): the server answers while the models load behind it,
says honestly whether it is ready, and builds ``/mcp`` when it is wanted or after the load."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient

from fleet_memory.providers import heap
from fleet_memory.rest import create_app

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class SlowLoad:
    """The facade, whose model loading waits for ``gate`` (at most 60 s) or fails."""

    def __init__(self, memory, gate: threading.Event, fail: bool = False) -> None:
        self.memory, self.gate, self.fail = memory, gate, fail

    def warm_up(self, on_loaded=None) -> None:
        self.gate.wait(60)
        if self.fail:
            raise RuntimeError("no weights in /nowhere")
        on_loaded("embedder")
        on_loaded("nlp")

    def __getattr__(self, name: str):
        return getattr(self.memory, name)


@pytest.fixture(autouse=True)
def no_freeze(monkeypatch):
    """The test process is pytest's, not a server's: the heap is not frozen here."""
    settled = []
    monkeypatch.setattr(heap, "settle", lambda: settled.append(True))
    return settled


def test_the_server_answers_while_the_models_load_and_then_is_ready(memory, no_freeze):
    gate = threading.Event()
    memory.put("a1", "Alice works at Google.")
    with TestClient(create_app(SlowLoad(memory, gate), auth=False, own_process=True)) as client:
        assert client.get("/health").json()["status"] == "ok"
        starting = client.get("/health/ready")
        assert starting.status_code == 503 and starting.json()["status"] == "starting"
        assert set(starting.json()["phases"]) == {"imported", "database"}
        assert client.get("/v1/agents/a1/stats").json()["units"] == 1  # needs no model: answered now
        listed = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=ACCEPT)
        assert listed.status_code == 200 and listed.json()["result"]["tools"]  # built on demand
        assert not no_freeze
        gate.set()
        for _ in range(600):  # the load thread finishes at once now; a bound on waiting only
            ready = client.get("/health/ready")
            if ready.status_code == 200:
                break
            threading.Event().wait(0.05)
        assert ready.json()["status"] == "ready"
        assert {"embedder", "nlp", "settled"} <= set(ready.json()["phases"]) and no_freeze == [True]


def test_a_failed_load_is_reported_by_readiness(memory):
    gate = threading.Event()
    gate.set()
    with TestClient(create_app(SlowLoad(memory, gate, fail=True), auth=False, own_process=True)) as client:
        for _ in range(600):
            body = client.get("/health/ready").json()
            if body["status"] != "starting":
                break
            threading.Event().wait(0.05)
        assert body["status"] == "failed" and "no weights in /nowhere" in body["error"]
        assert client.get("/health/ready").status_code == 503
