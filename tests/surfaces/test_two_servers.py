"""Several servers, one database: two real ``fleet-memory serve`` processes over the test's
PostgreSQL (``FLEET_MEMORY_DATABASE_URL``), four writers going through them to the same agent at
the same moment, every put naming the same entities that did not exist before. Afterwards: no
request failed, one entity per name, mention counts equal to the mention rows, every stored link
once, the unit count kept by ``term_df`` equal to the units."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.integration.fleet.checks import graph_problems
from tests.support.concurrency import run_together

pytestmark = pytest.mark.processes  # servers and owners in processes of their own

AGENT = "crew"
NAMES = ["Zephyrine Okonkwo", "Bartholomew Quist", "Vantablack Studios", "Reykjavik"]
TEXTS = [
    "Zephyrine Okonkwo met Bartholomew Quist at Vantablack Studios in Reykjavik.",
    "Bartholomew Quist and Zephyrine Okonkwo flew to Reykjavik for a recording at Vantablack Studios.",
    "Zephyrine Okonkwo told Bartholomew Quist that Vantablack Studios needs a new drummer.",
]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(stack: ExitStack, db_url: str, home: Path) -> tuple[str, subprocess.Popen]:
    port = _free_port()
    command = [shutil.which("fleet-memory", path=str(Path(sys.executable).parent)), "serve", "--no-auth",
               "--port", str(port)]
    env = {**os.environ, "FLEET_MEMORY_DATABASE_URL": db_url, "FLEET_MEMORY_HOME": str(home)}
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    stack.callback(server.wait, timeout=30)
    stack.callback(server.terminate)
    return f"http://127.0.0.1:{port}", server


def _wait_ready(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300  # model loading on a busy machine; a bound on waiting only
    while True:
        try:
            if httpx.get(f"{base}/health").status_code == 200:
                return
        except httpx.TransportError:
            assert server.poll() is None and time.monotonic() < deadline, server.stdout.read().decode()
            time.sleep(0.5)


def test_four_writers_through_two_servers_make_one_entity_per_name(db_url, tmp_path):
    with ExitStack() as stack:
        servers = [_serve(stack, db_url, tmp_path / f"home{i}") for i in range(2)]
        for base, process in servers:
            _wait_ready(base, process)
        turn = iter(range(4))

        def writer(wait) -> list[int]:
            i = next(turn)
            base = servers[i % 2][0]
            statuses = []
            with httpx.Client(base_url=base, timeout=120) as client:
                wait()
                for round_ in range(3):
                    text = TEXTS[(i + round_) % len(TEXTS)]
                    r = client.post(f"/v1/agents/{AGENT}/memories",
                                    json={"content": text, "event_date": f"2024-06-0{round_ + 1}T10:00:00Z"})
                    statuses.append(r.status_code)
                r = client.post(f"/v1/agents/{AGENT}/memories/batch", json={"items": [{"content": t} for t in TEXTS]})
                statuses.append(r.status_code)
            return statuses

        results = run_together(writer, count=4, timeout=300)
        entities = httpx.get(f"{servers[1][0]}/v1/agents/{AGENT}/entities", params={"limit": 1000}).json()
    assert results == [[201] * 4] * 4
    names = [e["name"] for e in entities]
    assert sorted(names) == sorted(set(names))
    assert set(NAMES) <= set(names)
    assert graph_problems(db_url, AGENT) == []
