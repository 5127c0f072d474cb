"""``ingest.asked_holder``: whether a later statement leaves the fact with whom a present question
asks about and gives a value of the kind asked (recall's ``newer_leads`` follows it without a link),
with the real spaCy model."""

from __future__ import annotations

from datetime import datetime, timezone
from uuid import uuid4

import pytest

from fleet_memory.ingest.asked_holder import (LaterValue, about_asked_holder, asked_holders, names_asked_holder,
                                              states_asked_kind)
from fleet_memory.ingest.change_rule import SELF, Fact
from fleet_memory.model import MemoryType, MemoryUnit
from fleet_memory.providers.nlp import SpacyNLP

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def nlp() -> SpacyNLP:
    return SpacyNLP()


def test_the_question_names_its_holder():
    assert asked_holders("Where do I live?") == {SELF}
    assert asked_holders("What's Kofi's email address these days?") == {"kofi"}
    assert asked_holders("Where'm I meant to park?") == {SELF}
    assert asked_holders("Which school?") == frozenset()
    # "my" before a role asks about that person, unless the question asks who or what the role is
    assert asked_holders("Where does my older sister work?") == {"self:sister", "sister"}
    assert asked_holders("Which school does our son go to?") == {"self:son", "son"}
    assert asked_holders("Who is my dentist now?") == asked_holders("What's my manager called?") == {SELF}
    assert asked_holders("Who is my current dentist?") == asked_holders("What's my dentist's name?") == {SELF}
    assert asked_holders("Who is my sister dating?") == {"self:sister", "sister"}
    assert asked_holders("Where does my sister's husband work?") == {"sister:husband", "husband"}


@pytest.mark.parametrize(("question", "statement"), [
    ("Where does Tomas live?", "We helped Tomas carry his boxes into the flat on Bank Street."),  # names him
    ("Which gym do I go to?", "PureGym on Canal Street has far more squat racks."),  # the value is the subject
    ("Which bank do I use?", "Monzo has all my wages going in now."),
    ("Who is my physio?", "Marta at Riverside Physio has sorted out my knee."),  # the person asked for
    ("What does Luna eat?", "The vet switched Luna to a grain-free kibble."),  # a role without an owner
    ("Where do I work?", "Started at the new bakery on Monday."),  # no subject: the speaker's own
    ("Who is Omar's boss?", "My brother Omar's boss, Linda, keeps calling him at weekends."),  # her role, Omar's
    ("Where does my sister live?", "My sister moved to Leeds in the spring."),  # the role asked about
    ("Where does my dad live?", "Dad's settled into his flat at Willow Court."),  # the role as a name
    ("Where do I live?", "Keys collected, first night in the Portobello house."),  # "Keys" is no person
])
def test_a_statement_that_leaves_the_fact_with_the_asked_holder(nlp, question, statement):
    assert about_asked_holder(question, nlp.parse([statement])[0])


@pytest.mark.parametrize(("question", "statement"), [
    ("Where do I live?", "My cousin Rafael lives in Porto these days."),
    ("Where does Elena work?", "Elena's husband Tom works at the council."),
    ("Where does Elena work?", "Tom started at the council last month."),
    ("What does Pip eat?", "My neighbour's cat eats tinned tuna."),
    ("Who is my manager?", "Sofia's manager is the head of sales."),
    ("What car do I drive?", "He drives a battered old Volvo."),
    ("Who is my dentist?", "My daughter Mia's orthodontist is Dr Grant."),  # Mia's, beside "my daughter"
    ("Where does my sister live?", "I moved to Leeds in the spring."),  # the user, not the sister
    ("Where does my sister's husband work?", "My sister started at Monzo on Monday."),  # not her husband
    ("Where do I live?", "Mum's moved to Leeds."),  # a role as a name is a person
    ("Where does Priya live?", "Dad's settled into his flat at Willow Court."),
])
def test_a_statement_about_somebody_else(nlp, question, statement):
    assert not about_asked_holder(question, nlp.parse([statement])[0])


def _unit(text: str, day: int) -> MemoryUnit:
    at = datetime(2025, 3, day, tzinfo=timezone.utc)
    return MemoryUnit(id=uuid4(), agent_id="a", text=text, memory_type=MemoryType.EPISODIC, event_date=at,
                      created_at=at, importance=0.5)


@pytest.mark.parametrize(("question", "statement", "states"), [
    ("When is book club?", "Book club has moved to Thursdays at the library.", True),
    ("When does my lease end?", "Signed the renewal papers for the lease today.", False),
    ("When is practice?", "Practice is at 11:30 going forward.", True),  # a clock time the parser leaves untagged
    ("When is football training?", "Football training starts at 6pm from this season.", True),
    ("Who is my accountant?", "Priya Shah at Ledger & Co does my tax return now.", True),
    ("Who is my broadband provider?", "The router password is now maple-kettle-42.", False),  # a value, not a who
    ("Where does Tomas live?", "Tomas finally bought a place in Leith.", True),
    ("How much is our rent?", "The landlord wants 1,450 a month from June.", True),
    ("Which phone do I have?", "Treated myself to a Pixel 9 last week.", True),
    ("What do I drive?", "The car is making a funny noise again.", False),  # names no value
    ("What happened at the party?", "Tomas finally bought a place in Leith.", False),  # an event, no attribute
    ("What's my allotment plot called?", "We renamed the plot Bean There last spring.", True),  # a naming word
    ("What's our boat called?", "The boat is Sea Biscuit now, after a fresh coat of paint.", True),  # the thing
    ("What's our boat called?", "Bought rope and paint at Harbour Chandlers this morning.", False),  # a name beside
])
def test_the_newer_must_give_a_value_of_the_kind_asked(nlp, question, statement, states):
    assert states_asked_kind(question, _fact(nlp, "Nothing was said before."), _fact(nlp, statement)) is states


