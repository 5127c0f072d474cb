"""One memory seen from around it, on the embedded database: the entities it mentions, its links by
kind and weight, its source document with its sentence located, and archiving it by hand (undone
by restore); each for the agent's own units only."""

from __future__ import annotations

from datetime import datetime, timezone
from uuid import uuid4

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.errors import InvalidInputError, NotFoundError
from fleet_memory.providers.embedder import HashingEmbedder
from fleet_memory.unit_views import sentence_span
from tests.support.rule_nlp import RuleNLP

TEXT = "Maria moved to Lisbon in March. She loves the tiled   streets of Lisbon."


@pytest.fixture
def memory(db_url, clock):
    nlp = RuleNLP({"Maria": "PERSON", "Lisbon": "GPE", "Porto": "GPE"})
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock, nlp=nlp) as mem:
        yield mem


@pytest.fixture
def units(memory):
    day = datetime(2024, 3, 10, tzinfo=timezone.utc)
    first = memory.put("a", TEXT, event_date=day).units
    later = memory.put("a", "Maria visited Porto in May.", event_date=datetime(2024, 5, 2, tzinfo=timezone.utc))
    memory.put("b", "Maria moved to Lisbon in March.")
    return [u.id for u in first] + [later.units[0].id]


def test_the_entities_a_unit_mentions(memory, units):
    assert [e.name for e in memory.unit_entities("a", units[0])] == ["Lisbon", "Maria"]
    assert {e.agent_id for e in memory.unit_entities("a", units[0])} == {"a"}
    assert [e.name for e in memory.unit_entities("a", units[2])] == ["Maria", "Porto"]


def test_links_by_kind_strongest_first(memory, units):
    links = memory.unit_links("a", units[0])
    kinds = [link.kind for link in links]
    assert kinds == sorted(kinds, key=["semantic", "entity", "temporal"].index)
    temporal = {link.unit.id: link.weight for link in links if link.kind == "temporal"}
    assert units[1] in temporal and 0.3 <= temporal[units[1]] <= 1.0  # the same put: same time
    entity = {link.unit.id for link in links if link.kind == "entity"}
    assert {units[1], units[2]} <= entity  # Lisbon, Maria; Maria
    assert units[0] not in {link.unit.id for link in links}
    assert all(link.unit.agent_id == "a" for link in links)
    for kind in set(kinds):
        weights = [link.weight for link in links if link.kind == kind]
        assert weights == sorted(weights, reverse=True)
    assert len(memory.unit_links("a", units[0], limit=1)) == 1


def test_the_source_document_with_the_sentence_located(memory, units):
    first = memory.unit_document("a", units[0])
    assert first.document.content == TEXT
    assert TEXT[first.start:first.end] == "Maria moved to Lisbon in March."
    second = memory.unit_document("a", units[1])
    assert memory.get("a", units[1]).text == "Maria loves the tiled streets of Lisbon."  # rewritten at ingest
    assert TEXT[second.start:second.end] == "She loves the tiled   streets of Lisbon."
    assert first.to_dict()["id"] == str(first.document.id)


def test_sentence_span_allows_other_whitespace_only():
    assert sentence_span("One. Two  three\nfour. Five.", "Two three four.") == (5, 21)
    assert sentence_span("One. Two three.", "Two four.") is None  # one word of two: too far
    assert sentence_span("Ann sings. She paints well.", "Ann paints well.") == (11, 27)
    assert sentence_span("Abc", "Abc") == (0, 3)


def test_archive_then_restore(memory, units, clock):
    archived = memory.archive("a", units[0])
    assert archived.archived_at == clock.now()
    assert units[0] not in [u.id for u in memory.list_units("a").units]
    assert memory.archive("a", units[0]).archived_at == archived.archived_at  # once archived, it stays so
    assert memory.restore("a", units[0]).archived_at is None
    assert units[0] in [u.id for u in memory.list_units("a").units]


@pytest.mark.parametrize("call", ["unit_entities", "unit_links", "unit_document", "archive"])
def test_another_agents_unit_or_a_bad_id_is_refused(memory, units, call):
    with pytest.raises(NotFoundError):
        getattr(memory, call)("b", units[0])
    with pytest.raises(NotFoundError):
        getattr(memory, call)("a", uuid4())
    with pytest.raises(InvalidInputError) as bad:
        getattr(memory, call)("a", "not-a-uuid")
    assert bad.value.field == "unit_id"


def test_a_link_limit_out_of_bounds_is_refused(memory, units):
    with pytest.raises(InvalidInputError) as bad:
        memory.unit_links("a", units[0], limit=0)
    assert bad.value.field == "limit" and bad.value.limit == "1 to 1,000"
