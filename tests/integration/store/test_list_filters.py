"""``FleetMemory.list_units`` with filters, on the embedded database: each filter keeps exactly
the units it names (oldest first, paged), and each bad filter is refused naming it and its limit."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from fleet_memory.errors import InvalidInputError


def _day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


@pytest.fixture
def seeded(memory):
    """Five one-sentence memories of agent ``a``, varied on every filtered field; the first archived,
    the last superseded by a new version."""
    items = [
        ("The boiler was serviced by Hamptons.", "2024-01-10", dict(user_id="u1", session_id="s1", tags=["home"])),
        ("Maria prefers green tea in the morning.", "2024-02-10",
         dict(user_id="u1", session_id="s2", memory_type="semantic", metadata={"project": "tea"})),
        ("Renew the passport before travelling.", "2024-03-10",
         dict(user_id="u2", memory_type="procedural", tags=["home", "travel"])),
        ("The flights to Porto leave on Friday.", "2024-04-10", dict(user_id="u2", tags=["travel"])),
        ("Maria lives in Lisbon.", "2024-05-10", dict(user_id="u1", metadata={"project": "moves"})),
    ]
    ids = [memory.put("a", text, event_date=_day(day), **extra).units[0].id for text, day, extra in items]
    memory.put("b", "Maria lives in Lisbon too, says agent b.")
    return ids


def _texts(memory, **filters) -> list[str]:
    return [u.text for u in memory.list_units("a", **filters).units]


def test_each_filter_keeps_the_units_it_names(memory, seeded):
    assert len(_texts(memory)) == 5
    assert _texts(memory, types=["semantic", "procedural"]) == [
        "Maria prefers green tea in the morning.", "Renew the passport before travelling."]
    assert _texts(memory, user_id="u2") == ["Renew the passport before travelling.",
                                            "The flights to Porto leave on Friday."]
    assert _texts(memory, session_id="s2") == ["Maria prefers green tea in the morning."]
    assert _texts(memory, since="2024-03-10T00:00:00Z", until=_day("2024-04-30")) == [
        "Renew the passport before travelling.", "The flights to Porto leave on Friday."]
    assert _texts(memory, tags=["home", "travel"]) == ["Renew the passport before travelling."]
    assert _texts(memory, metadata={"project": "moves"}) == ["Maria lives in Lisbon."]
    assert _texts(memory, q="Maria") == ["Maria prefers green tea in the morning.", "Maria lives in Lisbon."]
    assert _texts(memory, q="flight") == ["The flights to Porto leave on Friday."]  # stemmed
    assert _texts(memory, q='maria -lisbon') == ["Maria prefers green tea in the morning."]
    assert _texts(memory, q="   ") == _texts(memory)  # blank: no text filter
    assert _texts(memory, user_id="u1", q="maria", types=["episodic"]) == ["Maria lives in Lisbon."]


def test_archived_and_superseded_units_on_request(memory, seeded, clock):
    memory.update("a", seeded[4], "Maria lives in Porto.")
    with memory.db.transaction() as conn:  # the maintenance job's archiving, for one unit
        from fleet_memory.store.tables import maintenance

        maintenance.archive(conn, [("a", seeded[0])], clock.now())
    everything = _texts(memory, include_archived=True)
    assert "The boiler was serviced by Hamptons." in everything and "Maria lives in Lisbon." in everything
    assert "The boiler was serviced by Hamptons." not in _texts(memory)
    current = _texts(memory, include_superseded=False)
    assert "Maria lives in Lisbon." not in current and "Maria lives in Porto." in current
    assert "Maria lives in Lisbon." in _texts(memory)


def test_filters_page_on_the_server(memory, seeded):
    first = memory.list_units("a", limit=1, user_id="u1")
    second = memory.list_units("a", limit=1, offset=first.next_offset, user_id="u1")
    last = memory.list_units("a", limit=1, offset=second.next_offset, user_id="u1")
    assert [p.units[0].text for p in (first, second, last)] == [
        "The boiler was serviced by Hamptons.", "Maria prefers green tea in the morning.", "Maria lives in Lisbon."]
    assert last.next_offset is None


@pytest.mark.parametrize("filters, field, limit", [
    ({"types": ["diary"]}, "types", "one of episodic, semantic, procedural"),
    ({"user_id": "x" * 129}, "user_id", "128 characters"),
    ({"session_id": ".."}, "session_id", "an id other than '.' or '..'"),
    ({"since": "last tuesday"}, "since", "e.g. 2024-05-08T13:56:00Z"),
    ({"since": "2024-05-01", "until": "2024-04-01"}, "until", "until on or after since"),
    ({"tags": "home"}, "tags", None),
    ({"tags": ["t"] * 65}, "tags", "64 tags"),
    ({"metadata": {"k": [1]}}, "metadata.k", None),
    ({"metadata": {str(i): i for i in range(17)}}, "metadata", "at most 16"),
    ({"include_archived": "yes"}, "include_archived", "true or false"),
    ({"include_superseded": 0}, "include_superseded", "true or false"),
    ({"q": "w" * 10_001}, "q", "10,000 characters"),
])
def test_bad_filters_are_refused_naming_the_field_and_limit(memory, filters, field, limit):
    with pytest.raises(InvalidInputError) as refused:
        memory.list_units("a", **filters)
    assert refused.value.field == field
    assert refused.value.limit == limit
