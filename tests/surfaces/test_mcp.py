"""The MCP server over stdio, started as a subprocess exactly as the README's client configuration
says (``fleet-memory mcp --agent agent_1``) and driven by the official MCP client. The subprocess
uses the real embedding model, as a user's would."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.models

FLEET_MEMORY = shutil.which("fleet-memory", path=str(Path(sys.executable).parent))


def readme_server() -> dict:
    from .test_readme import blocks, section

    [config] = blocks(section("MCP server"), "json")
    return json.loads(config)["mcpServers"]["fleet-memory"]


def _payload(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


async def _session(db_url: str, home: Path) -> dict:
    configured = readme_server()
    assert configured["command"] == "fleet-memory"
    server = StdioServerParameters(command=FLEET_MEMORY, args=configured["args"],
                                   env={"FLEET_MEMORY_DATABASE_URL": db_url, "FLEET_MEMORY_HOME": str(home)})
    async with Client(server, read_timeout_seconds=180) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        remembered = _payload(await client.call_tool(
            "remember", {"content": "Alice works at Google as a software engineer.", "context": "Career"}))
        recalled = _payload(await client.call_tool("recall", {"query": "Where does Alice work?", "top_k": 3}))
        other = _payload(await client.call_tool("recall", {"query": "Alice", "agent_id": "someone_else"}))
        bad = await client.call_tool("recall", {"query": "   "})
        forgot = _payload(await client.call_tool("forget", {"unit_id": remembered["units"][0]["id"]}))
        after = _payload(await client.call_tool("recall", {"query": "Where does Alice work?"}))
        return {"tools": tools, "remembered": remembered, "recalled": recalled, "other": other, "bad": bad,
                "forgot": forgot, "after": after}


def test_stdio_server_lists_tools_remembers_and_recalls(db_url, tmp_path):
    assert FLEET_MEMORY, "the fleet-memory console script is not installed in this environment"
    seen = anyio.run(_session, db_url, tmp_path)
    tools = seen["tools"]
    assert set(tools) == {"remember", "recall", "build_context", "forget", "list_entities"}
    assert all(tool.description and len(tool.description) > 40 for tool in tools.values())
    assert tools["recall"].input_schema["required"] == ["query"]
    assert set(tools["remember"].input_schema["properties"]) >= {"content", "agent_id", "memory_type", "importance"}

    stored = seen["remembered"]["units"]
    assert [u["text"] for u in stored] == ["Alice works at Google as a software engineer."]
    results = seen["recalled"]["results"]
    assert results[0]["id"] == stored[0]["id"] and results[0]["text"] == stored[0]["text"]
    assert seen["other"]["results"] == []  # agents never see each other's memories
    assert seen["bad"].is_error and "query" in seen["bad"].content[0].text
    assert seen["forgot"] == {"deleted": stored[0]["id"]} and seen["after"]["results"] == []
