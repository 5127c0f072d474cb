"""The embedded server: the default store, shared by two processes on one data directory, and
the README's first example run as written under the class's first name."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from fleet_memory import FleetMemory
    from fleet_memory.providers.embedder import HashingEmbedder

    name, other, signal_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    with FleetMemory(embedder=HashingEmbedder()) as memory:
        memory.put("shared", f"{name} wrote a note about the harbour.")
        (signal_dir / f"{name}.ready").touch()
        deadline = time.time() + 60
        while not (signal_dir / f"{other}.ready").exists():
            if time.time() > deadline:
                sys.exit("the other process never got ready")
            time.sleep(0.1)
        texts = {u.text for u in memory.list_units("shared").units}
        assert f"{other} wrote a note about the harbour." in texts, texts
        (signal_dir / f"{name}.done").touch()
        while not (signal_dir / f"{other}.done").exists():
            if time.time() > deadline:
                sys.exit("the other process never finished")
            time.sleep(0.1)
    print("ok", name)
    """
)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLEET_MEMORY_")}
    env["FLEET_MEMORY_HOME"] = str(home)
    return env


@pytest.mark.processes
def test_two_processes_share_one_data_directory(tmp_path):
    home, signals = tmp_path / "home", tmp_path / "signals"
    signals.mkdir()
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, a, b, str(signals)], env=_env(home),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for a, b in (("Ann", "Ben"), ("Ben", "Ann"))
    ]
    outputs = [p.communicate(timeout=180) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
    assert (home / "pg" / "PG_VERSION").exists()
    # a third process afterwards finds both notes: the data outlived the server
    check = subprocess.run(
        [sys.executable, "-c",
         "from fleet_memory import FleetMemory\nfrom fleet_memory.providers.embedder import HashingEmbedder\n"
         "with FleetMemory(embedder=HashingEmbedder()) as m: print(m.stats('shared').units)"],
        env=_env(home), capture_output=True, text=True, timeout=120,
    )
    assert check.returncode == 0, check.stderr
    assert check.stdout.strip() == "2"


FIRST_NAME_EXAMPLE = '''
from datetime import datetime, timezone
from fleet_memory import TemporalSemanticMemory

memory = TemporalSemanticMemory()

memory.put(
    agent_id="agent_1",
    content="Alice works at Google as a software engineer. She joined last year.",
    context="Career discussion",
    event_date=datetime.now(timezone.utc)
)

results = memory.search(
    agent_id="agent_1",
    query="What does Alice do?",
    thinking_budget=50,  # How many units to explore
    top_k=10             # Number of results to return
)

for result in results:
    print(f"{result['text']} (weight: {result['weight']:.3f})")
'''


@pytest.mark.processes
@pytest.mark.models
def test_the_readme_example_runs_under_the_class_first_name(tmp_path):
    out = subprocess.run([sys.executable, "-c", FIRST_NAME_EXAMPLE], env=_env(tmp_path), capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if "(weight: " in line]
    assert lines, out.stdout
    assert any("Alice works at Google" in line for line in lines)


def test_import_loads_no_heavy_module():
    code = ("import fleet_memory, sys; heavy = {'torch','spacy','psycopg','sentence_transformers','numpy'} "
            "& set(sys.modules); assert not heavy, heavy")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


SETTINGS_CHECK = (
    "from fleet_memory import FleetMemory\nfrom fleet_memory.providers.embedder import HashingEmbedder\n"
    "with FleetMemory(embedder=HashingEmbedder()) as m, m.db.transaction() as c:\n"
    "    print(c.execute('SHOW shared_buffers').fetchone()[0], c.execute('SHOW jit').fetchone()[0])\n"
)


@pytest.mark.processes
def test_embedded_server_gets_its_settings_before_it_starts(tmp_path):
    env = {**_env(tmp_path), "FLEET_MEMORY_PG_SHARED_BUFFERS_MB": "160"}
    out = subprocess.run([sys.executable, "-c", SETTINGS_CHECK], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["160MB", "off"]
    # the default is sized to the machine, and applies at the next start
    out = subprocess.run([sys.executable, "-c", SETTINGS_CHECK], env=_env(tmp_path), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    from fleet_memory.store.db.server import default_shared_buffers_mb

    expected = default_shared_buffers_mb()
    assert 128 <= expected <= 1024
    got = out.stdout.split()[0]
    assert got == (f"{expected // 1024}GB" if expected % 1024 == 0 else f"{expected}MB")


def test_bad_shared_buffers_setting_is_named():
    from fleet_memory import Config
    from fleet_memory.errors import InvalidInputError

    for raw in ("lots", "8", "-5"):
        with pytest.raises(InvalidInputError, match="FLEET_MEMORY_PG_SHARED_BUFFERS_MB"):
            Config.from_env({"FLEET_MEMORY_PG_SHARED_BUFFERS_MB": raw})
    assert Config.from_env({"FLEET_MEMORY_PG_SHARED_BUFFERS_MB": "256"}).embedded_shared_buffers_mb == 256
