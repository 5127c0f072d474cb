"""The ``fleet-memory`` command line, through typer's runner, on the test database."""

from __future__ import annotations

import json
from datetime import timedelta

import anyio
import psycopg
import pytest

from .conftest import LOCOMO

SEED = "Alice works at Google as a software engineer. She joined Google last year."


def out_json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_put_then_get_list_search_and_delete(cli):
    stored = out_json(cli("put", SEED, "-a", "a1", "--context", "Career", "--tag", "work", "--json"))
    assert len(stored["units"]) >= 2
    unit_id = stored["units"][0]["id"]
    unit = out_json(cli("get", unit_id, "-a", "a1", "--json"))
    assert unit["context"] == "Career" and unit["tags"] == ["work"] and unit["agent_id"] == "a1"
    listed = out_json(cli("list", "-a", "a1", "--json"))
    assert {u["id"] for u in listed["units"]} == {u["id"] for u in stored["units"]}
    hits = out_json(cli("search", "What does Alice do?", "-a", "a1", "--json"))
    assert hits and {h["id"] for h in hits} <= {u["id"] for u in stored["units"]}
    assert cli("delete", unit_id, "-a", "a1").exit_code == 0
    assert cli("get", unit_id, "-a", "a1").exit_code == 3


def test_search_explain_shows_why_in_text_and_json(cli):
    cli("put", SEED, "-a", "a1")
    text = cli("search", "Alice Google", "-a", "a1", "--explain")
    assert text.exit_code == 0 and "Alice" in text.stdout and "found by" in text.stdout
    assert "similarity" in text.stdout and "{'" not in text.stdout  # a table of factors, not a dict repr
    hits = out_json(cli("search", "Alice Google", "-a", "a1", "--explain", "--json"))
    assert all(h["explanation"] for h in hits)


def test_search_filters_and_reinforce(cli):
    cli("put", "Alice works at Google.", "-a", "a1", "--user-id", "u1", "--session-id", "s1", "--type", "semantic")
    cli("put", "Alice works at a bakery on weekends.", "-a", "a1", "--user-id", "u2")
    only_u1 = out_json(cli("search", "Alice works", "-a", "a1", "--user-id", "u1", "--json"))
    assert [h["text"] for h in only_u1] == ["Alice works at Google."]
    typed = out_json(cli("search", "Alice works", "-a", "a1", "--type", "semantic", "--session-id", "s1", "--json"))
    assert [h["memory_type"] for h in typed] == ["semantic"]
    unit = lambda: out_json(cli("get", only_u1[0]["id"], "-a", "a1", "--json"))  # noqa: E731
    assert unit()["access_count"] == 0  # plain searches leave no trace
    cli("search", "Alice works", "-a", "a1", "--user-id", "u1", "--reinforce")
    assert unit()["access_count"] == 1


def test_put_reads_stdin(cli):
    stored = out_json(cli("put", "-", "-a", "a1", "--json", input="Bob visited Yosemite last spring.\n"))
    assert stored["units"][0]["text"].startswith("Bob visited")


@pytest.mark.parametrize("args, code, message", [
    (("put", "   ", "-a", "a1"), 2, "content"),
    (("search", "x", "-a", "a1", "--top-k", "0"), 2, "top_k"),
    (("get", "not-a-uuid", "-a", "a1"), 2, "unit_id"),
    (("get", "00000000-0000-0000-0000-000000000000", "-a", "a1"), 3, "not found"),
    (("ingest", "/nonexistent/file.txt", "-a", "a1"), 2, "not a readable file"),
    (("keys", "revoke", "nope"), 3, "not found"),
])
def test_user_mistakes_print_one_line_and_exit_non_zero(cli, args, code, message):
    result = cli(*args)
    assert result.exit_code == code
    assert message in result.stderr
    assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1


def test_unwritable_output_is_one_line_too(cli, tmp_path):
    cli("put", SEED, "-a", "a1")
    result = cli("graph", "-a", "a1", "--html", str(tmp_path / "no" / "such" / "dir" / "g.html"))
    assert result.exit_code == 1 and "No such file or directory" in result.stderr and "Traceback" not in result.output


