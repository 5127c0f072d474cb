"""Imported write orders never move the sequence every agent draws from."""

from __future__ import annotations

import io
import json

import pytest

from fleet_memory import InvalidInputError

ITEMS = [{"content": f"Alice visited city number {i} on her long trip."} for i in range(6)]


def _export(memory, agent: str, seq_of) -> list[str]:
    out = io.StringIO()
    memory.export_agent(agent, out)
    lines = []
    for line in out.getvalue().split("\n"):
        if not line:
            continue
        record = json.loads(line)
        if record.get("table") == "memory_units":
            record["row"]["seq"] = seq_of(record["row"])
        lines.append(json.dumps(record))
    return lines


def _order(memory, agent: str) -> list[str]:
    with memory.db.transaction() as conn:
        return [r[0] for r in conn.execute(
            "SELECT text FROM memory_units WHERE agent_id = %s ORDER BY seq", (agent,)).fetchall()]


def test_an_import_at_the_largest_seq_leaves_every_agent_writable(memory) -> None:
    memory.put_many(ITEMS, agent_id="old")
    lines = _export(memory, "old", lambda row: 2**63 - 1)
    memory.import_agent("tenant", lines)
    assert memory.put("other", "Bob still writes after the import.").units
    assert memory.put("tenant", "The tenant writes too.").units


def test_an_import_keeps_the_relative_order_of_its_units(memory) -> None:
    memory.put_many(ITEMS, agent_id="old")
    before = _order(memory, "old")
    rank = {text: i for i, text in enumerate(before)}
    lines = _export(memory, "old", lambda row: 2**62 - rank[row["text"]] * 1000)  # reversed, far apart
    memory.import_agent("copy", lines)
    assert _order(memory, "copy") == list(reversed(before))
    with memory.db.transaction() as conn:
        assert conn.execute("SELECT max(seq) FROM memory_units").fetchone()[0] < 2**40


@pytest.mark.parametrize("bad", [2**63, -(2**63) - 1, "12", 1.5, True])
def test_a_seq_outside_64_bits_is_refused_naming_the_line(memory, bad) -> None:
    memory.put_many(ITEMS[:2], agent_id="old")
    lines = _export(memory, "old", lambda row: bad)
    with pytest.raises(InvalidInputError) as caught:
        memory.import_agent("copy", lines)
    assert caught.value.field.startswith("line ") and "seq" in caught.value.problem
    assert memory.stats("copy").units == 0
