"""Supersession's parses are made while the put's units are embedded (and a unit whose text is the
sentence just parsed is not parsed again): the rule then finds every parse it reads in the cache."""

from __future__ import annotations

from datetime import datetime, timezone

from fleet_memory import Config, FleetMemory
from tests.support.rule_nlp import RuleNLP
from fleet_memory.providers.embedder import HashingEmbedder

PEOPLE = {"Ines": "PERSON", "Lisbon": "GPE", "Porto": "GPE"}


class Counting(RuleNLP):
    def __init__(self) -> None:
        super().__init__(PEOPLE)
        self.asked: list[str] = []

    def parse(self, texts):
        self.asked.extend(texts)
        return super().parse(texts)


def test_each_new_unit_the_rule_reads_is_parsed_once_and_the_change_is_linked(db_url, clock):
    nlp = Counting()
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock, nlp=nlp) as mem:
        mem.put("a", "Ines lives in Lisbon.", event_date=datetime(2024, 6, 1, tzinfo=timezone.utc))
        mem.put("a", "Ines lives in Porto now. Her sister said she loves it.",
                event_date=datetime(2025, 2, 1, tzinfo=timezone.utc))
        assert nlp.asked.count("Ines lives in Lisbon.") == 1
        assert nlp.asked.count("Ines lives in Porto now.") == 1
        [lisbon] = [u for u in mem.list_units("a").units if "Lisbon" in u.text]
        assert lisbon.valid_until is not None