def test_an_unreachable_configured_database_is_an_error_not_a_fallback(tmp_path):
    from typer.testing import CliRunner

    from fleet_memory.cli import app

    env = {"FLEET_MEMORY_DATABASE_URL": "postgresql://someone:secret@127.0.0.1:9/nothing",
           "FLEET_MEMORY_HOME": str(tmp_path)}
    result = CliRunner().invoke(app, ["db", "status"], env=env)
    assert result.exit_code == 4
    assert "cannot connect to the configured database" in result.stderr and "secret" not in result.stderr


def test_missing_agent_is_a_usage_error(cli):
    result = cli("search", "x")
    assert result.exit_code == 2 and "--agent" in result.output


def test_ingest_text_and_markdown_files_and_skip_them_on_rerun(cli, tmp_path):
    (tmp_path / "notes.txt").write_text("Alice moved to Lisbon in 2021.\n\nShe teaches physics at a school there.\n")
    (tmp_path / "trip.md").write_text("# Trip to Yosemite\n\nBob hiked Half Dome with Alice.\n\n## Food\n\nThey ate tacos.\n")
    first = out_json(cli("ingest", str(tmp_path / "notes.txt"), str(tmp_path / "trip.md"), "-a", "a1", "--json"))
    assert first["items"] == 3 and first["skipped"] == 0 and first["units"] >= 3
    units = out_json(cli("list", "-a", "a1", "--json"))["units"]
    assert {u["context"] for u in units} == {"notes.txt", "trip.md > Trip to Yosemite",
                                             "trip.md > Trip to Yosemite > Food"}
    again = out_json(cli("ingest", str(tmp_path / "notes.txt"), str(tmp_path / "trip.md"), "-a", "a1", "--json"))
    assert again == {**first, "skipped": 3, "units": 0}


def test_ingest_json_turns(cli, tmp_path):
    turns = [{"role": "user", "content": "My sister Carol lives in Denver.", "timestamp": "2024-03-01T10:00:00Z"},
             {"speaker": "bot", "text": "Denver is a great city for skiing.", "turn_id": "t2"}]
    (tmp_path / "chat.json").write_text(json.dumps({"messages": turns}))
    report = out_json(cli("ingest", str(tmp_path / "chat.json"), "-a", "a1", "--json"))
    assert report["items"] == 2 and report["units"] >= 2
    units = out_json(cli("list", "-a", "a1", "--json"))["units"]
    assert {u["speaker"] for u in units} == {"user", "bot"}
    assert any(u["event_date"].startswith("2024-03-01") for u in units)


def _rows(db_url: str, agent: str) -> dict[str, list[tuple]]:
    """Every stored field of the agent's rows, read with plain SQL (not through the export code)."""
    queries = {
        "documents": "SELECT id, content, content_hash, context, source, speaker, event_date, created_at, metadata"
                     " FROM documents WHERE agent_id = %s ORDER BY id",
        "units": "SELECT id, document_id, text, memory_type, context, event_date, created_at, last_accessed,"
                 " access_count, importance, importance_set_at, embedding::text, tsv::text, tags, user_id, session_id,"
                 " source, speaker, archived_at, metadata FROM memory_units WHERE agent_id = %s ORDER BY id",
        "entities": "SELECT id, name, normalized_name, label, aliases, first_seen, last_seen, mention_count"
                    " FROM entities WHERE agent_id = %s ORDER BY id",
        "mentions": "SELECT unit_id, entity_id FROM unit_entities WHERE agent_id = %s ORDER BY 1, 2",
        "links": "SELECT from_id, to_id, kind, weight FROM links WHERE agent_id = %s ORDER BY 1, 2, 3",
        "sources": "SELECT unit_id, source_id, created_at FROM unit_sources WHERE agent_id = %s ORDER BY 1, 2",
    }
    with psycopg.connect(db_url) as conn:
        return {name: conn.execute(q, (agent,)).fetchall() for name, q in queries.items()}


