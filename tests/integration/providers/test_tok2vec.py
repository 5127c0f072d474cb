"""spaCy's token-to-vector networks run by torch (``providers.tok2vec``) give thinc's vectors, and
the parse through them is the shipped model's, tag for tag and entity for entity."""

import numpy as np
import pytest

from fleet_memory.providers.nlp import SpacyNLP, _load_fast, _load_spacy
from fleet_memory.providers.tok2vec import TorchTok2Vec

pytestmark = pytest.mark.models

SENTENCES = [
    "Caroline went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I'm swamped with the kids, but we painted a lake sunrise last year!",
    "Guido continued his work on Python at CNRI in Reston, Virginia, where he released several versions.",
    "Hi", "", "   ", "ok", "She moved to Berlin in March 2024.",
    "The Python Software Foundation (PSF) holds the copyright; see https://docs.python.org/3/license.html.",
    "Nate and Joanna played Xenoblade Chronicles 2 until 3 a.m. — then ordered $40 of pizza.",
    "Ünïcödé ☃ 日本語 text, with emoji 🎉 and tabs\tand\nnew lines.",
] + [f"Sentence {i} about Jon's dance studio in Paris, opened on {i} May." for i in range(40)]


def _docs(nlp, texts):
    return [nlp.make_doc(t) for t in texts]


def test_the_torch_run_gives_thincs_vectors() -> None:
    nlp = _load_spacy(None)  # the model as shipped: thinc runs both networks
    networks = {"tok2vec": nlp.get_pipe("tok2vec").model}
    ner = [n for n in nlp.get_pipe("ner").model.walk()
           if n.name.startswith("extract_features>>") and "with_array(residual" in n.name and "list2array" not in n.name]
    networks["ner"] = ner[0]
    for name, model in networks.items():
        run = TorchTok2Vec.of(model, nlp.make_doc)
        assert run is not None, name
        docs = _docs(nlp, SENTENCES)
        want, got = model.predict(docs), run(docs)
        assert [g.shape for g in got] == [w.shape for w in want]
        assert max(float(np.abs(g - w).max()) for g, w in zip(got, want) if w.size) < 1e-4, name
        # each sentence's vectors are its own: the same alone as in any batch
        alone = run(docs[:1])[0]
        assert np.allclose(alone, got[0], atol=1e-5)


def test_another_network_is_left_to_thinc() -> None:
    from thinc.api import Linear, chain

    nlp = _load_spacy(None)
    assert TorchTok2Vec.of(nlp.get_pipe("parser").model, nlp.make_doc) is None  # a listener, not a network
    assert TorchTok2Vec.of(chain(Linear(4, 4), Linear(4, 4)), nlp.make_doc) is None


def test_the_fast_parse_is_the_shipped_models_parse() -> None:
    """``SpacyNLP`` (its own copy, both networks by torch, the attribute ruler as a lookup, the
    recogniser decoded by ``providers.greedy_ner``) against
    spaCy's own ``pipe`` over the shipped model: the same tags, dependencies, heads, and the same
    entities wherever the recogniser runs."""
    from fleet_memory.providers.nlp import may_name

    nlp, _, tok2vec, ner = _load_fast(None)
    assert tok2vec is not None and ner is not None
    assert any(n.name == "torch-tok2vec" for n in nlp.get_pipe("ner").model.walk())
    shipped = _load_spacy(None)
    assert shipped is not nlp and not any(n.name == "torch-tok2vec" for n in shipped.get_pipe("ner").model.walk())
    parsed = SpacyNLP().parse(SENTENCES)
    whole = list(shipped.pipe(SENTENCES))
    assert [[(t.tag, t.pos, t.dep, t.head) for t in p.tokens] for p in parsed] == \
        [[(t.tag_, t.pos_, t.dep_, t.head.i) for t in doc] for doc in whole]
    assert [[(e.text, e.label) for e in p.ents] for p, doc in zip(parsed, whole) if may_name(doc)] == \
        [[(e.text, e.label_) for e in doc.ents] for doc in whole if may_name(doc)]
