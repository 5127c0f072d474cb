"""Export and import accept each other's output exactly, through every door,
and ``fleet-memory export FILE`` never empties a file it then fails to write (item 6)."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fleet_memory import InvalidInputError
from fleet_memory.rest import create_app

SEPARATORS = "\u2028\u2029\u0085\r\x0b\x0c\x1c\x1d\x1e"
# Any text a put accepts: no NUL, no lone surrogate, not blank; separators drawn often.
TEXT = st.text(st.one_of(st.sampled_from(SEPARATORS), st.characters(exclude_categories=("Cs",),
                                                                     exclude_characters="\x00")),
               min_size=1, max_size=40).filter(lambda t: t.strip())
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])


def _stored(memory, agent: str) -> list[tuple]:
    with memory.db.transaction() as conn:
        units = conn.execute("SELECT text, metadata, context FROM memory_units WHERE agent_id = %s ORDER BY seq",
                             (agent,)).fetchall()
        docs = conn.execute("SELECT content, metadata FROM documents WHERE agent_id = %s ORDER BY content",
                            (agent,)).fetchall()
    return [*map(tuple, units), *map(tuple, docs)]


def _fill(memory, text: str) -> str:
    agent = f"src-{uuid.uuid4().hex[:8]}"
    memory.put(agent, f"Alice wrote {text} in Paris.", context=text, metadata={"note": text, text: [text]})
    return agent


@given(text=TEXT)
@SETTINGS
def test_library_round_trip(memory, text) -> None:
    agent = _fill(memory, text)
    out = io.StringIO()
    memory.export_agent(agent, out)
    memory.import_agent(agent + "-copy", out.getvalue().split("\n"))
    assert _stored(memory, agent + "-copy") == _stored(memory, agent)


@given(text=TEXT)
@SETTINGS
def test_cli_round_trip(memory, cli, tmp_path, text) -> None:
    agent = _fill(memory, text)
    path = tmp_path / f"{agent}.jsonl"
    assert cli("export", str(path), "-a", agent).exit_code == 0
    done = cli("import", str(path), "-a", agent + "-copy")
    assert done.exit_code == 0, done.output
    assert _stored(memory, agent + "-copy") == _stored(memory, agent)


@given(text=TEXT)
@SETTINGS
def test_rest_round_trip(memory, text) -> None:
    agent = _fill(memory, text)
    with TestClient(create_app(memory, auth=False)) as client:
        export = client.get(f"/v1/agents/{agent}/export")
        done = client.post(f"/v1/agents/{agent}-copy/import", content=export.content,
                           headers={"Content-Type": "application/x-ndjson"})
    assert done.status_code == 201, done.text
    assert _stored(memory, agent + "-copy") == _stored(memory, agent)


def test_the_line_separators_themselves_survive_every_door(memory, cli, tmp_path) -> None:
    text = "one\u2028two\u2029three\u0085four"
    agent = _fill(memory, text)
    with TestClient(create_app(memory, auth=False)) as client:
        export = client.get(f"/v1/agents/{agent}/export").content
        assert client.post(f"/v1/agents/{agent}-rest/import", content=export,
                           headers={"Content-Type": "application/x-ndjson"}).status_code == 201
    path = tmp_path / "x.jsonl"
    path.write_bytes(export)
    assert cli("import", str(path), "-a", agent + "-cli").exit_code == 0
    assert _stored(memory, agent + "-rest") == _stored(memory, agent) == _stored(memory, agent + "-cli")


@pytest.mark.parametrize("bad", [[1, 2], "text", 3])
def test_metadata_that_is_not_an_object_is_refused_naming_the_line(memory, bad) -> None:
    agent = _fill(memory, "plain")
    out = io.StringIO()
    memory.export_agent(agent, out)
    lines = out.getvalue().split("\n")
    number = next(i for i, line in enumerate(lines, 1) if '"memory_units"' in line and '"row"' in line)
    record = json.loads(lines[number - 1])
    record["row"]["metadata"] = bad
    lines[number - 1] = json.dumps(record)
    with pytest.raises(InvalidInputError) as caught:
        memory.import_agent("copy", lines)
    assert caught.value.field == f"line {number}" and "metadata" in caught.value.problem
    assert memory.stats("copy").units == 0


def test_a_failed_export_leaves_an_existing_file_as_it_was(memory, cli, tmp_path) -> None:
    path = tmp_path / "keep.jsonl"
    path.write_text("precious\n")
    failed = cli("export", str(path), "-a", " ")  # an agent id the facade refuses
    assert failed.exit_code != 0
    assert path.read_text() == "precious\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.jsonl"]  # no temporary file left
    memory.put("a1", "Alice moved to Paris.")
    assert cli("export", str(path), "-a", "a1").exit_code == 0
    assert json.loads(path.read_text().split("\n")[0])["agent_id"] == "a1"


def test_ingest_stores_the_same_words_said_again_and_resumes_without_duplicates(cli, memory, tmp_path) -> None:
    turns = [{"role": "user", "content": "I went for a run this morning.", "timestamp": "2024-03-01T08:00:00Z"},
             {"role": "user", "content": "I went for a run this morning.", "timestamp": "2024-03-02T08:00:00Z"},
             {"role": "user", "content": "Ok.", "timestamp": "2024-03-02T08:01:00Z"},
             {"role": "user", "content": "Ok.", "timestamp": "2024-03-02T08:01:00Z", "turn_id": "t9"}]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(turns))
    first = json.loads(cli("ingest", str(path), "-a", "a1", "--json").stdout)
    assert first["items"] == 4 and first["skipped"] == 0
    assert memory.stats("a1").documents == 4
    again = json.loads(cli("ingest", str(path), "-a", "a1", "--json").stdout)
    assert again["skipped"] == 4 and again["units"] == 0
    notes = tmp_path / "notes.txt"  # the same paragraph twice in one file: both kept, neither twice
    notes.write_text("Alice moved to Lisbon.\n\n" + "x" * 2_000 + "\n\nAlice moved to Lisbon.\n")
    assert json.loads(cli("ingest", str(notes), "-a", "a2", "--json").stdout)["skipped"] == 0
    assert json.loads(cli("ingest", str(notes), "-a", "a2", "--json").stdout)["skipped"] == 3
    assert memory.stats("a2").documents == 3
