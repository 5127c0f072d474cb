"""Entry channels: full text, named entities and time windows relative to a given ``now``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

AGENT = "channels"
NOW = datetime(2024, 6, 12, 18, 0, tzinfo=timezone.utc)


def test_time_window_named_in_the_query_is_relative_to_now(memory) -> None:
    yesterday = memory.put(AGENT, "We repaired the bicycle chain in the garage.", event_date=NOW - timedelta(days=1)).unit_ids[0]
    memory.put(AGENT, "We repaired the kitchen sink in the flat.", event_date=NOW - timedelta(days=40))
    memory.put(AGENT, "We repaired the garden fence together.", event_date=NOW - timedelta(days=90))
    results = memory.search(AGENT, "What did we repair yesterday?", now=NOW, explain=True, reinforce=False)
    assert results[0].id == yesterday
    assert "time" in results[0].explanation.channels
    assert results[0].explanation.time_window.start.date().isoformat() == "2024-06-11"
    # a month later, "yesterday" names another day: the bicycle is no longer in the window
    later = memory.search(AGENT, "What did we repair yesterday?", now=NOW + timedelta(days=30), explain=True,
                          reinforce=False)
    assert all("time" not in r.explanation.channels for r in later)


def test_fulltext_channel_finds_rare_words_vector_misses(memory) -> None:
    target = memory.put(AGENT, "Priya keeps her passport in the blue zarf box.", event_date=NOW).unit_ids[0]
    for i in range(30):
        memory.put(AGENT, f"Priya went for walk number {i} along the river.", event_date=NOW - timedelta(days=i + 1))
    results = memory.search(AGENT, "zarf", now=NOW, explain=True, reinforce=False, top_k=3)
    assert results[0].id == target
    assert "fulltext" in results[0].explanation.channels
    assert results[0].explanation.factors["text"] > 0


def test_entity_channel_resolves_names_in_the_query(memory) -> None:
    memory.put(AGENT, "Alice works at Google as a software engineer.", event_date=NOW - timedelta(days=3))
    results = memory.search(AGENT, "Tell me about Google", now=NOW, explain=True, reinforce=False)
    assert results and "entity" in results[0].explanation.channels
    assert results[0].explanation.factors["named"] == 1.0


def test_every_preset_answers_and_vector_scores_by_similarity(memory) -> None:
    from fleet_memory.recall.presets import PRESETS

    memory.put(AGENT, "Alice works at Google as a software engineer.", event_date=NOW - timedelta(days=3))
    memory.put(AGENT, "Bob grows tomatoes in his garden.", event_date=NOW - timedelta(days=5))
    for name in PRESETS:
        results = memory.search(AGENT, "What does Alice do at Google?", preset=name, now=NOW, explain=True,
                                reinforce=False)
        assert results and results[0].explanation.preset == name
    vector = memory.search(AGENT, "What does Alice do at Google?", preset="vector", now=NOW, explain=True,
                           reinforce=False)
    assert all(r.weight == r.explanation.factors["similarity"] for r in vector)
    assert [r.weight for r in vector] == sorted((r.weight for r in vector), reverse=True)
