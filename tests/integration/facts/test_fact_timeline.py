"""Facts that change, by holder, on the embedded database: an entity's (or a user's) lines of
versions, each oldest first with when it was stated and replaced, and only that holder's lines."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from fleet_memory import Config, FleetMemory
from fleet_memory.errors import InvalidInputError, NotFoundError
from fleet_memory.providers.embedder import HashingEmbedder
from tests.support.rule_nlp import RuleNLP


def _day(month: int) -> datetime:
    return datetime(2024, month, 1, tzinfo=timezone.utc)


@pytest.fixture
def memory(db_url, clock):
    nlp = RuleNLP({"Maria": "PERSON", "Tom": "PERSON", "Lisbon": "GPE", "Porto": "GPE", "Faro": "GPE"})
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), clock=clock, nlp=nlp) as mem:
        yield mem


@pytest.fixture
def lines(memory):
    """Maria's home changes twice, her job once; Tom's car once (user u2); Maria's facts are u1's."""
    home = memory.put("a", "Maria lives in Lisbon.", event_date=_day(1), user_id="u1").units[0].id
    home2 = memory.update("a", home, "Maria lives in Porto.", event_date=_day(3)).units[0].id
    home3 = memory.update("a", home2, "Maria lives in Faro.", event_date=_day(6)).units[0].id
    job = memory.put("a", "Maria works as a nurse.", event_date=_day(2), user_id="u1").units[0].id
    job2 = memory.update("a", job, "Maria works as a doctor.", event_date=_day(5)).units[0].id
    car = memory.put("a", "Tom drives a red van.", event_date=_day(4), user_id="u2").units[0].id
    memory.update("a", car, "Tom drives a blue van.", event_date=_day(7))
    memory.put("a", "Maria likes figs.", event_date=_day(2), user_id="u1")  # never changed: no line
    return {"home": [home, home2, home3], "job": [job, job2]}


def test_an_entitys_lines_oldest_first_with_their_dates(memory, lines):
    timeline = memory.fact_timeline("a", entity="maria")
    assert timeline.entity.name == "Maria" and timeline.user_id is None
    texts = [[v.unit.text for v in line.versions] for line in timeline.lines]
    assert texts == [["Maria lives in Lisbon.", "Maria lives in Porto.", "Maria lives in Faro."],
                     ["Maria works as a nurse.", "Maria works as a doctor."]]
    home = timeline.lines[0].versions
    assert [v.unit.id for v in home] == lines["home"]
    assert [v.replaced_by for v in home] == [lines["home"][1], lines["home"][2], None]
    assert [v.reason for v in home] == ["rule:residence", "rule:residence", None]  # the rule came before the edit
    assert [v.unit.valid_until for v in home] == [_day(3), _day(6), None]
    assert timeline.lines[0].slot == "residence"
    assert timeline.lines[1].slot == "employer"


def test_a_users_lines_and_only_theirs(memory, lines):
    mine = memory.fact_timeline("a", user_id="u2")
    assert [[v.unit.text for v in line.versions] for line in mine.lines] == [
        ["Tom drives a red van.", "Tom drives a blue van."]]
    assert [v.reason for v in mine.lines[0].versions] == ["update", None]  # an edit: no attribute named
    assert mine.lines[0].slot is None and mine.entity is None and mine.user_id == "u2"
    assert len(memory.fact_timeline("a", user_id="u1").lines) == 2
    assert memory.fact_timeline("a", user_id="nobody").lines == ()
    assert memory.fact_timeline("b", user_id="u1").lines == ()  # another agent: nothing of a's


def test_the_limit_keeps_the_most_recently_changed_lines(memory, lines):
    [kept] = memory.fact_timeline("a", entity="Maria", limit=1).lines
    assert kept.versions[-1].unit.text == "Maria lives in Faro."  # changed in June; the job in May
    assert memory.fact_timeline("a", entity="Maria").to_dict()["lines"][0]["versions"][0]["reason"] == "rule:residence"


@pytest.mark.parametrize("holder, field", [({}, "entity"), ({"entity": "Maria", "user_id": "u1"}, "entity"),
                                           ({"user_id": ".."}, "user_id"), ({"entity": ""}, "entity"),
                                           ({"entity": "Maria", "limit": 0}, "limit")])
def test_a_holder_must_be_named_once_and_well(memory, holder, field):
    with pytest.raises(InvalidInputError) as bad:
        memory.fact_timeline("a", **holder)
    assert bad.value.field == field


def test_an_unknown_entity_is_not_found(memory, lines):
    with pytest.raises(NotFoundError):
        memory.fact_timeline("a", entity="Nobody")
