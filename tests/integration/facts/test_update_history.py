"""``update`` / ``history``, duplicate puts, deletes that reopen, and export/import of supersessions
(real PostgreSQL; the hashing embedder: nothing here depends on similarity)."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pytest

from fleet_memory import InvalidInputError, NotFoundError
from fleet_memory.ingest.duplicates import DUPLICATE

AGENT = "facts"
WHEN = datetime(2024, 6, 10, tzinfo=timezone.utc)


def test_update_supersedes_and_history_is_oldest_first(memory, clock) -> None:
    first = memory.put(AGENT, "Alice's phone number is 555 0100.", event_date=WHEN, tags=["contact"])
    old_id = first.units[0].id
    second = memory.update(AGENT, old_id, "Alice's phone number is 555 0199.")
    new_id = second.units[0].id
    old, new = memory.get(AGENT, old_id), memory.get(AGENT, new_id)
    assert old.valid_until == clock.now() == new.event_date
    assert new.tags == ("contact",) and new.valid_until is None
    third = memory.update(AGENT, new_id, "Alice's phone number is 555 0222.", event_date=clock.now() + timedelta(days=1))
    chain = [u.id for u in memory.history(AGENT, old_id)]
    assert chain == [old_id, new_id, third.units[0].id]
    assert [u.id for u in memory.history(AGENT, third.units[0].id)] == chain


def test_update_of_a_superseded_or_missing_unit_is_refused(memory) -> None:
    old_id = memory.put(AGENT, "Bob works at Initech.", event_date=WHEN).units[0].id
    memory.update(AGENT, old_id, "Bob works at Globex now.")
    with pytest.raises(InvalidInputError, match="already superseded"):
        memory.update(AGENT, old_id, "Bob works at Umbrella.")
    with pytest.raises(NotFoundError):
        memory.update(AGENT, "00000000-0000-0000-0000-000000000000", "Nothing.")
    with pytest.raises(InvalidInputError, match="colour"):
        memory.update(AGENT, old_id, "Bob works at Umbrella.", colour="red")
    with pytest.raises(NotFoundError):
        memory.history(AGENT, "00000000-0000-0000-0000-000000000000")


def test_same_content_and_event_time_stores_nothing_new(memory) -> None:
    first = memory.put(AGENT, "Carol paints watercolour landscapes. She sells them in Porto.", event_date=WHEN)
    again = memory.put(AGENT, "Carol paints watercolour landscapes. She sells them in Porto.", event_date=WHEN)
    assert again.skipped_reason == DUPLICATE
    assert again.document_id == first.document_id and again.unit_ids == first.unit_ids
    assert memory.stats(AGENT).documents == 1
    later = memory.put(AGENT, "Carol paints watercolour landscapes. She sells them in Porto.",
                       event_date=WHEN + timedelta(days=1))
    assert later.skipped_reason is None and later.document_id != first.document_id
    batch = memory.put_many([{"content": "Carol paints watercolour landscapes. She sells them in Porto.",
                              "event_date": WHEN}, {"content": "Dave bakes bread.", "event_date": WHEN}],
                            agent_id=AGENT)
    assert batch[0].unit_ids == first.unit_ids and batch[1].skipped_reason is None
    assert memory.stats(AGENT).documents == 3


def test_deleting_the_new_version_reopens_the_old(memory) -> None:
    old_id = memory.put(AGENT, "Erin lives in Leeds.", event_date=WHEN).units[0].id
    new = memory.update(AGENT, old_id, "Erin lives in Manchester now.")
    memory.delete_document(AGENT, new.document_id)
    assert memory.get(AGENT, old_id).valid_until is None
    assert [u.id for u in memory.history(AGENT, old_id)] == [old_id]


def test_export_import_keeps_supersessions(memory) -> None:
    old_id = memory.put(AGENT, "Frank's manager is Grace.", event_date=WHEN).units[0].id
    new_id = memory.update(AGENT, old_id, "Frank's manager is Heidi.").units[0].id
    out = io.StringIO()
    report = memory.export_agent(AGENT, out)
    assert report.rows["supersessions"] == 1
    memory.import_agent("copy", io.StringIO(out.getvalue()).readlines())
    assert memory.get("copy", old_id).valid_until == memory.get(AGENT, old_id).valid_until
    assert [u.id for u in memory.history("copy", old_id)] == [old_id, new_id]


def test_forgetting_the_user_who_corrected_a_fact_makes_the_old_fact_current_again(memory, clock) -> None:
    old_id = memory.put(AGENT, "Alice's phone number is 555 0100.", event_date=WHEN, user_id="u1").units[0].id
    new_id = memory.put(AGENT, "Alice's phone number is 555 0199.", event_date=WHEN + timedelta(days=30),
                        user_id="u2").units[0].id
    assert memory.get(AGENT, old_id).valid_until is not None
    assert memory.forget_user(AGENT, "u2") >= 1
    with pytest.raises(NotFoundError):
        memory.get(AGENT, new_id)
    assert memory.get(AGENT, old_id).valid_until is None


def test_the_same_words_from_another_user_are_not_a_duplicate(memory) -> None:
    first = memory.put(AGENT, "The team offsite is in Lisbon.", event_date=WHEN, user_id="u1")
    again = memory.put(AGENT, "The team offsite is in Lisbon.", event_date=WHEN, user_id="u1")
    other = memory.put(AGENT, "The team offsite is in Lisbon.", event_date=WHEN, user_id="u2")
    assert again.skipped_reason == DUPLICATE and again.unit_ids == first.unit_ids
    assert other.skipped_reason != DUPLICATE and set(other.unit_ids).isdisjoint(first.unit_ids)
    assert all(memory.get(AGENT, uid).user_id == "u2" for uid in other.unit_ids)


def _chain(memory, clock):
    lisbon = memory.put(AGENT, "Gina lives in Lisbon.", event_date=WHEN).units[0].id
    clock.advance(days=1)
    porto = memory.update(AGENT, lisbon, "Gina lives in Porto now.").units[0].id
    clock.advance(days=1)
    braga = memory.update(AGENT, porto, "Gina lives in Braga now.").units[0].id
    return lisbon, porto, braga


def test_deleting_a_middle_version_links_the_old_one_to_the_next(memory, clock) -> None:
    lisbon, porto, braga = _chain(memory, clock)
    memory.delete(AGENT, porto)
    assert memory.get(AGENT, lisbon).valid_until == memory.get(AGENT, braga).event_date  # not current again
    assert [u.id for u in memory.history(AGENT, lisbon)] == [lisbon, braga]
    memory.delete(AGENT, braga)
    assert memory.get(AGENT, lisbon).valid_until is None
    assert [u.id for u in memory.history(AGENT, lisbon)] == [lisbon]


def test_deleting_two_versions_at_once_keeps_the_line(memory, clock) -> None:
    lisbon, porto, braga = _chain(memory, clock)
    clock.advance(days=1)
    faro = memory.update(AGENT, braga, "Gina lives in Faro now.").units[0].id
    for uid in (porto, braga):  # one document each: deleted one after the other through documents
        memory.delete_document(AGENT, memory.get(AGENT, uid).document_id)
    assert memory.get(AGENT, lisbon).valid_until == memory.get(AGENT, faro).event_date
    assert [u.id for u in memory.history(AGENT, faro)] == [lisbon, faro]


def test_forgetting_a_user_whose_version_sat_in_the_middle(memory, clock) -> None:
    lisbon = memory.put(AGENT, "Hana's phone number is 555 0100.", event_date=WHEN, user_id="u1").units[0].id
    porto = memory.put(AGENT, "Hana's phone number is 555 0142.", event_date=WHEN + timedelta(days=10),
                       user_id="u2").units[0].id
    braga = memory.put(AGENT, "Hana's phone number is 555 0199.", event_date=WHEN + timedelta(days=20),
                       user_id="u1").units[0].id
    assert [u.id for u in memory.history(AGENT, lisbon)] == [lisbon, porto, braga]
    memory.forget_user(AGENT, "u2")
    assert [u.id for u in memory.history(AGENT, lisbon)] == [lisbon, braga]
    assert memory.get(AGENT, lisbon).valid_until == WHEN + timedelta(days=20)
    assert memory.get(AGENT, braga).valid_until is None
