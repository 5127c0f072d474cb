"""Facts that change without a link: a question about the present gets the later of two statements
of one speaker first when it is nearly as relevant or states the asked holder's later value; a
question about the past, the vector preset, statements of two speakers and another holder's
statement are left as ranked. Real models."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from fleet_memory.recall.presets import get_preset

pytestmark = pytest.mark.models

OLD = "We're still renting the flat on Mill Road for now."
NEW = "Boxes everywhere: we got the keys to the house in Didsbury on Saturday, goodbye rented flat."
CHATTER = ["Can you suggest a quick pasta recipe?", "The football last night was a great match."]
NOW = datetime(2024, 7, 1, tzinfo=timezone.utc)


def _store(mem, agent: str, speakers: tuple[str | None, str | None]):
    for i, text in enumerate(CHATTER):
        mem.put(agent, text, event_date=datetime(2024, 3, 1 + i, tzinfo=timezone.utc))
    mem.put(agent, OLD, event_date=datetime(2024, 2, 3, tzinfo=timezone.utc), speaker=speakers[0])
    mem.put(agent, NEW, event_date=datetime(2024, 6, 11, tzinfo=timezone.utc), speaker=speakers[1])


@contextmanager
def _margins_only(mem) -> Iterator[None]:
    """Recall without the holder test of ``newer_leads`` (``ingest.asked_holder``)."""
    same_fact, mem._recall.same_fact = mem._recall.same_fact, None
    try:
        yield
    finally:
        mem._recall.same_fact = same_fact


def _top(mem, agent: str, query: str, **options) -> list[str]:
    return [r.text for r in mem.search(agent, query, now=NOW, reinforce=False, top_k=3, **options)]


def test_the_later_statement_leads_for_the_present_only(real_memory):
    _store(real_memory, "one", (None, None))
    assert all(u.valid_until is None for u in real_memory.list_units("one").units)  # no link: the rule's miss
    present = real_memory.search("one", "Where do we live these days?", now=NOW, reinforce=False, explain=True)
    assert present[0].text == NEW and present[1].text == OLD
    assert "newer_leads" in present[1].explanation.factors
    past = real_memory.search("one", "Where did we live before?", now=NOW, reinforce=False, explain=True)
    assert not any("newer_leads" in r.explanation.factors for r in past)
    vector = _top(real_memory, "one", "Where do we live these days?", preset="vector")
    assert vector.index(OLD) < vector.index(NEW)  # the old wording is the closer one


def test_two_speakers_are_not_one_fact(real_memory):
    _store(real_memory, "two", ("Ana", "Ben"))
    assert _top(real_memory, "two", "Where do we live these days?")[0] == OLD


def test_nearly_as_relevant_reads_closeness_in_cosine_too(real_memory):
    # the older repeats the question's noun ("school"): 1.9 ahead in relevance, level in cosine
    old, new = "My nephew Sam is a pupil at Kingsbridge School.", "Sam transferred to Hillview Academy in the spring."
    for i, text in enumerate(CHATTER):
        real_memory.put("cos", text, event_date=datetime(2024, 3, 1 + i, tzinfo=timezone.utc))
    real_memory.put("cos", old, event_date=datetime(2024, 1, 10, tzinfo=timezone.utc))
    real_memory.put("cos", new, event_date=datetime(2024, 5, 20, tzinfo=timezone.utc))
    assert all(u.valid_until is None for u in real_memory.list_units("cos").units)  # no link
    assert _top(real_memory, "cos", "Which school is Sam at now?")[:2] == [new, old]
    assert _top(real_memory, "cos", "Which school does Sam go to?")[:2] == [new, old]
    assert _top(real_memory, "cos", "Which school did Sam go to before?")[:2] == [old, new]
    tight = replace(get_preset("balanced"), newer_leads_cosine=0.0)
    with _margins_only(real_memory):  # the holder test would lead with the newer anyway
        assert _top(real_memory, "cos", "Which school is Sam at now?", preset=tight)[:2] == [old, new]


def _put_all(mem, agent: str, dated: list[tuple[str, int]]) -> None:
    for i, text in enumerate(CHATTER):
        mem.put(agent, text, event_date=datetime(2024, 3, 1 + i, tzinfo=timezone.utc))
    for text, month in dated:
        mem.put(agent, text, event_date=datetime(2024, month, 5, tzinfo=timezone.utc))


def test_the_asked_holders_later_value_leads_however_much_less_relevant(real_memory):
    # the older repeats the question's words; the newer says the change in other words
    old = "My dentist is Dr Hale at the Brook Street dental practice."
    new = "Dr Obi at Castle Dental did my filling today and it barely hurt."
    _put_all(real_memory, "far", [(old, 1), (new, 5)])
    assert all(u.valid_until is None for u in real_memory.list_units("far").units)  # no link
    question = "Which dentist do I go to?"
    hits = real_memory.search("far", question, now=NOW, reinforce=False, explain=True)
    assert [h.text for h in hits[:2]] == [new, old]
    assert "newer_leads" in hits[1].explanation.factors
    with _margins_only(real_memory):  # the newer is too far behind for the margins alone
        assert _top(real_memory, "far", question)[:2] == [old, new]


def test_another_holders_later_statement_does_not_lead(real_memory):
    old = "My dentist is Dr Hale at the Brook Street dental practice."
    other = "My brother Kwame sees Dr Obi at Castle Dental and says she barely hurts."
    _put_all(real_memory, "other", [(old, 1), (other, 5)])
    assert _top(real_memory, "other", "Which dentist do I go to?")[:2] == [old, other]


def test_the_units_of_one_message_are_one_answer(real_memory):
    # both sentences of the older message rank above the newer one: the newer leads them both
    old = ("I'm a nurse at St Mary's Hospital in Paddington. "
           "The night shifts at St Mary's Hospital are long but I love the ward.")
    new = "Finished my first week on the children's ward at Leeds General Infirmary."
    _put_all(real_memory, "one-put", [(old, 1), (new, 5)])
    assert all(u.valid_until is None for u in real_memory.list_units("one-put").units)  # no link
    with _margins_only(real_memory):
        assert _top(real_memory, "one-put", "Which hospital do I work at?")[2] == new
    hits = _top(real_memory, "one-put", "Which hospital do I work at?")
    assert hits[0] == new and all(h in old for h in hits[1:3])


def test_a_message_is_read_by_its_statement_not_its_question(real_memory):
    # the newer message's best unit for the question is its own question, which states no value
    old = "My dentist is Dr Hale at the Brook Street dental practice."
    new = ("Dr Obi at Castle Dental did my filling today and it barely hurt. "
           "Should I ask my dentist about whitening too?")
    _put_all(real_memory, "asked", [(old, 1), (new, 5)])
    assert all(u.valid_until is None for u in real_memory.list_units("asked").units)  # no link
    hits = _top(real_memory, "asked", "Which dentist do I go to?")
    assert hits[0] in new and old in hits[1:3]


def test_an_old_value_told_in_several_sentences_does_not_raise_the_bar(real_memory):
    # the older message's three sentences rank above the newer one: counted per unit they made the
    # pool's median, and the newer stood below it; per answer (a put's best unit) it does not
    old = ("My password manager is 1Password. I keep every password in 1Password. "
           "The 1Password family plan covers the kids too.")
    new = "Spent Sunday evening copying all the logins into Bitwarden, what a job."
    _put_all(real_memory, "three", [(old, 1), (new, 5)])
    assert all(u.valid_until is None for u in real_memory.list_units("three").units)  # no link
    hits = real_memory.search("three", "Which password manager do I use?", now=NOW, reinforce=False, top_k=10)
    assert hits[0].text == new and hits[1].text in old


def test_a_question_that_uses_the_value_tells_it_and_one_that_weighs_it_does_not(real_memory):
    old = "My laptop is a ThinkPad X1 Carbon from work."
    uses = "How do I turn off the fan noise on my Dell XPS 15 when it sits on my lap?"
    weighs = "Should I get a Dell XPS 15 for photo editing?"
    _put_all(real_memory, "uses", [(old, 1), (uses, 5)])
    _put_all(real_memory, "weighs", [(old, 1), (weighs, 5)])
    assert _top(real_memory, "uses", "What laptop do I have?")[:2] == [uses, old]
    assert _top(real_memory, "weighs", "What laptop do I have?")[0] == old
