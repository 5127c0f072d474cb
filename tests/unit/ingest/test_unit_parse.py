"""A unit draft carries its parse, made from the parse step's (the very parse, or its facts' parses
with coreference's edits applied and joined) whenever that renders to the unit's text: supersession
reads it instead of parsing again (``assemble._parse_of``), made when first asked for."""

from __future__ import annotations

from datetime import datetime, timezone

from fleet_memory.ingest.assemble import draft_unit
from fleet_memory.ingest.records import (CorefFact, CorefText, Episode, ExtractedFact, NamedFact, ParsedFact,
                                         UnitPlan)
from tests.support.rule_nlp import RuleNLP

NLP = RuleNLP({"Alice": "PERSON"})
EPISODE = Episode("agent", "…", datetime(2026, 1, 5, tzinfo=timezone.utc))


def member(text: str, *, rewritten: str | None = None, edits: tuple[tuple[int, str], ...] = (),
           appended: bool = False, kind: str = "text") -> CorefFact:
    parsed = NLP.parse([text + "." if appended else text])[0]
    fact = ExtractedFact(0, text, "episodic", kind=kind)
    return CorefFact(NamedFact(ParsedFact(fact, parsed, appended), ()), CorefText(rewritten or text, (), edits))


def test_a_unit_of_one_fact_as_parsed_carries_that_parse():
    one = member("Alice moved to Porto.")
    assert draft_unit(UnitPlan((one,)), EPISODE).parse.make() is one.parse


def test_an_edited_fact_carries_its_parse_with_the_edits_applied():
    edited = member("She moved to Porto.", rewritten="Alice moved to Porto.", edits=((0, "Alice"),))
    parse = draft_unit(UnitPlan((edited,)), EPISODE).parse.make()
    assert [t.text for t in parse.tokens] == ["Alice", "moved", "to", "Porto", "."]
    assert parse.tokens[0].dep == edited.parse.tokens[0].dep and parse.ents[0].label == "PERSON"
    appended = draft_unit(UnitPlan((member("Alice moved to Porto", appended=True),)), EPISODE).parse.make()
    assert [t.text for t in appended.tokens] == ["Alice", "moved", "to", "Porto"]  # the parser's full stop dropped
    two = (member("Alice moved to Porto."), member("Loves it."))
    assert [t.text for t in draft_unit(UnitPlan(two), EPISODE).parse.make().tokens][-3:] == ["Loves", "it", "."]


def test_no_parse_when_the_parse_cannot_render_the_text():
    unexplained = member("She moved to Porto.", rewritten="Alice moved to Porto.")  # no edits say how
    assert draft_unit(UnitPlan((unexplained,)), EPISODE).parse.make() is None
    assert draft_unit(UnitPlan((member("x = 1", kind="code"),)), EPISODE).parse.make() is None
