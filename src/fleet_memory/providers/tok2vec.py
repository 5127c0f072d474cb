"""spaCy's token-to-vector network run by torch: the same vectors, in about half the time.

``en_core_web_sm`` turns each token into a vector with ``spacy.Tok2Vec.v2``: ``MultiHashEmbed``
(each of a few token attributes — NORM, PREFIX, SUFFIX, SHAPE … — hashed four ways into a table
of rows, the four rows summed; the attributes' vectors concatenated, then a maxout layer with
layer normalisation) and ``MaxoutWindowEncoder`` (``depth`` residual layers, each a maxout with
layer normalisation over a token and its ``window`` neighbours on either side). The tagger and the
parser read the shared ``tok2vec`` component's vectors; the named-entity recogniser has a network
of the same shape of its own. ``tok2vec`` alone was about half of the parse (3.2 of 6.6 s for the
8,906 LoCoMo dev sentences), run by thinc's NumPy ops one small matrix product after another.

``TorchTok2Vec.of(model, make_doc)`` reads the weights out of such a thinc model and runs the same
arithmetic with torch on one thread: the hashes are thinc's own (``NumpyOps.hash``), the sentences
of a batch are laid end to end with ``pad`` zero rows before each and after the last, exactly as
thinc's ``with_array(pad=…)`` lays them, so every token sees the same neighbours (a sentence never
sees the next one: ``pad`` covers the receptive field). It returns None — the caller keeps thinc —
for any model of another shape, and when its vectors differ from thinc's on probe sentences by
more than ``AGREEMENT`` (measured: at most 4e-6 over the LoCoMo sentences, float rounding).
Measured on one thread, 8,906 sentences: thinc 3.2 s, this 1.75 s.

``use_torch_tok2vec(nlp)`` swaps the named-entity recogniser's own network for this one in a
loaded pipeline (thinc's ``replace_node``); ``Tok2VecPipe`` stands in for the ``tok2vec``
component in a parse loop, handing its vectors to the listening tagger and parser as the
component does (``set_annotations``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

__all__ = ["AGREEMENT", "Tok2VecPipe", "TorchTok2Vec", "predict_only", "use_torch_tok2vec"]

AGREEMENT = 1e-4
"""Largest absolute difference from thinc's vectors on the probes for the torch run to be used."""

_PROBES = ("Hi!", "Caroline went to the LGBTQ support group yesterday and loved it.",
           "Melanie: I'm swamped with work, but the kids painted a lake last weekend.",
           "Dr. O'Neil moved to San Francisco in March 2024 to work at Google as a data scientist.",
           "", "ok", "The    spaces   and\ttabs\nand new lines.", "こんにちは 123 4.5 $6 #tag @user https://x.org")


