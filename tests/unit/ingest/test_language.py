"""Coreference, validation and NER stages over the rule-based test parser (no model)."""

from datetime import timedelta

import pytest

from fleet_memory.clock import FixedClock
from fleet_memory.ingest.coref import resolve_coreferences
from fleet_memory.ingest.ner import clean_name, find_entities
from fleet_memory.ingest.records import CorefFact, Episode, ExtractedFact, NamedFact, ParsedFact
from fleet_memory.ingest.validate import is_complete, plan_units
from fleet_memory.providers.nlp import Parsed, Span, Token
from tests.support.rule_nlp import RuleNLP

NOW = FixedClock().now()
NLP = RuleNLP({"Alice": "PERSON", "Bob": "PERSON", "Google": "ORG", "Yosemite": "GPE", "Acme": "ORG"})


def _run(contents, speakers=None, dates=None):
    speakers = speakers or [None] * len(contents)
    dates = dates or [NOW] * len(contents)
    episodes = [Episode("a", c, d, speaker=s) for c, s, d in zip(contents, speakers, dates)]
    facts = [ExtractedFact(i, c, "episodic", speaker=s) for i, (c, s) in enumerate(zip(contents, speakers))]
    parsed = [ParsedFact(f, p) for f, p in zip(facts, NLP.parse([f.text for f in facts]))]
    named = find_entities(episodes, parsed)
    return episodes, parsed, named, resolve_coreferences(episodes, named)


def test_she_becomes_the_last_person_mentioned():
    *_, coref = _run(["Alice works at Google.", "She joined Google last year."])
    assert [c.coref.text for c in coref] == ["Alice works at Google.", "Alice joined Google last year."]
    assert [r.surface for r in coref[1].coref.referents] == ["Alice"]


def test_gender_picks_the_compatible_person_and_possessives_take_s():
    *_, coref = _run(["Alice met Bob.", "She liked his idea."])
    assert coref[1].coref.text == "Alice liked Bob's idea."


def test_a_person_already_in_the_sentence_is_not_repeated():
    *_, coref = _run(["Bob joined Acme.", "Alice said she loves hiking."])
    assert coref[1].coref.text == "Alice said she loves hiking."


def test_no_referent_leaves_the_pronoun():
    *_, coref = _run(["She loves hiking."])
    assert coref[0].coref.text == "She loves hiking." and coref[0].coref.referents == ()


def test_discourse_restarts_after_a_long_gap():
    *_, coref = _run(["Alice works at Google.", "She loves hiking."], dates=[NOW - timedelta(days=5), NOW])
    assert coref[1].coref.text == "She loves hiking."


def test_first_person_in_a_turn_is_the_speaker_with_agreement():
    *_, coref = _run(["I love my dog.", "I'm moving to Yosemite.", "I have a me-time ritual."],
                     speakers=["Ann", "Ann", "Ann"])
    assert [c.coref.text for c in coref] == ["Ann loves Ann's dog.", "Ann is moving to Yosemite.",
                                       "Ann has a me-time ritual."]


def test_it_refers_to_the_single_thing_of_the_previous_sentence_only_as_an_argument():
    *_, coref = _run(["Acme released a phone.", "It sold well.", "Acme is big.", "It is raining."])
    assert coref[1].coref.text == "Acme sold well."
    assert coref[3].coref.text == "It is raining."  # subject of "be": left alone
    *_, coref = _run(["Acme released a phone.", "It feels cheap."])
    assert coref[1].coref.text == "It feels cheap."  # how something is: left alone too
    *_, coref = _run(["My bio says 'Alice joined Acme.'", "It sold well."])
    assert coref[1].coref.text == "It sold well."  # the thing was named inside a quotation
    *_, coref = _run(["Did you read 'Acme'?", "It sold well."])
    assert coref[1].coref.text == "Acme sold well."  # a title in quote marks quotes no one's words


def test_validation_needs_subject_and_verb_and_merges_fragments():
    texts = ["Especially in spring.", "Alice loves hiking.", "Mostly in Yosemite.", "Bob runs."]
    _, parsed, _, coref = _run(texts)
    assert [is_complete(p.parse) for p in parsed] == [False, True, False, True]
    # each is its own episode here: a fragment alone is kept as a subjectless unit (3+ words)
    plans = plan_units(coref)
    assert [[m.fact.text for m in p.members] for p in plans] == [[t] for t in texts]
    assert [p.subjectless for p in plans] == [True, False, True, False]
    short = _run(["In spring.", "Bob runs."])[3]
    assert [[m.fact.text for m in p.members] for p in plan_units(short)] == [["Bob runs."]]
    same = [CorefFact(NamedFact(ParsedFact(ExtractedFact(0, c.fact.text, "episodic"), c.parse), ()), c.coref)
            for c in coref]
    assert [[m.fact.text for m in p.members] for p in plan_units(same)] == [texts[:3], texts[3:]]


