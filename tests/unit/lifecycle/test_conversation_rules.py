from datetime import datetime, timezone

import pytest

from fleet_memory.config import Limits
from fleet_memory.errors import InvalidInputError
from fleet_memory.lifecycle.conversation import (
    build_turns,
    classify_sentence,
    extract_conversation_offline,
    memory_items,
)
from fleet_memory.model import MemoryType

P, S, E = MemoryType.PROCEDURAL, MemoryType.SEMANTIC, MemoryType.EPISODIC


@pytest.mark.parametrize("sentence, kind", [
    ("Always run the migrations before deploying.", P),
    ("I prefer short answers with code examples.", P),
    ("The fix is to restart the worker after the config change.", P),
    ("Never push directly to the main branch.", P),
    ("Make sure to pin the library versions.", P),
    ("To rotate the keys, open the vault and run the script.", P),
    ("Alice works at Google as a software engineer.", S),
    ("The staging cluster has three nodes.", S),
    ("Python is a programming language.", S),
    ("We deployed the new version yesterday.", E),
    ("The database crashed during the migration.", E),
    ("Bob met Carol at the conference last week.", E),
])
def test_offline_rules(sentence, kind):
    assert classify_sentence(sentence) is kind


@pytest.mark.parametrize("sentence", ["Thanks!", "Hi there.", "ok", "What time is it in Paris?", "Sounds good.",
                                      "Sorry to hear that.", "Glad to hear that!", "No worries, John.",
                                      "Sorry to hear that, Joanna."])
def test_filler_and_questions_are_skipped(sentence):
    assert classify_sentence(sentence) is None


def test_extract_offline_keeps_speaker_and_time_and_skips_system():
    when = datetime(2025, 3, 1, 12, tzinfo=timezone.utc)
    turns = build_turns([
        {"role": "system", "content": "You are a helpful assistant for the ops team."},
        {"role": "user", "content": "Hi! The deploy failed last night. I prefer rollbacks over hotfixes.", "time": when},
        {"role": "assistant", "content": "Got it. The fix is to clear the build cache first."},
    ], Limits())
    memories = extract_conversation_offline(turns)
    assert [(m.content, m.memory_type, m.speaker) for m in memories] == [
        ("The deploy failed last night.", E, "user"),
        ("I prefer rollbacks over hotfixes.", P, "user"),
        ("The fix is to clear the build cache first.", P, "assistant"),
    ]
    assert memories[0].event_date == when and memories[2].event_date is None
    assert all(m.importance is None for m in memories)
    items = memory_items(memories, user_id="u1", session_id="s1")
    assert all(i["tags"] == ["auto_extracted"] and i["user_id"] == "u1" and i["session_id"] == "s1" for i in items)


@pytest.mark.parametrize("turns, field", [
    ("hello", "turns"),
    ([], "turns"),
    ([{"role": "user"}], "turns[0].content"),
    ([{"role": "user", "content": "x", "mood": "happy"}], "turns[0].mood"),
    ([{"role": "user", "content": "Hello there friend", "time": "yesterday"}], "turns[0].time"),
])
def test_bad_turns_are_refused(turns, field):
    with pytest.raises(InvalidInputError) as err:
        build_turns(turns, Limits())
    assert err.value.field == field
