"""The spaCy parse with the real model: the recogniser runs only on texts that can name something,
and what it finds there is what the whole pipeline finds."""

import pytest

from fleet_memory.providers.nlp import SpacyNLP, _load_spacy, may_name

TEXTS = [
    "Alice joined Google last year.",  # proper nouns
    "we met caroline in New York.",  # capitals inside the sentence
    "Congrats!",  # a first word the small model calls NORP
    "I love it, and I'm keeping it.",  # only "I"
    "She moved to Berlin in March 2024.",
]


@pytest.mark.models
def test_the_recogniser_runs_only_where_a_name_can_be():
    model = _load_spacy(None)
    assert [may_name(d) for d in model.pipe(TEXTS, disable=["ner"])] == [True, True, False, False, True]
    whole = list(model.pipe(TEXTS))
    parsed = SpacyNLP().parse(TEXTS)
    ours = [[(e.text, e.label) for e in p.ents] for p in parsed]
    assert [ours[i] for i in (0, 1, 4)] == [[(e.text, e.label_) for e in whole[i].ents] for i in (0, 1, 4)]
    assert ours[1] == [("New York", "GPE")] and ("Berlin", "GPE") in ours[4]
    assert ours[2] == ours[3] == [] and [e.label_ for e in whole[2].ents] == ["NORP"]  # "Congrats" is no name
    assert [[(t.tag, t.dep, t.head) for t in p.tokens] for p in parsed] == \
        [[(t.tag_, t.dep_, t.head.i) for t in doc] for doc in whole]