class TorchTok2Vec:
    """A ``spacy.Tok2Vec.v2`` network's weights in torch; ``__call__(docs)`` → one (tokens, width)
    float32 array per doc, as the thinc model's ``predict`` gives them."""

    def __init__(self, columns: list, hashes: list[tuple[int, int, object]], maxouts: list[tuple[object, object, int]],
                 norms: list[tuple[object, object]], window: int, pad: int) -> None:
        self.columns = columns  # attribute ids for Doc.to_array
        self.hashes = hashes  # (column, seed, table) per hashed attribute
        self.maxouts = maxouts  # (W as (nO*nP, nI), b as (nO*nP,), nP): the embedding's first, then each layer's
        self.norms = norms  # (G, b) after each maxout
        self.window = window
        self.pad = pad
        from thinc.api import NumpyOps

        self._ops = NumpyOps()

    @classmethod
    def of(cls, model, make_doc) -> TorchTok2Vec | None:
        """The torch run of a thinc ``Tok2Vec.v2`` chain (MultiHashEmbed without static vectors,
        MaxoutWindowEncoder), or None when ``model`` is anything else or its vectors disagree with
        thinc's on probe sentences (made into docs by ``make_doc``, the pipeline's tokenizer)."""
        try:
            built = cls._read(model)
        except (KeyError, ValueError, AttributeError, TypeError):
            return None
        return built if built is not None and built._agrees(model, make_doc) else None

    @classmethod
    def _read(cls, model) -> TorchTok2Vec | None:
        import torch

        nodes = list(model.walk())
        names = [n.name for n in nodes]
        allowed = {"extract_features", "list2ragged", "ragged2list", "ints-getitem", "hashembed", "maxout",
                   "layernorm", "dropout", "expand_window", "residual", "with_array", "concatenate", "chain"}
        if any(n.name.split("(")[0] not in allowed and ">>" not in n.name and "|" not in n.name for n in nodes):
            return None  # static vectors, another encoder: not this network
        features = [n for n in nodes if n.name == "extract_features"]
        hash_nodes = [n for n in nodes if n.name == "hashembed"]
        maxout_nodes = [n for n in nodes if n.name == "maxout"]
        norm_nodes = [n for n in nodes if n.name == "layernorm"]
        windows = {n.attrs["window_size"] for n in nodes if n.name == "expand_window"}
        residuals = names.count("residual(expand_window>>maxout>>layernorm>>dropout)")
        if (len(features) != 1 or not hash_nodes or len(windows) != 1 or residuals < 1
                or len(maxout_nodes) != residuals + 1 or len(norm_nodes) != residuals + 1):
            return None
        encoder = [n for n in nodes if n.name.startswith("with_array(residual(")]
        if len(encoder) != 1:
            return None
        from spacy.attrs import intify_attr

        def tensor(array) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32))

        maxouts = []
        for node in maxout_nodes:
            n_out, pieces, n_in = (node.get_dim(d) for d in ("nO", "nP", "nI"))
            maxouts.append((tensor(node.get_param("W")).reshape(n_out * pieces, n_in),
                            tensor(node.get_param("b")).reshape(n_out * pieces), pieces))
        return cls(
            columns=[intify_attr(c) for c in features[0].attrs["columns"]],
            hashes=[(int(n.attrs["column"]), int(n.attrs["seed"]), tensor(n.get_param("E"))) for n in hash_nodes],
            maxouts=maxouts,
            norms=[(tensor(n.get_param("G")), tensor(n.get_param("b"))) for n in norm_nodes],
            window=windows.pop(),
            pad=int(encoder[0].attrs.get("pad", 0)),
        )

    def _agrees(self, model, make_doc) -> bool:
        docs = [make_doc(text) for text in _PROBES]
        want = model.predict(docs)
        got = self(docs)
        return all(a.shape == b.shape and (a.size == 0 or float(np.abs(a - b).max()) <= AGREEMENT)
                   for a, b in zip(want, got))

    def __call__(self, docs: Sequence) -> list[np.ndarray]:
        import torch

        from .compute import torch_threads

        lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
        width = self.norms[0][0].shape[0]
        if not lengths.sum():
            return [np.zeros((0, width), dtype=np.float32) for _ in docs]
        ids = np.concatenate([d.to_array(self.columns).reshape(len(d), len(self.columns)) for d in docs])
        ids = ids.astype(np.uint64)
        with torch.inference_mode(), torch_threads(1):
            tables = []
            for column, seed, table in self.hashes:
                keys = self._ops.hash(np.ascontiguousarray(ids[:, column]), seed) % table.shape[0]
                tables.append(table[torch.from_numpy(keys.astype(np.int64))].sum(1))
            tokens = self._maxout(0, torch.cat(tables, 1))
            # thinc's flatten(pad=…): pad zero rows before every doc and after the last
            starts = np.cumsum(lengths + self.pad) - lengths
            rows = torch.from_numpy(np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
                                    + np.arange(int(lengths.sum())))
            x = torch.zeros(int(lengths.sum()) + self.pad * (len(docs) + 1), width)
            x[rows] = tokens
            for layer in range(1, len(self.maxouts)):
                x = x + self._maxout(layer, self._window(x))
            out = x[rows].numpy()
        return np.split(out, np.cumsum(lengths)[:-1])

    def _window(self, x):
        """thinc's ``seq2col``: each row with its ``window`` neighbours before and after it
        (zeros past either end), concatenated in order."""
        import torch
        from torch.nn import functional as F

        shifted = []
        for offset in range(-self.window, self.window + 1):
            if offset < 0:
                shifted.append(F.pad(x[:offset], (0, 0, -offset, 0)))
            elif offset > 0:
                shifted.append(F.pad(x[offset:], (0, 0, 0, offset)))
            else:
                shifted.append(x)
        return torch.cat(shifted, 1)

    def _maxout(self, layer: int, x):
        """thinc's ``maxout`` then ``layernorm`` (population variance + 1e-8), the latter as torch's
        fused ``layer_norm``: the same formula in one pass instead of five (the parse of the LoCoMo
        dev turns 7 % faster, every tag, head, label and entity the same)."""
        from torch.nn import functional as F

        weight, bias, pieces = self.maxouts[layer]
        gain, shift = self.norms[layer]
        y = F.linear(x, weight, bias)
        y = y.view(y.shape[0], -1, pieces).amax(-1)
        return F.layer_norm(y, (y.shape[1],), gain, shift, 1e-8)


