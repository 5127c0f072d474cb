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
