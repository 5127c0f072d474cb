"""The MCP server over stdio, started as a subprocess exactly as ``fleet-memory mcp --print-config``
prints it (the command the README shows, run in a real process; its output has the README
example's shape) and driven by the official MCP client. The subprocess uses the real embedding
model, as a user's would."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.models

FLEET_MEMORY = shutil.which("fleet-memory", path=str(Path(sys.executable).parent))
# A checkout run with PYTHONPATH=src (not the installed tree) keeps importing its own code in the subprocesses.
SOURCE = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}


def readme_server() -> dict:
    from .test_readme import blocks, section

    [config] = blocks(section("MCP server"), "json")
    return json.loads(config)["mcpServers"]["fleet-memory"]


def printed_server(db_url: str, home: Path) -> dict:
    """What the README's ``fleet-memory mcp --print-config ...`` line prints, run as written."""
    import shlex
    import subprocess

    from .test_readme import blocks, section

    [line] = blocks(section("MCP server"), "bash")[0].strip().splitlines()
    words = shlex.split(line, comments=True)
    assert words[:3] == ["fleet-memory", "mcp", "--print-config"]
    env = {"PATH": "/usr/bin:/bin", "FLEET_MEMORY_DATABASE_URL": db_url, "FLEET_MEMORY_HOME": str(home), **SOURCE}
    out = subprocess.run([FLEET_MEMORY, *words[1:]], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["mcpServers"]["fleet-memory"]


def _payload(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


async def _session(db_url: str, home: Path) -> dict:
    shown, configured = readme_server(), printed_server(db_url, home)
    assert shown["args"] == configured["args"] and set(shown) == set(configured) == {"command", "args", "env"}
    assert set(configured["env"]) == set(shown["env"]) | {"FLEET_MEMORY_DATABASE_URL"}
    assert Path(shown["command"]).is_absolute() and Path(shown["command"]).name == "fleet-memory"
    assert configured["command"] == str(Path(FLEET_MEMORY).resolve())
    assert configured["env"]["FLEET_MEMORY_HOME"] == str(home)
    server = StdioServerParameters(command=configured["command"], args=configured["args"],
                                   env={**configured["env"], **SOURCE})
    async with Client(server, read_timeout_seconds=180) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        remembered = _payload(await client.call_tool(
            "remember", {"content": "Alice works at Google as a software engineer.", "context": "Career"}))
        recalled = _payload(await client.call_tool("recall", {"query": "Where does Alice work?", "top_k": 3}))
        other = _payload(await client.call_tool("recall", {"query": "Alice", "agent_id": "someone_else"}))
        bad = await client.call_tool("recall", {"query": "   "})
        forgot = _payload(await client.call_tool("forget", {"unit_id": remembered["units"][0]["id"]}))
        after = _payload(await client.call_tool("recall", {"query": "Where does Alice work?"}))
        forgot_user = _payload(await client.call_tool("forget_user", {"user_id": "nobody"}))
        spoken = _payload(await client.call_tool("remember", {
            "content": "# Notes\n\nI moved to Porto.\n\n```\nrm -rf /\n```", "speaker": "Ines", "user_id": "u-ines",
            "event_date": "2024-03-05T10:00:00Z", "format": "markdown"}))
        moved = _payload(await client.call_tool("recall", {"query": "Where did Ines move?", "top_k": 1}))
        forgot_ines = _payload(await client.call_tool("forget_user", {"user_id": "u-ines"}))
        return {"spoken": spoken, "moved": moved, "forgot_ines": forgot_ines, "tools": tools, "remembered": remembered, "recalled": recalled, "other": other, "bad": bad,
                "forgot": forgot, "after": after, "forgot_user": forgot_user}


@pytest.mark.processes
def test_stdio_server_lists_tools_remembers_and_recalls(db_url, tmp_path):
    assert FLEET_MEMORY, "the fleet-memory console script is not installed in this environment"
    seen = anyio.run(_session, db_url, tmp_path)
    tools = seen["tools"]
    assert set(tools) == {"remember", "recall", "build_context", "forget", "forget_user", "list_entities"}
    assert all(tool.description and len(tool.description) > 40 for tool in tools.values())
    assert tools["recall"].input_schema["required"] == ["query"]
    assert set(tools["remember"].input_schema["properties"]) >= {"content", "agent_id", "memory_type", "importance"}

    assert set(seen["remembered"]) == {"document_id", "units"}  # no timing internals
    assert set(seen["recalled"]["results"][0]) == {"id", "text", "memory_type", "event_date", "weight"}
    assert seen["forgot_user"] == {"user_id": "nobody", "removed": 0}
    stored = seen["remembered"]["units"]
    assert [u["text"] for u in stored] == ["Alice works at Google as a software engineer."]
    results = seen["recalled"]["results"]
    assert results[0]["id"] == stored[0]["id"] and results[0]["text"] == stored[0]["text"]
    assert seen["other"]["results"] == []  # agents never see each other's memories
    assert seen["bad"].is_error and "query" in seen["bad"].content[0].text
    assert seen["forgot"] == {"deleted": stored[0]["id"]} and seen["after"]["results"] == []
    spoken = seen["spoken"]["units"]  # speaker, user, date and format reach the put
    assert [u["text"] for u in spoken] == ["Ines moved to Porto."]
    moved = seen["moved"]["results"][0]
    assert moved["id"] == spoken[0]["id"] and moved["event_date"].startswith("2024-03-05")
    assert seen["forgot_ines"]["removed"] == 1
