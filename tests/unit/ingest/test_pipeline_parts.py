"""Step timings of a put, chunking for the LLM, and entity scoring — pure, no database."""

import threading
import time
from datetime import timedelta

import numpy as np
import pytest

from fleet_memory.clock import FixedClock
from fleet_memory.config import IngestConfig
from fleet_memory.ingest.llm_extract import chunk_text, estimate_tokens, plan_chunks
from fleet_memory.ingest.pipeline import StepTimer
from fleet_memory.ingest.records import Episode
from fleet_memory.ingest.resolve import entity_score, label_family, name_similarity
from fleet_memory.naming import normalize_name
from fleet_memory.store.linking.links import temporal_weight, temporal_weights

NOW = FixedClock().now()


def test_step_seconds_are_summed_over_windows_and_threads():
    timer = StepTimer()

    def embed_window():
        with timer("embed"):
            time.sleep(0.01)

    workers = [threading.Thread(target=embed_window) for _ in range(4)]
    for worker in workers:
        worker.start()
    with timer("parse"):
        pass
    for worker in workers:
        worker.join()
    assert set(timer.seconds) == {"parse", "embed"} and timer.seconds["embed"] >= 0.04
    with pytest.raises(ValueError), timer("write"):
        raise ValueError("a failed step")
    assert "write" not in timer.seconds  # a step that failed has no time: the put failed with it


def test_chunks_cut_at_sentence_boundaries_under_the_limits():
    config = IngestConfig(chunk_chars=1_000, chunk_max_tokens=200)
    sentences = [f"Item {i} is stored in box {i} near the door." for i in range(200)]
    text = " ".join(sentences)
    chunks = chunk_text(text, config)
    assert len(chunks) > 5
    assert all(len(c) <= 1_000 and estimate_tokens(c) < 200 for c in chunks)
    assert " ".join(chunks) == text
    assert all(c.endswith("door.") for c in chunks)
    assert chunk_text("Short text.", config) == ["Short text."]


def test_a_sentence_longer_than_a_chunk_is_cut_between_words():
    config = IngestConfig(chunk_chars=100, chunk_max_tokens=1_000)
    chunks = chunk_text("word " * 100, config)
    assert all(len(c) <= 100 for c in chunks) and " ".join(chunks).split() == ["word"] * 100


def test_conversation_turns_are_packed_into_transcripts():
    episodes = [Episode("a", f"Turn {i} text.", NOW, speaker="Ann" if i % 2 else "Ben") for i in range(5)]
    episodes.append(Episode("a", "A document.", NOW))
    chunks = plan_chunks(episodes, IngestConfig())
    assert [c.episodes for c in chunks] == [(0, 1, 2, 3, 4), (5,)]
    assert chunks[0].transcript and chunks[0].text.splitlines()[1] == "#1 Ann: Turn 1 text."


README = """# Tide

[![build](https://img.shields.io/badge/build-passing-green.svg)](https://ci.example.org)

Tide schedules backups for small teams.

## Install

To install, run:

```bash
pip install tide
```

Tide needs Python 3.11 or newer.
"""


def test_the_llm_reads_markdown_as_prose_with_sections_not_raw_markup():
    chunks = plan_chunks([Episode("a", README, NOW)], IngestConfig())
    text = chunks[0].text
    assert "Tide schedules backups for small teams." in text
    assert "Section: Tide > Install" in text and "Tide needs Python 3.11 or newer." in text
    for markup in ("![", "shields.io", "```", "pip install", "To install, run", "## "):
        assert markup not in text
    plain = plan_chunks([Episode("a", "Ann likes tea. ## not a heading", NOW, format="text")], IngestConfig())
    assert plain[0].text == "Ann likes tea. ## not a heading"
    turn = plan_chunks([Episode("a", README, NOW, speaker="Bot")], IngestConfig())
    assert turn[0].transcript and "shields.io" not in turn[0].text and "Section: Tide > Install" in turn[0].text


def test_entity_scoring():
    assert normalize_name("  The  Google's ") == "google"
    assert name_similarity("Bob", "Bob Smith") == 0.9
    assert name_similarity("Alice", "alice") == 1.0
    assert name_similarity("Alice", "Bob") < 0.5
    assert name_similarity("Mel", "Melanie", person=True) == 0.8
    assert name_similarity("Mel", "Melanie") < 0.8  # short forms count for people only
    assert name_similarity("Al", "Alice", person=True) < 0.8  # too short to tell
    # different first names are different people, however many letters they share
    assert name_similarity("Elena", "Leila", person=True) == 0.0
    assert name_similarity("Umar", "Marcus", person=True) == 0.0
    assert name_similarity("Maria", "Mario", person=True) == 0.0
    assert name_similarity("Elena", "Leila") > 0.5  # other labels keep the plain ratio
    # ... unless one is a misspelling of the other
    assert name_similarity("Carolin", "Caroline", person=True) > 0.9
    assert name_similarity("Jon Smith", "John Smith", person=True) > 0.9
    assert entity_score(1.0, 0.0, 0.0) == 0.5
    assert entity_score(0.9, 0.0, 1.0) == pytest.approx(0.65)
    assert IngestConfig().entity_threshold == 0.6
    assert label_family("GPE") == label_family("LOC") != label_family("ORG")


def test_temporal_weight_follows_the_seed():
    assert temporal_weight(0, 24) == 1.0
    assert temporal_weight(12 * 3600, 24) == pytest.approx(0.5)
    assert temporal_weight(23 * 3600, 24) == 0.3
    assert temporal_weight(timedelta(hours=6).total_seconds(), 24) == pytest.approx(0.75)
    apart = np.array([0.0, 1.0, 3600.0, 12 * 3600.0, 23 * 3600.0, 24 * 3600.0, 1e-3, 7777.7])
    assert temporal_weights(apart, 24).tolist() == [temporal_weight(s, 24) for s in apart.tolist()]  # the same floats
