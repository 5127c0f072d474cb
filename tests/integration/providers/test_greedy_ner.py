"""The recogniser decoded over the whole batch with NumPy (``providers.greedy_ner``) finds spaCy's
entities: the same spans and labels as the component's own loop, on the same parsed docs."""

import pytest
from spacy.tokens import Doc

from fleet_memory.providers.greedy_ner import GreedyNER
from fleet_memory.providers.nlp import _load_fast

pytestmark = pytest.mark.models

TEXTS = [
    "Caroline went to the LGBTQ support group in New York City yesterday and it was so powerful.",
    "Melanie: I'm swamped with the kids. Jon and Gina painted Lake Tahoe at sunrise last year!",
    "Guido van Rossum continued his work on Python at CNRI in Reston, Virginia, in 1995.",
    "The Python Software Foundation released Python 3.12 on 2 October 2023 for $0 in Amsterdam.",
    "Barack Obama\n\nmet   Angela Merkel in Berlin.  Then Paris.",  # whitespace tokens, a sentence break
    "Obama", "", "   ", "Tell Oscar I said hi!", "Nate bought 3 tickets for $40 to see the Lakers on Friday.",
    "Ünïcödé ☃ 日本語 text about Tokyo, with emoji 🎉 and tabs\tand\nnew lines from Kyoto.",
    " ".join(f"Maria met Jon at Café Central in Vienna on {d} May." for d in range(1, 30)),  # long, many sentences
] + [f"Sentence {i} about Jon's dance studio in Paris, opened on {i} May by the Smith family." for i in range(60)]


def _parsed(nlp, texts) -> list[Doc]:
    docs = [nlp.make_doc(t) for t in texts]
    for name, component in nlp.pipeline:
        if name != "ner":
            docs = list(component.pipe(docs))
    return docs


def test_the_batch_decoding_finds_spacys_entities() -> None:
    nlp, _, _, decoder = _load_fast(None)
    assert decoder is not None
    ner = nlp.get_pipe("ner")
    want = [[(e.start, e.end, e.label_) for e in d.ents] for d in ner.pipe(_parsed(nlp, TEXTS))]
    got = decoder(_parsed(nlp, TEXTS))
    assert [[(e.start, e.end, e.label_) for e in d.ents] for d in got] == want
    assert sum(map(len, want)) > 100  # the texts name many things, of many labels
    assert {label for spans in want for _, _, label in spans} >= {"PERSON", "GPE", "DATE", "ORG", "MONEY"}
    # a doc's entities are its own: the same alone as in any batch, and every token is now in or out
    alone = decoder(_parsed(nlp, TEXTS[:1]))[0]
    assert [(e.start, e.end, e.label_) for e in alone.ents] == want[0]
    assert all(t.ent_iob_ in ("B", "I", "O") for d in got for t in d)


def test_another_recogniser_is_left_to_spacy() -> None:
    nlp, _, _, _ = _load_fast(None)
    assert GreedyNER.of(nlp.get_pipe("parser"), nlp.make_doc) is None  # arc-eager moves, not BILUO
    ner = nlp.get_pipe("ner")
    wide = type("Beam", (), {"cfg": {**ner.cfg, "beam_width": 4}, "model": ner.model, "moves": ner.moves})()
    assert GreedyNER.of(wide, nlp.make_doc) is None
