"""REST ``Idempotency-Key`` with a real ``fleet-memory serve`` process: the first write is slowed
(its LLM extraction answers after a delay, from the local OpenAI-compatible test server), the
client's timeout fires, the client retries with the same key — answered 409 with ``Retry-After``
while the first still runs — and gets the first response; one copy is stored. A key reused for a
different body is refused. A server killed mid-request (SIGKILL) leaves its key free for the retry
sent to the restarted server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from contextlib import ExitStack

import httpx
import pytest

from tests.support.openai_server import OpenAITestServer
from tests.surfaces.test_two_servers import _free_port, _wait_ready

pytestmark = pytest.mark.processes  # servers and owners in processes of their own

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


def _serve(stack: ExitStack, db_url: str, home, llm_url: str) -> tuple[str, "subprocess.Popen"]:
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
    return base, server


def _post_until_done(url: str, body: dict, headers: dict) -> httpx.Response:
    """POST, and again after ``Retry-After`` while the server answers 409 (the first still runs)."""
    deadline = time.monotonic() + 120
    while True:
        answer = httpx.post(url, json=body, headers=headers, timeout=60.0)
        if answer.status_code != 409 or time.monotonic() > deadline:
            return answer
        assert answer.headers["retry-after"].isdigit()
        time.sleep(int(answer.headers["retry-after"]))


def test_a_retried_write_after_a_client_timeout_stores_one_copy(db_url, tmp_path) -> None:
    release = threading.Event()
    with ExitStack() as stack:
        llm = stack.enter_context(OpenAITestServer(_slow_first(release)))
        base, _ = _serve(stack, db_url, tmp_path / "home", llm.base_url)
        url = f"{base}/v1/agents/{AGENT}/memories"
        headers = {"Idempotency-Key": "put-ines-1"}
        with pytest.raises(httpx.TimeoutException):
            httpx.post(url, json=BODY, headers=headers, timeout=1.0)
        early = httpx.post(url, json=BODY, headers=headers, timeout=30.0)
        assert early.status_code == 409 and "still running" in early.text  # answered at once, nothing held
        release.set()
        retried = _post_until_done(url, BODY, headers)
        assert retried.status_code == 201, retried.text
        again = httpx.post(url, json=BODY, headers=headers, timeout=60.0)
        assert again.json() == retried.json()
        units = httpx.get(url, timeout=30.0).json()["units"]
        assert [u["text"] for u in units] == ["Ines moved to Porto in February."]
        assert len(llm.requests) == 1  # the retry ran nothing
        other = httpx.post(url, json={**BODY, "content": "Something else."}, headers=headers, timeout=30.0)
        assert other.status_code == 422 and "different request" in other.text


def test_a_key_is_free_at_once_after_its_server_was_killed(db_url, tmp_path) -> None:
    release = threading.Event()
    with ExitStack() as stack:
        llm = stack.enter_context(OpenAITestServer(_slow_first(release)))
        stack.callback(release.set)
        first = ExitStack()
        base, server = _serve(first, db_url, tmp_path / "home", llm.base_url)
        url = f"{base}/v1/agents/{AGENT}/memories"
        headers = {"Idempotency-Key": "crash-1"}
        with pytest.raises(httpx.TimeoutException):
            httpx.post(url, json=BODY, headers=headers, timeout=1.0)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=180)  # SIGTERM lets a model load under way finish first (slow on a loaded machine)
        first.pop_all()  # killed: nothing left to terminate
        base, _ = _serve(stack, db_url, tmp_path / "home", llm.base_url)
        url = f"{base}/v1/agents/{AGENT}/memories"
        retried = httpx.post(url, json=BODY, headers=headers, timeout=60.0)  # its process is gone: runs now
        assert retried.status_code == 201, retried.text
        units = httpx.get(url, timeout=30.0).json()["units"]
        assert [u["text"] for u in units] == ["Ines moved to Porto in February."]