@pytest.mark.skipif(not LOCOMO.exists(), reason=f"LoCoMo dev data not found at {LOCOMO}")
def test_ingest_locomo_with_progress_rerun_and_export_import_roundtrip(cli, db_url, tmp_path):
    first_conversation = LOCOMO.open(encoding="utf-8").readline()
    turns = sum(len(s["turns"]) for s in json.loads(first_conversation)["sessions"])
    data = tmp_path / "conv26.jsonl"
    data.write_text(first_conversation)

    run = cli("ingest", str(data), "-a", "conv")
    assert run.exit_code == 0, run.output
    assert f"{turns}/{turns}" in run.stderr and "units/s" in run.stderr and "ETA" in run.stderr  # the progress bar
    assert f"{turns} items from 1 file(s)" in run.stdout
    stored = _rows(db_url, "conv")
    assert len(stored["units"]) > turns // 2 and stored["entities"] and stored["mentions"] and stored["links"]
    assert all(u[19]["turn_id"].startswith("D") and u[15].startswith("conv-26:S") for u in stored["units"])
    undated = [u for u in stored["units"] if "date_phrase" not in u[19]]  # no "yesterday" in the text
    assert min(u[5] for u in undated).date().isoformat() == "2023-05-08"  # the first session's date

    rerun = out_json(cli("ingest", str(data), "-a", "conv", "--json"))
    assert rerun["units"] == 0 and rerun["skipped"] == turns
    assert _rows(db_url, "conv") == stored  # nothing new, nothing changed

    export = tmp_path / "conv.jsonl"
    assert cli("export", str(export), "-a", "conv").exit_code == 0
    imported = out_json(cli("import", str(export), "-a", "copy", "--json"))
    assert imported["rows"]["memory_units"] == len(stored["units"])
    assert _rows(db_url, "copy") == stored  # every unit, entity, mention and link, field by field

    again = cli("import", str(export), "-a", "copy")
    assert again.exit_code == 2 and "already has memories" in again.stderr


def test_export_to_stdout_and_import_rejects_foreign_files(cli, tmp_path):
    cli("put", SEED, "-a", "a1")
    result = cli("export", "-", "-a", "a1")
    assert result.exit_code == 0 and json.loads(result.stdout.splitlines()[0])["format"] == "fleet-memory-export"
    bogus = tmp_path / "bogus.jsonl"
    bogus.write_text('{"hello": 1}\n')
    bad = cli("import", str(bogus), "-a", "a2")
    assert bad.exit_code == 2 and "not a fleet-memory export" in bad.stderr


def test_a_tampered_export_imports_nothing(cli, db_url, tmp_path):
    cli("put", SEED, "-a", "a1")
    export = tmp_path / "a1.jsonl"
    cli("export", str(export), "-a", "a1")
    lines = [line for line in export.read_text().splitlines() if '"table": "documents"' not in line]
    export.write_text("\n".join(lines) + "\n")  # units now point at a document that is not there
    result = cli("import", str(export), "-a", "a2")
    assert result.exit_code == 2 and "memory_units row does not fit" in result.stderr
    assert _rows(db_url, "a2") == {name: [] for name in _rows(db_url, "a2")}


def test_maintain_archives_faded_memories_and_restore_brings_one_back(cli, clock):
    unit_id = out_json(cli("put", "Carol bought a red umbrella.", "-a", "a1", "--importance", "0.2", "--json"))["units"][0]["id"]
    clock.current += timedelta(days=200)
    report = out_json(cli("maintain", "-a", "a1", "--json"))
    assert report["archived"] == 1 and report["examined"] >= 1
    assert out_json(cli("list", "-a", "a1", "--json"))["units"] == []
    restored = out_json(cli("restore", unit_id, "-a", "a1", "--json"))
    assert restored["id"] == unit_id and restored["archived_at"] is None
    assert cli("maintain").exit_code == 0  # every agent


def test_consolidate_reports_what_it_made(cli):
    for text in ("The deploy failed because the disk was full.", "Another deploy failed because the disk was full.",
                 "The nightly deploy failed because the disk was full again."):
        cli("put", text, "-a", "ops", "--importance", "0.9")
    report = out_json(cli("consolidate", "-a", "ops", "--json"))
    semantic = [u for u in out_json(cli("list", "-a", "ops", "--json"))["units"] if u["memory_type"] == "semantic"]
    assert report["candidates"] == 3 and len(report["created"]) == len(semantic)
    for made in report["created"]:
        sources = out_json(cli("sources", made["id"], "-a", "ops", "--json"))
        assert {u["id"] for u in sources} == set(made["source_ids"])
    stats = out_json(cli("stats", "-a", "ops", "--json"))
    assert stats["units"] == 3 + len(semantic) and stats["units_by_type"]["episodic"] == 3
    assert "units" in cli("stats", "-a", "ops").stdout
    assert cli("consolidate", "-a", "ops").exit_code == 0


