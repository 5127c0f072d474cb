"""The Lifecycle example of docs/concepts.md, executed as written on the test database."""

import re
from pathlib import Path

from fleet_memory import Config, FleetMemory
from fleet_memory.providers.embedder import HashingEmbedder

CONCEPTS = (Path(__file__).resolve().parents[3] / "docs" / "concepts.md").read_text("utf-8")


def test_lifecycle_example_runs(db_url, clock, capsys):
    section = re.search(r"^## Lifecycle\n(.*?)(?=^## )", CONCEPTS, flags=re.S | re.M).group(1)
    [code] = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert "from fleet_memory import FleetMemory\n" in code
    code = code.replace("from fleet_memory import FleetMemory\n", "")

    def make() -> FleetMemory:
        return FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock)

    scope = {"FleetMemory": make}
    exec(compile(code, "docs/concepts.md", "exec"), scope)
    assert scope["prompt"].startswith("You have the following memories available.")
    assert not scope["scheduler"].running  # stopped by close()
    assert capsys.readouterr().out.startswith("0 0 {}")
    with make() as memory:
        kinds = {u.memory_type.value for u in memory.list_units("agent_1").units}
    assert kinds == {"episodic", "procedural"}
