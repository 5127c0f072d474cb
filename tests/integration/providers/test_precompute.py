"""The parser's and the recogniser's precomputing layer run by torch (``providers.precompute``)
gives thinc's array: the padding row first, then every token's product, within float rounding."""

import numpy as np
import pytest

from fleet_memory.providers.nlp import _load_fast, _load_spacy
from fleet_memory.providers.precompute import NAME, use_torch_precompute

pytestmark = pytest.mark.models

TEXTS = ["Caroline went to the LGBTQ support group in Boston yesterday.", "", "Hi",
         "Guido continued his work on Python at CNRI in Reston, Virginia, where he released several versions."]


def _layers(nlp, component: str):
    model = nlp.get_pipe(component).model
    return model, [n for n in model.walk() if n.name in ("precomputable_affine", NAME)]


def test_the_torch_layer_gives_thincs_array_on_real_token_vectors() -> None:
    fast, _, _, _ = _load_fast(None)
    shipped = _load_spacy(None)
    for component in ("parser", "ner"):
        model, (swapped,) = _layers(fast, component)
        _, (original,) = _layers(shipped, component)
        assert swapped.name == NAME and original.name == "precomputable_affine"
        docs = [shipped.make_doc(t) for t in TEXTS]
        for name, pipe in shipped.pipeline:  # the parser's listener reads the tok2vec component's vectors
            if name == "tok2vec":
                docs = list(pipe.pipe(docs))
        tokens = model.layers[0].predict(docs)
        want, got = original.predict(tokens), swapped.predict(tokens)
        assert got.shape == want.shape == (sum(map(len, docs)) + 1, *want.shape[1:])
        assert np.array_equal(got[0], want[0])  # the padding row
        assert float(np.abs(got - want).max()) < 1e-4
        assert swapped.predict(tokens[:0]).shape == (1, *want.shape[1:])  # no tokens: the padding alone
        with pytest.raises(NotImplementedError, match="predicts only"):
            swapped(tokens, is_train=True)  # inference only: its weights are not thinc's to train


def test_only_spacys_precomputing_layer_is_swapped() -> None:
    from thinc.api import Linear, chain

    class Pipeline:  # a pipeline whose components hold no precomputing layer
        pipe_names = ["parser"]

        @staticmethod
        def get_pipe(name):
            return type("Pipe", (), {"model": chain(Linear(4, 4), Linear(4, 4))})()

    assert use_torch_precompute(Pipeline()) == []
