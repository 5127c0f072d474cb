"""A lean encoder for sentence-transformers models made of a BERT, mean pooling and normalisation
(all-MiniLM-L6-v2, the default, is one): the same vectors as ``SentenceTransformer.encode`` from
the same files, loaded with torch, ``tokenizers`` and ``safetensors`` only.

Why: a server restart waits for the embedder. Importing sentence-transformers pulls in
scikit-learn and SciPy, and ``transformers``' model classes pull in most of transformers
(quantisation, distributed tensors, …): several times torch's own import before the first vector.
The encoder itself is a few matrix products. Figures: ``docs/benchmarks.md``.

``load(path)`` returns a ``BertMeanPooled`` when the folder holds exactly that recipe (modules.json:
Transformer, Pooling with mean tokens only, Normalize; config.json: ``model_type`` bert with
absolute positions and GELU; ``model.safetensors``; ``tokenizer.json``), else None and the caller
uses sentence-transformers. ``encode`` tokenises every text (truncated at the model's
``max_seq_length``, as sentence-transformers does, overriding the tokenizer file's own padding and
truncation), sorts them by token count and cuts batches of texts of similar length
(``batches``), each padded to its longest text; runs the encoder (one attention per layer:
``scaled_dot_product_attention`` with the padding masked), mean-pools over real tokens and
normalises, through a TorchScript trace of the encoder when that gives the same vectors
(``BertMeanPooled._graph``: it runs without holding the GIL). Cost: O(batch × tokens² × layers) per
batch, as for any BERT; no state changes after loading, so concurrent calls are safe.

``precision``: ``float32`` gives sentence-transformers' vectors to float rounding; ``bfloat16``
runs the encoder layers' matrix products in bfloat16 (``BertMeanPooled._use_bfloat16``: faster on
a CPU that has it in hardware, vectors within ``BFLOAT16_AGREEMENT``); ``auto``, the facade's
default, takes bfloat16 where the CPU has it (``native_bfloat16``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..config import EMBEDDING_PRECISIONS as PRECISIONS

__all__ = ["BertMeanPooled", "PRECISIONS", "batches", "load", "native_bfloat16"]

BFLOAT16_AGREEMENT = 0.999
"""The bfloat16 encoder is used only when its vectors have at least this cosine with float32's on
the probes."""

SIMILAR_LENGTH = 0.8
"""A batch takes a text only while it has at least this share of the batch's longest text's tokens
(or while the batch is small, ``MIN_BATCH_TOKENS``)."""

MIN_BATCH_TOKENS = 256
"""A batch whose padded size (texts × longest) is under this takes the next text whatever its
length: the matrix products of a few short rows run far below the rate of large ones, so a batch
of one or two texts costs more than the padding it saves."""

_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"


def _read(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _recipe(folder: Path) -> tuple[dict, int] | None:
    """The BERT config and max_seq_length when ``folder`` is a mean-pooled, normalised BERT."""
    modules = _read(folder / "modules.json")
    if not isinstance(modules, list) or [m.get("type") for m in modules] != [_TRANSFORMER, _POOLING, _NORMALIZE]:
        return None
    if modules[0].get("path") not in ("", "."):
        return None
    pooling = _read(folder / modules[1].get("path", "") / "config.json") or {}
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode")}
    if not modes.get("pooling_mode_mean_tokens") or any(v for k, v in modes.items() if k != "pooling_mode_mean_tokens"):
        return None
    config = _read(folder / "config.json") or {}
    bert_like = (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
                 and config.get("position_embedding_type", "absolute") == "absolute")
    if not bert_like or not (folder / "model.safetensors").is_file() or not (folder / "tokenizer.json").is_file():
        return None
    st_config = _read(folder / "sentence_bert_config.json") or {}
    if st_config.get("do_lower_case"):
        return None  # lower-casing before the tokenizer: leave it to sentence-transformers
    max_len = int(st_config.get("max_seq_length") or config.get("max_position_embeddings", 512))
    return config, min(max_len, int(config.get("max_position_embeddings", 512)))


def load(path: str, precision: str = "float32") -> BertMeanPooled | None:
    folder = Path(path)
    recipe = _recipe(folder) if folder.is_dir() else None
    return BertMeanPooled(folder, *recipe, precision=precision) if recipe else None


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AVX-512 BF16 or AMX); elsewhere oneDNN
    emulates it, slower than float32."""
    import torch

    try:
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    except AttributeError:  # a torch without these probes: assume not
        return False