class Tok2VecPipe:
    """The ``tok2vec`` component's ``pipe`` with ``TorchTok2Vec``'s vectors: each batch's vectors
    go to the component's listeners and to ``doc.tensor`` (the component's own
    ``set_annotations``), which the tagger and parser read."""

    def __init__(self, component, run: TorchTok2Vec) -> None:
        self.component = component
        self.run = run

    def pipe(self, docs: Iterable, batch_size: int = 128) -> Iterator:
        batch: list = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= batch_size:
                yield from self._annotated(batch)
                batch = []
        if batch:
            yield from self._annotated(batch)

    def _annotated(self, docs: list) -> list:
        self.component.set_annotations(docs, self.run(docs))
        return docs


def use_torch_tok2vec(nlp) -> Tok2VecPipe | None:
    """In a loaded spaCy pipeline: the named-entity recogniser's own token-to-vector network
    swapped for its torch run (when it has one of that shape and it agrees), and a stand-in for
    the ``tok2vec`` component (None when it has none or it does not agree)."""
    if "ner" in nlp.pipe_names:
        ner_model = nlp.get_pipe("ner").model
        inner = [n for n in ner_model.walk() if n.name.startswith("extract_features>>")
                 and "with_array(residual" in n.name and "list2array" not in n.name]
        if len(inner) == 1:
            run = TorchTok2Vec.of(inner[0], nlp.make_doc)
            if run is not None:
                layer = predict_only("torch-tok2vec", lambda model, docs: model.attrs["run"](docs),
                                     attrs={"run": run}, dims={"nO": inner[0].get_dim("nO")})
                ner_model.replace_node(inner[0], layer)
    if "tok2vec" not in nlp.pipe_names:
        return None
    component = nlp.get_pipe("tok2vec")
    run = TorchTok2Vec.of(component.model, nlp.make_doc)
    return Tok2VecPipe(component, run) if run is not None else None


def predict_only(name: str, predict: Callable, **layer) -> object:
    """A thinc layer named ``name`` whose forward pass is ``predict(model, inputs)``, for inference
    only: training through it raises (its weights are not thinc's parameters to update). ``layer``:
    the ``dims``, ``attrs`` and ``params`` of ``thinc.api.Model``."""
    from thinc.api import Model

    def forward(model, inputs, is_train: bool):
        if is_train:
            raise NotImplementedError(f"{name} predicts only")
        return predict(model, inputs), _no_backprop(name)

    return Model(name, forward, **layer)


def _no_backprop(name: str) -> Callable:
    def backprop(d_outputs):
        raise NotImplementedError(f"{name} predicts only")

    return backprop
