"""Entity resolution and entity operations on the real embedded PostgreSQL, with the real spaCy
model (NER) and the hashing embedder."""

from __future__ import annotations

import threading
from datetime import timedelta

import psycopg
import pytest

from fleet_memory import Config, FleetMemory, InvalidInputError, NotFoundError
from fleet_memory.providers.embedder import HashingEmbedder


def _turns(start, *lines, session="s1"):
    return [
        {"speaker": speaker, "text": text, "timestamp": start + timedelta(minutes=i), "turn_id": f"{session}:{i}",
         "session_id": session}
        for i, (speaker, text) in enumerate(lines)
    ]


def _by_name(memory, agent="a1"):
    return {e.name: e for e in memory.list_entities(agent)}


def test_two_people_named_alex_weeks_apart_share_one_entity(memory, clock):
    """Documented outcome: an exact PERSON name match scores >= 0.5 > 0.4 whatever the context, and
    names are unique per agent, so both Alexes are one entity; their units keep their own dates."""
    start = clock.now() - timedelta(days=60)
    memory.put_many(_turns(start, ("Maya", "Alex started a new job at a bakery in Boston."),
                           ("Maya", "Alex bakes sourdough bread every morning.")), agent_id="a1")
    memory.put_many(_turns(start + timedelta(days=35), ("Omar", "Alex fixed my car engine at the garage."),
                           session="s2"), agent_id="a1")
    entities = _by_name(memory)
    assert entities["Alex"].label == "PERSON"
    assert entities["Alex"].mention_count == 3
    assert [name for name in entities if "alex" in name.lower()] == ["Alex"]
    detail = memory.get_entity("a1", "Alex")
    dates = sorted(u.event_date for u in detail.units)
    assert dates[-1] - dates[0] >= timedelta(days=35)


def test_bob_and_bob_smith_in_one_conversation_are_one_entity(memory, clock):
    start = clock.now() - timedelta(days=2)
    results = memory.put_many(_turns(
        start,
        ("Dana", "Bob called me about the camping trip to Denver."),
        ("Eli", "Bob Smith booked the campsite near Denver for the trip."),
    ), agent_id="a1")
    assert all(r.units for r in results)
    entities = _by_name(memory)
    assert "Bob Smith" not in entities
    assert entities["Bob"].aliases == ("Bob Smith",)
    assert entities["Bob"].mention_count == 2
    assert memory.get_entity("a1", "bob smith").entity.id == entities["Bob"].id


def test_bob_smith_weeks_later_with_nothing_in_common_is_someone_else(memory, clock):
    start = clock.now() - timedelta(days=90)
    memory.put_many(_turns(start, ("Dana", "Bob called me about the camping trip.")), agent_id="a1")
    memory.put_many(_turns(start + timedelta(days=60), ("Eli", "Bob Smith sold his boat in Miami."), session="s2"),
                    agent_id="a1")
    entities = _by_name(memory)
    assert {"Bob", "Bob Smith"} <= set(entities)
    assert entities["Bob"].id != entities["Bob Smith"].id


def test_friends_with_similar_names_in_the_same_conversations_stay_apart(memory, clock):
    """Maria and Mario, or Umar and Marcus, share letters, the people around them and the weeks
    they are mentioned in: everything the score weighs but the name. Before, Mario became an alias
    of Maria (0.5 × 0.8 name ratio + 0.2 same weeks = 0.6) and Umar of Marcus (0.5 × 0.6 + 0.2 +
    0.3 × shared company), so a question about one searched the other's units."""
    start = clock.now() - timedelta(days=3)
    memory.put_many(_turns(start, ("Maria", "Maria met Marcus at the bakery to plan the hike."),
                           ("Marcus", "Maria and Marcus walked to the lake.")), agent_id="a1")
    memory.put_many(_turns(start + timedelta(hours=2), ("Marcus", "Mario met Marcus at the bakery to plan the trip."),
                           ("Maria", "Mario and Marcus walked to the lake with Maria."), session="s2"), agent_id="a1")
    memory.put_many(_turns(start + timedelta(hours=4), ("Umar", "Umar met Maria at the bakery with Mario."),
                           session="s3"), agent_id="a1")
    entities = _by_name(memory)
    assert {"Maria", "Mario", "Marcus", "Umar"} <= set(entities)
    assert all(entities[name].aliases == () for name in ("Maria", "Mario", "Marcus", "Umar"))
    assert memory.get_entity("a1", "Mario").entity.id != entities["Maria"].id
    assert entities["Marcus"].label == "PERSON"  # a speaker, though the small model may say otherwise


