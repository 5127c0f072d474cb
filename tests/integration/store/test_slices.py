"""Statements whose rows grow with a put go in slices (``store.db.rows.slices``); a put whose
entities, mentions and links take many slices stores what one slice stores."""

from __future__ import annotations

from fleet_memory.store.db import rows

TEXT = ("Alice Moreau met Bob Lindqvist at Acme Corp in Paris. Bob Lindqvist introduced Alice Moreau to "
        "Carla Diaz from Globex. Carla Diaz and Dmitri Petrov flew to Berlin with Erin Walsh. "
        "Erin Walsh works at Initech in Dublin with Frank Osei and Alice Moreau.")
LATER = "Alice Moreaux and Bob Lindqvst met Carla Diaz again in Paris; Erin Walsch joined them from Dublin."


def _stored(memory, agent: str) -> tuple:
    with memory.db.transaction() as conn:
        entities = sorted(conn.execute(
            "SELECT name, mention_count, aliases FROM entities WHERE agent_id = %s", (agent,)).fetchall())
        mentions = conn.execute("SELECT count(*) FROM unit_entities WHERE agent_id = %s", (agent,)).fetchone()[0]
        links = sorted(conn.execute(
            "SELECT kind, count(*) FROM links WHERE agent_id = %s GROUP BY kind", (agent,)).fetchall())
    return entities, mentions, links


def test_a_put_in_slices_of_two_rows_stores_what_one_slice_stores(memory, monkeypatch):
    for agent in ("whole", "sliced"):
        if agent == "sliced":
            monkeypatch.setattr(rows, "SLICE_ROWS", 2)
        memory.put(agent, TEXT)
        memory.put(agent, LATER)  # known names, and misspelt ones scored against their co-mentions
    whole, sliced = _stored(memory, "whole"), _stored(memory, "sliced")
    assert len(whole[0]) >= 6 and whole[1] > 4 and whole[2]  # several slices of each statement
    assert sliced == whole


def test_slices_cover_every_row_once():
    assert [(s.start, s.stop) for s in rows.slices(5, 2)] == [(0, 2), (2, 4), (4, 6)]
    assert list(rows.slices(0)) == []