def test_context_prints_the_prompt(cli):
    cli("put", SEED, "-a", "a1", "--importance", "0.9")
    result = cli("context", "What does Alice do?", "-a", "a1")
    assert result.exit_code == 0
    assert "## Relevant Past Events" in result.stdout and "Google" in result.stdout
    assert out_json(cli("context", "What does Alice do?", "-a", "a1", "--json"))["context"].endswith("What does Alice do?")


def test_conversation_extracts_and_stores_memories(cli, tmp_path):
    turns = [{"role": "user", "content": "I always deploy on Fridays after the tests pass."},
             {"role": "assistant", "content": "Noted, Friday deploys after green tests."}]
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(turns))
    report = out_json(cli("conversation", str(path), "-a", "a1", "--user-id", "u1", "--json"))
    assert report["method"] == "offline" and report["unit_ids"]
    units = out_json(cli("list", "-a", "a1", "--json"))["units"]
    assert {u["id"] for u in units} == set(report["unit_ids"]) and {u["user_id"] for u in units} == {"u1"}


def test_graph_writes_html_png_and_json(cli, tmp_path):
    cli("put", SEED, "-a", "a1")
    cli("put", "Alice loves hiking in Yosemite.", "-a", "a1")
    html, png = tmp_path / "g.html", tmp_path / "g.png"
    data = out_json(cli("graph", "-a", "a1", "--html", str(html), "--png", str(png), "--json"))
    assert len(data["nodes"]) >= 3 and {"source", "target", "kind", "weight"} <= set(data["edges"][0])
    assert html.read_text().count('"id"') >= len(data["nodes"]) and png.stat().st_size > 10_000
    traced = out_json(cli("graph", "-a", "a1", "--query", "What does Alice do?", "--limit", "2", "--json"))
    assert traced["query"] == "What does Alice do?" and len(traced["nodes"]) <= 2 and traced["trace"]
    entity = out_json(cli("graph", "-a", "a1", "--entity", "alice", "--json"))
    assert entity["nodes"] and all("Alice" in n["text"] for n in entity["nodes"])
    assert cli("graph", "-a", "a1", "--entity", "Nobody Here", "--json").exit_code == 3


def test_db_status_says_where_the_data_is(cli, db_url):
    cli("put", SEED, "-a", "a1")
    status = out_json(cli("db", "status", "--json"))
    assert status["embedded"] is False and status["schema_version"] >= 5 and status["units"] >= 2
    assert db_url.split("?")[0].rsplit("/", 1)[1] == status["database"]
    assert {"memory_units", "api_keys"} <= {t["name"] for t in status["tables"]}
    text = cli("db", "status")
    assert text.exit_code == 0 and "schema version" in text.stdout and "est." not in text.stdout
    rows = {t["name"]: t["rows"] for t in status["tables"]}
    assert rows["memory_units"] == status["units"] and rows["documents"] == 1  # exact, right after the write


def test_db_index_agents_builds_large_agents_indexes(cli):
    cli("put", SEED, "-a", "a1")
    done = out_json(cli("db", "index-agents", "--min-units", "1", "--json"))
    assert done == {"built": ["a1"], "dropped": []}
    assert "built indexes for 0 agent(s)" in cli("db", "index-agents", "--min-units", "1").stdout
    assert cli("db", "index-agents", "--min-units", "0").exit_code != 0


