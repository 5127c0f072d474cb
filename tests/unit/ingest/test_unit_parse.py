"""A unit draft carries the parse step's parse only when its text is the very string that was
parsed: supersession reads it instead of parsing again (``assemble._parse_of``)."""

from __future__ import annotations

from datetime import datetime, timezone

from fleet_memory.ingest.assemble import draft_unit
from fleet_memory.ingest.records import (CorefFact, CorefText, Episode, ExtractedFact, NamedFact, ParsedFact,
                                         UnitPlan)
from tests.support.rule_nlp import RuleNLP

NLP = RuleNLP({"Alice": "PERSON"})
EPISODE = Episode("agent", "…", datetime(2026, 1, 5, tzinfo=timezone.utc))


def member(text: str, *, rewritten: str | None = None, appended: bool = False, kind: str = "text") -> CorefFact:
    parsed = NLP.parse([text + "." if appended else text])[0]
    fact = ExtractedFact(0, text, "episodic", kind=kind)
    return CorefFact(NamedFact(ParsedFact(fact, parsed, appended), ()), CorefText(rewritten or text))


def test_a_unit_of_one_fact_as_parsed_carries_that_parse():
    one = member("Alice moved to Porto.")
    assert draft_unit(UnitPlan((one,)), EPISODE).parse is one.parse


def test_no_parse_when_the_text_is_not_what_was_parsed():
    rewritten = member("She moved to Porto.", rewritten="Alice moved to Porto.")
    assert draft_unit(UnitPlan((rewritten,)), EPISODE).parse is None
    assert draft_unit(UnitPlan((member("Alice moved to Porto", appended=True),)), EPISODE).parse is None
    two = (member("Alice moved to Porto."), member("Loves it."))
    assert draft_unit(UnitPlan(two), EPISODE).parse is None
    assert draft_unit(UnitPlan((member("x = 1", kind="code"),)), EPISODE).parse is None
