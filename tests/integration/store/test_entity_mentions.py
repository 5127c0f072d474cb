"""``store.tables.entities.record_mentions``: the mention rows, then ONE update of each entity's count,
first and last seen and aliases (surface forms other than its name, whitespace folded, sorted,
each once)."""

from __future__ import annotations

from datetime import datetime, timezone
from uuid import uuid4

from fleet_memory.store.tables import entities as entity_sql
from fleet_memory.store.tables.entities import Mention, NewEntity

AGENT = "mentions"
T0, T1, T2, T3 = (datetime(2024, 3, d, tzinfo=timezone.utc) for d in (1, 5, 9, 12))


def _entity(conn, eid):
    return entity_sql.get_entity(conn, AGENT, eid)


def test_counts_dates_and_aliases_in_one_update(memory) -> None:
    units = [u.id for t in ("Robert fixed the old car.", "Bob likes climbing.", "Rob went home early.")
             for u in memory.put(AGENT, t).units]
    with memory.db.transaction() as conn:
        eid = entity_sql.create_entities(conn, AGENT, [NewEntity(uuid4(), "Robert Tan", "robert tan", "PERSON",
                                                                 T1, T1)])["robert tan"]
        before = _entity(conn, eid)
        recorded = entity_sql.record_mentions(conn, AGENT, [
            Mention(units[0], eid, "Robert Tan", T2), Mention(units[1], eid, "Bob", T3),
            Mention(units[2], eid, " Rob\n ", T0),
        ])
        after = _entity(conn, eid)
        assert recorded == 3
        assert after.mention_count == before.mention_count + 3
        assert (after.first_seen, after.last_seen) == (T0, T3)
        assert after.aliases == ("Bob", "Rob")  # never the name itself

        # a pair already recorded counts nothing; surfaces already known change nothing
        assert entity_sql.record_mentions(conn, AGENT, [Mention(units[1], eid, "Rob", T1)]) == 0
        again = _entity(conn, eid)
        assert again.mention_count == after.mention_count and again.aliases == ("Bob", "Rob")

        # a name that found its way among the aliases (a rename) leaves them at the next mention
        conn.execute("UPDATE entities SET aliases = aliases || name WHERE agent_id = %s AND id = %s", (AGENT, eid))
        entity_sql.record_mentions(conn, AGENT, [Mention(units[0], eid, "Bob", T1)])
        assert _entity(conn, eid).aliases == ("Bob", "Rob")
