"""The spaCy parse with the real model, through spaCy's own ``pipe``: every token's annotations are
the whole pipeline's, and the recogniser runs only on texts that can name something, finding there
what the whole pipeline finds."""

import pytest

from fleet_memory.providers.nlp import PARALLEL_MIN, SpacyNLP, load_spacy, may_name

TEXTS = [
    "Alice joined Google last year.",  # proper nouns
    "we met caroline in New York.",  # capitals inside the sentence
    "Congrats!",  # a first word the small model calls NORP
    "I love it, and I'm keeping it.",  # only "I"
    "She moved to Berlin in March 2024.",
]


@pytest.mark.models
def test_the_recogniser_runs_only_where_a_name_can_be():
    model = load_spacy(None)
    assert [may_name(d) for d in model.pipe(TEXTS, disable=["ner"])] == [True, True, False, False, True]
    whole = list(model.pipe(TEXTS))
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
