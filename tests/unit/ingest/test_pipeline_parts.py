"""Pipeline order check, chunking for the LLM, and entity scoring — pure, no database."""

from contextlib import nullcontext
from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from fleet_memory.clock import FixedClock
from fleet_memory.config import IngestConfig
from fleet_memory.errors import ConfigurationError
from fleet_memory.store.links import temporal_weight, temporal_weights
from fleet_memory.ingest.llm_extract import chunk_text, estimate_tokens, plan_chunks
from fleet_memory.ingest.pipeline import STAGES, Pipeline, PutState, Stage
from fleet_memory.ingest.records import Episode
from fleet_memory.ingest.resolve import entity_score, label_family, name_similarity
from fleet_memory.naming import normalize_name

NOW = FixedClock().now()


def _runners(stages):
    outside = {s.name: (lambda state, s=s: replace(state, **{k: () for k in s.provides}))
               for s in stages if not s.in_transaction}
    inside = {s.name: (lambda state, conn, s=s: replace(state, **{k: () for k in s.provides}))
              for s in stages if s.in_transaction}
    return outside, inside


def test_the_declared_order_is_valid_and_a_wrong_order_is_refused_at_construction():
    Pipeline(STAGES, *_runners(STAGES))
    swapped = list(STAGES)
    swapped[2], swapped[3] = swapped[3], swapped[2]  # entities before parse
    with pytest.raises(ConfigurationError, match="entities.*parsed"):
        Pipeline(swapped, *_runners(swapped))
    outside_after = list(STAGES) + [Stage("late", ("units",), ("drafts",))]
    with pytest.raises(ConfigurationError, match="outside the transaction"):
        Pipeline(outside_after, *_runners(outside_after))
    unknown = [Stage("a", ("episodes",), ("sentences",))]
    with pytest.raises(ConfigurationError, match="sentences.*PutState"):
        Pipeline(unknown, *_runners(unknown))
    with pytest.raises(ConfigurationError, match="no implementation"):
        Pipeline(STAGES, _runners(STAGES)[0])


def test_run_times_every_stage_and_checks_what_it_changed():
    stages = [Stage("a", ("episodes",), ("facts",)), Stage("b", ("facts",), ("parsed",))]
    state, timings = Pipeline(stages, *_runners(stages)).run([], nullcontext)
    assert set(timings) == {"a", "b"} and isinstance(state, PutState) and state.parsed == ()
    bad = Pipeline(stages, {"a": lambda s: replace(s, mentions=3), "b": lambda s: replace(s, parsed=())})
    with pytest.raises(ConfigurationError, match="'a' changed mentions"):
        bad.run([], nullcontext)


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
