"""Import applies the limits of every other door to timestamps and counters:
years 1 to 9999, no ``infinity``, counts non-negative and below the import ceiling. Before, such
rows were stored and then broke the admin agent listing, the all-agents maintenance job and that
agent's list, search, put, entities and export."""

from __future__ import annotations

import io
import json

import pytest
from fastapi.testclient import TestClient

from fleet_memory import InvalidInputError
from fleet_memory.rest import create_app

ITEMS = [{"content": "Alice met Bob in Paris last spring.", "event_date": "2024-03-01T10:00:00Z"},
         {"content": "Bob moved to Berlin for work.", "event_date": "2024-04-01T10:00:00Z"}]

CASES = [
    ("memory_units", "created_at", "infinity"),
    ("memory_units", "created_at", "-infinity"),
    ("memory_units", "last_accessed", "infinity"),
    ("memory_units", "event_date", "10000-01-01T00:00:00+00:00"),
    ("memory_units", "importance_set_at", "+infinity"),
    ("memory_units", "event_date", "9999-12-31T23:00:00-05:00"),  # year 10000 in UTC
    ("memory_units", "created_at", "0001-01-01T00:00:00+01:00"),  # year 0 in UTC
    ("memory_units", "access_count", -5),
    ("memory_units", "access_count", 2**31 - 1),
    ("documents", "event_date", "12000-06-01T00:00:00Z"),
    ("documents", "created_at", "-infinity"),
    ("entities", "last_seen", "infinity"),
    ("entities", "mention_count", -1),
    ("term_df", "df", 2**31 - 1),
    ("term_df", "df", -3),
    ("unit_sources", "created_at", "infinity"),
]


def export_lines(memory, agent: str) -> list[str]:
    out = io.StringIO()
    memory.export_agent(agent, out)
    return [line for line in out.getvalue().split("\n") if line]


def with_value(lines: list[str], table: str, column: str, value) -> tuple[list[str], int]:
    """The lines with ``column`` of the first ``table`` row set to ``value``, and that line's number."""
    lines = list(lines)
    number = next(i for i, line in enumerate(lines, 1) if json.loads(line).get("table") == table)
    record = json.loads(lines[number - 1])
    assert column in record["row"]
    record["row"][column] = value
    lines[number - 1] = json.dumps(record)
    return lines, number


def every_route_works(memory, agent: str) -> None:
    assert any(a.agent_id == "src" for a in memory.list_agents())
    memory.maintain()
    memory.list_units(agent)
    memory.search(agent, "Where did Alice meet Bob?")
    memory.search(agent, "Bob", min_importance=0.01)
    memory.build_context(agent, "Tell me about Bob")
    memory.list_entities(agent)
    memory.export_agent(agent, io.StringIO())
    assert memory.put(agent, "Carol joined Alice in Paris.").units


@pytest.fixture
def source(memory) -> list[str]:
    memory.put_many(ITEMS, agent_id="src")
    with memory.db.transaction() as conn:  # a consolidation's provenance, so unit_sources has a row
        a, b = (r[0] for r in conn.execute("SELECT id FROM memory_units WHERE agent_id = 'src' LIMIT 2"))
        conn.execute("INSERT INTO unit_sources (agent_id, unit_id, source_id) VALUES ('src', %s, %s)", (a, b))
    return export_lines(memory, "src")


@pytest.mark.parametrize(("table", "column", "value"), CASES)
def test_an_impossible_value_is_refused_naming_the_line_and_the_field(memory, source, table, column, value) -> None:
    lines, number = with_value(source, table, column, value)
    with pytest.raises(InvalidInputError) as caught:
        memory.import_agent("tenant", lines)
    assert caught.value.field == f"line {number}"
    assert f"{table}.{column}" in caught.value.problem
    assert memory.stats("tenant").units == 0
    every_route_works(memory, "tenant")


@pytest.mark.parametrize(("column", "value"), [("event_date", "0001-01-01T00:00:00+00:00"),
                                                ("last_accessed", "9999-12-31T23:59:59.999999+00:00"),
                                                ("access_count", 0)])
def test_values_at_the_limits_are_imported_and_readable(memory, source, column, value) -> None:
    lines, _ = with_value(source, "memory_units", column, value)
    memory.import_agent("tenant", lines)
    assert memory.stats("tenant").units == len(ITEMS)
    every_route_works(memory, "tenant")


def test_rest_import_answers_422_naming_the_line(memory, source) -> None:
    lines, number = with_value(source, "memory_units", "created_at", "infinity")
    with TestClient(create_app(memory, auth=False)) as client:
        done = client.post("/v1/agents/tenant/import", content="\n".join(lines),
                           headers={"Content-Type": "application/x-ndjson"})
        assert done.status_code == 422, done.text
        assert f"line {number}" in done.text and "created_at" in done.text
        assert client.get("/v1/agents").status_code == 200
