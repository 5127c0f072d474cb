"""The frameworks are optional: ``import fleet_memory`` (and the integrations package) imports
none of them, and a module whose framework is missing stops with an error naming the extra."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys

import pytest

from fleet_memory.extras import MissingExtraError

FRAMEWORKS = {  # module of fleet_memory.integrations -> (extra, top-level module of the framework)
    "langgraph": ("langgraph", "langgraph"),
    "langchain": ("langchain", "langchain_core"),
    "llamaindex": ("llamaindex", "llama_index"),
    "openai_agents": ("openai-agents", "agents"),
    "pydantic_ai": ("pydantic-ai", "pydantic_ai"),
    "crewai": ("crewai", "crewai"),
}


def test_importing_fleet_memory_imports_no_framework():
    code = ("import sys, json, fleet_memory, fleet_memory.integrations, fleet_memory.integrations.tools, "
            "fleet_memory.integrations.items; from fleet_memory import FleetMemory; "
            "print(json.dumps(sorted(m for m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = {name.split(".")[0] for name in json.loads(out.stdout)}
    frameworks = {top for _, top in FRAMEWORKS.values()} | {"langchain", "openai", "llama_index"}
    assert loaded & frameworks == set()


@pytest.mark.parametrize("module", sorted(FRAMEWORKS))
def test_a_missing_framework_names_its_extra(module, monkeypatch):
    extra, top = FRAMEWORKS[module]
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name.split(".")[0] == top.split(".")[0] else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.delitem(sys.modules, f"fleet_memory.integrations.{module}", raising=False)
    with pytest.raises(MissingExtraError, match=rf"pip install 'fleet-memory\[{extra}\]'"):
        importlib.import_module(f"fleet_memory.integrations.{module}")
