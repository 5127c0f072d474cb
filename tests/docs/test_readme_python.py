"""Every ```python block of the README and of docs/*.md runs as written, in a fresh process on a
fresh embedded store."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.openai_server import OpenAITestServer

from .blocks import python_blocks

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = python_blocks()


def test_every_document_with_python_is_run():
    assert {"README.md", "docs/concepts.md"} <= {block.path for block in BLOCKS}


@pytest.mark.models
@pytest.mark.slow  # a fresh process, models and embedded PostgreSQL per block: make test runs them, make check not
@pytest.mark.parametrize("code", [b.code for b in BLOCKS], ids=[f"{b.path}:{b.section}" for b in BLOCKS])
def test_readme_python_block_runs(code, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLEET_MEMORY_")}
    env["FLEET_MEMORY_HOME"] = str(tmp_path)
    env["HOME"] = str(tmp_path / "home")  # what a block's framework keeps in ~ (CrewAI's credentials key) stays here
    uses_llm = OLLAMA in code
    with OpenAITestServer(_extraction_answer) as llm:  # stands in for the local Ollama server of the LLM example
        code = code.replace(OLLAMA, llm.base_url)
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                             timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert bool(llm.requests) == uses_llm
    if uses_llm:
        assert out.stdout.startswith("llm ['") and llm.requests[0]["model"] == "llama3.2"


OLLAMA = "http://localhost:11434/v1"


def _extraction_answer(body: dict) -> str:
    return json.dumps({"memories": [{"content": "The user prefers tea over coffee.", "type": "semantic",
                                     "importance": 0.6}]})


def _llm_section() -> str:
    return re.search(r"^## Using an LLM.*?(?=^## )", README.read_text("utf-8"), flags=re.S | re.M).group(0)


EXPORTS = re.findall(r"^export .*$", re.search(r"```bash\n(.*?)```", _llm_section(), flags=re.S).group(1), flags=re.M)
EXPECTED = {  # (base_url, model, api key) that each export line of the LLM section configures
    0: ("https://api.groq.com/openai/v1", "openai/gpt-oss-20b", "gsk_..."),
    1: ("https://api.openai.com/v1", "gpt-4o-mini", "sk-..."),
    2: (OLLAMA, "llama3.2", None),
}


@pytest.mark.parametrize("index", range(len(EXPORTS)))
def test_readme_llm_settings_configure_what_they_say(index):
    assert len(EXPORTS) == len(EXPECTED)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLEET_MEMORY_", "GROQ_"))}
    show = "from fleet_memory import Config; c = Config.from_env().llm; print(repr((c.base_url, c.model, c.api_key)))"
    line = EXPORTS[index].split("#")[0]
    out = subprocess.run(["bash", "-c", f"{line}\n{shlex.quote(sys.executable)} -c {shlex.quote(show)}"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == repr(EXPECTED[index])


def test_a_provider_key_alone_configures_no_llm():
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLEET_MEMORY_")}
    env.update(GROQ_API_KEY="gsk_x", OPENAI_API_KEY="sk-x")
    out = subprocess.run([sys.executable, "-c", "from fleet_memory import Config; print(Config.from_env().llm)"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "None", out.stderr


def test_readme_starts_with_the_two_commands():
    text = README.read_text("utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    assert [line.split("#")[0].strip() for line in first_block] == ["make demo", "make test"]
    assert "make test" in (README.parent / ".ci" / "run").read_text("utf-8")
