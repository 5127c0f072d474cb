"""``Client.export_agent`` / ``import_agent`` (and ``AsyncClient``'s) against a real server: the
same export text and report as the facade's, an import that round-trips, and the facade's errors
naming the line."""

from __future__ import annotations

import io
import json

import anyio
import pytest

from fleet_memory import InvalidInputError
from fleet_memory.client import AsyncClient, Client
from tests.support.servers import real_server

FACTS = ["Alice works at Google as a software engineer.", "Bob moved to Paris in May.\u2028He likes it there."]


def _rows(text: str) -> list:
    return [json.loads(line).get("row", {}).get("id") for line in text.split("\n") if line]


def test_client_export_and_import_match_the_facade(memory) -> None:
    for fact in FACTS:
        memory.put("a1", fact)
    expected = io.StringIO()
    want = memory.export_agent("a1", expected)
    key, _ = memory.create_api_key("admin", admin=True)
    with real_server(memory) as url, Client(url, api_key=key) as client:
        got = io.StringIO()
        report = client.export_agent("a1", got)
        assert got.getvalue() == expected.getvalue()
        assert report == want and report.rows["memory_units"] == memory.stats("a1").units
        imported = client.import_agent("a2", io.StringIO(got.getvalue()))  # a file's lines, ends kept
        assert imported.rows == {t: n for t, n in want.rows.items() if n} and imported.agent_id == "a2"
        again = io.StringIO()
        client.export_agent("a2", again)
    assert _rows(again.getvalue()) == _rows(expected.getvalue())
    assert [u.text for u in memory.list_units("a2").units] == [u.text for u in memory.list_units("a1").units]


def test_async_client_export_and_import_and_a_bad_line(memory) -> None:
    memory.put("a1", FACTS[0])
    key, _ = memory.create_api_key("admin", admin=True)

    async def run(url: str) -> tuple:
        async with AsyncClient(url, api_key=key) as client:
            out = io.StringIO()
            exported = await client.export_agent("a1", out)
            lines = out.getvalue().split("\n")  # lines without their ends
            imported = await client.import_agent("a3", lines)
            with pytest.raises(InvalidInputError) as refused:
                await client.import_agent("a4", [lines[0], "not json"])
            return exported, imported, refused.value

    with real_server(memory) as url:
        exported, imported, refused = anyio.run(run, url)
    assert imported.rows == {t: n for t, n in exported.rows.items() if n} and exported.rows["memory_units"] >= 1
    assert refused.field == "line 2" and memory.stats("a4").units == 0
