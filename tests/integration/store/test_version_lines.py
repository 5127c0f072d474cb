"""Lines of versions (``store.tables.supersession.chains``) on the real PostgreSQL: each unit asked about
leads to its direct successor and to the first version current at the time asked, at most
``CHAIN_DEPTH`` versions on, whatever how long the line and however many of its units are asked."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from fleet_memory.store.tables import supersession as sup_sql

AGENT = "lines"
START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _line(memory, length: int) -> list:
    """``length`` units, each superseding the one before, a day apart."""
    ids = []
    for i in range(length):
        result = memory.put(AGENT, f"Version {i} of the plan is the {i}th draft.", event_date=START + timedelta(days=i))
        ids.append(result.units[0].id)
    with memory.db.transaction() as conn:
        sup_sql.supersede(conn, AGENT, [(a, b, "test") for a, b in zip(ids, ids[1:])], START)
    return ids


def test_each_unit_leads_to_its_successor_and_the_current_version(memory) -> None:
    ids = _line(memory, 6)
    with memory.db.transaction() as conn:
        now = sup_sql.chains(conn, AGENT, [ids[0], ids[3], ids[5]], START + timedelta(days=30))
        then = sup_sql.chains(conn, AGENT, [ids[0], ids[3]], START + timedelta(days=2, hours=1))
    assert set(now) == {ids[0], ids[3]}  # the last version has no successor
    assert now[ids[0]].successor == ids[1] and now[ids[0]].current == ids[5]
    assert now[ids[3]].successor == ids[4] and now[ids[3]].current == ids[5]
    assert now[ids[0]].current_event_date == START + timedelta(days=5)
    assert then[ids[0]].current == ids[2]  # on day 2 the third version was current
    assert then[ids[3]].current == ids[4]  # asked about the 4th: its first successor current then


def test_a_line_longer_than_chain_depth_is_followed_that_far(memory, monkeypatch) -> None:
    monkeypatch.setattr(sup_sql, "CHAIN_DEPTH", 4)
    ids = _line(memory, 9)
    with memory.db.transaction() as conn:
        got = sup_sql.chains(conn, AGENT, [ids[0], ids[4], ids[1]], START + timedelta(days=30))
    assert got[ids[0]].successor == ids[1] and got[ids[0]].current is None  # ids[8] is 8 versions on
    assert got[ids[1]].current is None
    assert got[ids[4]].current == ids[8]  # 4 versions on


def test_a_deleted_version_re_points_its_line_and_the_time_it_took_over(memory) -> None:
    """Deleting a version re-points its predecessor to the next one (``reopen``); the line then
    reads the next version's event time as when the predecessor stopped being current (the
    supersession row's ``superseded_at``, kept by migration 012's trigger)."""
    ids = _line(memory, 5)
    memory.delete(AGENT, ids[2])
    with memory.db.transaction() as conn:
        mid = sup_sql.chains(conn, AGENT, [ids[0]], START + timedelta(days=2, hours=12))
        late = sup_sql.chains(conn, AGENT, [ids[0], ids[1]], START + timedelta(days=30))
    assert mid[ids[0]].current == ids[1]  # superseded on day 3 now, by ids[3]
    assert late[ids[1]].successor == ids[3] and late[ids[1]].current == ids[4]
    assert late[ids[0]].current_event_date == START + timedelta(days=4)


def test_many_units_asked_are_each_followed_fewer_versions(memory, monkeypatch) -> None:
    """``CHAIN_ROWS`` bounds the rows a search's call reads: 3 units asked with room for 9 rows are
    each followed 9 // 3 - 1 = 2 versions; ingestion's calls (``bounded=False``) follow ``CHAIN_DEPTH``."""
    monkeypatch.setattr(sup_sql, "CHAIN_ROWS", 9)
    ids = _line(memory, 7)
    with memory.db.transaction() as conn:
        got = sup_sql.chains(conn, AGENT, [ids[0], ids[3], ids[4]], START + timedelta(days=30))
        unbounded = sup_sql.chains(conn, AGENT, [ids[0], ids[3], ids[4]], START + timedelta(days=30), bounded=False)
    assert got[ids[0]].successor == ids[1] and got[ids[0]].current is None  # ids[6] is 6 versions on
    assert got[ids[3]].current is None  # 3 on
    assert got[ids[4]].current == ids[6]  # 2 on
    assert {u: c.current for u, c in unbounded.items()} == dict.fromkeys((ids[0], ids[3], ids[4]), ids[6])