def test_speakers_are_person_entities_of_their_turns(memory, clock):
    results = memory.put_many(_turns(clock.now(), ("Caroline", "I went to a support group yesterday."),
                                     ("Melanie", "My kids painted a mural at school.")), agent_id="a1")
    assert results[0].texts == ["Caroline went to a support group yesterday."]
    assert results[1].texts == ["Melanie's kids painted a mural at school."]
    entities = _by_name(memory)
    assert entities["Caroline"].label == "PERSON" and entities["Caroline"].mention_count == 1
    unit = memory.get("a1", results[0].unit_ids[0])
    assert unit.metadata["turn_id"] == "s1:0" and unit.speaker == "Caroline"
    assert unit.document_id == results[0].document_id


def test_rename_merge_delete(memory, clock):
    memory.put_many(_turns(clock.now(), ("Dana", "Alice works at Google in London."),
                           ("Dana", "Ali plays tennis with Tom at Google.")), agent_id="a1")
    entities = _by_name(memory)
    assert {"Alice", "Google", "London", "Tom"} <= set(entities)
    renamed = memory.rename_entity("a1", "Alice", "Alice Walker")
    assert renamed.name == "Alice Walker" and "Alice" in renamed.aliases
    assert memory.get_entity("a1", "alice").entity.id == renamed.id  # the old name is an alias
    with pytest.raises(InvalidInputError):
        memory.rename_entity("a1", "Tom", "google")
    before = {u.id for u in memory.get_entity("a1", "Tom").units} | {u.id for u in memory.get_entity("a1", renamed.id).units}
    merged = memory.merge_entities("a1", renamed.id, "Tom")
    assert merged.id == renamed.id and "Tom" in merged.aliases
    assert {u.id for u in memory.get_entity("a1", renamed.id).units} == before
    assert merged.mention_count == len(before)
    with pytest.raises(NotFoundError):
        memory.get_entity("a1", "Tom Jones")
    memory.delete_entity("a1", "London")
    assert "London" not in _by_name(memory)
    assert len(memory.list_units("a1").units) == 2  # units stay


def test_concurrent_puts_never_create_two_entities_for_one_name(db_url, clock):
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock) as memory:
        memory.put("a1", "The weather was fine.")  # load the models before the race
        errors = []

        def put(i: int) -> None:
            try:
                memory.put("a1", f"Alice visited Lisbon with Google colleagues on trip {i}.")
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=put, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        with psycopg.connect(db_url) as conn:
            rows = conn.execute("SELECT normalized_name, count(*), sum(mention_count) FROM entities"
                                " WHERE agent_id = 'a1' GROUP BY normalized_name").fetchall()
        counts = {name: (n, total) for name, n, total in rows}
        assert counts["alice"] == (1, 6) and counts["lisbon"] == (1, 6) and counts["google"] == (1, 6)


def test_pleasantries_only_store_no_units_and_say_so(memory, clock):
    results = memory.put_many(_turns(clock.now(), ("Ann", "Hi!"), ("Ben", "Thanks, you too!"),
                                     ("Ann", "Wow, that's great!")), agent_id="a1")
    assert all(r.units == () for r in results)
    assert all("nothing with substance" in r.skipped_reason for r in results)
    single = memory.put("a1", "Hey! Thanks so much!")
    assert single.units == () and "greetings" in single.skipped_reason
    assert memory.stats("a1").units == 0
