"""A unit whose text coreference edited carries a parse made from its sentence's parse
(``ingest.edited_parse``); supersession reads that parse instead of parsing the unit again. On
chat turns the real model parses, supersession's readings of the edited parse — the holders, the
relation's words, the masked text — are the readings of the model's own parse of the new text
(what can differ is in ``edited_parse``'s docstring: none of these turns meets it)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from fleet_memory.ingest.change_rule import masked_text, relation_words, subject_keys
from fleet_memory.providers.nlp import SpacyNLP

pytestmark = pytest.mark.models

TURNS = [
    ("Ann", "I moved to Denver last spring with my husband."),
    ("Ben", "I started a new job at Acme last week."),
    ("Ann", "My sister works at Boeing as an engineer. She loves it there."),
    ("Ben", "I'm swamped with my kids and my job."),
    ("Ann", "I've switched my gym to the one near my office."),
    ("Ben", "My manager Priya taught me a lot already. She grew up in Chennai."),
    ("Ann", "I sold my old car and bought a bike instead."),
    ("Ben", "I am now the team lead for the payments project."),
]


def made(later: dict) -> dict:
    """The parses handed over to be made when asked for, made now (those that can be)."""
    return {text: parse for text, value in later.items() if (parse := value.make()) is not None}


def test_edited_units_read_as_the_model_reads_their_text(memory, clock):
    handed: dict = {}
    keep = memory._ingest.candidate_nlp.keep
    memory._ingest.candidate_nlp.keep = lambda later: (handed.update(made(later)), keep(later))
    start = clock.now() - timedelta(days=1)
    items = [{"speaker": s, "text": t, "timestamp": start + timedelta(minutes=i)} for i, (s, t) in enumerate(TURNS)]
    texts = [t for r in memory.put_many(items, agent_id="chat") for t in r.texts]
    sentences = {s for _, turn in TURNS for s in turn.replace(". ", ".\n").split("\n")}
    edited = sorted(t for t in handed if t not in sentences)
    assert set(handed) == set(texts) and len(edited) >= 8  # every unit has its parse, most of them edited
    real = dict(zip(edited, SpacyNLP().parse(edited)))
    def readings(parse):
        return [t.text for t in parse.tokens], subject_keys(parse), relation_words(parse), masked_text(parse)

    assert {t: readings(handed[t]) for t in edited} == {t: readings(real[t]) for t in edited}


def test_a_relative_s_name_written_beside_the_relation_reads_as_the_model_reads_it(memory, clock):
    """"my daughter" → "my daughter Aoife", "Dad's" → "Dad Tom's" (``ingest.kin``): the edited parse
    keeps the relation in its place with the name its apposition, or makes a bare "Dad" the name's
    compound, as the model parses the new text, and the name is a person's (where the model may not
    say so: it leaves "Aoife" unlabelled there)."""
    handed: dict = {}
    keep = memory._ingest.candidate_nlp.keep
    memory._ingest.candidate_nlp.keep = lambda later: (handed.update(made(later)), keep(later))
    start = clock.now() - timedelta(days=300)
    # two agents: where memory knows a child, a bare "Dad" may be the other parent (``ingest.kin``)
    memory.put("fam", "My daughter Aoife is in 3rd class.", event_date=start, user_id="u1")
    memory.put("fam2", "My dad, Tom, is at Oakfield.", event_date=start, user_id="u1")
    later = [("fam", "My daughter's settling in well at her new school."),
             ("fam2", "Dad's settled in at the care home.")]
    texts = [t for agent, text in later for t in memory.put(agent, text, event_date=clock.now(), user_id="u1").texts]
    assert texts == ["My daughter Aoife's settling in well at her new school.",
                     "Dad Tom's settled in at the care home."]
    real = dict(zip(texts, SpacyNLP().parse(texts)))
    for text, name in zip(texts, ["Aoife", "Tom"]):
        mine, theirs = handed[text], real[text]
        upto = [t.text for t in mine.tokens].index(name) + 1  # the relation and the name (a "'s" after it the
        # model reads as "has" in "Dad's settled" and as a possessive in "Dad Tom's settled": the tree keeps the first)
        assert [(t.text, t.head) for t in mine.tokens[:upto]] == [(t.text, t.head) for t in theirs.tokens[:upto]]
        assert subject_keys(mine) == subject_keys(theirs)
        assert [e.text for e in mine.ents if e.label == "PERSON"] == [name]  # the person memory knows
