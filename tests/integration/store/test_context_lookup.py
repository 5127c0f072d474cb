"""The gazetteer part of ``store.reads.context.agent_context``: a name found by its normalised form and
one found by an alias, per group, never another agent's (the two lookups run as separate joins)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

from fleet_memory.naming import normalize_name
from fleet_memory.store.reads import context as ctx
from fleet_memory.store.tables import entities as entity_sql


def test_known_names_by_name_and_by_alias_per_group(memory):
    now = datetime(2024, 5, 1, tzinfo=timezone.utc)
    with memory.db.transaction() as conn:
        for agent in ("a1", "a2"):
            made = entity_sql.create_entities(conn, agent, [
                entity_sql.NewEntity(uuid.uuid4(), "Carol Danvers", normalize_name("Carol Danvers"), "PERSON", now, now),
                entity_sql.NewEntity(uuid.uuid4(), "Acme Robotics", normalize_name("Acme Robotics"), "ORG", now, now)])
            conn.execute("UPDATE entities SET aliases = ARRAY['Acme'] WHERE agent_id = %s AND id = %s",
                         (agent, made[normalize_name("Acme Robotics")]))
        queries = [ctx.ContextQuery("a1", None, "s1", now - timedelta(days=1), now, ("Carol Danvers",)),
                   ctx.ContextQuery("a1", None, "s2", now - timedelta(days=1), now, ("Acme",)),
                   ctx.ContextQuery("a1", None, "s3", now - timedelta(days=1), now, ("Nobody",))]
        out = ctx.agent_context(conn, queries)
    assert [sorted(k.name for k in known) for _, known in out] == [["Carol Danvers"], ["Acme Robotics"], []]
    assert out[1][1][0].aliases == ("Acme",) and out[1][1][0].label == "ORG"


def test_a_group_that_asks_for_no_people_gets_the_known_names_alone(memory):
    """A put with no he/she- or they-family word reads no recent units (``ContextQuery.people``); another
    group of the same statement still does."""
    memory.put("a1", "My sister Priya lives in Bristol.", event_date=datetime(2024, 4, 30, tzinfo=timezone.utc))
    now = datetime(2024, 5, 1, tzinfo=timezone.utc)
    with memory.db.transaction() as conn:
        queries = [ctx.ContextQuery("a1", None, None, now - timedelta(days=90), now, ("Priya",)),
                   ctx.ContextQuery("a1", None, None, now - timedelta(days=90), now, ("Priya",), people=False)]
        (with_people, known), (without, known_too) = ctx.agent_context(conn, queries)
    assert any(p.name == "Priya" for p in with_people) and without == []
    assert [k.name for k in known] == [k.name for k in known_too] == ["Priya"]