def test_the_older_value_said_again_is_no_new_value(nlp):
    older = _fact(nlp, "My physio is Dana Kerr.")
    assert not states_asked_kind("Who is my physio?", older, _fact(nlp, "Dana Kerr fixed my shoulder in two sessions."))
    assert states_asked_kind("Who is my physio?", older, _fact(nlp, "Tom Reyes fixed my shoulder in two sessions."))


def _fact(nlp, text: str) -> Fact:
    return Fact(uuid4(), text, datetime(2025, 3, 1, tzinfo=timezone.utc), nlp.parse([text])[0])


@pytest.mark.parametrize(("newer", "later"), [
    ("These days the Saturday parkrun at Heaton Park is my thing.", True),
    ("Should I switch to the parkrun at Heaton Park?", False),  # a question states no value
    ("I also do the Wednesday track session at the stadium.", False),  # an addition
    ("Visited my aunt and ran the parkrun in Bath while I was there.", False),  # a stay elsewhere
    ("Ran the Heaton Park parkrun on holiday, what a course.", False),
    ("My sister runs the Heaton Park parkrun every week.", False),  # another holder
])
def test_a_later_value_needs_no_veto_and_the_asked_holder(nlp, newer, later):
    older, newer = [_unit("I run the Saturday parkrun at Lyme Park.", 1)], [_unit(newer, 20)]
    expected = (older[0], newer[0], True) if later else None
    assert LaterValue(nlp)("Which parkrun do I run?", older, newer, False) == expected


def test_a_question_marking_the_present_needs_no_value_of_the_kind_asked(nlp):
    older, newer = [_unit("My dentist is Dr Hale on Brook Street.", 1)], [_unit("I changed dentists last month.", 20)]
    assert LaterValue(nlp)("Who is my dentist?", older, newer, False) is None  # names no one
    assert LaterValue(nlp)("Who is my dentist now?", older, newer, True) == (older[0], newer[0], False)


def test_an_answer_is_read_by_its_statement_not_the_question_beside_it(nlp):
    # the newer message's best unit for the question is its question; the statement beside it is the value
    older = [_unit("I take sertraline 50mg in the morning.", 1), _unit("Is it OK with a glass of wine?", 1)]
    asked, stated = _unit("What side effects of Citalopram should I look out for?", 20), \
        _unit("The doctor switched me to Citalopram last week.", 20)
    assert LaterValue(nlp)("What do I take in the morning?", older, [asked, stated], True) == (older[0], stated, False)
    assert LaterValue(nlp)("What do I take in the morning?", older, [asked], True) is None  # a question alone


def test_the_value_may_be_in_another_sentence_of_the_message(nlp):
    older = [_unit("My broadband is with Virgin Media.", 1)]
    newer = [_unit("The Virgin Media contract is finally cancelled.", 20),
             _unit("Hyperoptic put the fibre in on Tuesday and it flies.", 20)]
    assert LaterValue(nlp)("Who is my broadband with?", older, newer, False) == (older[0], newer[0], False)
    assert LaterValue(nlp)("Who is my broadband with?", older, newer[:1], False) is None  # no new name
    again = [_unit("My broadband is with Virgin Media.", 1), _unit("Hyperoptic keep knocking on the door.", 1)]
    assert LaterValue(nlp)("Who is my broadband with?", again, newer, False) is None  # the older message named it


def test_a_later_message_is_tied_to_the_question_by_a_new_value_and_the_asked_holder(nlp):
    older = [_unit("Ines is allergic to peanuts and carries an EpiPen.", 1)]
    cookies = [_unit("Peanut butter cookies are on offer at the corner shop, batch 4.", 20)]
    assert LaterValue(nlp)("What is Ines allergic to?", older, cookies, False) == (older[0], cookies[0], False)
    named = [_unit("Ines found out she is allergic to Brazil nuts as well.", 20)]
    assert LaterValue(nlp)("What is Ines allergic to?", older, named, False) is None  # an addition
    moved = [_unit("Ines has switched to Oatly since the tests.", 20)]
    assert LaterValue(nlp)("What does Ines drink?", [_unit("Ines drinks Alpro soya milk.", 1)], moved, False)[2]


@pytest.mark.parametrize(("question", "statement", "named"), [
    ("Who is my GP?", "I've registered with Dr Obi at Castle Street surgery.", True),  # "GP" is no person
    ("Which company do I work for?", "Started at Monzo on Monday.", True),  # no subject: the speaker
    ("Which company do I work for?", "Great news for Monzo customers today.", False),  # a noun, not a verb
    ("What is Ines allergic to?", "Ines reacted badly to Brazil nuts.", True),
])
def test_a_statement_names_the_asked_holder(nlp, question, statement, named):
    assert names_asked_holder(question, nlp.parse([statement])[0]) is named