def test_ner_keeps_named_labels_cleans_and_completes_missed_names():
    tokens = tuple(Token(w, " ", t, p, d, 1) for w, t, p, d in [
        ("Alice", "NNP", "PROPN", "nsubj"), ("met", "VBD", "VERB", "ROOT"), ("Zed", "NNP", "PROPN", "dobj")])
    missed = Parsed(tokens, ())
    tagged = Parsed(tokens, (Span("Alice", "PERSON", 0, 1), Span("Zed", "PERSON", 2, 3),
                             Span("the kids", "ORG", 0, 1), Span("2023", "DATE", 0, 1)))
    fact = ExtractedFact(0, "Alice met Zed", "episodic")
    named = find_entities([Episode("a", "x", NOW)], [ParsedFact(fact, tagged), ParsedFact(fact, missed)])
    spans = [n.spans for n in named]
    assert [(s.text, s.label) for s in spans[0]] == [("Alice", "PERSON"), ("Zed", "PERSON")]
    assert [(s.text, s.label) for s in spans[1]] == [("Alice", "PERSON"), ("Zed", "PERSON")]  # learnt from the batch
    assert clean_name("the Louvre's") == "Louvre"


def test_a_given_name_the_model_calls_a_person_once_is_a_person_everywhere_in_the_batch():
    """"paired with Tomasz and Zainab, … Zainab the lit review": the small model's GPE, then PERSON;
    a name off the lists keeps each label ("Porto")."""
    words = [("Met", "VBD", "VERB", "ROOT"), ("Zainab", "NNP", "PROPN", "dobj"), ("and", "CC", "CCONJ", "cc"),
             ("Porto", "NNP", "PROPN", "conj")]
    tokens = tuple(Token(w, " ", t, p, d, 0) for w, t, p, d in words)
    place = Parsed(tokens, (Span("Zainab", "GPE", 1, 2), Span("Porto", "GPE", 3, 4)))
    person = Parsed(tokens, (Span("Zainab", "PERSON", 1, 2), Span("Porto", "PERSON", 3, 4)))
    fact = ExtractedFact(0, "Met Zainab and Porto", "episodic")
    named = find_entities([Episode("a", "x", NOW)], [ParsedFact(fact, place), ParsedFact(fact, person)])
    assert [[(s.text, s.label) for s in n.spans] for n in named] == [
        [("Zainab", "PERSON"), ("Porto", "GPE")], [("Zainab", "PERSON"), ("Porto", "PERSON")]]


def test_sentence_openers_are_entities_only_when_the_batch_knows_them():
    def parsed(words, ents, first_tag="NNP"):
        tokens = tuple(Token(w, " ", first_tag if i == 0 else ("NNP" if w[0].isupper() else "NN"), "PROPN", "dep", 0)
                       for i, w in enumerate(words))
        return ParsedFact(ExtractedFact(0, " ".join(words), "episodic"), Parsed(tokens, ents))

    items = [parsed(["Nah", "thanks"], (Span("Nah", "PERSON", 0, 1),)),
             parsed(["Time", "flies"], (Span("Time", "ORG", 0, 1),), first_tag="NN"),
             parsed(["Google", "hired", "Bob"], (Span("Google", "ORG", 0, 1),)),
             parsed(["Paris", "is", "lovely"], (Span("Paris", "GPE", 0, 1),)),
             parsed(["We", "love", "Paris"], (Span("Paris", "GPE", 2, 3),)),
             parsed(["Alice", "called"], (Span("Alice", "ORG", 0, 1),)),
             parsed(["ya", ",", "Mel"], (Span("ya, Mel", "ORG", 0, 3),))]
    spans = [n.spans for n in find_entities([Episode("a", "x", NOW)], items)]
    assert [[s.text for s in found] for found in spans] == [[], [], ["Google", "Bob"], ["Paris"], ["Paris"],
                                                            ["Alice"], []]
    assert spans[5][0].label == "PERSON"  # a known first name, whatever the small model said


def test_a_sentence_opening_person_is_kept_when_it_is_a_given_name_and_a_verbs_subject():
    def parsed(words, pos, deps, heads):
        tokens = tuple(Token(w, " ", "NNP" if p == "PROPN" else "XX", p, d, h)
                       for w, p, d, h in zip(words, pos, deps, heads))
        ents = (Span(words[0], "PERSON", 0, 1),)
        return ParsedFact(ExtractedFact(0, " ".join(words), "episodic"), Parsed(tokens, ents))

    items = [parsed(["Gareth", "is", "reasonable"], ["PROPN", "AUX", "ADJ"], ["nsubj", "ROOT", "acomp"], [1, 1, 1]),
             parsed(["Slideshow", "is", "done"], ["PROPN", "AUX", "VERB"], ["nsubj", "ROOT", "acomp"], [1, 1, 1]),
             parsed(["Dmitri", "my", "words"], ["PROPN", "PRON", "NOUN"], ["ROOT", "poss", "dobj"], [0, 2, 0]),
             parsed(["Gareth", ",", "hi"], ["PROPN", "PUNCT", "INTJ"], ["nsubj", "punct", "ROOT"], [2, 2, 2])]
    spans = [n.spans for n in find_entities([Episode("a", "x", NOW)], items)]
    assert [[(s.text, s.label) for s in found] for found in spans] == [[("Gareth", "PERSON")], [], [], []]


