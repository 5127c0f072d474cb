"""Puts one message at a time, as an agent stores what it hears live: pronouns resolve
against the agent's memory, names it knows are recognised, subjectless chat lines and questions
are kept, dates in the text date the unit. Real spaCy, real embedder, real PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytestmark = pytest.mark.models


def _put(memory, text, when, agent="agent_1", **kw):
    return memory.put(agent, text, event_date=when, **kw)


def test_the_seed_example_put_one_at_a_time(real_memory, clock):
    now = clock.now()
    week, three = now - timedelta(days=7), now - timedelta(days=3)
    texts = []
    for text, when in [("Alice loves hiking in the mountains", week),
                       ("She goes hiking every weekend in Yosemite.", week),
                       ("Alice works at Google as a software engineer", three),
                       ("She joined Google last year.", three)]:
        texts.append(_put(real_memory, text, when).texts)
    assert texts[1] == ["Alice goes hiking every weekend in Yosemite."]
    assert texts[3] == ["Alice joined Google last year."]
    alice = real_memory.get_entity("agent_1", "Alice")
    assert len(alice.units) == 4


def test_a_pronoun_in_the_next_put_and_the_date_it_names(real_memory, clock):
    now = clock.now()
    _put(real_memory, "Carol is allergic to peanuts.", now)
    result = _put(real_memory, "She moved to Berlin in March 2024.", now)
    assert result.texts == ["Carol moved to Berlin in March 2024."]
    unit = real_memory.get("agent_1", result.unit_ids[0])
    assert (unit.event_date.year, unit.event_date.month) == (2024, 3)
    assert unit.metadata["put_at"] == now.isoformat()
    assert {e.name: e.label for e in real_memory.list_entities("agent_1")}["Carol"] == "PERSON"


def test_memory_is_never_shared_across_agents_or_users(real_memory, clock):
    now = clock.now()
    _put(real_memory, "Carol is allergic to peanuts.", now, user_id="u1")
    assert _put(real_memory, "She moved to Berlin.", now, agent="agent_2").texts == ["She moved to Berlin."]
    assert _put(real_memory, "She moved to Munich.", now, user_id="u2").texts == ["She moved to Munich."]
    assert _put(real_memory, "She moved to Berlin.", now, user_id="u1").texts == ["Carol moved to Berlin."]


def test_memory_outside_the_temporal_window_is_not_an_antecedent(real_memory, clock):
    now = clock.now()
    _put(real_memory, "Carol is allergic to peanuts.", now - timedelta(days=200))  # the window: 180 days
    assert _put(real_memory, "She moved to Berlin.", now).texts == ["She moved to Berlin."]


def test_a_possessive_keeps_the_sentence_s_own_subject(real_memory, clock):
    now = clock.now()
    _put(real_memory, "Python was created by Guido van Rossum at CWI in the Netherlands.", now)
    text = _put(real_memory, "Guido continued his work on Python at CNRI.", now).texts[0]
    assert "his work" in text or "Guido's work" in text
    assert "Python's work" not in text


def test_a_name_in_the_sentence_is_never_its_pronoun(real_memory, clock):
    now = clock.now()
    texts = _put(real_memory, "Ines moved to Porto! She lives in Porto now.", now).texts
    assert " ".join(texts).count("Porto lives") == 0
    assert "Ines lives in Porto now." in " ".join(texts)


def test_a_name_colon_line_is_that_speaker_s_turn(real_memory, clock):
    now = clock.now()
    result = _put(real_memory, "Sam: He's a bundle of joy. I walk him every morning.", now)
    assert "Sam's a bundle of joy" not in " ".join(result.texts)
    assert "Sam walks him every morning." in result.texts
    unit = real_memory.get("agent_1", result.unit_ids[-1])
    assert unit.speaker == "Sam"


def test_subjectless_lines_are_kept_with_the_implied_subject(real_memory, clock):
    now = clock.now()
    said = _put(real_memory, "Started at the new clinic today as a senior analyst.", now, speaker="Alice")
    assert said.texts == ["Alice started at the new clinic today as a senior analyst."]
    unit = real_memory.get("agent_1", said.unit_ids[0])
    assert unit.metadata["implied_subject"] == "Alice"
    anonymous = _put(real_memory, "Off to a friend's 30th birthday dinner at Bella Napoli tonight.", now)
    assert anonymous.texts == ["Off to a friend's 30th birthday dinner at Bella Napoli tonight."]
    assert real_memory.get("agent_1", anonymous.unit_ids[0]).metadata["subjectless"] is True


def test_questions_are_stored_and_flagged(real_memory, clock):
    now = clock.now()
    result = _put(real_memory, "How about we take the train instead of flying?", now, speaker="Sam")
    assert result.unit_ids
    assert real_memory.get("agent_1", result.unit_ids[0]).metadata["question"] is True


def test_yesterday_is_relative_to_the_put(real_memory):
    put_at = datetime(2025, 5, 8, 13, 56, tzinfo=timezone.utc)
    result = _put(real_memory, "Alice adopted a puppy yesterday.", put_at)
    unit = real_memory.get("agent_1", result.unit_ids[0])
    assert unit.event_date.date().isoformat() == "2025-05-07"
    assert unit.text == "Alice adopted a puppy yesterday."
    later = _put(real_memory, "Alice will fly to Rome on 2 June.", put_at)
    assert real_memory.get("agent_1", later.unit_ids[0]).event_date == put_at  # a future date: not the event


def test_junk_is_never_an_entity(real_memory, clock):
    now = clock.now()
    _put(real_memory, "Raise StopIteration when the snake_case_iterator is exhausted.", now, agent="docs")
    _put(real_memory, "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND WHATSOEVER.", now, agent="docs")
    _put(real_memory, "See the [Rich blog](https://img.shields.io/badge/blog-rich) for news.", now, agent="docs")
    names = {e.name for e in real_memory.list_entities("docs")}
    assert not names & {"StopIteration", "WHATSOEVER", "SOFTWARE", "WARRANTY"}
    assert not any("](" in n or "://" in n for n in names)


def test_one_statement_answers_every_group_of_a_put(real_memory, clock, db_url):
    import psycopg

    from fleet_memory.store.reads.context import ContextQuery, agent_context

    now = clock.now()
    _put(real_memory, "Alice works at Google.", now - timedelta(hours=2), session_id="s1", user_id="u1")
    _put(real_memory, "Bob works at Acme.", now - timedelta(hours=1), session_id="s2", user_id="u1")
    _put(real_memory, "Carol works at Initech.", now, user_id="u2")
    day = timedelta(hours=24)
    queries = [ContextQuery("agent_1", "u1", "s1", now - day, now, ("google", "bob")),
               ContextQuery("agent_1", "u1", "s2", now - day, now, ()),
               ContextQuery("agent_1", "u2", None, now - day, now, ("alice",)),
               ContextQuery("agent_2", "u1", "s1", now - day, now, ("alice",))]
    with psycopg.connect(db_url) as conn:
        answers = agent_context(conn, queries)
    people = [sorted((p.rank, p.name) for p in recent if p.label == "PERSON") for recent, _ in answers]
    assert people[0] == [(0, "Alice"), (1, "Bob")]  # same session first
    assert people[1] == [(0, "Bob"), (1, "Alice")]
    assert people[2] == [(0, "Carol")]  # never another user's
    assert answers[3] == ([], [])  # never another agent's
    assert {(k.name, k.label) for k in answers[0][1]} == {("Google", "ORG"), ("Bob", "PERSON")}
    assert {k.name for k in answers[2][1]} == {"Alice"}  # the gazetteer is the agent's, whatever the user


def test_a_unit_dated_by_its_text_stays_linked_to_the_turns_said_with_it(real_memory, clock, db_url):
    import psycopg

    now = clock.now()
    results = real_memory.put_many([
        {"content": "Alice adopted a puppy two days ago.", "speaker": "Alice", "event_date": now},
        {"content": "Bob bought a new bike for the commute.", "speaker": "Bob", "event_date": now},
    ], agent_id="agent_1")
    dated, plain = (r.unit_ids[0] for r in results)
    assert real_memory.get("agent_1", dated).event_date == now - timedelta(days=2)  # outside the 24 h window
    with psycopg.connect(db_url) as conn:
        kinds = {k for (k,) in conn.execute(
            "SELECT kind FROM links WHERE agent_id = 'agent_1' AND ((from_id = %s AND to_id = %s)"
            " OR (from_id = %s AND to_id = %s))", (dated, plain, plain, dated)).fetchall()}
    assert "temporal" in kinds
