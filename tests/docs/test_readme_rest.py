"""The README's REST example against real processes: ``fleet-memory keys create`` as written, a
freshly started ``fleet-memory serve`` (real models), then both Python blocks as written (plain
httpx with its default 5 s timeout, and ``fleet_memory.client``), each in a fresh interpreter
with ``FLEET_MEMORY_KEY`` exported."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import httpx
import pytest

from fleet_memory.keys import KEY_PREFIX
from tests.support.processes import FLEET_MEMORY, clean_env, free_port, serving

from .test_readme_python import README

pytestmark = [pytest.mark.models, pytest.mark.slow]  # fresh processes with real models: make test, not make check


def _section(title: str) -> str:
    return re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", README.read_text("utf-8"), flags=re.S | re.M).group(1)


def test_rest_example_runs_as_written_on_a_fresh_server(db_url, tmp_path):
    text = _section("REST server")
    shell = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    client_blocks = re.findall(r"```py\n(.*?)```", text, flags=re.S)  # httpx, then fleet_memory.client
    assert len(client_blocks) == 2
    env = clean_env(FLEET_MEMORY_DATABASE_URL=db_url, FLEET_MEMORY_HOME=str(tmp_path))
    port = free_port()

    steps = [shlex.split(line, comments=True) for line in shell]
    assert [words[:2] for words in steps] == [["export", "FLEET_MEMORY_KEY=$(fleet-memory"], ["fleet-memory", "serve"]]
    key_line = shell[0].split("#")[0].strip()
    got = subprocess.run(["bash", "-c", f'PATH={shlex.quote(str(FLEET_MEMORY.rsplit("/", 1)[0]))}:"$PATH"\n'
                          f'{key_line}\necho "$FLEET_MEMORY_KEY"'], env=env, cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    key = got.stdout.strip().splitlines()[-1]
    assert re.fullmatch(KEY_PREFIX.replace("_", r"_") + r"[\w-]{40,}", key), got.stdout
    assert steps[1][2:] == ["--port", "8080"]
    with serving(env, port=port) as base_url:
        assert httpx.get(f"{base_url}/health/ready").json()["status"] == "ready"
        runs = [subprocess.run([sys.executable, "-c", code.replace("http://127.0.0.1:8080", base_url)],
                               env={**env, "FLEET_MEMORY_KEY": key}, cwd=tmp_path, capture_output=True, text=True,
                               timeout=120) for code in client_blocks]
    assert all(run.returncode == 0 for run in runs), [run.stderr[-3000:] for run in runs]
    assert "Alice works at Google." in runs[0].stdout
    assert runs[1].stdout.startswith("Bob moved to Denver in March. (weight: ")
