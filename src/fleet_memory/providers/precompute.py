"""The parser's and the recogniser's precomputed hidden vectors by torch: the same product, in
less than half the time.

spaCy's transition-based components (the dependency parser, the named-entity recogniser) start a
batch by multiplying every token's vector with their first hidden layer once for each state
feature (``PrecomputableAffine``: tokens × 64 against 64 × features·hidden·pieces, 1,024 columns
for the parser), then read those rows as they decode. thinc runs that product through BLIS, which
on this machine's CPU falls back to its generic kernels (about 35 GFLOP/s, against 90 for torch on
one thread). ``use_torch_precompute(nlp)`` swaps that layer of both components for one that makes
the same array by torch on one thread, with the same padding row first; everything after it, the
decoding included, is unchanged. The LoCoMo dev turns' parse: 4.8 → 3.9 s, every tag, head,
label and entity the same.

A layer is swapped only when it is spaCy's ``precomputable_affine`` and its output agrees with
thinc's on probe inputs to ``tok2vec.AGREEMENT``, the bound the torch token vectors meet too (the
two sum in another order: differences of about 1e-6).
"""

from __future__ import annotations

import numpy as np

from .tok2vec import AGREEMENT, predict_only

__all__ = ["NAME", "use_torch_precompute"]

NAME = "torch-precomputable-affine"
"""The swapped layer's name (``providers.greedy_ner`` reads the recogniser's layer by it)."""


def use_torch_precompute(nlp) -> list[str]:
    """In a loaded spaCy pipeline: the parser's and the recogniser's precomputing layer swapped for
    its torch run where it agrees; returns the names of the components swapped."""
    swapped = []
    for name in ("parser", "ner"):
        if name not in nlp.pipe_names:
            continue
        model = nlp.get_pipe(name).model
        lower = next((n for n in model.walk() if n.name == "precomputable_affine"), None)
        if lower is None or not all(lower.has_dim(d) for d in ("nF", "nO", "nP", "nI")):
            continue
        dims = {d: lower.get_dim(d) for d in ("nF", "nO", "nP", "nI")}
        weights = _torch_weights(lower.get_param("W"), dims)
        layer = predict_only(NAME, _precomputed, dims=dims, attrs={"weights": weights},
                             params={p: lower.get_param(p) for p in ("W", "b", "pad")})
        if _agrees(lower, layer):
            model.replace_node(lower, layer)
            swapped.append(name)
    return swapped


def _torch_weights(weights: np.ndarray, dims: dict[str, int]):
    import torch

    width = dims["nF"] * dims["nO"] * dims["nP"]
    return torch.from_numpy(np.ascontiguousarray(weights.reshape(width, dims["nI"]).T, dtype=np.float32))


def _precomputed(model, tokens: np.ndarray) -> np.ndarray:
    """``PrecomputableAffine``'s output: row 0 the padding, then each token's product, shaped
    (tokens + 1, features, hidden, pieces)."""
    import torch

    from .compute import torch_threads

    n_f, n_o, n_p = (model.get_dim(d) for d in ("nF", "nO", "nP"))
    out = np.empty((tokens.shape[0] + 1, n_f, n_o, n_p), dtype=np.float32)
    if tokens.shape[0]:
        rows = torch.from_numpy(out[1:].reshape(tokens.shape[0], n_f * n_o * n_p))
        with torch.inference_mode(), torch_threads(1):
            torch.matmul(torch.from_numpy(np.ascontiguousarray(tokens, dtype=np.float32)), model.attrs["weights"],
                         out=rows)
    out[0] = model.get_param("pad")[0]
    return out


def _agrees(thinc_layer, torch_layer) -> bool:
    probe = np.random.default_rng(7).standard_normal((64, thinc_layer.get_dim("nI"))).astype(np.float32)
    want, got = thinc_layer.predict(probe), torch_layer.predict(probe)
    return want.shape == got.shape and float(np.abs(want - got).max()) <= AGREEMENT