def test_db_check_distribution_prints_the_citus_statements(cli, db_url):
    found = out_json(cli("db", "check-distribution", "--json"))
    assert found["violations"] == []
    assert "SELECT create_reference_table('api_keys');" in found["statements"]
    assert "SELECT create_distributed_table('memory_units', 'agent_id'" in " ".join(found["statements"])
    text = cli("db", "check-distribution")
    assert text.exit_code == 0 and text.stdout.splitlines() == found["statements"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE notes_without_agent (id uuid PRIMARY KEY)")
    broken = cli("db", "check-distribution")
    assert broken.exit_code == 1 and "notes_without_agent: agent data without an agent_id column" in broken.stdout


def test_keys_create_list_revoke(cli, factory):
    created = out_json(cli("keys", "create", "--name", "bot", "-a", "a1", "-a", "a2", "--json"))
    assert created["key"].startswith("fm_") and created["agent_ids"] == ["a1", "a2"]
    listed = out_json(cli("keys", "list", "--json"))
    assert [k["id"] for k in listed] == [created["id"]] and "key" not in listed[0]
    with factory() as memory:
        assert memory.authenticate(created["key"], "a2").name == "bot"
    assert cli("keys", "revoke", created["prefix"]).exit_code == 0
    assert out_json(cli("keys", "list", "--json")) == []
    assert cli("keys", "create", "--name", "nobody").exit_code == 2  # neither agents nor --admin


def test_serve_refuses_no_auth_on_a_public_interface(cli):
    result = cli("serve", "--no-auth", "--host", "0.0.0.0")
    assert result.exit_code == 1 and "127.0.0.1" in result.stderr


def test_demo_writes_both_pictures_and_says_where(cli, tmp_path):
    result = cli("demo", "--out-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "What does Alice do?" in result.stdout and "Alice works at Google" in result.stdout
    assert "Entity resolution" in result.stdout and "PERSON" in result.stdout
    html, png = tmp_path / "memory_graph_interactive.html", tmp_path / "memory_graph.png"
    assert str(html.resolve()) in result.stdout.replace("\n", "") and png.stat().st_size > 10_000
    again = cli("demo", "--out-dir", str(tmp_path))  # clears the earlier demo data first
    stored = [line for line in again.stdout.splitlines() if line.startswith("Cleared")]
    assert stored and not stored[0].startswith("Cleared 0 ")


def test_entities_list_show_rename_merge_delete(cli):
    cli("put", SEED, "-a", "a1")
    cli("put", "Alicia Smith met Bob in Paris.", "-a", "a1")
    listed = {e["name"]: e for e in out_json(cli("entities", "list", "-a", "a1", "--json"))}
    assert {"Alice", "Google"} <= set(listed) and listed["Alice"]["label"] == "PERSON"
    assert "Alice" in cli("entities", "list", "-a", "a1").stdout
    shown = out_json(cli("entities", "show", "alice", "-a", "a1", "--json"))
    assert shown["entity"]["id"] == listed["Alice"]["id"] and all("Alice" in u["text"] for u in shown["units"])
    renamed = out_json(cli("entities", "rename", "Google", "Alphabet", "-a", "a1", "--json"))
    assert renamed["name"] == "Alphabet" and "Google" in renamed["aliases"]
    merged = out_json(cli("entities", "merge", "Alice", "Alicia Smith", "-a", "a1", "--json"))
    assert merged["id"] == listed["Alice"]["id"] and "Alicia Smith" in merged["aliases"]
    assert cli("entities", "delete", "Alphabet", "-a", "a1").exit_code == 0
    missing = cli("entities", "show", "Alphabet", "-a", "a1")
    assert missing.exit_code == 3 and "not found" in missing.stderr


async def _mcp_over_http(url: str, key: str) -> dict:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            mine = await client.call_tool("list_entities", {"agent_id": "a1"})
            other = await client.call_tool("list_entities", {"agent_id": "b1"})
    assert not mine.is_error, mine.content
    return {"tools": tools, "mine": mine.content[0].text, "other": other}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.processes
@pytest.mark.parametrize("no_auth", [False, True], ids=["keys", "no-auth"])
def test_serve_runs_the_rest_server(factory, db_url, tmp_path, no_auth):
    import os
    import shutil
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    with factory() as memory:
        memory.put("a1", SEED)
        key, _ = memory.create_api_key("t", agent_ids=["a1"])
    port = _free_port()
    command = [shutil.which("fleet-memory", path=str(Path(sys.executable).parent)), "serve", "--port", str(port)]
    env = {**os.environ, "FLEET_MEMORY_DATABASE_URL": db_url, "FLEET_MEMORY_HOME": str(tmp_path)}
    server = subprocess.Popen(command + (["--no-auth"] if no_auth else []), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 120
        while True:  # wait until it listens (not a timing assertion: only a bound on waiting)
            try:
                if httpx.get(f"{base}/health").status_code == 200:
                    break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stdout.read().decode()
                time.sleep(0.2)
        unauthenticated = httpx.get(f"{base}/v1/agents/a1/memories")
        assert unauthenticated.status_code == (200 if no_auth else 401)
        listed = httpx.get(f"{base}/v1/agents/a1/memories", headers={"Authorization": f"Bearer {key}"})
        assert listed.status_code == 200 and len(listed.json()["units"]) >= 2
        if not no_auth:
            assert httpx.post(f"{base}/mcp", json={}).status_code == 401
            mcp = anyio.run(_mcp_over_http, f"{base}/mcp", key)
            assert "list_entities" in mcp["tools"] and "Alice" in mcp["mine"]
            assert mcp["other"].is_error and "may not act for agent 'b1'" in mcp["other"].content[0].text
    finally:
        server.terminate()
        server.wait(timeout=180)  # SIGTERM lets a model load under way finish first (slow on a loaded machine)


def test_search_preset_now_and_metadata(cli, memory):
    memory.put("a1", "The billing service runs on Kubernetes.", metadata={"project": "billing"})
    memory.put("a1", "The search service runs on Kubernetes.", metadata={"project": "search"})
    found = out_json(cli("search", "Kubernetes service", "-a", "a1", "--meta", "project=billing", "--preset", "fast",
                         "--now", "2030-01-01T00:00:00Z", "--explain", "--json"))
    assert [h["text"] for h in found] == ["The billing service runs on Kubernetes."]
    assert found[0]["explanation"]["preset"] == "fast"
    assert cli("search", "x", "-a", "a1", "--meta", "project").exit_code == 2
    assert cli("search", "x", "-a", "a1", "--preset", "slow").exit_code == 2


def test_stats_is_a_table_and_an_unknown_agent_gets_a_hint(cli, memory):
    memory.put("a1", "Alice works at Google as a software engineer.")
    stats = cli("stats", "-a", "a1")
    assert "documents" in stats.stdout and "{'" not in stats.stdout
    typo = cli("search", "Alice", "-a", "a_1")
    assert typo.exit_code == 0 and "hint: agent 'a_1' has no memories; agents in this store: a1" in typo.stderr
    assert "hint" not in cli("search", "nothing like this", "-a", "a1").stderr
    assert "hint: agent 'a_1'" in cli("stats", "-a", "a_1").stderr


def test_agents_list_delete_and_forget_user(cli, memory):
    memory.put("a1", "Alice works at Google.", user_id="u1")
    memory.put("a1", "Carol lives in Denver.", user_id="u2")
    memory.put("b1", "Bob visited Yosemite last spring.")
    listed = out_json(cli("agents", "list", "--json"))
    assert [(a["agent_id"], a["units"]) for a in listed] == [("a1", 2), ("b1", 1)]
    assert "a1" in cli("agents", "list").stdout
    forgot = out_json(cli("forget-user", "u1", "-a", "a1", "--json"))
    assert forgot["removed"] == 1 and [u.text for u in memory.list_units("a1").units] == ["Carol lives in Denver."]
    assert cli("agents", "delete", "b1", input="n\n").exit_code != 0 and memory.list_units("b1").units
    assert out_json(cli("agents", "delete", "b1", "--yes", "--json"))["removed"] == 1
    assert [a["agent_id"] for a in out_json(cli("agents", "list", "--json"))] == ["a1"]


def test_update_and_history(cli):
    stored = out_json(cli("put", "Dana lives in Leeds.", "-a", "a1", "--date", "2024-05-01", "--json"))
    old_id = stored["units"][0]["id"]
    new = out_json(cli("update", old_id, "Dana lives in Manchester now.", "-a", "a1", "--date", "2025-01-01", "--json"))
    chain = out_json(cli("history", old_id, "-a", "a1", "--json"))
    assert [u["id"] for u in chain] == [old_id, new["units"][0]["id"]]
    text = cli("history", old_id, "-a", "a1")
    assert text.exit_code == 0 and "2025-01-01" in text.stdout and "(current)" in text.stdout


def test_put_reads_markdown_when_asked(cli):
    report = out_json(cli("put", "# Trip\n\nAlice moved to [Lisbon](https://lisbon.example).", "-a", "md",
                          "--format", "markdown", "--json"))
    assert [u["text"] for u in report["units"]] == ["Alice moved to Lisbon."]
    plain = out_json(cli("put", "# Trip\n\nBob moved to [Porto](https://porto.example).", "-a", "md",
                         "--format", "text", "--json"))
    assert any("](https://porto.example)" in u["text"] for u in plain["units"])
