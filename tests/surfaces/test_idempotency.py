"""REST ``Idempotency-Key`` with a real ``fleet-memory serve`` process: the first write is slowed
(its LLM extraction answers after a delay, from the local OpenAI-compatible test server), the
client's timeout fires, the client retries with the same key and gets the first response; one copy
is stored. A key reused for a different body is refused."""

from __future__ import annotations

import json
import os
import threading
from contextlib import ExitStack

import httpx
import pytest

from tests.support.openai_server import OpenAITestServer
from tests.surfaces.test_two_servers import _free_port, _wait_ready

AGENT = "retry"
BODY = {"content": "Ines moved to Porto in February.", "event_date": "2025-02-14T10:00:00Z"}


def _slow_first(release: threading.Event):
    calls = {"n": 0}

    def answer(body: dict) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            release.wait(20)  # a bound on waiting only: the test sets it once the client gave up
        return json.dumps({"facts": [{"text": "Ines moved to Porto in February.", "category": "biographical"}]})
    return answer


def _serve(stack: ExitStack, db_url: str, home, llm_url: str) -> str:
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    port = _free_port()
    command = [shutil.which("fleet-memory", path=str(Path(sys.executable).parent)), "serve", "--no-auth",
               "--port", str(port)]
    env = {**os.environ, "FLEET_MEMORY_DATABASE_URL": db_url, "FLEET_MEMORY_HOME": str(home),
           "FLEET_MEMORY_LLM_BASE_URL": llm_url, "FLEET_MEMORY_LLM_MODEL": "test", "FLEET_MEMORY_LLM_EXTRACTION": "1"}
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    stack.callback(server.wait, timeout=30)
    stack.callback(server.terminate)
    base = f"http://127.0.0.1:{port}"
    _wait_ready(base, server)
    return base


def test_a_retried_write_after_a_client_timeout_stores_one_copy(db_url, tmp_path) -> None:
    release = threading.Event()
    with ExitStack() as stack:
        llm = stack.enter_context(OpenAITestServer(_slow_first(release)))
        base = _serve(stack, db_url, tmp_path / "home", llm.base_url)
        url = f"{base}/v1/agents/{AGENT}/memories"
        headers = {"Idempotency-Key": "put-ines-1"}
        with pytest.raises(httpx.TimeoutException):
            httpx.post(url, json=BODY, headers=headers, timeout=1.0)
        release.set()
        retried = httpx.post(url, json=BODY, headers=headers, timeout=60.0)
        assert retried.status_code == 201, retried.text
        again = httpx.post(url, json=BODY, headers=headers, timeout=60.0)
        assert again.json() == retried.json()
        units = httpx.get(url, timeout=30.0).json()["units"]
        assert [u["text"] for u in units] == ["Ines moved to Porto in February."]
        assert len(llm.requests) == 1  # the retry ran nothing
        other = httpx.post(url, json={**BODY, "content": "Something else."}, headers=headers, timeout=30.0)
        assert other.status_code == 422 and "different request" in other.text