def batches(lengths: list[int], most: int) -> list[list[int]]:
    """Indices of ``lengths`` in batches of at most ``most``, longest first; a batch takes the next
    text while it has at least ``SIMILAR_LENGTH`` of the batch's longest (so padding stays under a
    fifth of each batch), or while the batch is under ``MIN_BATCH_TOKENS`` padded. Every index
    once; the same lengths give the same batches. Why: a put's sentences run from a few tokens to
    many, and a mixed batch padded to its longest spends much of its work on padding."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    out: list[list[int]] = []
    for i in order:
        if out and len(out[-1]) < most and (lengths[i] >= SIMILAR_LENGTH * (longest := lengths[out[-1][0]])
                                            or longest * len(out[-1]) < MIN_BATCH_TOKENS):
            out[-1].append(i)
        else:
            out.append([i])
    return out


class BertMeanPooled:
    """The encoder with its weights and tokenizer; ``encode(texts)`` → (n, hidden) unit vectors."""

    def __init__(self, folder: Path, config: dict, max_seq_length: int, *, precision: str = "float32") -> None:
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.max_seq_length = max_seq_length
        self.dimension = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = load_file(str(folder / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {k[len(prefix):]: v.float() for k, v in weights.items() if k.startswith(prefix)}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        self.tokenizer.no_padding()  # padded per batch, to the batch's longest (``encode``)
        self.pad_id = int(config.get("pad_token_id", 0))
        if precision == "auto":
            precision = "bfloat16" if native_bfloat16() else "float32"
        if precision not in ("float32", "bfloat16"):
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.precision = "float32"
        self._low: dict = {}  # the encoder layers' matrices and biases in bfloat16, when that is used
        self._run = self._graph() or self._forward
        if precision == "bfloat16":
            self._use_bfloat16()

    def _use_bfloat16(self) -> None:
        """Switch the encoder layers' matrix products to bfloat16 (inputs cast down, outputs back
        up: embeddings, layer norms, attention and pooling stay float32), keeping it only if the
        vectors agree with float32's on probe batches (``BFLOAT16_AGREEMENT``).

        Why: the products are nearly all of the encoder's time, and a CPU with bfloat16 in
        hardware runs them several times as fast, for vectors within ``BFLOAT16_AGREEMENT``."""
        import torch

        exact_run = self._run
        self._low = {k: v.bfloat16() for k, v in self.w.items() if k.startswith("encoder.") and "LayerNorm" not in k}
        self.precision = "bfloat16"
        self._run = self._graph() or self._forward
        ids = torch.arange(3 * 21, dtype=torch.int64).reshape(3, 21) * 37 % 20000 + 1000
        mask = torch.ones_like(ids)
        mask[1, 9:] = 0
        with torch.inference_mode():
            agreement = (self._run(ids, mask) * exact_run(ids, mask)).sum(1).min().item()
        if agreement < BFLOAT16_AGREEMENT:
            self._low, self.precision, self._run = {}, "float32", exact_run

    def _graph(self):
        """``_forward`` traced into a TorchScript graph, or None when tracing fails or the graph does
        not give ``_forward``'s vectors on probe batches of other shapes than it was traced with.

        Why: the graph runs in C++ without holding the GIL; ``_forward`` takes it back between
        every one of its ~80 operations. When another thread runs Python meanwhile — ingestion
        parses the next window with spaCy while a worker thread embeds the last one; a search runs
        its first statements while the query is embedded — each handover can wait for that
        thread's switch interval; traced, an embed beside a parsing thread runs as fast as alone."""
        import warnings

        import torch

        try:
            probe = torch.ones((2, 8), dtype=torch.int64)
            with torch.inference_mode(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the tracer's notes on shapes
                graph = torch.jit.trace(self._forward, (probe, probe), check_trace=False)
                for batch, tokens in ((1, 3), (5, 19)):
                    ids = torch.arange(batch * tokens, dtype=torch.int64).reshape(batch, tokens) % 1000 + 1000
                    mask = torch.ones_like(ids)
                    mask[0, tokens // 2:] = 0  # padding, masked
                    if not torch.allclose(graph(ids, mask), self._forward(ids, mask), atol=1e-5):
                        return None
            return graph
        except Exception:  # a torch without TorchScript, or an operation it cannot trace: eager
            return None

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        import torch

        encodings = self.tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        with torch.inference_mode():
            for chunk in batches(lengths, batch_size):
                longest = lengths[chunk[0]]
                ids = np.full((len(chunk), longest), self.pad_id, dtype=np.int64)
                mask = np.zeros((len(chunk), longest), dtype=np.int64)
                for row, i in enumerate(chunk):
                    ids[row, :lengths[i]] = encodings[i].ids
                    mask[row, :lengths[i]] = 1
                out[chunk] = self._run(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
        return out

    def _forward(self, ids, mask):
        import torch
        from torch.nn import functional as F

        w, width = self.w, self.dimension
        positions = torch.arange(ids.shape[1])
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = F.layer_norm(x, (width,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        keep = mask[:, None, None, :].bool()  # (batch, 1, 1, tokens): attend to real tokens only
        for layer in range(self.layers):
            x = self._layer(x, keep, f"encoder.layer.{layer}.")
        weights = mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)

    def _layer(self, x, keep, p: str):
        from torch.nn import functional as F

        w, (batch, tokens, width) = self.w, x.shape
        head = width // self.heads

        def split(name: str):
            y = self._linear(x, f"{p}attention.self.{name}")
            return y.view(batch, tokens, self.heads, head).transpose(1, 2)

        context = F.scaled_dot_product_attention(split("query"), split("key"), split("value"), attn_mask=keep)
        context = context.transpose(1, 2).reshape(batch, tokens, width)
        attended = self._linear(context, f"{p}attention.output.dense")
        x = F.layer_norm(attended + x, (width,), w[f"{p}attention.output.LayerNorm.weight"],
                         w[f"{p}attention.output.LayerNorm.bias"], self.eps)
        inner = F.gelu(self._linear(x, f"{p}intermediate.dense", keep_low=True))
        out = self._linear(inner, f"{p}output.dense")
        return F.layer_norm(out + x, (width,), w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"],
                            self.eps)

    def _linear(self, x, name: str, *, keep_low: bool = False):
        """``x`` times a layer's matrix, plus its bias: in bfloat16 when that is used, the result
        back in float32 unless ``keep_low`` (the feed-forward's inner activations go through GELU
        into the next product in bfloat16: a little faster, the same agreement)."""
        from torch.nn import functional as F

        if self._low:
            y = F.linear(x if x.dtype == self._low[f"{name}.weight"].dtype else x.bfloat16(),
                         self._low[f"{name}.weight"], self._low[f"{name}.bias"])
            return y if keep_low else y.float()
        return F.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])
