"""Entity resolution scores a bounded number of candidates per name: the
work of a put grows linearly with the names it mentions, not with their square."""

from __future__ import annotations

import random
import string
import uuid
from datetime import datetime, timezone

from fleet_memory.config import IngestConfig
from fleet_memory.ingest import resolve
from fleet_memory.ingest.records import EntityMention

WHEN = datetime(2024, 5, 1, tzinfo=timezone.utc)


def _units(names: list[str]) -> list[resolve.UnitMentions]:
    return [resolve.UnitMentions(uuid.uuid4(), WHEN, (EntityMention(n, "PERSON"),)) for n in names]


def test_names_are_compared_with_few_candidates(memory, monkeypatch) -> None:
    calls, normalised = [], []
    real, real_norm = resolve._norm_similarity, resolve.normalize_name
    monkeypatch.setattr(resolve, "_norm_similarity", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(resolve, "normalize_name", lambda name: normalised.append(1) or real_norm(name))
    rng = random.Random(7)
    word = lambda: "".join(rng.choice(string.ascii_lowercase) for _ in range(7)).title()  # noqa: E731
    names = [f"{word()} {word()}" for _ in range(1_500)]  # unlike each other: each becomes an entity
    with memory.db.transaction() as conn:
        mentions = resolve.resolve_entities(conn, "a1", _units(names), IngestConfig())
    assert len({m.entity_id for m in mentions}) > 1_400
    assert 0 < len(calls) <= 16 * len(names)  # was ~n²/2
    assert len(normalised) <= 5 * len(names), len(normalised)  # a few per name, not two per comparison


def test_the_index_still_finds_the_matches_scoring_needs(memory) -> None:
    first = ["Melanie Brooks", "Robert Smith", "Jonathan Price"]
    later = ["Melanie", "Robert", "Jonathan Pryce"]
    noise = [f"Person Number{i:04d}" for i in range(300)]
    with memory.db.transaction() as conn:
        stored = resolve.resolve_entities(conn, "a1", _units(first + noise), IngestConfig())
        again = resolve.resolve_entities(conn, "a1", _units(noise + later), IngestConfig())
    ids = {m.surface: m.entity_id for m in stored + again}
    assert ids["Melanie"] == ids["Melanie Brooks"] and ids["Robert"] == ids["Robert Smith"]
    assert ids["Jonathan Pryce"] == ids["Jonathan Price"]