def test_an_acronym_the_model_calls_a_person_is_an_org():
    tokens = tuple(Token(w, " ", t, p, d, 1) for w, t, p, d in [
        ("Updated", "VBD", "VERB", "ROOT"), ("my", "PRP$", "PRON", "poss"), ("CV", "NNP", "PROPN", "dobj")])
    fact = ExtractedFact(0, "Updated my CV", "episodic")
    [named] = find_entities([Episode("a", "x", NOW)], [ParsedFact(fact, Parsed(tokens, (Span("CV", "PERSON", 2, 3),)))])
    assert [(s.text, s.label) for s in named.spans] == [("CV", "ORG")]


@pytest.mark.parametrize("word, label", [("PhD", "ORG"), ("Thu", "DATE"), ("Wed", "DATE"), ("McKay", "PERSON"),
                                         ("iPad", "PRODUCT")])
def test_a_degree_a_short_day_or_a_brand_the_model_calls_a_person_is_none(word, label):
    tokens = tuple(Token(w, " ", t, p, d, 1) for w, t, p, d in [
        ("Met", "VBD", "VERB", "ROOT"), (word, "NNP", "PROPN", "dobj")])
    fact = ExtractedFact(0, f"Met {word}", "episodic")
    [named] = find_entities([Episode("a", "x", NOW)], [ParsedFact(fact, Parsed(tokens, (Span(word, "PERSON", 1, 2),)))])
    assert [(s.text, s.label) for s in named.spans] == [(word, label)]


def test_in_a_conversation_she_is_not_one_of_the_speakers():
    *_, coref = _run(["Thanks Alice, Bob met Mary.", "She loves Yosemite."], speakers=["Bob", "Bob"])
    assert coref[1].coref.text == "Mary loves Yosemite."
    *_, coref = _run(["Alice said hello.", "She loves Yosemite."], speakers=["Bob", "Alice"])
    assert coref[1].coref.text == "She loves Yosemite."


def test_a_unit_takes_at_most_max_fragments_the_nearest_ones():
    from fleet_memory.ingest.validate import MAX_FRAGMENTS

    before = [f"Especially in spring number {i}." for i in range(MAX_FRAGMENTS + 3)]
    after = [f"Mostly in Yosemite number {i}." for i in range(MAX_FRAGMENTS + 5)]
    texts = before + ["Alice loves hiking."] + after + ["Bob runs."]
    coref = _run(texts)[3]
    one_episode = [CorefFact(NamedFact(ParsedFact(ExtractedFact(0, c.fact.text, "episodic"), c.parse), ()), c.coref)
                   for c in coref]
    first, second = ([m.fact.text for m in p.members] for p in plan_units(one_episode))
    assert first == before[-MAX_FRAGMENTS:] + ["Alice loves hiking."]  # full: nothing after it fits
    assert second == ["Bob runs."]
    plans = plan_units(one_episode[len(before):])
    assert [m.fact.text for m in plans[0].members] == ["Alice loves hiking."] + after[:MAX_FRAGMENTS]


def test_plans_over_windows_cut_anywhere_are_the_plans_of_one_pass():
    """``UnitPlanner`` fed the facts in pieces cut at every place (across episodes, fragments,
    kept code) gives ``plan_units``'s plans over all of them."""
    import random

    from fleet_memory.ingest.validate import UnitPlanner

    texts = ["Especially in spring.", "Alice loves hiking.", "Mostly in Yosemite.", "Bob runs.", "Wow.",
             "In the morning light."]
    coref = _run(texts)[3]
    rng = random.Random(5)
    for _ in range(40):
        facts = []
        for i in range(rng.randint(5, 30)):
            c = rng.choice(coref)
            fact = ExtractedFact(i // rng.randint(3, 8), c.fact.text, "episodic",
                                 kind="code" if rng.random() < 0.05 else "text")
            facts.append(CorefFact(NamedFact(ParsedFact(fact, c.parse), ()), c.coref))
        whole = [[id(m) for m in p.members] for p in plan_units(facts)]
        cuts = sorted(rng.sample(range(1, len(facts)), rng.randint(1, 4)))
        planner, pieces = UnitPlanner(), [facts[a:b] for a, b in zip([0] + cuts, cuts + [len(facts)])]
        plans = [p for piece in pieces for p in planner.add(piece)] + planner.finish()
        assert [[id(m) for m in p.members] for p in plans] == whole
        assert [p.subjectless for p in plans] == [p.subjectless for p in plan_units(facts)]


def test_an_acronym_that_spells_a_given_name_is_no_person():
    tokens = tuple(Token(w, " ", t, p, d, 2) for w, t, p, d in [
        ("my", "PRP$", "PRON", "poss"), ("IRA", "NNP", "PROPN", "compound"), ("account", "NN", "NOUN", "ROOT")])
    fact = ExtractedFact(0, "my IRA account", "episodic")
    [named] = find_entities([Episode("a", "x", NOW)], [ParsedFact(fact, Parsed(tokens, ()))])
    assert named.spans == ()  # "Ira" is a given name; "IRA" is not
