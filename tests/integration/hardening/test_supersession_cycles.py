"""Supersession never goes round in a circle or back in time: an update dated
before the version it replaces is refused, naming ``event_date``; a pair that would close a cycle
(A → B, then B → A) or end a unit before it began is never recorded, whichever path writes it
(the update, the rule at put time, several pairs in one statement), and the fact stays found by
default search."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory import InvalidInputError
from fleet_memory.store.tables import supersession as sup_sql

AGENT = "cycles"
WHEN = datetime(2024, 6, 10, tzinfo=timezone.utc)


def _pairs(memory) -> set[tuple]:
    with memory.db.transaction() as conn:
        return set(conn.execute("SELECT old_id, new_id FROM supersessions WHERE agent_id = %s", (AGENT,)).fetchall())


def _ended_before_start(memory) -> list:
    with memory.db.transaction() as conn:
        return conn.execute("SELECT text FROM memory_units WHERE agent_id = %s AND valid_until < event_date",
                            (AGENT,)).fetchall()


def test_an_update_dated_before_the_version_it_replaces_is_refused(memory) -> None:
    old = memory.put(AGENT, "Ines lives in Lisbon.", event_date=WHEN).units[0].id
    with pytest.raises(InvalidInputError, match="event_date"):
        memory.update(AGENT, old, "Ines lives in Porto.", event_date=WHEN - timedelta(days=30))
    assert [u.id for u in memory.history(AGENT, old)] == [old]
    assert memory.stats(AGENT).units == 1  # nothing stored
    same_time = memory.update(AGENT, old, "Ines lives in Braga.", event_date=WHEN).units[0].id
    assert [u.id for u in memory.history(AGENT, old)] == [old, same_time]


def test_no_pair_closes_a_cycle_or_ends_a_unit_before_it_began(memory) -> None:
    a, b, c, d, e = (memory.put(AGENT, text, event_date=WHEN + timedelta(days=i)).units[0].id for i, text in enumerate(
        ["Tomasz painted the fence green.", "Tomasz painted the fence blue.", "Tomasz painted the fence yellow.",
         "Bea planted tulips by the gate.", "Bea planted roses by the gate."]))  # no slot: none supersedes
    with memory.db.transaction() as conn:
        assert sup_sql.supersede(conn, AGENT, [(a, b, "rule:x"), (b, c, "rule:x")], WHEN) == 2
        assert sup_sql.supersede(conn, AGENT, [(c, a, "rule:x")], WHEN) == 0  # a → b → c → a
        assert sup_sql.supersede(conn, AGENT, [(e, d, "rule:x")], WHEN) == 0  # d began before e
        assert sup_sql.supersede(conn, AGENT, [(d, e, "rule:x"), (e, d, "rule:y")], WHEN) == 1  # one statement
    with pytest.raises(InvalidInputError, match="event_date"), memory.db.transaction() as conn:
        sup_sql.supersede(conn, AGENT, [(c, a, "update")], WHEN)  # an explicit version is refused aloud
    assert _pairs(memory) == {(a, b), (b, c), (d, e)}
    assert _ended_before_start(memory) == []
    hits = memory.search(AGENT, "What colour did Tomasz paint the fence?", reinforce=False)
    assert c in [h.id for h in hits]


def test_updates_and_puts_that_restate_an_earlier_value_make_no_cycle(memory, clock) -> None:
    lisbon = memory.put(AGENT, "Ines lives in Lisbon.", event_date=WHEN).units[0].id
    porto = memory.update(AGENT, lisbon, "Ines moved to Porto.", event_date=WHEN + timedelta(days=10)).units[0].id
    back = memory.update(AGENT, porto, "Ines lives in Lisbon.", event_date=WHEN + timedelta(days=20)).units[0].id
    memory.put(AGENT, "Ines lives in Lisbon.", event_date=WHEN - timedelta(days=5))  # an old statement, late
    versions = [u.id for u in memory.history(AGENT, back)]
    assert versions[-3:] == [lisbon, porto, back] and memory.get(AGENT, back).valid_until is None
    olds = [old for old, _ in _pairs(memory)]
    assert len(olds) == len(set(olds)) and back not in olds
    assert _ended_before_start(memory) == []
    assert back in [h.id for h in memory.search(AGENT, "Where does Ines live?", reinforce=False)]
