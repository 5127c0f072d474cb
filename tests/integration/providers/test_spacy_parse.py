"""The spaCy parse with the real model, through spaCy's own ``pipe``: every token's annotations are
those of the model as shipped (whose attribute ruler has every rule), and the recogniser runs only
on texts that can name something, finding there what the whole pipeline finds."""

import pytest

from fleet_memory.providers.nlp import PARALLEL_MIN, SpacyNLP, load_spacy, may_name, shipped

TEXTS = [
    "Alice joined Google last year.",  # proper nouns
    "we met caroline in New York.",  # capitals inside the sentence
    "Congrats!",  # a first word the small model calls NORP
    "I love it, and I'm keeping it.",  # only "I"
    "She moved to Berlin in March 2024.",
]


@pytest.fixture(scope="module")
def as_shipped():
    """The model as shipped, every attribute-ruler rule in (loaded once for this module)."""
    return shipped(None)


@pytest.mark.models
def test_the_recogniser_runs_only_where_a_name_can_be(as_shipped):
    model = load_spacy(None)
    assert [may_name(d) for d in model.pipe(TEXTS, disable=["ner"])] == [True, True, False, False, True]
    whole = list(as_shipped.pipe(TEXTS))
    parsed = SpacyNLP().parse(TEXTS)
    ours = [[(e.text, e.label, e.start, e.end) for e in p.ents] for p in parsed]
    theirs = [[(e.text, e.label_, e.start, e.end) for e in doc.ents] for doc in whole]
    assert [ours[i] for i in (0, 1, 4)] == [theirs[i] for i in (0, 1, 4)]
    assert [e[:2] for e in ours[1]] == [("New York", "GPE")] and ("Berlin", "GPE") in [e[:2] for e in ours[4]]
    assert ours[2] == ours[3] == [] and [e.label_ for e in whole[2].ents] == ["NORP"]  # "Congrats" is no name
    assert [[(t.text, t.ws, t.tag, t.pos, t.dep, t.head) for t in p.tokens] for p in parsed] == \
        [[(t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i) for t in doc] for doc in whole]


@pytest.mark.models
def test_a_long_call_parsed_on_threads_gives_the_one_thread_records():
    """Real text of several shapes, long enough to be cut into batches on two threads: every token
    and entity as one thread parses it, in the callers' order."""
    names = [f"{a} {b}." for a in ("Kelvo", "Tamri", "Osk", "Priya") for b in ("Brashu", "Quen", "Lind")]
    texts = [TEXTS[i % len(TEXTS)] if i % 3 else names[i % len(names)] for i in range(PARALLEL_MIN + 300)]
    texts = [f"{t} ({i})" for i, t in enumerate(texts)]  # distinct texts, so order is checked too
    threaded, single = SpacyNLP(batch_size=64), SpacyNLP(batch_size=64, threads=1)
    assert threaded.parse(texts) == single.parse(texts)


# what the attribute ruler's rules are about: contractions, dropped g's, "I" as a subject, "'s" as
# "is", "has" or an owner's, auxiliaries, numbers, symbols, tabs and blank lines
RULED = [
    "I ain't goin' anywhere, y'know, 'cause nothin's changed.",
    "She's been to Lisbon twice and it's Maria's favourite city.",
    "We gotta go, it's gonna rain — wanna come?",
    "Lemme know if ya need owt, I'll be doin' the shopping.",
    "My number's 07700 900123 and my email is ana@example.com.",
    "He'd've said so if he'd known.\tThe cat's got 3 kittens!",
    "Can't, won't, shouldn't; ol' Tom does his own thing.\n\nOK?",
    "They don't live here any more; their flat was sold for £350,000 in 2023.",
]


@pytest.mark.models
def test_every_record_is_the_model_as_shipped_with_all_its_ruler_rules(as_shipped):
    """The ruler cut to the rules a record reads changes no tag, POS, dependency, head or entity."""
    texts = TEXTS + RULED
    model = load_spacy(None)
    assert len(model.get_pipe("attribute_ruler").patterns) < len(as_shipped.get_pipe("attribute_ruler").patterns)
    whole = list(as_shipped.pipe(texts))
    parsed = SpacyNLP(threads=1).parse(texts)
    assert [[(t.text, t.ws, t.tag, t.pos, t.dep, t.head) for t in p.tokens] for p in parsed] == \
        [[(t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i) for t in doc] for doc in whole]
    named = [may_name(doc) for doc in whole]  # the recogniser runs there alone (the first test)
    assert [[(e.text, e.label, e.start, e.end) for e in p.ents] for p, n in zip(parsed, named) if n] == \
        [[(e.text, e.label_, e.start, e.end) for e in doc.ents] for doc, n in zip(whole, named) if n]
    assert sum(named) >= 8


@pytest.mark.models
def test_the_mirror_stands_in_when_the_official_package_fails_to_load(monkeypatch):
    import spacy

    load = spacy.load

    def broken(name, **kwargs):
        if name == "en_core_web_sm":
            raise OSError("a broken install")
        return load(name, **kwargs)

    monkeypatch.setattr(spacy, "load", broken)
    assert shipped(None).pipe_names == ["tok2vec", "tagger", "parser", "attribute_ruler", "ner"]
