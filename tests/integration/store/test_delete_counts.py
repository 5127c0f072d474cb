"""Deleting a unit or a document recounts the entities its units mentioned: the count and the
dates come from the mentions left, and an entity with none left goes."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.errors import NotFoundError
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.rule_nlp import RuleNLP


@pytest.fixture
def mem(db_url, clock):
    nlp = RuleNLP({"Alice": "PERSON", "ALICE": "PERSON", "Bob": "PERSON"})
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock, nlp=nlp) as memory:
        yield memory


def _put(mem, text: str, day: int):
    return mem.put("a", text, event_date=datetime(2025, 1, day, tzinfo=timezone.utc))


def test_deleting_units_recounts_their_entities_and_drops_the_unnamed(mem):
    first = _put(mem, "Alice plays chess with Bob on Sundays.", 2).units[0]
    _put(mem, "Alice bakes bread every Friday morning.", 9)
    assert mem.get_entity("a", "Alice").entity.mention_count == 2
    mem.delete("a", first.id)
    alice = mem.get_entity("a", "Alice").entity
    assert (alice.mention_count, alice.first_seen.day) == (1, 9)
    with pytest.raises(NotFoundError):
        mem.get_entity("a", "Bob")  # his only mention went with the unit


def test_deleting_a_document_recounts_too(mem):
    result = _put(mem, "Alice moved to Lisbon in May. Bob visited Alice there.", 3)
    _put(mem, "Bob repairs old radios in his garage.", 5)
    mem.delete_document("a", result.document_id)
    assert mem.get_entity("a", "Bob").entity.mention_count == 1
    with pytest.raises(NotFoundError):
        mem.get_entity("a", "Alice")


def test_an_alias_goes_with_the_last_mention_found_under_it(mem):
    _put(mem, "Alice plays chess with Bob on Sundays.", 2)
    shouted = [_put(mem, text, day).units[0] for text, day in
               (("ALICE bakes bread every Friday morning.", 9), ("ALICE swims in the lake at dawn.", 12))]
    assert mem.get_entity("a", "Alice").entity.aliases == ("ALICE",)
    mem.delete("a", shouted[0].id)
    assert mem.get_entity("a", "Alice").entity.aliases == ("ALICE",)  # still found under it on day 12
    mem.delete("a", shouted[1].id)
    alice = mem.get_entity("a", "Alice").entity
    assert (alice.aliases, alice.mention_count) == ((), 1)
